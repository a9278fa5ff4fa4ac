"""Session 5 (issue #5), shapes the stdlib round trip met:

- `async for` / `async with` of CPython 3.8-3.10 (block-stack heads read as 3.11's ops):
  `return` inside `async with` (the `ROT_TWO` before the awaited exit), `async for`
  inside `async with` and the reverse, `async with` inside `while`, exceptions raised
  inside and suppressed, async generators with `async for`/`async with` driven by
  asend/athrow/aclose, async generator expressions;
- loops inside `with` bodies whose backward conditional jump CPython 3.14 leaves out of
  the exception table (`with: for: while c:`, `with: for: if c:`, `with: while c: while
  d:`, `with: while True: try/except: break`).

Coroutines are run by asyncio (one event loop per call)."""

import asyncio

from _sem import case, driven_case, drive, drive_async, run_coroutine


class AIter(object):
    """An async iterator over a copy of `items`; an item "boom" raises ValueError."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        return self

    async def __anext__(self):
        await asyncio.sleep(0)
        if not self.items:
            raise StopAsyncIteration
        x = self.items.pop(0)
        if x == "boom":
            raise ValueError("boom")
        return x


class ACtx(object):
    """An async context manager logging into `log`; suppresses `suppress` exceptions."""

    def __init__(self, log, name="c", suppress=None):
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
        return self.suppress is not None and t is not None and issubclass(t, self.suppress)


class Ctx(object):
    """A sync context manager logging into `log`; suppresses `suppress` exceptions."""

    def __init__(self, log, suppress=None):
        self.log = log
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", t.__name__ if t else None))
        return self.suppress is not None and t is not None and issubclass(t, self.suppress)


async def twice(x):
    await asyncio.sleep(0)
    return x * 2


@driven_case(run_coroutine, ([],), ([1, 2],), ([1, "boom"],))
async def coro_return_await_in_async_with(xs):
    log = []
    async with ACtx(log, "a"):
        async for x in AIter(xs):
            log.append(await twice(x))
        return log, await twice(len(xs))


@driven_case(run_coroutine, ([1, 2, 3], 2), ([1, 3], 2), ([1, "boom", 2], 9))
async def coro_async_for_with_return_inside_async_with(xs, stop):
    log = []
    async for x in AIter(xs):
        async with ACtx(log, x, ValueError) as name:
            if x == stop:
                return log, name
            log.append(await twice(x))
    return log, None


@driven_case(run_coroutine, (3,), (0,), (5,))
async def coro_async_with_in_while_suppressing(n):
    log = []
    while n:
        n -= 1
        async with ACtx(log, n, ZeroDivisionError):
            log.append(10 // (n % 2))
    return log


@driven_case(run_coroutine, ([1, 2],), (["boom"],), ([],))
async def coro_async_for_else_in_try(xs):
    log = []
    try:
        async for x in AIter(xs):
            log.append(x)
        else:
            log.append("done")
    except ValueError as e:
        log.append(("caught", str(e)))
    return log


@driven_case(drive_async(("next",), ("send", 5), ("next",), ("next",), ("next",)), ([1, 2],), ([],))
async def agen_async_with_and_async_for(xs):
    log = []
    async with ACtx(log, "g"):
        async for x in AIter(xs):
            got = yield x
            log.append(got)
    yield log


@driven_case(drive_async(("next",), ("throw", KeyError, "k"), ("next",)), ([1, 2],))
async def agen_athrow_inside_async_with(xs):
    log = []
    try:
        async with ACtx(log, "t", KeyError):
            async for x in AIter(xs):
                yield x
        yield ("after", log)
    finally:
        log.append("fin")


@driven_case(drive_async(("next",), ("close",), ("next",)), ([1, 2, 3],))
async def agen_aclose_inside_async_for(xs):
    async for x in AIter(xs):
        yield x


@driven_case(run_coroutine, ([1, 2, 3],), ([],))
async def coro_async_genexp_filter(xs):
    g = (x * 3 async for x in AIter(xs) if x != 2)
    return [y async for y in g]


@case(("abcdef", 2), ("", 3), ("a\nbcd\n", 1))
def with_for_while_chunks(s, size):
    log = Ctx([])
    out = []
    with log:
        for line in s.splitlines(keepends=True):
            while line:
                out.append(line[:size])
                line = line[size:]
    return out, log.log


@case(([1, 0, 2, 0],), ([],))
def with_for_if_last(xs):
    out = []
    c = Ctx(out)
    with c:
        for x in xs:
            if x:
                out.append(x)
    return out


@case((3, 2), (0, 1), (2, 0))
def with_while_while(n, m):
    out = []
    with Ctx(out, ZeroDivisionError):
        while n:
            n -= 1
            k = m
            while k:
                k -= 1
                out.append((n, k, 6 // (n + k - 1)))
    return out


@case(([1, None, 2],), ([None],), ([],))
def with_while_try_break(items):
    out = []
    queue = list(items)
    with Ctx(out):
        out.append("start")
        if items is not None:
            while True:
                try:
                    item = queue.pop(0)
                except IndexError:
                    break
                if item is not None:
                    out.append(item)
        out.append("end")
    return out


@driven_case(drive(("next",), ("send", "x"), ("throw", ValueError, "v"), ("next",), ("close",)), ([1, 2, 3],))
def gen_with_for_while_send_throw(xs):
    log = []
    with Ctx(log, ValueError):
        for x in xs:
            while x:
                got = yield x
                log.append(got)
                x -= 1
    yield log


@driven_case(drive(("next",), ("send", "s"), ("throw", KeyError, "k"), ("next",), ("close",)), ([[1, 2], [], [3]],), ([],))
def gen_for_last_while_pops(lists):
    log = []
    for element in lists:
        element.reverse()
        while element:
            try:
                got = yield element.pop()
            except KeyError as e:
                log.append(("caught", str(e)))
                continue
            log.append(got)
    yield log


@case((3, [2, 0, 1]), (0, [1]), (2, []))
def while_last_in_while_and_if(n, ks):
    out = []
    while n:
        n -= 1
        k = list(ks)
        if n % 2:
            while k:
                v = k.pop()
                if v == 0:
                    break
                out.append((n, v))
        else:
            while k and k[-1]:
                out.append(k.pop())
    return out
