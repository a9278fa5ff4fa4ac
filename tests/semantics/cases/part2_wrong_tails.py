"""Part 2, more shapes of the code after a handler or a `with` (CPython 3.12+ copies
small tails into each handler exit; a `with` whose body returns goes on after it when
`__exit__` suppresses): the tail must run once, after the exception is popped."""

import sys

from _sem import case, drive, driven_case

X = ((1,), (0,), ("k",), ("v",))


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


class Ctx:
    def __init__(self, log, name, suppress=()):
        self.log, self.name, self.suppress = log, name, suppress

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name, t.__name__ if t else None))
        return t is not None and issubclass(t, self.suppress)


@case(*X)
def two_clauses_then_exc_info(x):
    try:
        v = check(x)
    except KeyError:
        v = "k"
    except ValueError as e:
        v = str(e)
    return v, sys.exc_info()[0]


@case(*X)
def clause_in_if_then_tail(x):
    out = []
    if x != 1:
        try:
            out.append(check(x))
        except (KeyError, ZeroDivisionError) as e:
            out.append(type(e).__name__)
        out.append(sys.exc_info()[0])
    return out


@case(*X)
def tail_in_loop_after_handler(x):
    out = []
    for i in range(2):
        try:
            out.append(check(x))
        except KeyError:
            out.append("k")
        out.append((i, sys.exc_info()[0]))
    return out


@case(*X)
def tail_reads_name_after_implicit_del(x):
    e = "kept"
    try:
        check(x)
    except KeyError as e:
        pass
    try:
        return e, sys.exc_info()[0]
    except UnboundLocalError:
        return "unbound", sys.exc_info()[0]


@case(*X)
def nested_handlers_then_two_tails(x):
    log = []
    try:
        try:
            check(x)
        except KeyError:
            log.append("inner")
        log.append(("mid", sys.exc_info()[0]))
        check(x)
    except Exception as e:
        log.append(type(e).__name__)
    log.append(("end", sys.exc_info()[0]))
    return log


@case(*X)
def bare_raise_after_handler_in_handler(x):
    try:
        check(x)
    except Exception:
        try:
            {}["missing"]
        except KeyError:
            pass
        try:
            raise
        except Exception as e:
            return type(e).__name__
    return "ok"


@case(*X)
def with_return_then_tail_in_loop(x):
    log = []
    for i in range(2):
        with Ctx(log, str(i), (KeyError, ZeroDivisionError)):
            return check(x), log
        log.append(("after", i))
    return "loop done", log


@case(*X)
def with_return_in_handler(x):
    log = []
    try:
        check(x)
    except Exception:
        with Ctx(log, "h", ZeroDivisionError):
            return check(x), log
        log.append(("after with", sys.exc_info()[0]))
    return "end", log


@driven_case(drive(("list",)), (1,), (0,), ("k",))
def gen_two_handlers_then_tail(x):
    try:
        yield check(x)
    except ZeroDivisionError:
        yield "z"
    except KeyError as e:
        yield str(e)
    yield sys.exc_info()[0]


@driven_case(drive(("next",), ("throw", KeyError, "t"), ("list",)), (1,), (0,))
def gen_loop_handler_then_tail(x):
    for i in range(2):
        try:
            yield i
        except KeyError:
            yield "caught"
        yield (i, sys.exc_info()[0])
