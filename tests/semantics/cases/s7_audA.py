"""Shapes found by the audit of round-trip "differs" functions on CPython 3.9 and 3.10
(docs/audit/differs.md): code after a loop or a `try` written inside a `try` body or
an `except` clause, where a different handler catches its exceptions. Each case makes
the moved code raise the exception the wrong handler would catch, and records every
step in an argument list."""

from _sem import case


def _check(log, x):
    """Appends `x` to `log`; raises KeyError for "k" and ValueError for "v"."""
    log.append(x)
    if x == "k":
        raise KeyError(x)
    if x == "v":
        raise ValueError(x)
    return x


@case(([1, 2], "ok", []), ([1, 2], "k", []), ([], "k", []), ([1, "k", 3], "ok", []), (["k"], "k", []))
def break_in_inner_clause_leaves_outer_try(items, tail, log):
    # `break` in an `except` clause of a try nested in another try's body: the code
    # after the `while 1` runs outside both handlers; written at the `break` it ran
    # under the outer `except KeyError` (code.InteractiveConsole.interact, 3.9/3.10).
    it = iter(items)
    while 1:
        try:
            try:
                x = next(it)
            except StopIteration:
                log.append("stop")
                break
            else:
                _check(log, x)
        except KeyError:
            log.append("caught")
    _check(log, tail)
    return log


@case((["1", "2"], "ok", []), (["1", "x"], "ok", []), (["1"], "v", []), ([], "v", []), (["x"], "v", []))
def while_exit_ends_try_body(parts, tail, log):
    # A try body that is a `while` loop: its exit (the test false) is the try's normal
    # exit; the code after the try was written inside the body, under
    # `except ValueError` (ctypes.util._num_version, 3.9).
    nums = []
    try:
        while parts:
            nums.insert(0, int(parts.pop()))
    except ValueError:
        log.append("bad")
    return nums, _check(log, tail)


@case((["1", "2"], "ok", []), (["1", "x"], "ok", []), (["1"], "v", []), ([], "v", []))
def for_exit_ends_try_body(parts, tail, log):
    # The same with a `for` loop ending the try body.
    nums = []
    try:
        for p in parts:
            nums.append(int(p))
    except ValueError:
        log.append("bad")
    return nums, _check(log, tail)


class _Suppress(object):
    """A context manager that logs its exit and suppresses KeyError."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, tp, value, tb):
        self.log.append(("exit", tp.__name__ if tp is not None else None))
        return tp is KeyError


@case(([1, 2], "ok", []), ([0], "ok", []), ([0], "k", []), ([1], "k", []), ([1, "k"], "ok", []))
def with_body_while_else_break(xs, tail, log):
    # `break` skipping a while/else in a `with` body goes to the with's exit; the code
    # after the `with` must not run before `__exit__` (nor under its suppression).
    with _Suppress(log):
        i = 0
        while i < len(xs):
            if xs[i] == 0:
                break
            _check(log, xs[i])
            i += 1
        else:
            log.append("exhausted")
    _check(log, tail)
    return log


@case(([1, 2], "ok", []), ([0], "ok", []), ([0], "k", []), ([1], "k", []), ([1, "k"], "ok", []))
def with_body_for_else_break(xs, tail, log):
    with _Suppress(log):
        for x in xs:
            if x == 0:
                break
            _check(log, x)
        else:
            log.append("exhausted")
    _check(log, tail)
    return log


@case((["a", "b"], "ok", []), (["k", "b"], "ok", []), (["a"], "k", []), ([], "k", []))
def with_body_ends_in_while(parts, tail, log):
    # A `with` body that is a `while` loop: its exit is the `__exit__` call.
    with _Suppress(log):
        while parts:
            _check(log, parts.pop())
    return _check(log, tail)


@case(([1, 2], "ok", []), ([0], "ok", []), ([0], "k", []), ([1], "k", []), ([1, "k"], "ok", []))
def finally_body_for_else_break(xs, tail, log):
    # The same in a try/finally (CPython 3.8-3.10 copy the finally body into the
    # `break` path): the code after the `try` runs after the finally body.
    try:
        for x in xs:
            if x == 0:
                break
            _check(log, x)
        else:
            log.append("exhausted")
    finally:
        log.append("fin")
    _check(log, tail)
    return log


@case((["1", "2"], "ok", []), (["1", "x"], "ok", []), (["1"], "v", []), ([], "v", []))
def finally_body_ends_in_while(parts, tail, log):
    nums = []
    try:
        while parts:
            nums.insert(0, int(parts.pop()))
    finally:
        log.append("fin")
    return nums, _check(log, tail)


@case(([1, 2], "ok", []), ([1, 2], "k", []), ([], "k", []), ([1, "k", 3], "ok", []))
def break_in_clause_leaves_finally(items, tail, log):
    # `break` in a clause of a try nested in a try/finally body: the finally body
    # runs before the code after the loop.
    it = iter(items)
    while 1:
        try:
            try:
                x = next(it)
            except StopIteration:
                log.append("stop")
                break
            _check(log, x)
        finally:
            log.append("fin")
    _check(log, tail)
    return log


@case(([1, 2], "ok", []), ([1, 2], "k", []), ([], "k", []))
def break_in_clause_leaves_with(items, tail, log):
    it = iter(items)
    while 1:
        with _Suppress(log):
            try:
                x = next(it)
            except StopIteration:
                log.append("stop")
                break
            _check(log, x)
    _check(log, tail)
    return log


@case(([1, 2], "ok", []), ([1, 0, 2], "ok", []), ([0], "k", []), ([1, "k", 3], "ok", []))
def for_break_in_clause_leaves_finally(items, tail, log):
    # The `for` form: the finally body runs once on the way out.
    for x in items:
        try:
            try:
                if x == 0:
                    raise StopIteration
            except StopIteration:
                log.append("stop")
                break
            _check(log, x)
        finally:
            log.append("fin")
    _check(log, tail)
    return log


@case(([1, 2], "ok", []), ([1, 0, 2], "ok", []), ([0], "k", []), ([1, "k", 3], "ok", []))
def while_break_in_inner_clause_leaves_outer_try(items, tail, log):
    # A `while c:` loop (an exit of its own) with the break of a nested clause.
    i = 0
    while i < len(items):
        try:
            try:
                if items[i] == 0:
                    raise StopIteration
            except StopIteration:
                log.append("stop")
                break
            _check(log, items[i])
        except KeyError:
            log.append("caught")
        i += 1
    _check(log, tail)
    return log


@case(([1, 2], "ok", []), ([1, 2], "k", []), ([], "k", []), (["k"], "ok", []))
def break_in_inner_finally_leaves_outer_try(items, tail, log):
    # `break` as the whole `finally` body of a try nested in a try/except: every
    # way out of the inner try leaves the loop, so the code after the loop runs
    # outside the outer try; written in the outer body its KeyError was caught.
    it = iter(items)
    while 1:
        try:
            try:
                _check(log, next(it, "end"))
            finally:
                break
        except KeyError:
            log.append("caught")
    _check(log, tail)
    return log
