"""Session 7 (issue #5), block-stack shapes of CPython 3.8-3.10 normalized to 3.11's:

- a loop whose head is the first instruction of a `finally` handler (`while True:` or
  `while cond:` starting a `finally` body): CPython 3.9-3.10 jump back to the
  handler's offset, after the exception is pushed;
- the code after a `try` or `with` (`return name`, `raise`) that CPython 3.10 copies
  into each way that reaches it (the body, each `except` clause, a suppressing
  `__exit__`), where 3.11 has one shared tail.

Every exit is taken: normal, handled, suppressed, unhandled.
"""

from _sem import case


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


def _flaky(fails, exc=KeyError):
    """A callable that raises `exc` `fails` times, then returns "ok"."""
    left = [fails]

    def call():
        if left[0] > 0:
            left[0] -= 1
            raise exc("flaky %d" % left[0])
        return "ok"

    return call


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


X = ((1,), (0,), ("k",), ("v",))


@case((0, 1), (2, 1), (0, 0), (3, "k"))
def finally_starts_with_retry_loop(fails, x):
    g = _flaky(fails)
    log = []
    try:
        log.append(check(x))
    finally:
        while True:
            try:
                log.append(g())
                break
            except KeyError:
                log.append("retry")
    return log


@case((0,), (1,), ("k",))
def finally_starts_with_while_test(x):
    log = []
    n = 0
    try:
        log.append(check(x))
    finally:
        while n < 3:
            n += 1
            log.append(n)
    return log, n


@case(*X)
def try_else_in_with_then_return(x):
    log = []
    with Ctx(log, ZeroDivisionError):
        try:
            check(x)
        except KeyError as e:
            log.append(str(e))
        else:
            log.append("else")
    return log


@case(*X)
def with_suppressing_then_return(x):
    log = []
    with Ctx(log, (ZeroDivisionError, KeyError)):
        log.append(check(x))
    return log


@case(*X)
def clauses_then_return_name(x):
    log = []
    try:
        log.append(check(x))
    except KeyError:
        log.append("k")
    except ValueError:
        log.append("v")
    return log


@case(*X)
def clauses_then_raise(x):
    log = []
    try:
        log.append(check(x))
    except KeyError:
        log.append("k")
    except ZeroDivisionError:
        log.append("z")
    raise RuntimeError(repr(log))


@case(*X)
def with_in_loop_then_return(x):
    log = []
    for i in (1, x):
        with Ctx(log, ZeroDivisionError):
            log.append(check(i))
    return log
