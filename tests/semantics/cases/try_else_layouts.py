"""try/except whose clauses never fall through (return, raise, break, continue), with
and without `else`: CPython 3.11 lays out an `else` between the body and the handlers
and code after the `try` after them. Also `break` in an `except` clause of a `try`
inside `while True:`, the loop's only way out. Each case runs every exit."""

from _sem import case

X = ((1,), (0,), ("k",), ("v",), (None,), (3,))


def check(x):
    """Raises an exception chosen by `x`, else returns `x * 2`."""
    if x is None:
        raise TypeError("none")
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


@case(*X)
def else_returns(x):
    try:
        v = check(x)
    except KeyError:
        return False
    else:
        return v == 2 or v is None


@case(*X)
def no_else_returns_after(x):
    try:
        v = check(x)
    except KeyError:
        return False
    return v == 2 or v is None


@case(*X)
def else_then_code_after(x):
    log = []
    try:
        v = check(x)
    except (KeyError, ValueError) as e:
        raise RuntimeError(str(e))
    else:
        log.append(v)
        if v > 2:
            log.append("big")
    log.append("after")
    return log


@case(*X)
def else_with_branch_exits(x):
    try:
        v = check(x)
    except KeyError:
        return "k"
    except ValueError:
        raise
    else:
        if v > 4:
            return "big"
        v += 1
    return v


@case(*X)
def else_in_for_loop(x):
    log = []
    for i in (x, 1, "k", 2):
        try:
            v = check(i)
        except KeyError:
            continue
        except ValueError:
            break
        else:
            log.append(v)
            if v == 4:
                continue
            log.append("tail")
    return log


@case(*X)
def no_else_in_for_loop(x):
    log = []
    for i in (x, 1, "k", 2):
        try:
            v = check(i)
        except KeyError:
            continue
        log.append(v)
    return log


@case(*X)
def while_true_break_in_except(x):
    items = [1, 2, x, 3]
    out = []
    i = 0
    while True:
        try:
            v = check(items[i])
        except (KeyError, ValueError, IndexError):
            break
        out.append(v)
        i += 1
    return out, i


@case(*X)
def while_true_break_as_name(x):
    items = [2, x, 1]
    out = []
    while True:
        try:
            v = check(items.pop())
        except (KeyError, IndexError) as e:
            out.append(type(e).__name__)
            break
        out.append(v)
    out.append("done")
    return out


@case(*X)
def else_in_nested_handler(x):
    try:
        return check(x)
    except (KeyError, ValueError):
        try:
            v = check(1)
        except KeyError:
            return "inner"
        else:
            return v + 1


@case(*X)
def else_inside_finally(x):
    log = []
    try:
        try:
            v = check(x)
        except KeyError:
            return "k", log
        else:
            log.append(v)
    finally:
        log.append("fin")
    return v, log


@case(*X)
def else_in_with(x):
    class M(object):
        def __init__(self, log):
            self.log = log

        def __enter__(self):
            self.log.append("enter")
            return self

        def __exit__(self, *a):
            self.log.append("exit")
            return False

    log = []
    with M(log):
        try:
            v = check(x)
        except KeyError:
            return "k", log
        else:
            log.append(v)
    return v, log


class Manager(object):
    """A context manager that logs, and swallows the exception when `swallow`."""

    def __init__(self, log, swallow=False):
        self.log = log
        self.swallow = swallow

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, typ, value, tb):
        self.log.append("exit %s" % (typ.__name__ if typ else None))
        return self.swallow


@case(*X)
def return_call_in_try_finally(x):
    log = []
    try:
        log.append("body")
        return check(x), log
    finally:
        log.append("fin")


@case(*X)
def return_in_finally_that_raises(x):
    log = []
    try:
        return check(x if x != 3 else 1) + 1
    finally:
        log.append("fin")
        if x == 3:
            raise LookupError(len(log))


@case(*X)
def return_in_with(x):
    log = []
    with Manager(log):
        return check(x), log


@case(*X)
def return_in_swallowing_with(x):
    log = []
    with Manager(log, swallow=True):
        return check(x), log
    return "swallowed", log


@case(*X)
def return_in_nested_with_and_finally(x):
    log = []
    try:
        with Manager(log):
            with Manager(log):
                return [check(x), len(log)]
    finally:
        log.append("fin")


@case(*X)
def return_from_except_as(x):
    try:
        v = check(x)
    except (KeyError, ValueError) as err:
        return str(err) + "!"
    return v


@case(*X)
def return_in_finally_inside_loop(x):
    out = []
    for i in (1, x, 2):
        try:
            if i == 2:
                return out + [check(i)]
            out.append(check(i))
        except ZeroDivisionError:
            out.append("zero")
        finally:
            out.append("fin")
    return out


@case(*X)
def if_in_finally(x):
    log = []
    try:
        log.append(check(x))
    finally:
        if x == 1 or x is None:
            log.append("one")
        log.append("fin")
    return log


@case(*X)
def if_else_in_finally_after_early_return(x):
    log = []
    if x == 3:
        return "early"
    try:
        log.append(check(x))
    finally:
        if x == "k":
            log.append("k")
        elif x == 0:
            log.append("zero")
        else:
            log.append("other")
        log.append(len(log))
    return log


@case(*X)
def if_in_finally_with_return_in_body(x):
    log = []
    try:
        if x == 1:
            return check(x), log
        log.append(check(x))
    finally:
        if log:
            log.append("nonempty")
        log.append("fin")
    return log


@case(*X)
def if_merge_in_except_clause(x):
    log = []
    try:
        log.append(check(x))
    except (KeyError, ValueError) as e:
        if isinstance(e, KeyError):
            log.append("key")
        else:
            log.append("value")
        log.append("handled")
    except Exception:
        if x is None:
            log.append("none")
        log.append("other")
    log.append("after")
    return log


@case(*X)
def loop_and_if_in_finally(x):
    log = []
    try:
        log.append(check(x))
    finally:
        for i in range(2):
            if i == 1 and x == 1:
                log.append("skip")
                continue
            log.append(i)
        log.append("fin")
    return log


class Holder(object):
    """Attributes that finally bodies test and reset."""

    def __init__(self, b=1, c=True):
        self.b = b
        self.c = c


@case(*X)
def finally_ends_in_if(x):
    h = Holder(None if x == 3 else 1, x == 1)
    log = []
    try:
        log.append(check(x))
    finally:
        if h.b is not None:
            log.append("b")
            if h.c:
                log.append("c")
            h.b = None
    return log, h.b


@case(*X)
def finally_ends_in_if_else(x):
    log = []
    try:
        log.append(check(x))
    finally:
        if x == 1:
            log.append("one")
        elif x == "k":
            log.append("k")
        else:
            log.append("other")


@case(*X)
def finally_ends_in_if_then_return_value(x):
    log = []
    try:
        log.append(check(x))
    finally:
        if len(log) > 0:
            log.append("fin")
    return len(log)


@case(*X)
def finally_ends_in_if_in_loop(x):
    log = []
    for i in (1, x):
        try:
            log.append(check(i))
        except KeyError:
            log.append("k")
        finally:
            if i == 1:
                log.append("one")
    return log


@case(*X)
def finally_after_body_that_always_raises(x):
    log = []
    if x == 3:
        try:
            raise LookupError(x)
        finally:
            log.append("fin")
            x = None
    else:
        try:
            check(x)
            raise LookupError("after")
        finally:
            log.append(x)
    return log


@case(*X)
def finally_after_raise_caught_outside(x):
    log = []
    try:
        try:
            if x == 1:
                raise KeyError("one")
            raise ValueError(check(x))
        finally:
            log.append("fin")
    except (KeyError, ValueError, TypeError, ZeroDivisionError) as e:
        log.append(type(e).__name__)
    return log


@case(*X)
def finally_after_raise_in_loop(x):
    log = []
    for i in (1, x):
        try:
            try:
                raise KeyError(i)
            finally:
                log.append(i)
        except KeyError:
            continue
    return log
