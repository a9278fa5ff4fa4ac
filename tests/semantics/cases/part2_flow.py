"""Part 2, exceptions mixed with loops, early exits and scopes: the shapes where a
structurer is tempted to copy code after a handler into it."""

import sys

from _sem import case, drive, driven_case

X = ((1,), (0,), ("k",), ("v",))


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


@case(*X)
def handler_then_shared_tail(x):
    log = []
    try:
        v = check(x)
    except KeyError:
        v = "k"
    log.append(sys.exc_info()[0])
    log.append(v)
    return log


@case(*X)
def handler_tail_with_unbound_name(x):
    try:
        v = check(x)
    except (KeyError, ValueError):
        pass
    try:
        return v
    except UnboundLocalError:
        return "unbound"


@case(*X)
def while_true_break_continue(x):
    n = 0
    while True:
        n += 1
        try:
            if n < 3:
                check(0)
            check(x)
            break
        except ZeroDivisionError:
            if n > 4:
                return "gave up", n
            continue
        except Exception:
            return "other", n
    return "done", n


@case(*X)
def loop_else_after_try(x):
    out = []
    for v in (1, x):
        try:
            out.append(check(v))
        except LookupError:
            out.append("lookup")
    else:
        out.append("loop else")
    return out


@case(*X)
def return_in_with_in_for(x):
    class Ctx(object):
        def __enter__(self):
            return self

        def __exit__(self, t, v, tb):
            return t is KeyError

    for i in range(3):
        with Ctx():
            if i == 1:
                return check(x), i
    return "fell through"


@case(*X)
def finally_with_loop_inside(x):
    out = []
    try:
        out.append(check(x))
    finally:
        for i in range(2):
            out.append(i)
    return out


@case(*X)
def try_body_ends_in_raise(x):
    try:
        if x == 1:
            raise KeyError("forced")
        raise ValueError("always")
    except KeyError as e:
        return "k", str(e)
    except ValueError:
        pass
    return "after"


@case(*X)
def else_returns_then_tail(x):
    out = []
    try:
        v = check(x)
    except ZeroDivisionError:
        out.append("z")
    else:
        if v > 1:
            return v
        out.append("small")
    out.append("tail")
    return out


@case(*X)
def handler_deletes_other_name(x):
    tmp = "tmp"
    try:
        check(x)
    except Exception:
        del tmp
    try:
        return tmp
    except NameError:
        return "tmp deleted"


@case(*X)
def closure_with_try(x):
    def safe(f, *args):
        try:
            return f(*args)
        except Exception as e:
            return type(e).__name__

    return safe(check, x), safe(check, 1), safe(int, "no")


@case(*X)
def try_in_loop_with_finally_return(x):
    for i in range(3):
        try:
            if i == 1:
                check(x)
        finally:
            if i == 2:
                return "finally at 2"
    return "loop done"


@case(*X)
def two_sequential_trys(x):
    out = []
    try:
        out.append(check(x))
    except KeyError:
        out.append("first k")
    try:
        out.append(check(x if x != 1 else "v"))
    except ValueError as e:
        out.append(("second", str(e)))
    return out


@case(*X)
def exception_in_condition(x):
    try:
        if check(x) > 1:
            r = "big"
        else:
            r = "small"
    except LookupError:
        r = "lookup"
    return r


@case(*X)
def exception_in_loop_iterable(x):
    out = []
    try:
        for c in check(x) if x != 1 else "ab":
            out.append(c)
    except Exception as e:
        out.append(type(e).__name__)
    return out


@case(*X)
def nested_loops_break_from_handler(x):
    out = []
    for i in range(3):
        for j in range(3):
            try:
                check(x if j == 1 else 1)
            except Exception:
                out.append((i, j))
                break
            out.append(j)
    return out


@case(*X)
def handler_in_while_else(x):
    n = 0
    while n < 2:
        n += 1
        try:
            check(x)
        except KeyError:
            break
    else:
        return "while else", n
    return "broke", n


@case(*X)
def exc_info_restored_after_inner_handler(x):
    out = []
    try:
        check(x)
    except Exception:
        try:
            check("k")
        except KeyError:
            out.append(sys.exc_info()[0].__name__)
        out.append(sys.exc_info()[0].__name__)
    out.append(sys.exc_info()[0])
    return out


@case(*X)
def named_handler_in_loop_unbinds(x):
    out = []
    for v in (x, 1):
        try:
            out.append(check(v))
        except Exception as e:
            out.append(str(e))
    try:
        out.append(e)
    except NameError:
        out.append("e unbound")
    return out


@case(*X)
def with_in_handler_then_tail(x):
    class Ctx(object):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    out = []
    try:
        check(x)
    except Exception:
        with Ctx():
            out.append("handling")
    out.append(sys.exc_info()[0])
    return out


@driven_case(drive(("list",)), (1,), (0,), ("k",))
def gen_handler_then_tail(x):
    try:
        yield check(x)
    except ZeroDivisionError:
        yield "z"
    yield sys.exc_info()[0]


@driven_case(drive(("next",), ("throw", KeyError, "t"), ("list",)), (1,), (0,))
def gen_throw_then_tail(x):
    try:
        yield x
    except KeyError as e:
        yield str(e)
    try:
        yield e
    except NameError:
        yield "e unbound"
    yield sys.exc_info()[0]
