"""VS Code's debugger (debugpy) stops in a file dumped by depyf.prepare_debug.

pdb and `sys.settrace` are covered by test_prepare_debug.py; debugpy sets breakpoints
differently (on 3.12+ through `sys.monitoring`, by matching `co_filename` of the code
objects it sees against the breakpoint's path), so it is driven here as VS Code drives
it: a child process runs under `python -m debugpy --listen ... --wait-for-client`, and
this test is the Debug Adapter Protocol client (attach, setBreakpoints,
configurationDone, then waits for the `stopped` event and checks the top frame).
debugpy replaces `sys.breakpointhook`, so the pause of depyf.debug() is a debugpy stop
too: the client continues from it, as a VS Code user would.

The child dumps with prepare_debug, prints the dumped file and a line of it, and waits
for a line on stdin; the client sets the breakpoint there, then lets the child run the
same calls again under depyf.debug() (run-only: the linked code runs). Needs torch and
debugpy (scripts/_setup.sh installs both; a skip is a failure in CI).
"""

import json
import os
import queue
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

debugpy = pytest.importorskip("debugpy")

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = int(os.environ.get("DEPYF_DEBUGPY_TIMEOUT_S", "600"))

CHILD = textwrap.dedent(
    """
    import dis, sys
    sys.path.insert(0, {examples!r})
    import depyf, torch, toy
    with depyf.prepare_debug({dump!r}) as session:
        toy.run("eager")
    record = next(r for r in session.records if r.name == "toy_example")
    assert record.linked, (record.verdict, record.reason)
    lines = sorted({{l for _, l in dis.findlinestarts(record.code)
                    if l is not None and l > record.code.co_firstlineno}})
    print("DUMPFILE", record.path, lines[0], flush=True)
    sys.stdin.readline()
    with depyf.debug():
        results = toy.run("eager")
    for got, want in results:
        torch.testing.assert_close(got, want)
    print("CHILD DONE", flush=True)
    """
)


class DapClient:
    """A minimal Debug Adapter Protocol client over a socket: `Content-Length` framed
    JSON messages (https://microsoft.github.io/debug-adapter-protocol/overview)."""

    def __init__(self, port):
        deadline = time.monotonic() + 120
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        self.buf = b""
        self.seq = 0
        self.events = []

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.seq

    def _read(self):
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("debugpy closed the connection")
            self.buf += chunk
        header, _, rest = self.buf.partition(b"\r\n\r\n")
        length = int(next(l.split(b":")[1] for l in header.split(b"\r\n") if l.lower().startswith(b"content-length")))
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("debugpy closed the connection")
            rest += chunk
        self.buf = rest[length:]
        return json.loads(rest[:length])

    def wait(self, pred):
        """Reads messages until `pred(message)`; returns that message. Events seen on
        the way are kept in `self.events`."""
        for message in self.events:
            if pred(message):
                self.events.remove(message)
                return message
        while True:
            message = self._read()
            if pred(message):
                return message
            if message.get("event") in ("exited", "terminated"):
                raise AssertionError(f"the debuggee ended while waiting: {message}")
            if message.get("type") == "event":
                self.events.append(message)

    def request(self, command, **arguments):
        seq = self.send(command, **arguments)
        response = self.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == seq)
        assert response["success"], response
        return response


class ChildOutput:
    """The child's stdout, read by a thread: debugpy's adapter process inherits the pipe
    and keeps it open after the child ends, so reads must not wait for end of file."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = []
        self.queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.queue.put(line)

    def until(self, prefix):
        """The first line starting with `prefix`; AssertionError with the output so far
        if the child ends or TIMEOUT_S passes first."""
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                line = self.queue.get(timeout=1)
            except queue.Empty:
                if self.proc.poll() is not None and self.queue.empty():
                    break
                continue
            self.lines.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no {prefix!r} line from the child:\n" + "".join(self.lines))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _top_frame(client, stopped):
    frames = client.request("stackTrace", threadId=stopped["body"]["threadId"], startFrame=0, levels=1)
    return frames["body"]["stackFrames"][0]


def test_debugpy_stops_in_dumped_file(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(examples=str(ROOT / "examples"), dump=str(tmp_path / "dump")))
    port = _free_port()
    env = dict(os.environ, PYTHONBREAKPOINT="0", PYDEVD_DISABLE_FILE_VALIDATION="1")
    proc = subprocess.Popen(
        [sys.executable, "-Xfrozen_modules=off", "-u", "-m", "debugpy", "--listen", f"127.0.0.1:{port}",
         "--wait-for-client", str(script)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    timer = threading.Timer(TIMEOUT_S, proc.kill)
    timer.start()
    output = ChildOutput(proc)
    try:
        client = DapClient(port)
        client.request("initialize", adapterID="depyf-test", clientID="depyf-test", linesStartAt1=True,
                       columnsStartAt1=True, pathFormat="path")
        attach = client.send("attach", justMyCode=False)
        client.wait(lambda m: m.get("event") == "initialized")
        client.request("configurationDone")
        client.wait(lambda m: m.get("type") == "response" and m.get("request_seq") == attach)

        _, path, lineno = output.until("DUMPFILE ").split()
        target = (path, int(lineno))
        response = client.request("setBreakpoints", source={"path": target[0]}, breakpoints=[{"line": target[1]}])
        assert response["body"]["breakpoints"][0]["verified"], response
        proc.stdin.write("go\n")
        proc.stdin.flush()

        # debugpy replaces sys.breakpointhook (PYTHONBREAKPOINT does not apply), so the
        # pause of depyf.debug() stops first, as it does for a VS Code user: continue.
        stopped = client.wait(lambda m: m.get("event") == "stopped")
        top = _top_frame(client, stopped)
        if top["name"] == "debug":
            client.request("continue", threadId=stopped["body"]["threadId"])
            stopped = client.wait(lambda m: m.get("event") == "stopped")
            top = _top_frame(client, stopped)
        assert stopped["body"]["reason"] == "breakpoint", stopped
        assert os.path.samefile(top["source"]["path"], target[0]), (top, target)
        assert top["line"] == target[1], (top, target)
        assert top["name"] == "toy_example", top
        client.request("setBreakpoints", source={"path": target[0]}, breakpoints=[])
        client.request("continue", threadId=stopped["body"]["threadId"])
        output.until("CHILD DONE")
        client.send("disconnect")
        client.sock.close()
        rc = proc.wait(timeout=120)
    finally:
        timer.cancel()
        proc.kill()
    assert rc == 0, "".join(output.lines)
