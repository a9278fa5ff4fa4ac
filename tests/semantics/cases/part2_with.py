"""Part 2, with statements: one and several items, `as` targets (name, tuple, starred,
subscript, attribute), nesting, return/break/continue inside, suppressing and
propagating exceptions, exceptions from __enter__ and __exit__."""

import contextlib

from _sem import case

X = ((1,), (0,), ("k",), ("v",))


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


class Ctx(object):
    """Logs enter/exit into `log`; suppresses exceptions of type `suppress`;
    `fail` = "enter"/"exit" raises there."""

    def __init__(self, log, name, suppress=None, fail=None):
        self.log = log
        self.name = name
        self.suppress = suppress
        self.fail = fail

    def __enter__(self):
        self.log.append(("enter", self.name))
        if self.fail == "enter":
            raise RuntimeError("enter " + self.name)
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name, t.__name__ if t else None))
        if self.fail == "exit":
            raise RuntimeError("exit " + self.name)
        return bool(self.suppress and t and issubclass(t, self.suppress))


class Pair(Ctx):
    def __enter__(self):
        Ctx.__enter__(self)
        return self.name, len(self.log), "third"


class Box(object):
    pass


@case(*X)
def with_one(x):
    log = []
    with Ctx(log, "a"):
        log.append(check(x))
    return log


@case(*X)
def with_as(x):
    log = []
    with Ctx(log, "a", KeyError) as c:
        log.append(c.name)
        check(x)
    return log


@case(*X)
def with_two_items(x):
    log = []
    with Ctx(log, "a", KeyError) as a, Ctx(log, "b", ValueError) as b:
        log.append((a.name, b.name))
        check(x)
    return log


@case(*X)
def with_three_items_mixed_targets(x):
    log = []
    with Ctx(log, "a"), Ctx(log, "b", LookupError) as b, Ctx(log, "c"):
        log.append(b.name)
        check(x)
    return log


@case(*X)
def with_nested(x):
    log = []
    with Ctx(log, "outer", ValueError):
        log.append(1)
        with Ctx(log, "inner", KeyError) as i:
            log.append(i.name)
            check(x)
        log.append(2)
    return log


@case(*X)
def with_tuple_target(x):
    log = []
    with Pair(log, "p") as (name, size, _):
        log.append((name, size))
        check(x)
    return log


@case(*X)
def with_starred_target(x):
    log = []
    with Pair(log, "p") as (first, *rest):
        log.append((first, rest))
    return log, check(x)


@case(*X)
def with_subscript_target(x):
    log = []
    slots = [None, None]
    with Ctx(log, "s") as slots[x == 1]:
        log.append(slots[x == 1].name)
    return log, [s is None for s in slots]


@case(*X)
def with_attribute_target(x):
    log = []
    box = Box()
    with Ctx(log, "attr", ZeroDivisionError) as box.ctx:
        check(x)
    return log, box.ctx.name


@case(*X)
def with_suppressed_continues(x):
    log = []
    with Ctx(log, "a", (KeyError, ValueError)):
        log.append(check(x))
        log.append("not reached on error")
    log.append("after")
    return log


@case(*X)
def with_return_inside(x):
    log = []
    with Ctx(log, "a", KeyError):
        return check(x), log
    return "suppressed", log


@case(*X)
def with_return_nested_two(x):
    log = []
    with Ctx(log, "a"):
        with Ctx(log, "b", ValueError):
            return check(x), log
    return "after", log


@case(*X)
def with_break_in_loop(x):
    log = []
    for i in range(4):
        with Ctx(log, str(i), KeyError):
            if i == 2:
                break
            check(x)
    return log


@case(*X)
def with_continue_in_loop(x):
    log = []
    for i in range(3):
        with Ctx(log, str(i)):
            if i == 1:
                continue
            log.append(i)
    return log, check(x)


@case(*X)
def with_suppress_in_loop(x):
    log = []
    for v in (1, x, 3):
        with Ctx(log, "l", Exception):
            log.append(check(v))
    return log


@case(*X)
def with_in_try(x):
    log = []
    try:
        with Ctx(log, "a"):
            check(x)
    except KeyError:
        log.append("caught k")
    finally:
        log.append("fin")
    return log


@case(*X)
def try_in_with(x):
    log = []
    with Ctx(log, "a"):
        try:
            check(x)
        except (KeyError, ValueError) as e:
            log.append(str(e))
        else:
            log.append("else")
    return log


@case(*X)
def with_in_handler(x):
    log = []
    try:
        check(x)
    except Exception:
        with Ctx(log, "h"):
            log.append("handling")
    return log


@case(*X)
def with_in_finally(x):
    log = []
    try:
        return check(x)
    finally:
        with Ctx(log, "f"):
            log.append("fin")


@case(*X)
def with_enter_fails(x):
    log = []
    try:
        with Ctx(log, "a"), Ctx(log, "b", fail="enter" if x == 1 else None):
            log.append(check(x))
    except Exception as e:
        log.append((type(e).__name__, str(e)))
    return log


@case(*X)
def with_exit_fails(x):
    log = []
    try:
        with Ctx(log, "a", fail="exit"):
            log.append(check(x))
    except RuntimeError as e:
        log.append((str(e), type(e.__context__).__name__))
    return log


@case(*X)
def with_contextmanager_generator(x):
    log = []

    @contextlib.contextmanager
    def managed(name):
        log.append("open " + name)
        try:
            yield name.upper()
        except KeyError:
            log.append("cm caught")
        finally:
            log.append("close " + name)

    with managed("m") as m:
        log.append(m)
        check(x)
    return log


@case(*X)
def with_raised_in_callee(x):
    log = []

    def work():
        with Ctx(log, "w", ValueError):
            return check(x)

    try:
        return work(), log
    except Exception as e:
        return type(e).__name__, log


@case(*X)
def with_in_while(x):
    log = []
    n = 0
    while n < 3:
        n += 1
        with Ctx(log, "w%d" % n, ZeroDivisionError):
            if n == 2:
                check(x)
                continue
            log.append(n)
    return log


@case(*X)
def with_reused_manager(x):
    log = []
    c = Ctx(log, "r", KeyError)
    with c:
        log.append(1)
    with c as again:
        log.append(again is c)
        check(x)
    return log


@case(*X)
def with_return_break_continue_in_loop(x):
    log = []
    for i in range(5):
        with Ctx(log, str(i), KeyError):
            if i == 1:
                continue
            if i == 3:
                return log
            if i == 4:
                break
            check(x if i else 1)
    log.append("after")
    return log


@case(*X)
def with_in_try_finally_break(x):
    log = []
    for i in range(4):
        try:
            with Ctx(log, str(i)):
                if i == 2:
                    break
                log.append(check(x if i else 1))
        finally:
            log.append("f%d" % i)
    return log


@case(*X)
def with_in_while_break_continue(x):
    log = []
    i = 0
    while i < 6:
        i += 1
        with Ctx(log, str(i), ZeroDivisionError):
            if i == 2:
                continue
            if i == 4:
                break
            log.append(check(x if i > 2 else 1))
    log.append("end")
    return log
