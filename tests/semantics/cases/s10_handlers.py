"""Exception-handler shapes of CPython 3.8/3.9 (issue #5): a `break` or `continue`
as the last statement of a `try` body (3.8/3.9 leave the body's own `POP_BLOCK;
JUMP_FORWARD` after it as dead code, which tells it from an `else:` or code after the
`try`), in `for` and `while` loops, with typed, named and several clauses, nested
`try`s, a `with` in the body and a loop in a `finally` body. Each case raises real
exceptions and runs every exit."""

from _sem import case


class Ctx(object):
    """A context manager that logs its enter and exit."""

    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name, t.__name__ if t else None))
        return False


def probe(x):
    """Raises an exception chosen by `x`, else returns `x`."""
    if x is None:
        raise TypeError("none")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    if x == "o":
        raise OSError(3, "o")
    if x == "p":
        raise OSError(4, "p")
    return x


@case((["o", "o", 3, 4],), (["o"],), ([5],), (["k", 1],))
def break_ends_try_in_for(xs):
    y = None
    log = []
    for x in xs:
        try:
            y = probe(x)
            break
        except OSError:
            log.append(x)
    return y, log


@case((["o", "o", 3],), (["p", 1],), ([7],))
def break_ends_try_in_while_named(xs):
    i = 0
    while True:
        try:
            h = probe(xs[i])
            break
        except OSError as exc:
            if exc.errno != 3:
                raise
        i = i + 1
    return h, i


@case((["o", 2, "o", 4],), ([],), (["k"],))
def continue_ends_try(xs):
    out = []
    for x in xs:
        try:
            y = probe(x)
            out.append(y)
            continue
        except OSError:
            out.append("caught")
        out.append(("after", x))
    return out


@case((["o", 2, "o", 4],), (["v", "o"],))
def else_break_stays_else(xs):
    out = []
    for x in xs:
        try:
            y = probe(x)
        except OSError:
            out.append("o")
        else:
            break
        out.append(x)
    return out


@case(([0, "o", 5],), (["o", "v", 0],), (["v", "k"],))
def break_in_if_of_try_then_continue_clause(xs):
    out = []
    for x in xs:
        try:
            y = probe(x)
            if y:
                break
        except OSError:
            continue
        except ValueError as e:
            out.append(str(e))
        out.append(x)
    return out


@case((["o", "k", 3],), ([1],), (["k", "k"],), (["v"],))
def break_in_inner_try(xs):
    i = 0
    log = []
    while i < len(xs):
        try:
            try:
                y = probe(xs[i])
                break
            except KeyError:
                log.append("k")
        except OSError:
            log.append("o")
        i = i + 1
    return i, log


@case((["o", "k", 3],), ([],), (["o", "o"],))
def break_with_for_else(xs):
    y = None
    for x in xs:
        try:
            y = probe(x)
            break
        except OSError:
            pass
        except KeyError as e:
            y = ("k", str(e))
    else:
        y = ("else", y)
    return y


@case((["o", 2],), (["v"],), ([3, 4],))
def break_after_with_in_try(xs):
    log = []
    for x in xs:
        try:
            with Ctx(log, x):
                probe(x)
            break
        except OSError:
            log.append("o")
    return log


@case((["o", "o", 1],), ([2],), (["v"],))
def loop_with_break_in_finally(xs):
    log = []
    try:
        log.append(probe(xs[-1]))
    finally:
        i = 0
        while True:
            try:
                log.append(probe(xs[i]))
                break
            except OSError:
                log.append(i)
            i = i + 1
    return log


@case(([5, None],), ([0, None],), (["o", None],), (["p", None],))
def if_else_returns_end_try(args):
    x, _ = args
    try:
        data = probe(x)
        if not data:
            return "empty"
        else:
            return ("data", data)
    except OSError as why:
        if why.errno == 3:
            return b""
        else:
            raise


@case(([1, 2, 3],), (["o", "o"],), (["o", 6],), ([],))
def if_else_returns_end_try_in_for(afs):
    for af in afs:
        try:
            probe(af)
            if af == 6:
                return af, "six"
            else:
                return af, "other"
        except OSError:
            pass
    return None


@case((1, 0), (0, 2), (0, 0), ("k", 0))
def elif_else_returns_end_try(a, b):
    try:
        if probe(a):
            return 1
        elif b:
            return 2
        else:
            x = b + 10
            return x
    except KeyError:
        return 0


@case((1, [1, 2]), (0, []), (1, ["k"]), (1, ["o"]))
def if_loop_return_else_return_end_try(a, b):
    log = []
    try:
        if a:
            for q in b:
                log.append(probe(q))
            return 3, log
        else:
            return 4, log
    except KeyError:
        pass
    return 5, log


class State(object):
    """A state holder with a lock-like context manager."""

    def __init__(self, state, items=()):
        self.state = state
        self.items = list(items)
        self.log = []

    def lock(self):
        return Ctx(self.log, "lock")


@case((1, ["a"]), (3, []), (9, []), (3, ["o"]))
def elif_returns_const_in_with(state, items):
    s = State(state, items)
    try:
        with s.lock():
            if s.state == 1:
                s.state = 2
                for it in s.items:
                    s.log.append(probe(it))
                return False, s.log
            elif s.state == 3:
                s.state = 4
                for it in s.items:
                    s.log.append(probe(it))
                return True, s.log
            else:
                s.log.append("bad")
                raise RuntimeError("unexpected state")
    except RuntimeError as e:
        return str(e), s.log


@case((0,), (1,), ("o",), ("k",))
def return_none_early_in_with(mode):
    s = State(mode)
    with s.lock():
        if s.state == 0:
            return
        try:
            if probe(s.state) == 1:
                s.log.append("one")
        except OSError:
            s.log.append("os")
        finally:
            s.log.append("fin")
    return s.log


@case((True,), (False,))
def return_const_in_with_and_after(c):
    s = State(c)
    with s.lock():
        if c:
            return 5
        s.log.append("x")
    return 5


@case((True, 1), (False, 2), (True, "o"), (False, "v"), (True, "k"))
def return_after_if_else_ends_try(flag, x):
    log = []
    if flag is not None:
        try:
            if flag:
                log.append(probe(x))
            else:
                log.append(("else", probe(x)))
            return
        except (OSError, ValueError) as exc:
            log.append(type(exc).__name__)
        except KeyError:
            log.append("k")
            return log
    log.append("after")
    return log


@case((1, 2), ("k", 2), ("k", "o"), ("o", 1))
def finally_raise_in_clause(a, b):
    log = []
    try:
        try:
            log.append(probe(a))
        except KeyError:
            try:
                log.append(probe(b))
            finally:
                raise
        finally:
            log.append("fin")
    except (KeyError, OSError) as e:
        log.append(("out", type(e).__name__))
    return log


@case((True, 1), (False, 1), (False, "o"), (False, "v"))
def return_const_ends_try_finally(flag, x):
    log = []
    if flag:
        return log
    try:
        log.append(probe(x))
        return True
    finally:
        log.append("fin")


@case((1,), ("o",))
def return_const_after_try_finally(x):
    log = []
    try:
        log.append(probe(x))
    finally:
        log.append("fin")
    return True


@case((1,), ("o",), ("v",))
def return_value_through_nested_finally(x):
    log = []
    try:
        log.append("body")
        return probe(x), log
    finally:
        try:
            log.append("inner")
        finally:
            log.append("fin")
