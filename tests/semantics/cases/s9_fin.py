"""try/finally shapes whose structuring was refused on CPython 3.11+ (session 9,
helper fin): a `finally` body that ends in a loop left by `break` (CPython 3.12+ give
each `break` of the copy run on an exception a `RERAISE` of its own, and copy the
`return` after the statement into each `break` of the normal copy), a `finally` body
that ends in an `if` whose arm never falls through (`raise` inside a try/finally).
Each case records every step in a log and runs the normal path, an exception in the
try body, an exception in the finally body and `break`/`continue`/`return` through
the `finally` body."""

from _sem import case, driven_case


def _step(log, x):
    """Appends `x` to `log`; raises KeyError for "k", ValueError for "v"."""
    log.append(x)
    if x == "k":
        raise KeyError(x)
    if x == "v":
        raise ValueError(x)
    return x


@case(([], 0, []), (["a"], 2, []), (["k"], 2, []), (["a", "b", "c"], 3, []), (["a", "v"], 5, []), ([], 3, ["v"]))
def finally_while_break(items, value, log):
    # The finally body ends in `while c: if not x: break` (asyncio.locks.Semaphore.acquire).
    try:
        for x in items:
            _step(log, x)
    finally:
        while value > 0:
            value -= 1
            if not log or _step(log, log.pop(0)) == "b":
                break
    return value


@case(([], 0, []), (["a"], 2, []), (["k"], 2, []), (["a", "b", "c"], 3, []), (["v"], 1, ["v"]))
def finally_while_break_after_except(items, value, log):
    # The same after an `except` that re-raises (Semaphore.acquire).
    try:
        try:
            for x in items:
                _step(log, x)
        finally:
            log.append("inner")
    except KeyError:
        if value > 1:
            value += 10
        raise
    finally:
        while value > 0:
            if not log or _step(log, log.pop()) == "inner":
                break
            value -= 1
    return value


@case(([], 2), (["a", "b"], 1), (["k"], 0), (["x", "k", "b"], 3), (["v"], 2))
def finally_while_break_only_exit(items, n):
    # The finally body's loop is `while True:` left by `break` only; the function
    # falls off its end after the try.
    log = []
    try:
        for x in items:
            _step(log, x)
    finally:
        while True:
            n -= 1
            if n <= 0:
                break
            log.append(n)
    log.append("end")


@case(([], []), (["a"], []), (["k"], []), (["a", "v", "b"], []), (["k", "k", "a"], []), (["v"], ["v"]))
def finally_retry_loop_then_reraise(items, log):
    # The finally body retries until a step succeeds, keeps the last KeyError and
    # raises it again (asyncio.locks.Condition.wait).
    try:
        log.append("body")
        if items and items[0] == "v":
            raise ValueError("body")
        return len(log)
    finally:
        err = None
        while True:
            try:
                _step(log, items.pop(0) if items else "a")
                break
            except KeyError as e:
                err = e
        if err is not None:
            try:
                raise err
            finally:
                err = None


@case((0, []), (1, []), (2, []), (3, []), (4, []))
def loop_through_finally_with_break_loop(mode, log):
    # break / continue / return / raise leave a try whose finally body ends in a
    # loop of its own that `break` leaves.
    for i in range(3):
        try:
            log.append(i)
            if mode == 1 and i == 1:
                break
            if mode == 2 and i == 0:
                continue
            if mode == 3 and i == 1:
                return log
            if mode == 4 and i == 2:
                raise KeyError(i)
        finally:
            k = 0
            while True:
                k += 1
                if k > i:
                    break
                log.append(("f", i, k))
        log.append(("after", i))
    return ("end", log)


@case((None, []), (KeyError("k"), []), (ValueError("v"), []))
def finally_if_raise_in_try_finally(err, log):
    # The finally body ends in `if c: try: raise e finally: e = None`, an arm that
    # never falls through.
    try:
        log.append("body")
    finally:
        if err is not None:
            try:
                raise err
            finally:
                err = None
    return log


@case((None, False), (KeyError("k"), False), (None, True), (ValueError("v"), True))
def finally_if_raise_after_raising_body(err, fail):
    # The same when the try body raises too: the finally's exception replaces it.
    log = []
    try:
        if fail:
            raise OSError("body")
        log.append("body")
    finally:
        if err is not None:
            try:
                raise err
            finally:
                log.append("inner")
    return log


class _Future:
    """An awaitable that yields once, then returns or raises `what`."""

    def __init__(self, what):
        self.what = what

    def __await__(self):
        yield
        if isinstance(self.what, BaseException):
            raise self.what
        return self.what


def _run(coro):
    """Drives `coro` (which yields bare `None`s) to its end: its result, or the type
    and message of what it raised."""
    try:
        while True:
            coro.send(None)
    except StopIteration as e:
        return ("returned", e.value)
    except BaseException as e:
        return ("raised", type(e).__name__, str(e))


@driven_case(_run, ([], 0, []), (["a"], 2, []), (["k"], 2, []), ([KeyError("x")], 2, []), (["a", "b"], 3, []))
async def async_finally_while_break(items, value, log):
    # asyncio.locks.Semaphore.acquire in a coroutine.
    try:
        try:
            for x in items:
                await _Future(x)
                log.append(x)
        finally:
            log.append("removed")
    except KeyError:
        if value > 1:
            value += 10
        raise
    finally:
        while value > 0:
            if not log or log.pop() == "removed":
                break
            value -= 1
    return (value, log)


@driven_case(_run, ([], []), (["a"], []), ([KeyError("w")], []), ([KeyError("x"), "a"], []), ([ValueError("v")], []))
async def async_retry_then_reraise(items, log):
    # asyncio.locks.Condition.wait: retry an await until it does not raise KeyError,
    # then raise the last KeyError again; any error notifies.
    try:
        try:
            log.append("waiting")
            try:
                await _Future(None)
                return True
            finally:
                log.append("removed")
        finally:
            err = None
            while True:
                try:
                    await _Future(items.pop(0) if items else "ok")
                    break
                except KeyError as e:
                    err = e
            if err is not None:
                try:
                    raise err
                finally:
                    err = None
    except BaseException:
        log.append("notify")
        return log
