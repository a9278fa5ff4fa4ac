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


class Console(object):
    """Feeds lines to the loops below: a line names what `read` does with it."""

    def __init__(self, lines, local_exit=True):
        self.lines = list(lines)
        self.local_exit = local_exit
        self.out = []

    def read(self, more):
        line = self.lines.pop(0) if self.lines else "eof"
        self.out.append(("read", more, line))
        if line == "eof":
            raise EOFError()
        if line == "intr":
            raise KeyboardInterrupt()
        if line == "exit":
            raise SystemExit(3)
        if line == "bad":
            raise ValueError(line)
        return line

    def write(self, s):
        self.out.append(s)


def console_run(fn, *args):
    """Runs `fn(console, *args)` for `console_cases`: its result or exception, and
    what the console recorded."""
    def run(lines, local_exit):
        c = Console(lines, local_exit)
        try:
            r = fn(c, *args)
        except BaseException as e:
            r = (type(e).__name__, e.args)
        return r, c.out
    return run


LINES = ((["a", "b", "eof"], True), (["a", "intr", "b", "exit"], True), (["intr", "exit"], False), (["a", "bad"], True), ([], True))


@case(*LINES)
def while_clauses_back_to_latch(lines, local_exit):
    c = Console(lines, local_exit)
    more = 0
    try:
        while True:
            try:
                line = c.read(more)
                more = len(c.out)
            except KeyboardInterrupt:
                more = 0
            except SystemExit as e:
                if c.local_exit:
                    break
                else:
                    raise e
            except EOFError:
                break
        c.write("done")
    except SystemExit as e:
        c.write(("exit", e.args))
    return more, c.out


# ("ab", "exit") with local_exit False leaves the loop by the re-raised SystemExit with
# `more` set: a finally body also copied into the loop would write "more" twice.
@case(*LINES, (["ab", "exit"], False))
def while_nested_try_breaks_in_finally(lines, local_exit):
    c = Console(lines, local_exit)
    more = 0
    exitmsg = None if local_exit else ""
    try:
        while True:
            try:
                if more:
                    prompt = "..."
                else:
                    prompt = ">>>"
                try:
                    line = c.read(prompt)
                except EOFError:
                    c.write("\n")
                    break
                else:
                    more = len(line) > 1
            except KeyboardInterrupt:
                c.write("KeyboardInterrupt")
                more = 0
            except SystemExit as e:
                if c.local_exit:
                    c.write("\n")
                    break
                else:
                    raise e
    except SystemExit:
        c.write("raised")
    finally:
        if more:
            c.write("more")
        if exitmsg is None:
            c.write("now exiting")
        elif exitmsg != "":
            c.write(exitmsg)
    return c.out


@case(*LINES)
def while_clause_break_finally_then_code(lines, local_exit):
    c = Console(lines, local_exit)
    n = 0
    try:
        try:
            while True:
                try:
                    c.read(n)
                    n += 1
                except (EOFError, SystemExit):
                    break
        finally:
            if n:
                c.write("n")
            if local_exit is None:
                c.write("none")
            elif local_exit:
                c.write("local")
        c.write(("after", n))
        if n > 1:
            return n, c.out
    except BaseException as e:
        c.write(type(e).__name__)
    return c.out


@case(*LINES, (["ab", "exit"], False))
def while_nested_try_breaks_finally_only(lines, local_exit):
    c = Console(lines, local_exit)
    more = 0
    exitmsg = None if local_exit else ""
    try:
        while True:
            try:
                if more:
                    prompt = "..."
                else:
                    prompt = ">>>"
                try:
                    line = c.read(prompt)
                except EOFError:
                    c.write("\n")
                    break
                else:
                    more = len(line) > 1
            except KeyboardInterrupt:
                c.write("KeyboardInterrupt")
                more = 0
            except SystemExit as e:
                if c.local_exit:
                    c.write("\n")
                    break
                else:
                    raise ValueError(e.args)
    finally:
        if more:
            c.write("more")
        if exitmsg is None:
            c.write("now exiting")
        elif exitmsg != "":
            c.write(exitmsg)
    return c.out


@case((["a", "b", "eof"], True), (["a", "intr", "b", "x"], True), (["bad", "a"], True), (["x"], False), ([], True))
def while_assert_in_try_clause_breaks(lines, local_exit):
    c = Console(lines, local_exit)
    n = 0
    while 1:
        try:
            try:
                c.write(("n", n))
            except Exception:
                pass
            try:
                line = c.read(n)
            except EOFError:
                break
            if line == "b":
                continue
            assert line != "x"
            n += 1
        except KeyboardInterrupt:
            c.write("KeyboardInterrupt")
        except ValueError:
            c.write("ValueError")
    return n, c.out


class Chained(Exception):
    pass


def fetch(i, fails):
    if i < len(fails):
        kind = fails[i]
        if kind == "perm":
            raise PermissionError("perm")
        if kind == "chain":
            try:
                raise KeyError("inner")
            except KeyError:
                raise Chained("outer")
        raise RuntimeError(kind)
    return ("ok", i)


@case((3, []), (3, ["x"]), (1, ["x", "y"]), (2, ["perm"]), (0, ["chain"]), (1, ["x", "chain"]))
def for_retry_clause_with_loop(retries, fails):
    log = []
    for attempt in range(retries + 1):
        try:
            return fetch(attempt, fails), log
        except PermissionError:
            log.append("perm")
        except (RuntimeError, Chained) as e:
            if attempt < retries:
                continue
            if isinstance(e, Chained):
                while e.__context__ is not None:
                    e = e.__context__
            log.append(("gave up", repr(e)))
            return None, log
    return "exhausted", log
