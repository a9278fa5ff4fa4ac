"""Session 9 (issue #5), block-stack shapes of CPython 3.8-3.10:

- a `with` body that never exits normally (every path returns a constant or
  raises): CPython 3.9-3.10 put the code after the `with` on the suppressing path
  only, which differs from the `return` copy taken as the body's normal exit;
- `return`, `continue` and `break` in an `except` clause of a `try` inside a `with`:
  the `__exit__` call after the clause's `POP_EXCEPT` lies in the clause's own
  block, reached through the inner handler only;
- a `continue` from such a clause is one more back edge of the loop (3.10 jumps to
  the `NOP` of the `while True:` line, the normal end of the body to the line after);
- `return v` in a `try` of an unrotated `while c:` (3.8-3.9), `v` loaded under the
  handler and reached from both arms of `if a or b:`: not the way out of the loop.

Every path is taken: each branch, an exception handled by the clause, one that
`__exit__` suppresses, one that propagates.
"""

from _sem import case


def check(x):
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x


class Ctx(object):
    """Logs enter/exit into `log`; suppresses exceptions of type `suppress`."""

    def __init__(self, log, suppress=None):
        self.log = log
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, t, v, tb):
        self.log.append(("exit", t.__name__ if t else None))
        return bool(self.suppress and t and issubclass(t, self.suppress))


X = ((1,), (2,), (3,), (0,), ("k",), ("v",))


class Holder(object):
    def __init__(self, log, state):
        self.log = log
        self.state = state


@case(*X)
def with_body_returns_only(x):
    h = Holder([], 0)
    with Ctx(h.log, ZeroDivisionError):
        h.state = check(x)
        if h.state == 1:
            h.state = 10
            return False
        elif h.state == 2:
            return True
        else:
            raise RuntimeError("state %r" % (h.state,))


@case(*X)
def with_body_returns_only_then_code(x):
    log = []
    with Ctx(log, (ZeroDivisionError, KeyError)):
        if check(x) == 1:
            log.append("one")
            return "a"
        log.append("other")
        return None
    log.append("suppressed")
    return log


@case(*X)
def with_body_returns_only_nested_if(x):
    log = []
    with Ctx(log, ZeroDivisionError):
        v = check(x)
        if v > 1:
            if v == 2:
                return 2
            return 3
        return 1
    return tuple(log)


@case(*X)
def return_in_clause_in_with(x):
    log = []
    with Ctx(log, ZeroDivisionError):
        try:
            r = check(x)
        except KeyError:
            log.append("k")
            return
    log.append(r)
    return log


@case(*X)
def return_const_in_clause_in_with(x):
    log = []
    with Ctx(log, ValueError):
        try:
            r = check(x)
        except KeyError:
            log.append("k")
            return "key"
        except ZeroDivisionError:
            return 0
    log.append("after")
    return log


@case((1, 2, 3), (1, "k", 3), (1, 0, 2), ("k", "k"), (2, "v", 1), (0, 0, "k"))
def continue_in_clause_in_with(*xs):
    log = []
    it = iter(xs)
    while True:
        try:
            x = next(it)
        except StopIteration:
            return log
        else:
            if x == 3:
                return log
        with Ctx(log, ZeroDivisionError):
            try:
                y = check(x)
            except KeyError:
                if len(log) < 8:
                    log.append("k")
                    continue
                y = None
            else:
                log.append(y)
        if y is None:
            log.append("none")
        else:
            log.append(("got", y))


@case((1, 2), (1, "k", 2), (0, 1), ("v", 1))
def break_in_clause_in_with(*xs):
    log = []
    for x in xs:
        with Ctx(log, ZeroDivisionError):
            try:
                log.append(check(x))
            except KeyError:
                log.append("k")
                break
        log.append("next")
    else:
        log.append("done")
    return log


@case(((1, 2, 3), 2, 0, None), ((1, 2, 3), 5, 0, None), ((1, 2, 3), 5, 1, 2), ((0, 0, 7), 7, 0, None), ((1, 2), 2, 0, 1))
def index_while_try(seq, value, start, stop):
    i = start
    while stop is None or i < stop:
        try:
            v = seq[i]
            if v is value or v == value:
                return i
        except IndexError:
            break
        i += 1
    raise ValueError(i)


@case((1, 2), (1, "k", 2), (1, "v", 2), (1, 0, 2), ())
def clauses_continue_and_break_in_loop(*xs):
    log = []
    it = iter(xs)
    while True:
        try:
            x = next(it, None)
            if x is None:
                break
            log.append(check(x))
        except KeyError:
            continue
        except ValueError:
            break
    return log


@case((True, (1, 2)), (True, (1, None, 2)), (False, (1,)), (True, ()), (True, (1, "k")))
def break_in_clause_of_loop_in_with(cancel, items):
    log = []
    q = list(items)

    def get():
        if not q:
            raise IndexError("empty")
        v = q.pop(0)
        if v == "k":
            raise KeyError("k")
        return v

    with Ctx(log, KeyError):
        log.append("start")
        if cancel:
            while True:
                try:
                    w = get()
                except IndexError:
                    break
                if w is not None:
                    log.append(w)
        log.append("put")
    if log:
        for t in tuple(log):
            log.append(("again", t))
    return log
