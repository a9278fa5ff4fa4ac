"""Session 6: the normal exit of a try/finally and of a with body in the shapes
CPython 3.12+ lays out so that the copy of the finally body (or the __exit__
call) is hard to see: a finally body holding its own try/except or nested ifs
(each end given a copy of the return after it), a try body that returns a value
from inside try/except, a returned local that the finally body rebinds, a with
body ending in `return a if c else b`, and loops ending a with or try body nested
in another try (the NOP after the loop is left out of the exception table).
Every exit is taken: normal, return, the exception paths of body and finally."""

from _sem import case


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


class Ctx(object):
    """Logs enter/exit into `log`; suppresses exceptions of type `suppress`."""

    def __init__(self, log, suppress=None):
        self.log = log
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", t.__name__ if t else None))
        return bool(self.suppress and t and issubclass(t, self.suppress))


XY = ((1, 1), (1, 0), (0, 1), ("k", 1), ("k", 0), ("v", "k"), (3, "v"))


@case(*XY)
def finally_holds_try_except(x, y):
    log = []
    try:
        log.append(check(x))
    finally:
        try:
            log.append(check(y))
        except KeyError:
            log.append("fk")
    return log


@case(*XY)
def finally_holds_try_except_at_end(x, y):
    log = [x]
    try:
        check(x)
    finally:
        try:
            log.append(check(y))
        except (KeyError, ZeroDivisionError):
            pass


@case(*XY)
def finally_holds_if_with_try(x, y):
    log = []
    try:
        log.append(check(x))
    finally:
        if y and x != 3:
            try:
                log.append(check(y))
            except KeyError:
                log.append("fk")
    return log


@case(*XY)
def return_from_try_except_finally_nested_ifs(x, y):
    log = []
    try:
        return check(x), log
    except KeyError:
        if y == 1:
            log.append("k1")
            raise ValueError("from k")
        raise
    finally:
        if y != 0:
            if y != "k":
                log.append("fin")


@case((1,), (0,), ("k",))
def return_local_rebound_by_finally(x):
    tmp = [x]
    try:
        check(x)
        return tmp
    finally:
        tmp = None


@case((1,), (0,))
def return_local_rebound_only(x):
    tmp = [x]
    try:
        return tmp
    finally:
        tmp = None


@case((1, 1), (0, 1), (1, 0), ("k", 1), ("v", 0))
def with_returns_conditional(x, y):
    log = []
    with Ctx(log, KeyError) as c:
        if y:
            log.append("y")
        return (check(x), log) if y else None
    return "suppressed", log


@case((1, 1), (0, 1), (1, 0), ("k", 1))
def with_returns_conditional_plain(x, y):
    log = []
    with Ctx(log) as c:
        return check(x) if y else log


XS = (([1, 2],), ([1, 0],), ([1, "k"],), ([],), (["v"],))


@case(*XS)
def with_loop_in_try(xs):
    out = []
    try:
        with Ctx(out, ValueError):
            for x in xs:
                out.append(check(x))
    except KeyError:
        out.append("k")
        return out
    out.append("after")
    return out


@case(*XS)
def finally_loops_in_try_finally(xs):
    out = []
    try:
        out.append("start")
        try:
            for x in xs:
                out.append(check(x))
        finally:
            for x in xs:
                out.append(("undo", x))
        out.append("mid")
        try:
            out.append(len(xs))
        finally:
            for x in xs:
                out.append(("undo2", x))
    finally:
        out.append("outer")
    return out
