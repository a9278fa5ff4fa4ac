# semantics: min-version 3.11
"""Part 2, except* and exception groups (3.11+)."""

from _sem import case

X = ((0,), (1,), (2,), (3,))


def group(n):
    """An exception group chosen by `n` (0: no exception)."""
    if n == 0:
        return None
    if n == 1:
        return ExceptionGroup("one", [ValueError("v1")])
    if n == 2:
        return ExceptionGroup("two", [ValueError("v2"), KeyError("k2")])
    return ExceptionGroup("three", [TypeError("t3"), ExceptionGroup("inner", [KeyError("k3")])])


def raise_group(n):
    g = group(n)
    if g is not None:
        raise g
    return "no group"


def shape(e):
    """Comparable shape of an exception (group)."""
    if isinstance(e, BaseExceptionGroup):
        return (type(e).__name__, e.message, [shape(x) for x in e.exceptions])
    return (type(e).__name__, str(e))


@case(*X)
def except_star_one_type(n):
    log = []
    try:
        log.append(raise_group(n))
    except* ValueError as eg:
        log.append(shape(eg))
    return log


@case(*X)
def except_star_two_handlers(n):
    log = []
    try:
        raise_group(n)
    except* ValueError as eg:
        log.append(("v", shape(eg)))
    except* (KeyError, TypeError) as eg:
        log.append(("kt", shape(eg)))
    return log


@case(*X)
def except_star_unhandled_rest_propagates(n):
    log = []
    try:
        try:
            raise_group(n)
        except* ValueError:
            log.append("values handled")
    except BaseExceptionGroup as rest:
        log.append(("rest", shape(rest)))
    return log


@case(*X)
def except_star_else_finally(n):
    log = []
    try:
        raise_group(n)
    except* Exception as eg:
        log.append(len(eg.exceptions))
    else:
        log.append("else")
    finally:
        log.append("fin")
    return log


@case(*X)
def except_star_naked_exception_wrapped(n):
    got = "nothing"
    try:
        if n:
            raise KeyError(n)
    except* KeyError as eg:
        got = shape(eg)
    return got


@case(*X)
def except_star_raise_in_handler(n):
    try:
        try:
            raise_group(n)
        except* ValueError:
            raise RuntimeError("from handler")
    except Exception as e:
        return shape(e)
    return "ok"


@case(*X)
def except_star_reraise(n):
    try:
        try:
            raise_group(n)
        except* KeyError:
            raise
    except ExceptionGroup as e:
        return shape(e)
    return "ok"


@case(*X)
def except_star_in_loop(n):
    log = []
    for i in range(n + 1):
        try:
            raise_group(i)
        except* TypeError:
            log.append(("t", i))
        except* Exception as eg:
            log.append(("e", i, len(eg.exceptions)))
    return log


@case(*X)
def except_star_caught_in_caller(n):
    def callee():
        try:
            raise_group(n)
        except* ValueError:
            pass
        return "callee done"

    try:
        return callee()
    except ExceptionGroup as eg:
        return "caller", shape(eg)
