"""Session 6 (issue #5), loops that hit the structurer's duplication limit:

- `while True:` whose `continue` goes to the `NOP` of the `while` line while the end
  of the body jumps past it (CPython 3.10-3.13: two heads of one loop), with an
  `elif` chain of `continue`s and `yield`s and inner `while` loops (difflib's
  `_line_iterator`, feedparser's `_parsegen`);
- a `while True: try: ...; break / except: ...` loop in a `finally` body, whose copy
  for the exceptional exit is handler code, and in an `except` clause (asyncio's
  `Condition.wait`), sync and async, through every exit (normal, `return` in the
  body, raise in the body, handler retried or not, exception left unhandled);
- a loop with an exit that runs code before reaching the code after the loop, besides
  an `assert` (feedparser's `_parsegen`).
"""

import asyncio

from _sem import case, driven_case, drive, run_coroutine


def _flaky(fails, exc=KeyError):
    """A callable that raises `exc` `fails` times, then returns "ok"."""
    left = [fails]

    def call():
        if left[0] > 0:
            left[0] -= 1
            raise exc("flaky %d" % left[0])
        return "ok"

    return call


@case(([1, 2, 3],), ([5, 0, 5, 5, 0],), ([],))
def continue_to_while_line(items):
    items = list(items)
    out = []
    n = 0
    while True:
        while n < 2:
            n += 1
            out.append(("pad", n))
        if not items:
            break
        s = items.pop()
        if s == 5:
            out.append("five")
            continue
        n = s
        out.append(s)
    return out, n


@driven_case(drive(("list",)), (["X"],), (["a", "b", "X"],), (["b", "c", "a", "X"],), (["q", "X"],))
def elif_chain_continue_yield(seq):
    it = iter(seq)
    lines = []
    n = 0
    while True:
        while len(lines) < 2:
            lines.append(next(it, "X"))
        s = lines.pop(0)
        if s == "X":
            n = -1
        elif s == "a":
            yield "a"
            continue
        elif s == "b":
            n -= 2
        elif s == "c":
            n += 1
            yield "c"
            continue
        else:
            yield ("other", s)
            continue
        while n < 0:
            n += 1
            yield None
        if s == "X":
            return
        else:
            yield n


@case((0, False), (2, False), (0, True), (3, True))
def finally_retry_loop(fails, raise_in_body):
    g = _flaky(fails)
    log = []
    try:
        if raise_in_body:
            raise ValueError("body")
        log.append("body")
    finally:
        cancelled = False
        while True:
            try:
                log.append(g())
                break
            except KeyError:
                cancelled = True
        if cancelled:
            log.append("cancelled")
    return log


@case((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (3, 2))
def finally_retry_loop_return(fails, how):
    g = _flaky(fails)
    log = []
    try:
        if how == 1:
            return "early", log
        if how == 2:
            raise ValueError("body")
        log.append("body")
    finally:
        cancelled = False
        while True:
            try:
                log.append(g())
                break
            except KeyError:
                cancelled = True
        if cancelled:
            raise RuntimeError("cancelled %d" % len(log))
    return log


@case((0,), (2,), (5,))
def except_retry_loop(fails):
    g = _flaky(fails)
    log = []
    try:
        raise ValueError("first")
    except ValueError as e:
        log.append(str(e))
        n = 0
        while True:
            try:
                log.append(g())
                break
            except KeyError:
                n += 1
                if n > 3:
                    raise
        log.append(n)
    return log


@case((0,), (2,))
def finally_retry_unhandled(fails):
    g = _flaky(fails, TypeError)
    log = []
    try:
        log.append("body")
    finally:
        while True:
            try:
                log.append(g())
                break
            except KeyError:
                log.append("never")
    return log


async def _acquire(left):
    await asyncio.sleep(0)
    if left[0] > 0:
        left[0] -= 1
        raise KeyError("busy")
    return "got"


@driven_case(run_coroutine, (0, False), (2, False), (0, True), (2, True))
async def async_finally_retry(fails, raise_in_body):
    left = [fails]
    log = []
    try:
        await asyncio.sleep(0)
        if raise_in_body:
            raise ValueError("body")
        log.append("body")
        return log
    finally:
        cancelled = False
        while True:
            try:
                log.append(await _acquire(left))
                break
            except KeyError:
                cancelled = True
        if cancelled:
            log.append("cancelled")


@case(([1, 2, 9],), ([3, 0, 1],), ([7],), ([],), ([1, 4],))
def exit_runs_code_then_after(items):
    items = list(items)
    done = False
    seen = []
    while True:
        if not items:
            break
        x = items.pop()
        if x == 9:
            done = True
            seen.append("end")
            break
        if x == 0:
            continue
        assert x != 4, "four"
        seen.append(x)
    if done:
        seen.append("done")
    return seen, items
