"""Shapes found by the audit of round-trip functions whose recompiled bytecode
"differs" (docs/audit/differs.md): each case here was decompiled into code that
behaved differently, or guards a shape next to one that did."""

from _sem import K, LogContext, case

_audit_g = None
_audit_h = None


@case((),)
def docstring_before_global():
    # A docstring must stay the first statement: `global` printed before it turns
    # it into an expression statement and the function or class loses __doc__
    # (_osx_support._get_system_version).
    def inner():
        """Inner's docstring."""
        global _audit_g
        _audit_g = 1

    class Inner:
        """Inner class docstring."""
        global _audit_h
        _audit_h = 2

    inner()
    return inner.__doc__, Inner.__doc__, _audit_g, _audit_h


def _stat(p):
    if p == "missing":
        raise FileNotFoundError(p)
    return p == "sock"


@case(("missing",), ("sock",), ("file",), ("",))
def test_first_in_try_body(p):
    # The test that opens a `try` body is no operand of the test before the
    # `try`: `if p and _stat(p):` would call _stat outside the try
    # (asyncio.BaseEventLoop.create_datagram_endpoint, 3.10 and 3.12).
    out = []
    if p:
        try:
            if _stat(p):
                out.append("remove")
        except FileNotFoundError:
            out.append("gone")
    return out


def _may_fail(x):
    if x == 0:
        raise ValueError("zero")


def _after(r):
    if r is None:
        raise ValueError("no r")
    return r * 10


@case(([1, 2], True), ([1, 2], False), ([0, 3], False), ([0, 3], True), ([], False))
def try_else_break_after_if(xs, remote):
    # A `try` body ending in an `if`, then `else: break`: the test jumps straight
    # to the `break`; the code after the loop must stay outside the try, or its
    # ValueError is caught by the clause (create_datagram_endpoint, 3.11-3.13).
    r = None
    for x in xs:
        try:
            _may_fail(x)
            if remote:
                r = x
        except ValueError:
            continue
        else:
            break
    else:
        return "exhausted"
    return _after(r)


def _h(log, v):
    # Raises the first time only: run twice (once under the `except`), it
    # would be caught and the function would return.
    first = "h" not in log
    log.append("h")
    if v == "raise" and first:
        raise ValueError("from h")


@case(([1, 2, 3], 2), ([1, 2, 3], 9), ([], 0))
def for_else_break_in_try(xs, c):
    log = []
    try:
        for x in xs:
            if x == c:
                break
        else:
            log.append("else")
    except ValueError:
        log.append("caught")
    _h(log, "raise" if c == 2 else "ok")
    return log


@case(([1, 2, 3], 2), ([1, 2, 3], 9), ([], 0))
def while_else_break_in_try(xs, c):
    # The `break` skips the `else` and goes straight to the code after the
    # `try`: written in place, that code ran under the `except` (3.10-3.12;
    # SSLProtocol._do_read__buffered). Now refused where the shape is not read.
    log = []
    xs = list(xs)
    try:
        while xs:
            if xs.pop() == c:
                break
        else:
            log.append("else")
    except ValueError:
        log.append("caught")
    _h(log, "raise" if c == 2 else "ok")
    return log


def _maybe(fail):
    if fail:
        raise OSError("fail")
    return "v"


@case(([], False), ([], True))
def finally_body_with_try_and_return_in_clause(log, fail):
    # A finally body that is itself a try/except, and a `return` in an except
    # clause of the body: the copies of the finally body were not recognised, so
    # the code after the try/finally was written inside it and the finally body
    # ran twice (ctypes.util._findLib_gcc, 3.11+). Read since s9 (3.12+), refused on 3.11.
    try:
        log.append("body")
        try:
            v = _maybe(fail)
        except OSError:
            return None
        t = v
    finally:
        try:
            log.append("fin")
        except KeyError:
            pass
    log.append(t)
    return log


@case(([1, 2, 3], 2), ([1, 2, 3], 9), ([], 0))
def for_else_return_break_with_in_try(xs, c):
    # compileall.compile_file: the `break` out of a `for` whose `else` returns
    # goes straight to the code after the try; it was written inside the try,
    # under its `except` (3.12). Now refused where the shape is not read.
    log = []
    try:
        for x in xs:
            with LogContext(log):
                y = x
            if y == c:
                break
        else:
            return log
    except ValueError:
        log.append("caught")
    _h(log, "raise" if c == 2 else "ok")
    return log


def _attr(x):
    if x == 2:
        raise AttributeError("attr")
    return x


@case((0, []), (1, []), (2, []))
def if_raise_ends_try_body(x, log):
    # A try body that ends in `if c: raise`: the false arm jumps out of the
    # protected range; followed past it, the rest of the function was written
    # inside the try, so its AttributeError was swallowed (_pyio.FileIO.__init__,
    # 3.11).
    v = None
    try:
        if x == 1:
            raise KeyError("k")
    except AttributeError:
        pass
    finally:
        log.append("fin")
    log.append(_attr(x))
    return log


class _Cancellable:
    def __init__(self, log, n):
        self.log, self.n = log, n

    def cancel(self):
        self.log.append(("cancel", self.n))


@case(([1, 2, 3], False), ([], False), ([1, 0, 2], True))
def while_last_in_try_finally_with_loop(xs, boom):
    # CPython 3.14+ keeps a `while` that ends a `try` body unrotated: its test
    # jumps straight to the body's exit, the `NOP` of the `while` line before the
    # copy of the `finally` body. That is the loop's `break`, not code after the
    # `try` reached inside it (concurrent.futures `result_iterator`, `as_completed`).
    log = []
    fs = [_Cancellable(log, x) for x in xs]
    try:
        while fs:
            f = fs.pop()
            if boom and f.n == 0:
                raise ValueError("boom")
            log.append(("pop", f.n))
    finally:
        for f in fs:
            f.cancel()
    return log


@case(([1, 2, 3],), ([],))
def while_last_in_try_finally_generator(xs):
    log = []

    def gen(fs):
        try:
            fs.reverse()
            while fs:
                yield fs.pop().n
        finally:
            for f in fs:
                f.cancel()

    fs = [_Cancellable(log, x) for x in xs]
    g = gen(fs)
    first = next(g, None)
    g.close()
    return first, log, [f.n for f in fs]
