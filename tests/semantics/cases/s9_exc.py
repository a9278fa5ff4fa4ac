"""try/except/finally shapes of session 9 (branch exc): a `finally` body that starts
with a `try`/`except` of its own, around a body whose `except` clause returns (CPython
copies the whole `finally` body, its protected range included, before that `return`;
the copy is the clause's way out, not code after the inner `try`)."""

from _sem import case


def _step(log, what, mode):
    log.append(what)
    if mode == what:
        raise OSError(what)
    if mode == what + "-key":
        raise KeyError(what)


@case(("",), ("body",), ("body-key",), ("close",), ("close-key",), ("after",))
def finally_try_after_return_in_clause(mode):
    log = []

    def run():
        try:
            try:
                _step(log, "body", mode)
                value = len(log)
            except OSError:
                log.append("clause")
                return None
        finally:
            try:
                _step(log, "close", mode)
            except OSError:
                log.append("close-failed")
        _step(log, "after", mode)
        return value

    try:
        return run(), log
    except KeyError as e:
        return "raised", str(e), log


@case(("",), ("body",), ("body-key",), ("close",), ("close-key",), ("with",), ("with-key",), ("empty",))
def finally_try_around_with_and_clause_return(mode):
    log = []

    class M:
        def __enter__(self):
            log.append("enter")
            return self

        def __exit__(self, *exc):
            log.append(("exit", exc[0] is not None))
            return False

    def run():
        temp = M()
        try:
            try:
                _step(log, "body", mode)
            except OSError:
                return None
            with temp:
                _step(log, "with", mode)
                trace = "" if mode == "empty" else "t" + str(len(log))
        finally:
            try:
                _step(log, "close", mode)
            except OSError:
                pass
        res = [trace, trace] if trace else []
        if not res:
            return None
        for r in res:
            if not r:
                continue
            return r

    try:
        return run(), log
    except (KeyError, OSError) as e:
        return "raised", type(e).__name__, log


class _Pipe:
    """A context manager that logs and raises as `mode` says."""

    def __init__(self, log, mode):
        self.log, self.mode = log, mode

    def __enter__(self):
        _step(self.log, "enter", self.mode)
        return self

    def __exit__(self, typ, exc, tb):
        self.log.append(("exit", typ.__name__ if typ else None))
        _step(self.log, "exit", self.mode)
        return self.mode == "swallow"


@case(("",), ("enter",), ("write",), ("write-key",), ("exit",), ("swallow",), ("wait",), ("wait-key",))
def try_with_then_while_true_try(mode):
    # CPython 3.12+ lays the `with` handler's `POP_EXCEPT` out after all other
    # code, under the outer `try`'s handler: not a sign that the `while` after
    # the `try` is in its body.
    log = []
    try:
        with _Pipe(log, mode) as pipe:
            try:
                _step(pipe.log, "write", mode)
            except KeyError:
                log.append("interrupted")
    except OSError:
        log.append("broken")
    tries = 0
    while True:
        tries += 1
        try:
            _step(log, "wait", mode if tries < 3 else "")
            break
        except OSError:
            log.append("again")
    return log


@case(("",), ("enter",), ("body",), ("exit",), ("swallow",), ("loop",))
def try_with_then_while_loop_with_else(mode):
    log = []
    try:
        with _Pipe(log, mode):
            _step(log, "body", mode)
    except OSError:
        log.append("caught")
    n = 0
    while n < 3:
        n += 1
        try:
            _step(log, "loop", mode if n == 2 else "")
        except OSError:
            continue
        log.append(n)
    else:
        log.append("else")
    return log
