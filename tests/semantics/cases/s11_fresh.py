"""Shapes a fresh user's random exception-heavy functions found read wrongly on 3.8-3.10:
the code after a `try`/`finally` whose `finally` holds a `try` with a re-raising clause
and a `finally` of its own (3.8-3.10 thread the inner normal exit straight to that code),
and an except clause holding a `with` or a `try`/`finally` in a `try`/`finally` (3.10).
Variants: a plain clause there, and a `finally` holding a `try`/`except` or a
`try`/`finally` before the code after the statement.
"""

from _sem import case


class Log:
    def __init__(self):
        self.calls = []

    def __call__(self, n):
        self.calls.append(n)
        return n


@case((1,), (2,))
def finally_nested_reraise_then_return(x):
    log = Log()
    try:
        log(1)
    finally:
        try:
            log(2)
        except ValueError:
            raise
        finally:
            log(3)
    return log(4), log.calls


@case((1,), (-1,))
def except_with_in_try_finally(x):
    try:
        if x > 0:
            raise ValueError
    except ValueError:
        with Guard():
            pass
    finally:
        x += 100
    return x


@case((1,), (-1,))
def except_try_finally_in_try_finally(x):
    try:
        if x > 0:
            raise ValueError
    except ValueError:
        try:
            x *= 2
        finally:
            x += 1
    finally:
        x += 100
    return x


@case((1,), (-1,))
def except_plain_in_try_finally(x):
    # 3.10 copies the `finally` body and the `return` after the `try` after the
    # clause's `POP_EXCEPT` too, even when the clause holds no block of its own.
    try:
        if x > 0:
            raise ValueError
    except ValueError:
        x -= 1
    finally:
        x += 100
    return x


@case((1,), (-1,))
def except_in_try_finally_then_call(x):
    log = Log()
    try:
        if x > 0:
            raise ValueError
    except ValueError:
        with Guard():
            log(1)
    finally:
        log(2)
    return log(3), log.calls


@case((1,), (2,))
def finally_nested_try_finally_then_return(x):
    log = Log()
    try:
        log(1)
    finally:
        try:
            log(2)
        finally:
            log(3)
    return log(4), log.calls


@case((1,), (2,))
def finally_nested_try_except_then_return(x):
    log = Log()
    try:
        log(x)
    finally:
        try:
            log(2)
        except ValueError:
            log(5)
    return log(4), log.calls


@case((1,), (2,))
def finally_nested_reraise_then_code(x):
    log = Log()
    try:
        log(1)
    finally:
        try:
            log(2)
        except ValueError:
            raise
        finally:
            log(3)
    if x > 1:
        log(5)
    return log(4), log.calls


class Guard:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
