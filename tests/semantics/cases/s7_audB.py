"""Session 7 (issue #4), audit of the round-trip "differs" functions of CPython
3.13-3.15 (docs/audit/differs.md): shapes that decompiled into code that behaved
differently, and the shapes next to them.

- A `while c:` loop whose body is a `while True:` that goes round again with
  `continue` without testing `c` (`_pyrepl.unix_console.get_event` on 3.13): read as
  one `while c:`, the `continue` tested `c` again (3.8-3.13).
- A `while c:` whose `try` has an `else` clause: the bottom test of `c` copied into
  the `else` was kept there, before a `continue` that tests `c` once more (3.11-3.13).
- A loop ending a `try` body, left by `break` (asyncio.sslproto `_do_read__copied`):
  the code after the `try` was written inside it (3.11, 3.13-3.15).
- `while c: ... else:` ending a `try` body with `break` in the `else` of an `if`
  (`_do_read__buffered`): the `break` was lost (3.14-3.15).
- Two `return x` in a loop ending a try/finally body (`_sendfile_fallback`): the second
  copy of the exit was read as the end of the body (3.13-3.15).
- A loop test ending a `try` body that CPython 3.14 leaves out of the exception table.
- The same ways out in `with` bodies (none wrong; some refused).
"""

from _sem import case


class _Queue:
    """`empty()` answers from `answers` and records each call."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = 0

    def empty(self):
        self.calls += 1
        return self.answers.pop(0) if self.answers else False


@case(([True, True, True, False], [1, 0, 0]), ([True, True, False, False], [0, 0, 5]), ([True, False], [0, 7]))
def inner_while_true_continue_in_except(answers, items):
    # `continue` of the inner `while True:` retries without calling `q.empty()`.
    q = _Queue(answers)
    items = list(items)
    out = []
    while q.empty():
        while True:
            try:
                out.append(10 // items.pop())
            except ZeroDivisionError:
                if not q.empty():
                    out.append("ready")
                    return out, q.calls
                else:
                    continue
            else:
                break
    return out, q.calls


@case(([True, True, True, False], [1, 0, 0]), ([True, False, True], [0, 0, 3]), ([False], []))
def inner_while_true_continue(answers, items):
    q = _Queue(answers)
    items = list(items)
    out = []
    while q.empty():
        while True:
            if items and items.pop():
                out.append("again")
                continue
            break
        out.append(len(items))
    return out, q.calls


@case(([True, True, True, False], [1, 0, 0, 2]), ([True, False, True], [0, 3]), ([True, True, False], [1, 1]))
def try_else_then_loop_test(answers, items):
    # The `else` clause falls to the test of `q.empty()` once per round.
    q = _Queue(answers)
    items = list(items)
    out = []
    while q.empty():
        try:
            out.append(10 // items.pop())
        except (ZeroDivisionError, IndexError):
            out.append("skip")
            continue
        else:
            out.append("ok")
    return out, q.calls


class _Chunk:
    """A value whose truth test raises KeyError when `bad`."""

    def __init__(self, n, bad=False):
        self.n = n
        self.bad = bad

    def __bool__(self):
        if self.bad:
            raise KeyError(self.n)
        return self.n > 0


class _Reader:
    def __init__(self, chunks):
        self.chunks = list(chunks)

    def read(self):
        if not self.chunks:
            raise KeyError("empty")
        return self.chunks.pop(0)


@case(([2, 1, 0],), ([3],), ([],), ([1, 0, 5],))
def break_out_of_loop_ending_try(ns):
    # The `break` leaves the `try` body: the code after the `try` runs once, outside
    # it (asyncio.sslproto._do_read__copied, 3.11 and 3.13-3.15).
    r = _Reader(_Chunk(n) for n in ns)
    out = []
    chunk = None
    seen = 0
    try:
        while True:
            chunk = r.read()
            if not chunk:
                break
            seen += 1
    except KeyError:
        out.append("again")
    if seen:
        out.append(r.read().n)
    return out, seen


@case(([2, 1, -1],), ([3, -2],), ([1, 0],))
def loop_test_inside_try(ns):
    # The loop's test `not chunk` (its `__bool__`) runs inside the `try`.
    r = _Reader(_Chunk(n, bad=n < 0) for n in ns)
    out = []
    chunk = None
    try:
        while True:
            chunk = r.read()
            if not chunk:
                break
    except KeyError as e:
        out.append(("caught", str(e)))
    out.append(chunk.n)
    return out


@case(([3, 2, 0],), ([3, 2, 5],), ([0],), ([1, -1, 9],), ([2, 8],))
def while_else_break_in_else_arm_in_try(reads):
    # `break` in the `else` of an `if` in a `while c: ... else:` that ends a `try`
    # body goes straight to the code after the `try` (asyncio.sslproto
    # SSLProtocol._do_read__buffered, 3.14-3.15): it was lost, and the loop read again.
    reads = list(reads)
    log = []
    offset = 0
    count = 1
    wants = 6
    try:
        count = reads.pop(0)
        if count > 0:
            offset = count
            while offset < wants:
                count = reads.pop(0)
                if count > 0:
                    offset += count
                else:
                    break
            else:
                log.append("more")
    except IndexError:
        log.append("again")
    if offset > 0:
        log.append(offset)
    if not count:
        log.append("eof")
    return log, reads


class _Cm:
    """A context manager that logs enter/exit and swallows KeyError when `swallow`."""

    def __init__(self, log, swallow=False):
        self.log = log
        self.swallow = swallow

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", t.__name__ if t else None))
        return self.swallow and t is KeyError


@case(([1, 2, 0, 4], False), ([1, 2], False), ([1, 2], True), ([0], True))
def with_body_loop_break_then_code(xs, swallow):
    # The code after the `with` runs once, after `__exit__` (the with-body variant
    # of the try-exit guard).
    log = []
    xs = list(xs)
    with _Cm(log, swallow):
        while True:
            x = xs.pop(0) if xs else {}["k"]
            if not x:
                break
            log.append(x)
    log.append("after")
    return log


@case(([3, 0, 1],), ([3, 4],), ([],))
def with_body_while_else_break(xs):
    log = []
    xs = list(xs)
    with _Cm(log, True):
        while xs:
            x = xs.pop(0)
            if x:
                log.append(x)
            else:
                break
        else:
            log.append("drained")
    log.append("after")
    return log


@case(([1, 2, 3], 2), ([1, 2, 3], 7), ([], 0))
def with_body_for_break(xs, stop):
    log = []
    with _Cm(log, True):
        for x in xs:
            if x == stop:
                break
            log.append(x)
        else:
            log.append("none")
    log.append("after")
    return log


@case((0,), (1,), (2,))
def with_body_if_raise_ends(n):
    log = []
    with _Cm(log, True):
        log.append("in")
        if n == 1:
            raise KeyError("one")
        if n == 2:
            raise ValueError("two")
    log.append("after")
    return log


@case(([3, 2, 0],), ([3, 2, 5],), ([0],), ([2, 8],))
def with_body_while_else_break_in_else_arm(reads):
    # The with-body variant of `while_else_break_in_else_arm_in_try`.
    reads = list(reads)
    log = []
    offset = 0
    count = 1
    with _Cm(log, True):
        count = reads.pop(0)
        if count > 0:
            offset = count
            while offset < 6:
                count = reads.pop(0) if reads else {}["k"]
                if count > 0:
                    offset += count
                else:
                    break
            else:
                log.append("more")
    if offset > 0:
        log.append(offset)
    if not count:
        log.append("eof")
    return log, reads


@case(([3, 2, 0, 9],), ([3, 9, 9],), ([0],))
def loop_returns_in_try_finally(reads):
    # Two `return total` in a loop that ends a try/finally body: CPython 3.12+ copy
    # the exit (finally body, return) into each; the second copy was read as the end
    # of the body, so its path went round the loop again (asyncio
    # BaseEventLoop._sendfile_fallback, 3.13-3.15).
    reads = list(reads)
    log = []
    total = 0
    try:
        while True:
            if total > 8:
                return total
            n = reads.pop(0)
            if not n:
                return total
            total += n
    finally:
        log.append(total)
        total = -1


@case(([3, 2, 0, 9], []), ([3, 9, 9], []), ([0], []), ([1], []))
def loop_returns_in_try_finally_log_only(reads, log):
    # As `loop_returns_in_try_finally`, the finally body leaving `total` alone (the
    # shape of _sendfile_fallback: both copies of `finally; return total` are one
    # exit, and the second was read as the end of the body).
    reads = list(reads)
    total = 0
    try:
        while True:
            if total > 8:
                return total
            n = reads.pop(0) if reads else 0
            if not n:
                return total
            total += n
    finally:
        log.append(total)


@case(([3, 2, 0, 9],), ([0],), ([5, 5],))
def loop_return_in_try_finally_changed(reads):
    # One `return total` in a loop that ends a try/finally body whose finally body
    # changes `total`: the value returned is the one before the finally body
    # (BaseProactorEventLoop._sock_sendfile_native's shape, 3.12+).
    reads = list(reads)
    log = []
    total = 0
    try:
        while True:
            n = reads.pop(0) if reads else 0
            if not n:
                return total, log
            total += n
    finally:
        log.append(total)
        total = -1


@case(([3, 2, 0, 9], []), ([0], []), ([5, 5], []))
def loop_return_name_in_try_finally_changed(reads, log):
    reads = list(reads)
    total = 0
    try:
        while True:
            n = reads.pop(0) if reads else 0
            if not n:
                return total
            total += n
    finally:
        log.append(total)
        total = -1


@case(([1, 2, 3], 2), ([1, 2, 3], 9), ([], 0))
def with_body_for_else_return_break(xs, stop):
    # compileall.compile_file's shape (for/else: `else: return`, `break` to the code
    # after the statement) in a `with` body.
    log = []
    with _Cm(log, True):
        for x in xs:
            if x == stop:
                break
        else:
            return log, "none"
    log.append(("after", stop))
    return log, "found"
