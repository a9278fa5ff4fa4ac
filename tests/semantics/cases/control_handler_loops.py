"""Loops that only an `except` clause goes back to: the normal exit of the `try`
body leaves the loop (`else: break`, `break` or `return` after the `try`), so every
back edge of the loop is in handler code (issue #5, duplication limit)."""

from _sem import case


def _flaky(fails):
    """A callable that raises RuntimeError `fails` times, then returns "ok"."""
    left = [fails]

    def call():
        if left[0] > 0:
            left[0] -= 1
            raise RuntimeError("flaky %d" % left[0])
        return "ok"

    return call


@case((0, 3), (2, 3), (3, 3), (5, 3))
def retry_else_break_reraise(fails, limit):
    g = _flaky(fails)
    i = 0
    while True:
        try:
            got = g()
        except RuntimeError:
            i += 1
            if i >= limit:
                raise
        else:
            break
    return {c for c in got if c != "k"}, i


@case((0,), (4,))
def retry_else_break_pass(fails):
    g = _flaky(fails)
    n = 0
    while True:
        try:
            got = g()
        except RuntimeError:
            n += 1
        else:
            break
    return got, n


@case((0,), (2,))
def retry_break_after_try(fails):
    g = _flaky(fails)
    tries = []
    while True:
        try:
            got = g()
        except RuntimeError as e:
            tries.append(str(e))
            continue
        break
    return got, tries


@case((0,), (3,))
def retry_return_after_try(fails):
    g = _flaky(fails)
    n = 0
    while True:
        try:
            got = g()
        except RuntimeError:
            n += 1
            continue
        return got, n


@case((0, True), (2, True), (2, False), (9, True))
def retry_while_cond_else_break(fails, go):
    g = _flaky(fails)
    got = None
    n = 0
    while go:
        try:
            got = g()
        except RuntimeError:
            n += 1
            if n > 3:
                go = False
        else:
            break
    return got, n, go


@case((0, 5), (2, 5), (7, 5))
def retry_else_break_no_tail(fails, limit):
    g = _flaky(fails)
    i = 0
    while True:
        try:
            g()
        except RuntimeError:
            i += 1
            if i >= limit:
                raise ValueError(i)
        else:
            break


class _Sock(object):
    """`recv` pops results from a list: an exception class is raised instead."""

    def __init__(self, script):
        self.script = list(script)
        self.seen = []

    def recv(self, n):
        r = self.script.pop(0)
        if isinstance(r, type):
            raise r("recv")
        return r


@case((["a", "b", ""],), ([InterruptedError, "x", BlockingIOError],), ([InterruptedError, ""],), ([ValueError],))
def continue_in_handler_normal_back_edge_too(script):
    # The `continue` and the loop's own back edge reach the header at different
    # blocks in CPython 3.8-3.10 (the `continue` jumps to the `NOP` before it).
    s = _Sock(script)
    while True:
        try:
            data = s.recv(4096)
            if not data:
                break
            s.seen.append(data)
        except InterruptedError:
            continue
        except BlockingIOError:
            break
    return s.seen, s.script


@case((0, None), (1, None), (2, None), (1, "n"))
def continue_in_try_finally_then_break(k, name):
    # A `continue` inside try/finally whose code after the `try` ends in `break`:
    # the code after the `if` is still the try's body (it once came out after the
    # loop, closing twice: SharedMemory.__init__ on 3.8).
    log = []
    made = [0]

    def mk():
        made[0] += 1
        return made[0]

    while True:
        h = mk()
        try:
            if h <= k:
                if name is not None:
                    raise KeyError(name)
                else:
                    continue
            m = h * 10
        finally:
            log.append(("close", h))
        r = h
        break
    return r, m, log
