"""Shapes a fresh user's random exception-heavy functions found read wrongly on 3.8-3.10:
the code after a `try`/`finally` whose `finally` holds a `try` with a re-raising clause
and a `finally` of its own (3.8-3.10 thread the inner normal exit straight to that code),
and an except clause holding a `with` or a `try`/`finally` in a `try`/`finally` (3.10).
Variants: a plain clause there, two clauses around a `try`/`finally` on a local, a
`finally` holding a `try`/`except` (with `as`, an `else:`, or a re-raising clause) or a
`try`/`finally` before the code after the statement (also in a loop), an `except ... as`
clause nested in a clause, and a `with` body in place of the `try` body (left as it was
read).
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


def check(x):
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x


@case((1,), ("k",), ("v",))
def except_try_finally_in_try_finally_local(x):
    n = 0
    try:
        try:
            check(x)
        except KeyError:
            try:
                n += 1
            finally:
                n += 2
        except ValueError:
            n += 10
    finally:
        n *= 3
    return n


@case((1,), ("k",), ("v",))
def finally_nested_try_except_as_then_return(x):
    log = Log()
    try:
        log(1)
    finally:
        try:
            check(x)
        except (KeyError, ValueError) as e:
            log(str(e))
    return log(4), log.calls


@case((1,), ("k",), ("v",))
def finally_nested_two_clauses_reraise_then_return(x):
    log = Log()
    try:
        log(1)
    finally:
        try:
            check(x)
        except KeyError:
            log(2)
        except ValueError:
            raise
    return log(4), log.calls


@case((1,), ("k",), ("v",))
def with_except_with_then_return(x):
    # A `with` body: its exit copies (the `__exit__` call) are left as they were.
    log = Log()
    with Guard():
        try:
            check(x)
        except KeyError:
            with Guard():
                log(1)
    return log(4), log.calls


@case((1,), ("k",), ("v",))
def loop_finally_nested_reraise_then_code(x):
    n = 0
    for i in range(2):
        try:
            n += 1
        finally:
            try:
                n += check(x)
            except KeyError:
                raise
            finally:
                n += 5
        n += i
    return n


@case((1,), ("k",), ("v",))
def except_as_in_except_in_try_finally(x):
    n = 0
    try:
        n += check(x)
    except ValueError:
        try:
            n += check(x)
        except (KeyError, ValueError) as e:
            n += len(str(e))
    finally:
        n *= 3
    return str(n)


@case((1,), ("k",), ("v",))
def finally_nested_try_except_else_then_return(x):
    n = 0
    try:
        n += 1
    finally:
        try:
            n += check(x)
        except KeyError:
            n += 10
        else:
            n += 7
    return n


class Guard:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
