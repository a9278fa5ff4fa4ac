"""Session 6 (issue #3): a `try/finally` nested in a `finally` body. CPython 3.8
enters a finally body by `BEGIN_FINALLY` (normal exit), `CALL_FINALLY` (return,
break, continue) or an exception, and 3.9 copies the body at each way in; the copies
of a body holding a `try/finally` hold copies of its body in turn. Each case runs
every way in and out: normal exit, an exception from the outer try body, from the
inner try body, from the inner finally body, and return/break/continue from the
outer try body."""

from _sem import case


def _act(log, what, mode):
    log.append(what)
    if mode == what:
        raise ValueError(what)


@case(("none",), ("outer",), ("inner",), ("last",))
def try_finally_in_finally(mode):
    log = []
    try:
        try:
            _act(log, "outer", mode)
        finally:
            try:
                _act(log, "inner", mode)
            finally:
                _act(log, "last", mode)
    except ValueError as e:
        log.append(("caught", str(e)))
    return log


@case(("none", 0), ("outer", 1), ("inner", 2), ("last", 0), ("none", 3))
def try_finally_in_finally_branches(mode, n):
    log = []
    try:
        try:
            _act(log, "outer", mode)
            if n == 1:
                log.append("one")
        finally:
            try:
                if n == 2:
                    log.append("two")
                _act(log, "inner", mode)
            finally:
                if n:
                    _act(log, "last", mode)
                else:
                    log.append("zero")
            log.append("after inner")
    except ValueError as e:
        log.append(("caught", str(e)))
    return log


@case(("none", []), ("outer", []), ("inner", []), ("last", []))
def return_in_try_try_finally_in_finally(mode, log):
    # An exception escapes (compared with the log, a mutated argument).
    try:
        _act(log, "outer", mode)
        return "returned"
    finally:
        try:
            _act(log, "inner", mode)
        finally:
            _act(log, "last", mode)


@case(([1, 2, 3], "none"), ([1, 3], "inner"), ([], "none"))
def try_finally_in_finally_in_plain_loop(items, mode):
    log = []
    try:
        for x in items:
            try:
                log.append(x)
            finally:
                try:
                    if x == 3:
                        _act(log, "inner", mode)
                finally:
                    log.append(("fin", x))
    except ValueError as e:
        log.append(("caught", str(e)))
    return log


@case(([1, 2, 3], "none"), ([1, 2, 3], "inner"), ([4, 5], "last"), ([], "none"))
def try_finally_in_finally_in_loop(items, mode):
    log = []
    for x in items:
        try:
            if x == 2:
                continue
            if x == 5:
                break
            log.append(x)
        finally:
            try:
                if x == 3:
                    _act(log, "inner", mode)
            finally:
                log.append(("fin", x))
                if x == 4:
                    try:
                        _act(log, "last", mode)
                    except ValueError:
                        log.append("caught last")
    return log


@case(("none",), ("a",), ("b",), ("c",), ("d",))
def try_finally_in_finally_in_finally(mode):
    log = []
    try:
        try:
            _act(log, "a", mode)
        finally:
            try:
                _act(log, "b", mode)
            finally:
                try:
                    _act(log, "c", mode)
                finally:
                    _act(log, "d", mode)
    except ValueError as e:
        log.append(("caught", str(e)))
    return log


class _Lock(object):
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("lock")

    def __exit__(self, *exc):
        self.log.append(("unlock", exc[0].__name__ if exc[0] else None))


@case(("none", []), ("flush", []), ("closefp", []), ("none", [], True), ("closefp", [], False, False))
def close_like(mode, log, closed=False, closefp=True):
    # bz2/lzma `close`: a with, a return, a try/finally in a finally body.
    with _Lock(log):
        if closed:
            return "closed"
        try:
            _act(log, "flush", mode)
        finally:
            try:
                if closefp:
                    _act(log, "closefp", mode)
            finally:
                log.append("reset")
    return "done"


@case(("none", 0), ("outer", 0), ("outer", 1), ("none", 1), ("os", 1), ("os", 0))
def return_in_finally_in_try_except(mode, n):
    # The return leaves the finally body and the try/except around the try/finally
    # (3.8: POP_FINALLY; ...; POP_BLOCK; RETURN_VALUE); an exception from the try
    # body is dropped by the return, or caught by the except clause without it.
    log = []
    try:
        try:
            if mode == "os":
                raise OSError("os")
            _act(log, "outer", mode)
        finally:
            log.append("fin")
            if n:
                return log, "returned"
    except OSError as e:
        log.append(("caught", str(e)))
    except ValueError as e:
        log.append(("value", str(e)))
    return log, None


@case(([1, 2, 3], 2, "none"), ([1, 2, 3], 9, "outer"), ([0, 1], 1, "os"), ([], 0, "none"))
def break_continue_in_finally_in_try_except(items, stop, mode):
    log = []
    for x in items:
        try:
            try:
                if x == 1 and mode == "os":
                    raise OSError("os")
                if x == 3:
                    _act(log, "outer", mode)
                log.append(x)
            finally:
                if x == stop:
                    break
                if x == 0:
                    continue
                log.append(("fin", x))
        except OSError:
            log.append("caught os")
        except ValueError:
            log.append("caught value")
    return log


def _raise_os(log, mode):
    log.append("body")
    if mode == "os":
        raise OSError("os")
    if mode == "value":
        raise ValueError("value")


@case(("none", 0, []), ("none", 1, []), ("os", 0, []), ("os", 1, []), ("value", 1, []), ("value", 0, []))
def return_in_finally_in_try_except_plain(mode, n, log):
    try:
        try:
            _raise_os(log, mode)
        finally:
            if n:
                return log
    except OSError:
        log.append("caught")
    return 3
