"""Part 2, generators: yield and yield from driven by next/send/throw/close (each
case's own code object is the generator; the driver records the protocol trace),
exceptions in and around generators, generator expressions."""

from _sem import K, case, drive, driven_case

LIST = drive(("list",))
SEND = drive(("next",), ("send", 1), ("send", 2), ("send", None), ("next",))
THROW = drive(("next",), ("throw", ValueError, "t"), ("next",), ("next",), ("next",))
THROW_KEY = drive(("next",), ("throw", KeyError, "k"), ("next",))
THROW_FRESH = drive(("throw", ValueError, "fresh"), ("next",))
CLOSE = drive(("next",), ("close",), ("next",), ("close",))
CLOSE_LATE = drive(("next",), ("next",), ("close",))
SEND_FRESH = drive(("send", 5), ("next",), ("send", 6))


def sub(log):
    """A delegate for `yield from`: logs what it receives; returns how many sends."""
    n = 0
    try:
        while n < 3:
            try:
                got = yield "sub%d" % n
            except ValueError as e:
                log.append(("sub caught", str(e)))
                got = "thrown"
            log.append(("sub got", got))
            n += 1
    finally:
        log.append("sub done")
    return n


def stubborn(log):
    """A delegate that yields again when closed."""
    try:
        yield 1
    except GeneratorExit:
        log.append("ignored")
        yield 2


@driven_case(LIST, (0,), (3,))
def gen_simple(n):
    yield "start"
    for i in range(n):
        yield i * i
    yield "end"


@driven_case(SEND, (0,), (10,))
def gen_send_accumulator(start):
    total = start
    while True:
        v = yield total
        if v is None:
            return total
        total += v


@driven_case(SEND, ())
def gen_yield_expression_values():
    a = yield "first"
    b = yield a
    c = (yield b), (yield "fourth")
    yield c


@driven_case(SEND, ())
def gen_nested_yield_expressions():
    yield (yield 1) + (yield 2)


@driven_case(SEND, ())
def gen_unpack_sent():
    seen = []
    while len(seen) < 2:
        v = yield len(seen)
        seen.append(v)
    return seen


@driven_case(SEND_FRESH, ())
def gen_send_to_fresh():
    v = yield "ready"
    yield v


@driven_case(THROW, ([],))
def gen_throw_caught(log):
    try:
        yield 1
    except ValueError as e:
        log.append(str(e))
        yield "caught"
    yield 3


@driven_case(THROW_KEY, ([],))
def gen_throw_uncaught(log):
    try:
        yield 1
    except ValueError:
        yield "never"
    finally:
        log.append("fin")
    yield 2


@driven_case(THROW_FRESH, ([],))
def gen_throw_before_start(log):
    log.append("started")
    try:
        yield 1
    except ValueError:
        yield "caught"


@driven_case(THROW, ([],))
def gen_throw_in_loop(log):
    i = 0
    while i < 4:
        try:
            yield i
        except ValueError as e:
            log.append(("loop caught", i, str(e)))
            continue
        finally:
            i += 1
    log.append("loop done")


@driven_case(THROW, ())
def gen_throw_reraised_changed():
    try:
        yield 1
    except ValueError as e:
        raise KeyError("from " + str(e))


@driven_case(THROW, ([],))
def gen_yield_in_handler(log):
    try:
        yield "try"
    except ValueError:
        yield "in handler"
        log.append("after handler yield")
    else:
        yield "else"
    yield "end"


@driven_case(CLOSE, ([],))
def gen_close_runs_finally(log):
    try:
        yield 1
        yield 2
    finally:
        log.append("closed")


@driven_case(CLOSE, ([],))
def gen_close_catches_exit(log):
    try:
        yield 1
    except GeneratorExit:
        log.append("exit")
        return "returned on close"
    yield 2


@driven_case(CLOSE, ([],))
def gen_close_ignored(log):
    try:
        yield len(log)
    except GeneratorExit:
        log.append("ignoring")
        yield "ignored"


@driven_case(CLOSE_LATE, ([],))
def gen_close_after_finish(log):
    yield "only"
    log.append("finished")


@driven_case(LIST, (1,), (0,), (5,))
def gen_return_value(n):
    if n == 0:
        return "empty"
    for i in range(n):
        if i == 3:
            return "stopped at 3"
        yield i
    return n


@driven_case(LIST, (1,), (0,))
def gen_raises_after_yield(n):
    yield 10
    yield 10 // n


@driven_case(LIST, ())
def gen_stop_iteration_becomes_runtime_error():
    yield 1
    raise StopIteration("inside")


@driven_case(LIST, ([],))
def gen_yield_in_with(log):
    class Ctx(object):
        def __enter__(self):
            log.append("enter")
            return "ctx"

        def __exit__(self, *exc):
            log.append("exit")

    with Ctx() as c:
        yield c
        yield len(log)


@driven_case(CLOSE, ([],))
def gen_yield_in_with_closed(log):
    class Ctx(object):
        def __enter__(self):
            return self

        def __exit__(self, t, v, tb):
            log.append(t.__name__ if t else None)

    with Ctx():
        yield 1
        yield 2


@driven_case(LIST, (4,), (0,))
def gen_loop_break_else(n):
    for i in range(n):
        if i == 2:
            break
        yield i
    else:
        yield "no break"
    yield "after"


@driven_case(LIST, (3,))
def gen_while_else(n):
    while n:
        n -= 1
        yield n
    else:
        yield "else"


@driven_case(LIST, ([],))
def gen_try_finally_yields(log):
    try:
        yield "a"
        try:
            yield "b"
        finally:
            log.append("inner")
            yield "inner finally"
    finally:
        log.append("outer")
        yield "outer finally"


@driven_case(drive(("next",), ("next",), ("throw", ValueError, "x"), ("list",)), ([],))
def gen_finally_on_throw(log):
    for i in range(5):
        try:
            yield i
        finally:
            log.append(i)


@driven_case(LIST, ("abc",), ("",))
def gen_yield_from_iterable(s):
    yield from s
    yield from range(2)
    yield from [s.upper()]


@driven_case(SEND, ([],))
def gen_yield_from_delegates_send(log):
    result = yield from sub(log)
    log.append(("result", result))
    yield result


@driven_case(THROW, ([],))
def gen_yield_from_delegates_throw(log):
    result = yield from sub(log)
    yield result


@driven_case(THROW_KEY, ([],))
def gen_yield_from_throw_caught_outside(log):
    try:
        yield from sub(log)
    except KeyError as e:
        log.append(("outer caught", str(e)))
        yield "outer"
    yield "end"


@driven_case(CLOSE, ([],))
def gen_yield_from_close_propagates(log):
    try:
        yield from sub(log)
    finally:
        log.append("outer closed")


@driven_case(CLOSE, ([],))
def gen_yield_from_inner_ignores_close(log):
    yield from stubborn(log)


@driven_case(LIST, ([],))
def gen_yield_from_return_value(log):
    def inner():
        yield 1
        return "inner result"

    r = yield from inner()
    yield r
    r2 = yield from inner()
    return r2


@driven_case(SEND, ())
def gen_yield_from_nested_delegation():
    def leaf():
        got = yield "leaf"
        return got

    def middle():
        a = yield from leaf()
        b = yield from leaf()
        return a, b

    yield (yield from middle())


@driven_case(LIST, (3,))
def gen_yield_from_generator_expression(n):
    yield from (i * 10 for i in range(n))
    yield from (c for c in "xy" if c != "x")


@driven_case(drive(("next",), ("send", (1, 2)), ("send", (3, 4))), ())
def gen_unpack_yield(n=0):
    a, b = yield "pair?"
    c, d = yield a + b
    yield c * d


@driven_case(LIST, (2,), (-1,))
def gen_conditional_yields(n):
    if n > 0:
        yield "positive"
    elif n < 0:
        yield "negative"
        return
    yield "both"


@driven_case(drive(("next",), ("next",), ("next",), ("next",)), ([],))
def gen_exception_in_body_caught(log):
    for v in (1, 0, 2):
        try:
            yield 10 // v
        except ZeroDivisionError as e:
            log.append(str(e))
            yield "div"


@case((3,), (0,))
def genexp_sum(n):
    return sum(i * i for i in range(n))


@case((6,),)
def genexp_condition_and_nested(n):
    g = (i * j for i in range(n) if i % 2 for j in range(i) if j != 1)
    return list(g)


@case((4,),)
def genexp_lazy_closure(n):
    k = 1
    g = (i + k for i in range(n))
    k = 100
    return list(g)


@case((4,),)
def genexp_driven_manually(n):
    g = (i * 2 for i in range(n))
    out = [next(g), next(g)]
    g.close()
    out.append(next(g, "closed"))
    return out


@case((2,), (0,))
def genexp_error_caught_by_caller(n):
    g = (10 // (i - n) for i in range(4))
    out = []
    try:
        for v in g:
            out.append(v)
    except ZeroDivisionError as e:
        out.append(str(e))
    return out


@case((3,),)
def genexp_throw_into(n):
    g = (i for i in range(n))
    first = next(g)
    try:
        g.throw(KeyError("thrown"))
    except KeyError as e:
        return first, str(e), list(g)


@case((3,),)
def nested_generator_driven_in_case(n):
    log = []

    def counter():
        i = 0
        while True:
            cmd = yield i
            if cmd == "stop":
                return "stopped"
            if cmd == "boom":
                raise ValueError("boom")
            i += 1 if cmd is None else cmd

    g = counter()
    log.append(next(g))
    log.append(g.send(n))
    log.append(next(g))
    try:
        g.send("stop")
    except StopIteration as e:
        log.append(e.value)
    g2 = counter()
    next(g2)
    try:
        g2.send("boom")
    except ValueError as e:
        log.append(str(e))
    return log


@case((2,),)
def generator_as_iterator_of_zip(n):
    def evens():
        i = 0
        while True:
            yield i
            i += 2

    return list(zip(range(n + 2), evens()))


@case(K(3, stop=2), K(3, stop=9))
def generator_with_kwargs(n, stop=0):
    def gen(limit, *, step=1):
        for i in range(0, limit, step):
            if i >= stop:
                return i
            yield i

    out = list(gen(n))
    out += list(gen(n * 2, step=2))
    return out
