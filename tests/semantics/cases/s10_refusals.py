"""Shapes the structurer refused on the round-trip sample (issue #5): a `for` with an
`else` that raises, in an `if` arm inside a `try` with `finally` or `except`, whose
`break` jumps straight to the code after the `if` (asyncio `_connect_sock`,
compileall `main`); an `except` clause that returns from inside a `with` around the
`try` (asyncio `FastChildWatcher.add_child_handler`: the clause's `return` calls
`__exit__` in a copy of its own, and a reading as `else` ran the code after the
`with` inside it). Each case runs every exit with real values and exceptions."""

from _sem import case


class Log(object):
    """A context manager that records entering and leaving, and suppresses the
    exceptions whose type is in `swallow`."""

    def __init__(self, trail, swallow=()):
        self.trail = trail
        self.swallow = swallow

    def __enter__(self):
        self.trail.append("enter")
        return self

    def __exit__(self, t, v, tb):
        self.trail.append(("exit", t.__name__ if t else None))
        return t is not None and issubclass(t, self.swallow)


def probe(a, trail):
    """Records `a`; raises for some values, else returns whether `a` is big."""
    trail.append(a)
    if a == "os":
        raise OSError("os")
    if a == "k":
        raise KeyError("k")
    if a is None:
        raise TypeError("none")
    return a > 2


FOR_IN = (([1, 3, 5], []), ([1, 2], []), (None, []), ([], []), (["os", 4], []), (["k", 4], []), ([0, "os"], []), ([1, None], []))


@case(*FOR_IN)
def for_else_raise_in_if_finally(items, trail):
    try:
        x = len(trail)
        if items is not None:
            for a in items:
                if probe(a, trail):
                    break
            else:
                raise OSError("no match")
        trail.append("after")
        return x, trail
    finally:
        trail.append("finally")


@case(*FOR_IN)
def for_else_raise_in_if_except_finally(items, trail):
    mine = []
    sock = None
    try:
        sock = "s"
        if items is not None:
            for a in items:
                if a == 1:
                    continue
                try:
                    probe(a, trail)
                    break
                except OSError as exc:
                    mine.append(str(exc))
            else:
                if mine:
                    raise mine.pop() and KeyError("popped")
                else:
                    raise OSError("no local address")
        trail.append(("connect", sock))
        return sock, mine
    except OSError as exc:
        mine.append(repr(exc))
        if sock is not None:
            trail.append("close")
        raise
    except:
        if sock is not None:
            trail.append("close any")
        raise
    finally:
        trail.append("finally")
        mine = None


@case(*FOR_IN)
def for_else_raise_in_if_except(items, trail):
    try:
        n = 0
        if items:
            for a in items:
                n += 1
                if probe(a, trail):
                    break
            else:
                raise ValueError(n)
        trail.append(n)
        return n
    except ValueError as e:
        trail.append(("value", e.args))
        raise


WITH_IN = ((1, (), []), ("k", (), []), ("os", (), []), ("os", (OSError,), []), (None, (TypeError,), []), (5, (KeyError,), []))


@case(*WITH_IN)
def with_try_clause_returns(a, swallow, trail):
    with Log(trail, swallow):
        try:
            got = probe(a, trail)
        except KeyError:
            trail.append("key")
            return
    trail.append(("after", got))
    return got


@case(*WITH_IN)
def with_try_clause_returns_const(a, swallow, trail):
    with Log(trail, swallow):
        try:
            probe(a, trail)
        except (KeyError, TypeError):
            return "caught"
    return trail


@case(*WITH_IN)
def with_try_two_clauses_return(a, swallow, trail):
    got = None
    with Log(trail, swallow):
        trail.append("in")
        try:
            got = probe(a, trail)
        except KeyError:
            trail.append("key")
            return -1
        except OSError as e:
            raise ValueError(e.args)
    trail.append(("after", got))
    return got
