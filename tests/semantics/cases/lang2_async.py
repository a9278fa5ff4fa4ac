"""async for, async with, async generators and async comprehensions, driven by
asyncio (one event loop per call). 3.8-3.10 spell them with the block stack (not
normalized yet) and 3.14 changed their shapes: those are known failures."""

import asyncio

from _sem import case


class AIter(object):
    """An async iterator over a copy of `items` that awaits before each item."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        return self

    async def __anext__(self):
        await asyncio.sleep(0)
        if not self.items:
            raise StopAsyncIteration
        return self.items.pop(0)


class ACtx(object):
    """An async context manager that logs enter/exit and may suppress."""

    def __init__(self, log, name="c", suppress=False):
        self.log = log
        self.name = name
        self.suppress = suppress

    async def __aenter__(self):
        await asyncio.sleep(0)
        self.log.append(("enter", self.name))
        return self.name

    async def __aexit__(self, t, v, tb):
        await asyncio.sleep(0)
        self.log.append(("exit", self.name, t.__name__ if t else None))
        return self.suppress


class SCtx(object):
    """A sync context manager that logs."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("s-enter")
        return "s"

    def __exit__(self, t, v, tb):
        self.log.append("s-exit")
        return False


@case(([1, 2, 3],), ([],))
def async_for_basic(xs):
    async def main():
        out = []
        async for x in AIter(xs):
            out.append(x * 2)
        return out
    return asyncio.run(main())


@case(([1, 2, 3], 2), ([1, 2], 9), ([], 0))
def async_for_break_else(xs, stop):
    async def main():
        out = []
        async for x in AIter(xs):
            if x == stop:
                out.append("break")
                break
            if x % 2:
                continue
            out.append(x)
        else:
            out.append("else")
        return out
    return asyncio.run(main())


@case(([[1, 2], [3]],),)
def async_for_nested_and_unpack(rows):
    async def main():
        out = []
        async for row in AIter(rows):
            async for a in AIter(row):
                for b in range(a):
                    out.append((a, b))
        async for i, v in AIter(enumerate("ab")):
            out.append((i, v))
        return out
    return asyncio.run(main())


@case((0,), (1,))
def async_with_as(flag):
    log = []

    async def main():
        async with ACtx(log) as c:
            log.append(("body", c))
            if flag:
                raise ValueError("boom")
        log.append("after")
        return log
    return asyncio.run(main())


@case((0,), (1,))
def async_with_suppress_and_plain(flag):
    log = []

    async def main():
        async with ACtx(log, "s", True):
            if flag:
                raise KeyError("k")
            log.append("in")
        async with ACtx(log, "a") as a, ACtx(log, "b") as b:
            log.append((a, b))
        return log
    return asyncio.run(main())


@case((0,), (1,))
def async_with_nested_sync_and_return(flag):
    log = []

    async def main():
        async with ACtx(log) as c:
            with SCtx(log) as s:
                log.append((c, s))
            if flag:
                return c
            log.append("inner")
        return log
    return asyncio.run(main()), log


@case((3,), (0,))
def async_generator(n):
    async def agen(k):
        for i in range(k):
            await asyncio.sleep(0)
            yield i * i
        yield "end"

    async def main():
        out = []
        async for v in agen(n):
            out.append(v)
        return out
    return asyncio.run(main())


@case((2,),)
def async_generator_asend(n):
    async def agen():
        total = 0
        while True:
            v = yield total
            if v is None:
                return
            total += v

    async def main():
        g = agen()
        out = [await g.asend(None)]
        for i in range(n):
            out.append(await g.asend(i + 1))
        await g.aclose()
        return out
    return asyncio.run(main())


@case(([1, 2, 3],), ([],))
def async_comprehensions(xs):
    async def val(x):
        return x

    async def main():
        a = [x async for x in AIter(xs)]
        b = {x: x + 1 async for x in AIter(xs) if x > 1}
        c = [await val(x) for x in xs]
        d = {y async for x in AIter(xs) for y in range(x)}
        return a, b, c, d
    return asyncio.run(main())


@case(([1, 2, 3],),)
def async_generator_expression(xs):
    async def main():
        g = (x * 2 async for x in AIter(xs))
        out = []
        async for v in g:
            out.append(v)
        return out
    return asyncio.run(main())


@case((2,), (0,))
def async_generator_dead_yield(n):
    async def agen(k):
        if k:
            return
        return
        yield

    async def main():
        out = []
        async for v in agen(n):
            out.append(v)
        return out, type(agen(n)).__name__
    return asyncio.run(main())


@case(([1, 2, 3], 2), ([1], 5))
def async_for_and_with_in_try(xs, bad):
    log = []

    class Boom(Exception):
        pass

    async def main():
        try:
            async for x in AIter(xs):
                if x == bad:
                    raise Boom(x)
                log.append(x)
        except Boom as e:
            log.append(("boom", e.args))
        try:
            async with ACtx(log, "t"):
                if bad in xs:
                    raise KeyError(bad)
        except KeyError:
            log.append("key")
        finally:
            log.append("fin")
        return log
    return asyncio.run(main())
