"""Session 6 (issue #3): `async with` of CPython 3.8, whose exits share one
`WITH_CLEANUP_START; <await>; WITH_CLEANUP_FINISH` handler (normal exit, exception,
and `return`/`break`/`continue` leaving it through `BEGIN_FINALLY ... POP_FINALLY`),
read as 3.9's copies. Each case runs every exit: normal, return, break, continue,
an exception raised inside (suppressed or not by `__aexit__`), and `async with`
inside a `try/finally` and inside a `finally` body.

Coroutines are run by asyncio (one event loop per call)."""

import asyncio

from _sem import case, driven_case, run_coroutine


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


@driven_case(run_coroutine, (0,), (1,), (2,), (3,))
async def coro_async_with_every_exit(n):
    log = []
    async with ACtx(log, "a", KeyError) as name:
        log.append(name)
        if n == 1:
            return log, "returned"
        if n == 2:
            raise KeyError("suppressed")
        if n == 3:
            raise ValueError("escapes")
        log.append("end of body")
    log.append("after")
    return log, None


@driven_case(run_coroutine, ([1, 2, 3],), ([0, 5],), ([4, 9, 1],), ([],))
async def coro_async_with_break_continue(xs):
    log = []
    for x in xs:
        async with ACtx(log, x, ZeroDivisionError):
            if x == 9:
                break
            if x % 2:
                continue
            log.append(10 // x)
    else:
        log.append("no break")
    return log


@driven_case(run_coroutine, (0,), (1,), (2,))
async def coro_async_with_in_try_finally(n):
    log = []
    try:
        async with ACtx(log, "t", KeyError):
            if n == 1:
                raise KeyError("k")
            if n == 2:
                raise ValueError("v")
            log.append("body")
    finally:
        log.append("finally")
    return log


@driven_case(run_coroutine, (0,), (1,), (2,))
async def coro_async_with_in_finally(n):
    log = []
    try:
        if n == 1:
            raise ValueError("try")
        log.append("try body")
    finally:
        async with ACtx(log, "f", KeyError) as name:
            log.append(name)
            if n == 2:
                raise KeyError("in finally")
    return log


@case((0,), (1,))
def async_with_coroutine_closed(n):
    # The coroutine object itself, run to the end here (a plain function case).
    async def inner(log):
        async with ACtx(log, n):
            log.append("inner")
        return log
    return asyncio.run(inner([]))
