"""Part 2, async: coroutines with await (run by asyncio.run), async with, async for,
async comprehensions, async generators driven by asend/athrow/aclose; each case's
own code object is the coroutine or async generator."""

import asyncio

from _sem import case, drive_async, driven_case, run_coroutine

X = ((1,), (0,), ("k",))
ALIST = drive_async(("list",))
ASEND = drive_async(("next",), ("send", 1), ("send", 2), ("next",))
ATHROW = drive_async(("next",), ("throw", ValueError, "t"), ("next",), ("next",))
ACLOSE = drive_async(("next",), ("close",), ("next",))


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    return x * 2


async def fetch(x):
    await asyncio.sleep(0)
    return check(x)


async def ticker(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


class ACtx(object):
    """An async context manager logging into `log`; suppresses `suppress`."""

    def __init__(self, log, name, suppress=None):
        self.log = log
        self.name = name
        self.suppress = suppress

    async def __aenter__(self):
        await asyncio.sleep(0)
        self.log.append(("aenter", self.name))
        return self

    async def __aexit__(self, t, v, tb):
        self.log.append(("aexit", self.name, t.__name__ if t else None))
        return bool(self.suppress and t and issubclass(t, self.suppress))


class Countdown(object):
    """An async iterator class (not a generator)."""

    def __init__(self, n):
        self.n = n

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.n <= 0:
            raise StopAsyncIteration
        self.n -= 1
        return self.n


class Ready(object):
    """An awaitable with __await__."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        yield from asyncio.sleep(0).__await__()
        return self.value


@driven_case(run_coroutine, *X)
async def coro_await_simple(x):
    v = await fetch(x)
    return v + 1


@driven_case(run_coroutine, *X)
async def coro_await_caught(x):
    try:
        return await fetch(x)
    except KeyError as e:
        return "caught " + str(e)


@driven_case(run_coroutine, *X)
async def coro_await_chain(x):
    async def inner(v):
        r = await fetch(v)
        return r * 10

    async def middle(v):
        try:
            return await inner(v)
        except ZeroDivisionError:
            return "middle"

    return await middle(x)


@driven_case(run_coroutine, *X)
async def coro_gather(x):
    async def one(v):
        await asyncio.sleep(0)
        return v

    got = await asyncio.gather(one(1), one(2), fetch(x), return_exceptions=True)
    return [g if not isinstance(g, Exception) else type(g).__name__ for g in got]


@driven_case(run_coroutine, *X)
async def coro_await_awaitable_class(x):
    a = await Ready(x)
    b = await Ready([a])
    return a, b


@driven_case(run_coroutine, *X)
async def coro_try_finally_await(x):
    log = []
    try:
        return await fetch(x), log
    finally:
        await asyncio.sleep(0)
        log.append("fin")


@driven_case(run_coroutine, *X)
async def coro_await_in_handler(x):
    try:
        v = await fetch(x)
    except Exception as e:
        v = await Ready(type(e).__name__)
    return v


@driven_case(run_coroutine, *X)
async def coro_wait_for(x):
    try:
        return await asyncio.wait_for(fetch(x), 5)
    except ZeroDivisionError:
        return "wait_for zero"


@driven_case(run_coroutine, (1,), (3,))
async def coro_task_cancelled(n):
    log = []

    async def sleeper():
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            log.append("cancelled")
            raise

    task = asyncio.ensure_future(sleeper())
    for _ in range(n):
        await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        log.append("awaited cancelled")
    return log


@driven_case(run_coroutine, *X)
async def coro_async_with(x):
    log = []
    async with ACtx(log, "a", KeyError):
        log.append(await fetch(x))
    return log


@driven_case(run_coroutine, *X)
async def coro_async_with_two_items(x):
    log = []
    async with ACtx(log, "a") as a, ACtx(log, "b", ZeroDivisionError) as b:
        log.append((a.name, b.name))
        check(x)
    return log


@driven_case(run_coroutine, *X)
async def coro_async_with_return(x):
    log = []
    async with ACtx(log, "r", ZeroDivisionError):
        return check(x), log
    return "suppressed", log


@driven_case(run_coroutine, *X)
async def coro_async_with_nested_sync_with(x):
    log = []

    class Sync(object):
        def __enter__(self):
            log.append("sync enter")

        def __exit__(self, *exc):
            log.append("sync exit")

    async with ACtx(log, "outer", LookupError):
        with Sync():
            async with ACtx(log, "inner") as inner:
                log.append(inner.name)
                await fetch(x)
    return log


@driven_case(run_coroutine, *X)
async def coro_async_with_in_loop(x):
    log = []
    for i in range(3):
        async with ACtx(log, str(i), ZeroDivisionError):
            if i == 1:
                continue
            if i == 2:
                break
            check(x)
    return log


@driven_case(run_coroutine, (0,), (3,))
async def coro_async_for(n):
    out = []
    async for i in ticker(n):
        out.append(i)
    return out


@driven_case(run_coroutine, (2,), (5,))
async def coro_async_for_break_else(n):
    out = []
    async for i in ticker(n):
        if i == 3:
            break
        out.append(i)
    else:
        out.append("else")
    return out


@driven_case(run_coroutine, (5,),)
async def coro_async_for_continue(n):
    out = []
    async for i in Countdown(n):
        if i % 2:
            continue
        out.append(i)
    return out


@driven_case(run_coroutine, (4,),)
async def coro_async_for_try_in_body(n):
    out = []
    async for i in ticker(n):
        try:
            out.append(await fetch(i))
        except ZeroDivisionError:
            out.append("z")
    return out


@driven_case(run_coroutine, (4,),)
async def coro_async_for_tuple_target(n):
    async def pairs():
        for i in range(n):
            yield i, i * i

    total = 0
    async for a, b in pairs():
        total += a * b
    return total


@driven_case(run_coroutine, (0,), (4,))
async def coro_async_listcomp(n):
    return [i * 2 async for i in ticker(n)]


@driven_case(run_coroutine, (6,),)
async def coro_async_comp_condition(n):
    return [i async for i in ticker(n) if i % 2 if i > 1]


@driven_case(run_coroutine, (4,),)
async def coro_async_set_dict_comps(n):
    s = {i % 2 async for i in ticker(n)}
    d = {i: str(i) async for i in Countdown(n)}
    return s, d


@driven_case(run_coroutine, (3,),)
async def coro_await_in_listcomp(n):
    return [await fetch(i + 1) for i in range(n)]


@driven_case(run_coroutine, (4,),)
async def coro_async_genexp(n):
    g = (i * 3 async for i in ticker(n) if i)
    out = []
    async for v in g:
        out.append(v)
    return out


@driven_case(run_coroutine, (3,),)
async def coro_nested_async_comprehension(n):
    return [[j async for j in ticker(i)] async for i in ticker(n)]


@driven_case(run_coroutine, (2,),)
async def coro_async_for_over_async_comp(n):
    out = []
    async for i in ticker(n):
        out.append([j + i async for j in Countdown(2)])
    return out


@driven_case(ALIST, (0,), (3,))
async def agen_simple(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i
    yield "end"


@driven_case(ASEND, ())
async def agen_asend():
    total = 0
    while True:
        v = yield total
        if v is None:
            return
        total += v


@driven_case(ATHROW, ([],))
async def agen_athrow_caught(log):
    try:
        yield 1
    except ValueError as e:
        log.append(str(e))
        yield "caught"
    yield "after"


@driven_case(drive_async(("next",), ("throw", KeyError, "k"), ("next",)), ([],))
async def agen_athrow_uncaught(log):
    try:
        yield 1
    finally:
        log.append("fin")
        await asyncio.sleep(0)


@driven_case(ACLOSE, ([],))
async def agen_aclose_finally(log):
    try:
        yield 1
        yield 2
    finally:
        await asyncio.sleep(0)
        log.append("closed")


@driven_case(ALIST, ([],))
async def agen_async_with_inside(log):
    async with ACtx(log, "g"):
        yield "inside"
        yield len(log)
    yield "outside"


@driven_case(ALIST, (3,),)
async def agen_delegates_with_async_for(n):
    async for i in ticker(n):
        yield i
    async for j in Countdown(2):
        yield -j


@driven_case(ALIST, (1,), (0,))
async def agen_raises(n):
    yield "before"
    yield await fetch(n)


@driven_case(ALIST, (-1,), (2,))
async def agen_early_return(n):
    if n < 0:
        return
    yield n
    await asyncio.sleep(0)
    yield n + 1


@driven_case(run_coroutine, (3,),)
async def coro_drives_nested_async_generator(n):
    log = []

    async def agen():
        try:
            while True:
                v = yield len(log)
                log.append(v)
        finally:
            log.append("agen closed")

    g = agen()
    log.append(await g.asend(None))
    log.append(await g.asend(n))
    await g.aclose()
    return log


@case((2,), (0,))
def sync_function_runs_coroutine(n):
    async def work():
        await asyncio.sleep(0)
        return 10 // n

    try:
        return asyncio.run(work())
    except ZeroDivisionError as e:
        return "sync caught " + str(e)
