"""Session 7 (issue #5, part 2 on CPython 3.15): async generator expressions, whose
3.15 code object turns its argument into an (async) iterator itself (`LOAD_FAST .0;
GET_AITER` or `GET_ITER` before `RETURN_GENERATOR`; 3.14 and earlier do it in the
caller), `break` out of nested loops from an `except` clause (3.15 pops the
two-slot iterator there with two `POP_TOP`s), unpacking into a name repeated (3.13+
keeps the last store of a run), and `yield from`/`await` inside an `except` clause
(where the `CLEANUP_THROW` of the delegation loop lies before its `END_SEND`).

Coroutines are run by asyncio (one event loop per call); every case runs on 3.8-3.15."""

import asyncio

from _sem import case, drive, driven_case, run_coroutine


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


async def double(x):
    await asyncio.sleep(0)
    return x * 2


async def collect(agen):
    return [v async for v in agen]


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    return x


@driven_case(run_coroutine, ([1, 2, 3, 4], 2), ([], 1), ([5, "boom", 6], 1))
async def agenexp_condition_closure(xs, k):
    g = (x * k async for x in AIter(xs) if x % 2 == 0 or x > k)
    return await collect(g)


@driven_case(run_coroutine, ([[1, 2], [], [3, 0, 4]],), ([],))
async def agenexp_nested_async_for(xss):
    g = (y + 1 async for xs in AIter(xss) async for y in AIter(xs) if y)
    return await collect(g)


@driven_case(run_coroutine, ([[1, 2], [3]],), ([[], [7]],))
async def agenexp_sync_then_async_for(xss):
    g = (y for xs in xss async for y in AIter(xs))
    return await collect(g)


@driven_case(run_coroutine, ([[1, 2], [3]],), ([],))
async def agenexp_async_then_sync_for(xss):
    g = (y * 10 async for xs in AIter(xss) for y in xs if y != 2)
    return await collect(g)


@driven_case(run_coroutine, ([1, 2, 3],), ((),), ("ab",))
async def agenexp_await_element_sync_iterable(xs):
    g = (await double(x) for x in xs)
    return await collect(g)


@driven_case(run_coroutine, ([1, 2, 3],), ([],))
async def agenexp_await_element_with_condition(xs):
    return await collect(await double(x) for x in xs if x != 2)


@driven_case(run_coroutine, ([[1, 2], [3]],), ([[]],))
async def agenexp_as_outer_iterable(xss):
    return [z async for z in (y - 1 async for xs in AIter(xss) for y in xs)]


@case((1,), (0,), ("k",))
def break_nested_loops_from_handler(x):
    out = []
    for i in range(3):
        for j in (1, x, 2):
            try:
                out.append(check(j))
            except ZeroDivisionError:
                out.append(("zero", i))
                break
        else:
            out.append("done")
    return out


@case((1,), (0,), ("k",))
def break_outer_loop_from_handler(x):
    out = []
    for i in range(3):
        try:
            for j in (1, x):
                out.append(check(j) + i)
        except ZeroDivisionError:
            out.append(("zero", i))
            break
    return out


@case((1,), (0,), ("k",))
def break_from_handler_in_while_in_for(x):
    out = []
    for i in range(2):
        n = 0
        while n < 3:
            n += 1
            try:
                check(x if n == 2 else 1)
            except (ZeroDivisionError, KeyError) as e:
                out.append((i, n, type(e).__name__))
                break
        out.append(n)
    return out


@case(([("a", 1, 2, 3, 4), ("b", 5, 6, 7, 8)],), ([],))
def unpack_repeated_underscore_targets(group):
    # CPython 3.13+ keeps only the last store of a run to one local (`POP_TOP`s before it).
    firsts = [tag for tag, _, _, _, _ in group]
    seen = any(tag == "b" for tag, _, _, _, _ in group)
    out = []
    for tag, _, _, last in group:
        out.append((tag, last, _))
    if group:
        x, _, _, y, _ = group[0]
        out.append((x, y, _))
    return firsts, seen, out


def sub(n, tag):
    for i in range(n):
        got = yield (tag, i)
        if got == "stop":
            return ("stopped", tag)
    return ("done", tag)


@driven_case(drive(("next",), ("throw", KeyError, "k"), ("send", 5), ("list",)), (2,))
@driven_case(drive(("next",), ("throw", KeyError, "k"), ("send", "stop"), ("next",)), (3,))
@driven_case(drive(("next",), ("throw", ValueError, "v"), ("next",)), (1,))
def yield_from_in_except_clause(n):
    try:
        got = yield "first"
    except KeyError as e:
        result = yield from sub(n, str(e))
        return result, got
    return "no exception"


@driven_case(run_coroutine, (0,), (1,), ("k",))
async def await_in_except_clause(x):
    try:
        r = check(x)
    except ZeroDivisionError:
        r = await double(21)
    except KeyError as e:
        return await double(str(e))
    return r
