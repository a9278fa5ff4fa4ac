# semantics: min-version 3.11
"""except* (PEP 654): parts of an exception group caught clause by clause, the rest
re-raised, `as` names, nested groups and nested try statements, else/finally, bodies
that raise; and `async with` with several items, `as` targets and returns inside
(driven by asyncio). Each case's own code object is decompiled."""

import asyncio

from _sem import case, drive, driven_case, run_coroutine

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


def _sub(n):
    got = []
    for i in range(n):
        got.append((yield i))
    return got


@driven_case(drive(("next",), ("send", 5), ("throw", ValueError, "t"), ("list",)), (1,), (2,), (3,))
def gen_yield_from_then_long_tail(n):
    """`yield from` followed by enough code that the jump back from its
    CLEANUP_THROW handler (laid out at the end) needs an EXTENDED_ARG."""
    try:
        r = yield from _sub(n)
    except ValueError as e:
        r = ["thrown", str(e)]
    a = len(r)
    a = (a * 3 + 0) % 1009
    r.append(a)
    a = (a * 3 + 1) % 1009
    a = a - 1 if a > 1 else a + 1
    a = (a * 3 + 2) % 1009
    a = a - 2 if a > 2 else a + 1
    a = (a * 3 + 3) % 1009
    a = a - 3 if a > 3 else a + 1
    a = (a * 3 + 4) % 1009
    a = a - 4 if a > 4 else a + 1
    a = (a * 3 + 5) % 1009
    a = a - 5 if a > 5 else a + 1
    a = (a * 3 + 6) % 1009
    a = a - 6 if a > 6 else a + 1
    a = (a * 3 + 7) % 1009
    a = a - 7 if a > 7 else a + 1
    a = (a * 3 + 8) % 1009
    a = a - 8 if a > 8 else a + 1
    a = (a * 3 + 9) % 1009
    a = a - 9 if a > 9 else a + 1
    a = (a * 3 + 10) % 1009
    r.append(a)
    a = (a * 3 + 11) % 1009
    a = a - 11 if a > 11 else a + 1
    a = (a * 3 + 12) % 1009
    a = a - 12 if a > 12 else a + 1
    a = (a * 3 + 13) % 1009
    a = a - 13 if a > 13 else a + 1
    a = (a * 3 + 14) % 1009
    a = a - 14 if a > 14 else a + 1
    a = (a * 3 + 15) % 1009
    a = a - 15 if a > 15 else a + 1
    a = (a * 3 + 16) % 1009
    a = a - 16 if a > 16 else a + 1
    a = (a * 3 + 17) % 1009
    a = a - 17 if a > 17 else a + 1
    a = (a * 3 + 18) % 1009
    a = a - 18 if a > 18 else a + 1
    a = (a * 3 + 19) % 1009
    a = a - 19 if a > 19 else a + 1
    a = (a * 3 + 20) % 1009
    r.append(a)
    a = (a * 3 + 21) % 1009
    a = a - 21 if a > 21 else a + 1
    a = (a * 3 + 22) % 1009
    a = a - 22 if a > 22 else a + 1
    a = (a * 3 + 23) % 1009
    a = a - 23 if a > 23 else a + 1
    a = (a * 3 + 24) % 1009
    a = a - 24 if a > 24 else a + 1
    a = (a * 3 + 25) % 1009
    a = a - 25 if a > 25 else a + 1
    a = (a * 3 + 26) % 1009
    a = a - 26 if a > 26 else a + 1
    a = (a * 3 + 27) % 1009
    a = a - 27 if a > 27 else a + 1
    a = (a * 3 + 28) % 1009
    a = a - 28 if a > 28 else a + 1
    a = (a * 3 + 29) % 1009
    a = a - 29 if a > 29 else a + 1
    a = (a * 3 + 30) % 1009
    r.append(a)
    a = (a * 3 + 31) % 1009
    a = a - 31 if a > 31 else a + 1
    a = (a * 3 + 32) % 1009
    a = a - 32 if a > 32 else a + 1
    a = (a * 3 + 33) % 1009
    a = a - 33 if a > 33 else a + 1
    a = (a * 3 + 34) % 1009
    a = a - 34 if a > 34 else a + 1
    a = (a * 3 + 35) % 1009
    a = a - 35 if a > 35 else a + 1
    a = (a * 3 + 36) % 1009
    a = a - 36 if a > 36 else a + 1
    a = (a * 3 + 37) % 1009
    a = a - 37 if a > 37 else a + 1
    a = (a * 3 + 38) % 1009
    a = a - 38 if a > 38 else a + 1
    a = (a * 3 + 39) % 1009
    a = a - 39 if a > 39 else a + 1
    a = (a * 3 + 40) % 1009
    r.append(a)
    a = (a * 3 + 41) % 1009
    a = a - 41 if a > 41 else a + 1
    a = (a * 3 + 42) % 1009
    a = a - 42 if a > 42 else a + 1
    a = (a * 3 + 43) % 1009
    a = a - 43 if a > 43 else a + 1
    a = (a * 3 + 44) % 1009
    a = a - 44 if a > 44 else a + 1
    a = (a * 3 + 45) % 1009
    a = a - 45 if a > 45 else a + 1
    a = (a * 3 + 46) % 1009
    a = a - 46 if a > 46 else a + 1
    a = (a * 3 + 47) % 1009
    a = a - 47 if a > 47 else a + 1
    a = (a * 3 + 48) % 1009
    a = a - 48 if a > 48 else a + 1
    a = (a * 3 + 49) % 1009
    a = a - 49 if a > 49 else a + 1
    a = (a * 3 + 50) % 1009
    r.append(a)
    a = (a * 3 + 51) % 1009
    a = a - 51 if a > 51 else a + 1
    a = (a * 3 + 52) % 1009
    a = a - 52 if a > 52 else a + 1
    a = (a * 3 + 53) % 1009
    a = a - 53 if a > 53 else a + 1
    a = (a * 3 + 54) % 1009
    a = a - 54 if a > 54 else a + 1
    a = (a * 3 + 55) % 1009
    a = a - 55 if a > 55 else a + 1
    a = (a * 3 + 56) % 1009
    a = a - 56 if a > 56 else a + 1
    a = (a * 3 + 57) % 1009
    a = a - 57 if a > 57 else a + 1
    a = (a * 3 + 58) % 1009
    a = a - 58 if a > 58 else a + 1
    a = (a * 3 + 59) % 1009
    a = a - 59 if a > 59 else a + 1
    a = (a * 3 + 60) % 1009
    r.append(a)
    a = (a * 3 + 61) % 1009
    a = a - 61 if a > 61 else a + 1
    a = (a * 3 + 62) % 1009
    a = a - 62 if a > 62 else a + 1
    a = (a * 3 + 63) % 1009
    a = a - 63 if a > 63 else a + 1
    a = (a * 3 + 64) % 1009
    a = a - 64 if a > 64 else a + 1
    a = (a * 3 + 65) % 1009
    a = a - 65 if a > 65 else a + 1
    a = (a * 3 + 66) % 1009
    a = a - 66 if a > 66 else a + 1
    a = (a * 3 + 67) % 1009
    a = a - 67 if a > 67 else a + 1
    a = (a * 3 + 68) % 1009
    a = a - 68 if a > 68 else a + 1
    a = (a * 3 + 69) % 1009
    a = a - 69 if a > 69 else a + 1
    return r, a


@case(*N)
def star_try_body_returns(n):
    log = []

    def inner():
        try:
            return fire(n)
        except* ValueError as v:
            log.append(len(v.exceptions))
        except* (KeyError, OSError):
            log.append("ko")
        return "after"

    return guarded(inner), log


@case(*N)
def star_clause_with_try_finally(n):
    log = []

    def inner():
        try:
            fire(n)
        except* ValueError as eg:
            try:
                log.append(shape(eg))
                if n == 1:
                    raise LookupError("in clause")
            finally:
                log.append("clause finally")
        return log

    return guarded(inner)


@driven_case(run_coroutine, *X)
async def star_in_coroutine_awaits(x):
    log = []

    async def boom(k):
        await asyncio.sleep(0)
        if k:
            raise ExceptionGroup("c", [ValueError(k), KeyError(k)])
        return k

    try:
        log.append(await boom(x))
    except* ValueError as v:
        await asyncio.sleep(0)
        log.append(("v", len(v.exceptions)))
    except* KeyError:
        log.append(await boom(0))
    return log
