"""try/finally and try/except shapes whose structuring was refused on CPython 3.11+
(session 8, helper fin8): a `finally` body ending in an `if` before a `return` of the
try body, a `try`/`finally` nested in a `finally` body whose inner `finally` ends in an
`if`/`else` (CPython 3.12+ copies the outer re-raise into both arms), a `finally` body
ending in an `if` around a `try`/`except` before the function's implicit return.
Each case records every step in a log and runs the normal path, the exception path
and `break`/`return` through the `finally` body."""

from _sem import case


def _step(log, x):
    """Appends `x` to `log`; raises KeyError for "k", ValueError for "v"."""
    log.append(x)
    if x == "k":
        raise KeyError(x)
    if x == "v":
        raise ValueError(x)
    return x


@case((0, [], []), (3, [], []), (3, ["k"], []), (0, ["v"], []), (2, ["a", "b", "c"], []))
def return_after_loop_finally_if(count, items, log):
    # `return total` at the end of the try body; the finally body ends in an `if`
    # (base_events._sock_sendfile_fallback).
    total = 0
    try:
        while True:
            if count and total >= count:
                break
            if not items:
                break
            _step(log, items.pop(0))
            total += 1
        return total
    finally:
        if total > 0 and log:
            log.append(("seek", total))


@case((True, "ok", []), (False, "ok", []), (True, "k", []), (False, "k", []), (True, "v", []))
def nested_finally_if_else(done, what, log):
    # A try/finally inside a finally body whose own finally ends in `if`/`else`
    # (tasks.Task.__eager_start).
    try:
        _step(log, what)
    finally:
        try:
            _step(log, "inner")
        finally:
            if done:
                log.append("done")
            else:
                log.append("not done")
    return log


@case((True, "ok", []), (False, "ok", []), (True, "k", []), (True, "v", []))
def nested_finally_if_else_raises(done, what, log):
    # The same with an inner body that raises: the outer exception is replaced.
    try:
        _step(log, "outer")
    finally:
        try:
            _step(log, what)
        finally:
            if done:
                log.append("done")
            else:
                log.append("not done")


@case((True, ["a", "b", None], []), (False, ["a", None], []), (True, ["k"], []), (True, ["a", "v"], []), (True, [], []))
def finally_if_try_except_implicit_return(use, items, log):
    # The finally body is an `if` around a try/except; the function returns None after
    # the try (cmd.Cmd.cmdloop).
    try:
        stop = None
        while not stop:
            if not items:
                break
            stop = _step(log, items.pop(0)) is None
        log.append("loop done")
    finally:
        if use and log:
            try:
                _step(log, "v")
            except ValueError:
                pass


@case((0, []), (1, []), (2, ["x"]), (3, ["k"]), (4, ["v"]))
def return_name_through_finally_if(n, log):
    # `return n` in the try body and the normal exit, the finally body ending in an
    # `if`: CPython 3.12+ copies the `return` into both arms of each copy.
    try:
        if n == 1:
            return n
        if log:
            _step(log, log[0])
        log.append(n)
    finally:
        if log:
            log.append("fin")
    return log


@case((0, []), (1, []), (2, []), (5, []))
def finally_if_break_in_for(n, log):
    # `break` through a finally body ending in an `if`, in a `for` loop.
    for i in range(4):
        try:
            if i == n:
                break
            log.append(i)
        finally:
            if i > 1:
                log.append(("fin", i))
    return log


@case((0, []), (1, []), (2, []), (5, []))
def finally_if_continue_in_while(n, log):
    # `continue` through a finally body ending in an `if`, in a `while` loop.
    i = 0
    while i < 4:
        i += 1
        try:
            if i == n:
                continue
            log.append(i)
        finally:
            if i > 1:
                log.append(("fin", i))
    return log


@case(([], []), ([0, 0, 1], []), ([0, "k"], []), ([0, 0], []), (["v"], []))
def while_else_break_ends_try_body(items, log):
    # `while c: ... else: E` last in a try body, whose `break` jumps straight to the
    # code after the try (asyncio.sslproto._do_read__buffered).
    try:
        while items:
            x = items.pop(0)
            if _step(log, x):
                break
        else:
            log.append("else")
    except KeyError:
        log.append("caught")
    _step(log, "after")
    return log


@case(([], []), ([0, 1], []), (["k"], []), ([0, 0, 0], []))
def while_else_break_then_more_in_try(items, log):
    # The same loop followed by more code in the try body.
    try:
        while items:
            if _step(log, items.pop(0)):
                break
        else:
            log.append("else")
        log.append("more")
    except KeyError:
        log.append("caught")
    return log


@case(([], []), ([0, 1, 2], []), ([0, "k"], []), ([0], []))
def for_else_return_break_in_try(items, log):
    # `for ... else: return` in a try body; `break` goes on after the try
    # (compileall.compile_file).
    try:
        for x in items:
            if _step(log, x):
                break
        else:
            return "exhausted"
    except KeyError:
        log.append("caught")
    return log


@case((0, []), (2, []), (5, []))
def while_else_break_no_try(n, log):
    # A plain `while c: ... else: E` with `break`.
    i = 0
    while i < 3:
        i += 1
        if i == n:
            log.append("break")
            break
    else:
        log.append("else")
    log.append(i)
    return log
