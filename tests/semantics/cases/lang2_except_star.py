# semantics: min-version 3.11
"""except* (PEP 654): parts of an exception group caught clause by clause, the rest
re-raised, `as` names, nested groups and nested try statements, else/finally, bodies
that raise; and `async with` with several items, `as` targets and returns inside
(driven by asyncio). Each case's own code object is decompiled."""

import asyncio

from _sem import driven_case, case, run_coroutine

N = ((0,), (1,), (2,), (3,), (4,))


def make(n):
    """An exception (group) chosen by `n`; 0: none."""
    if n == 0:
        return None
    if n == 1:
        return ExceptionGroup("g1", [ValueError("v"), TypeError("t")])
    if n == 2:
        return ExceptionGroup("g2", [KeyError("k"), ExceptionGroup("in", [ValueError("w"), OSError("o")])])
    if n == 3:
        return ValueError("naked")
    return ExceptionGroup("g4", [OSError("o1"), OSError("o2")])


def fire(n):
    e = make(n)
    if e is not None:
        raise e
    return n


def shape(e):
    if isinstance(e, BaseExceptionGroup):
        return (type(e).__name__, e.message, [shape(x) for x in e.exceptions])
    return (type(e).__name__, str(e))


def guarded(fn, *args):
    """Calls `fn`, turning what escapes into its shape (so escaping groups compare)."""
    try:
        return ("ok", fn(*args))
    except BaseException as e:  # noqa: B902
        return ("raised", shape(e))


@case(*N)
def star_parts_and_rest(n):
    log = []

    def inner():
        try:
            fire(n)
        except* ValueError as v:
            log.append(("v", shape(v)))
        except* OSError as o:
            log.append(("o", len(o.exceptions)))
        return "inner done"

    return guarded(inner), log


@case(*N)
def star_else_finally_names(n):
    log = []

    def inner():
        try:
            log.append(fire(n))
        except* (ValueError, KeyError) as eg:
            log.append(shape(eg))
        except* TypeError:
            log.append("types")
        else:
            log.append("else")
        finally:
            log.append("finally")
        log.append("after")
        return len(log)

    return guarded(inner), log


@case(*N)
def star_body_raises_new(n):
    log = []

    def inner():
        try:
            fire(n)
        except* ValueError as eg:
            log.append(len(eg.exceptions))
            if n == 2:
                raise KeyError("from handler")
            log.append("no raise")
        except* OSError:
            log.append("os")
            raise
        return "end"

    return guarded(inner), log


@case(*N)
def star_nested_in_clause(n):
    log = []

    def inner():
        try:
            fire(n)
        except* ValueError as eg:
            try:
                raise ExceptionGroup("again", [TypeError("x")] + list(eg.exceptions))
            except* TypeError as t:
                log.append(("inner t", shape(t)))
            except* ValueError:
                log.append("inner v")
        return log

    return guarded(inner)


@case(*N)
def star_in_try_body_and_plain_outside(n):
    log = []
    try:
        try:
            fire(n)
        except* KeyError as k:
            log.append(("k", shape(k)))
        log.append("between")
    except ExceptionGroup as eg:
        log.append(("outer", shape(eg)))
    except ValueError as v:
        log.append(("plain", str(v)))
    finally:
        log.append("fin")
    return log


@case(*N)
def star_loop_with_state(n):
    total = 0
    seen = []
    for i in range(n + 1):
        try:
            if i % 2:
                fire(i)
            total += i
        except* ValueError:
            seen.append(("v", i))
        except* Exception as rest:
            seen.append(("rest", i, len(rest.exceptions)))
    return total, seen


@case(*N)
def star_conditional_handler_body(n):
    log = []

    def inner():
        try:
            fire(n)
        except* ValueError as eg:
            for x in eg.exceptions:
                if str(x) == "w":
                    log.append("w seen")
                else:
                    log.append(("other", str(x)))
        return log

    return guarded(inner)


class ACtx(object):
    """An async context manager that logs enter/exit; suppresses `suppress`."""

    def __init__(self, log, name, suppress=None):
        self.log = log
        self.name = name
        self.suppress = suppress

    async def __aenter__(self):
        await asyncio.sleep(0)
        self.log.append(("enter", self.name))
        return self.name.upper()

    async def __aexit__(self, t, v, tb):
        await asyncio.sleep(0)
        self.log.append(("exit", self.name, t.__name__ if t else None))
        return self.suppress is not None and t is not None and issubclass(t, self.suppress)


def check(x):
    if x == 2:
        raise ZeroDivisionError("two")
    if x == 3:
        raise KeyError("three")
    return x * 10


X = ((0,), (1,), (2,), (3,))


@driven_case(run_coroutine, *X)
async def awith_three_items_as(x):
    log = []
    async with ACtx(log, "a") as a, ACtx(log, "b", ZeroDivisionError) as b, ACtx(log, "c"):
        log.append((a, b, check(x)))
    return log


@driven_case(run_coroutine, *X)
async def awith_return_inside_nested(x):
    log = []
    async with ACtx(log, "outer", KeyError) as o:
        async with ACtx(log, "inner", ZeroDivisionError) as i:
            if x == 1:
                return "early", o, i, log
            log.append(check(x))
        log.append("after inner")
    return "end", log


@driven_case(run_coroutine, *X)
async def awith_in_loop_and_try(x):
    log = []
    for k in range(3):
        try:
            async with ACtx(log, "l%d" % k) as name:
                log.append(name)
                if k == x:
                    raise ValueError(k)
        except ValueError as e:
            log.append(("caught", str(e)))
    return log


@driven_case(run_coroutine, *X)
async def awith_attribute_and_subscript_targets(x):
    log = []
    box = {"k": None}

    class Obj(object):
        pass

    o = Obj()
    async with ACtx(log, "t") as o.attr, ACtx(log, "u") as box["k"]:
        log.append(check(x))
    return log, o.attr, box


@driven_case(run_coroutine, *X)
async def awith_except_star_inside(x):
    log = []
    try:
        async with ACtx(log, "g"):
            if x:
                raise ExceptionGroup("eg", [ValueError(x), KeyError(x)])
    except* ValueError as v:
        log.append(("v", len(v.exceptions)))
    except* KeyError:
        log.append("k")
    return log
