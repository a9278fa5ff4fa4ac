"""Code on either side of the end of an `except` clause (CPython 3.11+ handler tails):
`return v` written in a clause (its value loaded before the pop) against a `return v`
after the `try` that CPython 3.12+ copies after the clause's pop; copies of a
clause's exit to the code after the `try` at the ends of an `if` in the clause
(no line number, one copy per jump); a `try` body without normal exit whose ends
return the constant that follows the `try`; statements that two arms of a clause's
`if` reach before its pop. Each case records `sys.exc_info()` in the code after the
`try` (or in the clause), so code moved across the pop records a different value,
and runs the normal, exception, `return` and `break` paths."""

import sys

from _sem import case


def handling():
    """The name of the exception being handled now, or None."""
    t = sys.exc_info()[0]
    return None if t is None else t.__name__


def probe(log, x):
    """Appends `x` to `log`; raises KeyError for "k", ValueError for "v"."""
    log.append(x)
    if x == "k":
        raise KeyError(x)
    if x == "v":
        raise ValueError(x)
    return x


@case(({"a": 1}, "a", 5), ({"a": 1}, "b", 5), ({}, "k", None))
def setdefault_return_after_try(d, key, default):
    # `return default` after the try: 3.12+ copies it after the clause's pop.
    try:
        return d[key]
    except KeyError:
        d[key] = default
    return default, handling()


@case(({"a": 1}, "a", 5), ({"a": 1}, "b", 5))
def return_name_after_try(d, key, default):
    try:
        return d[key]
    except KeyError:
        d[key] = default
    return default


@case(({"a": 1}, "a", 5), ({"a": 1}, "b", 5))
def return_name_in_clause(d, key, default):
    try:
        return d[key]
    except KeyError:
        d[key] = default
        return default


@case(({"a": 1}, "a"), ({"a": 1}, "b"))
def return_call_in_clause_and_after(d, key):
    # The clause returns what it sees; the code after the try sees no exception.
    try:
        v = d[key]
    except KeyError:
        if key == "b":
            return "clause", handling()
    else:
        return "else", v, handling()
    return "after", handling()


@case(([], "ok", None), ([], "k", None), ([], "v", None), ([], "ok", 1), ([], "k", 1))
def clause_if_copies_exit(log, x, w):
    # The clause's `if` has two ends; each gets its own copy of the pop and the
    # jump to the (implicit) return after the try.
    try:
        probe(log, x)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:
        if w is not None and not log:
            log.append(("exc", type(exc).__name__))
        log.append(handling())
    else:
        if w is not None and log:
            log.append("else")


@case(([], "ok", 0), ([], "k", 0), ([], "k", 1), ([], "v", 1))
def clause_if_copies_code_after(log, x, w):
    # The same with code after the try that records what is being handled.
    try:
        probe(log, x)
    except KeyError as exc:
        if w:
            log.append(("exc", str(exc)))
    else:
        if w:
            log.append("else")
    log.append(handling())
    return log


@case(([], "ok", True), ([], "ok", False), ([], "k", True), ([], "k", False))
def body_ends_return_const(log, x, c):
    # Both ends of the body return None (copies of the implicit return): the body
    # falls through to it.
    try:
        probe(log, x)
        if c:
            log.append("c")
    except Exception as ex:
        if c:
            log.append(("ex", handling(), str(ex)))


@case(([], True, 1, "ok"), ([], True, 1, "k"), ([], True, 0, "k"), ([], False, 1, "k"))
def nested_if_try_pass(log, a, pos, x):
    # _pyio.TextIOWrapper._configure: every path ends in the implicit return.
    if a and log is not None:
        log.append(pos)
        if pos != 0:
            try:
                probe(log, x)
            except KeyError:
                pass


@case(([], "ok", "p"), ([], "k", "p"), ([], "k", ""), ([], "k", "v"), ([], "v", "p"))
def shared_tail_before_pop(log, x, payload):
    # Both arms of the clause's `if` reach the same statements before the pop
    # (email.message.Message.set_charset).
    try:
        probe(log, x)
    except KeyError:
        if payload:
            try:
                payload = probe(log, payload)
            except ValueError:
                payload = "enc"
        log.append((payload, handling()))
        log.append("header")


@case(([], ["ok", "k", "ok"]), ([], ["k", "stop", "ok"]), ([], ["v"]), ([], []))
def clause_paths_in_loop(log, items):
    # A try in a loop: the clause breaks on one path, continues on the other; the
    # code after the loop and after the try record what is handled.
    for it in items:
        try:
            probe(log, it)
        except KeyError:
            if it == "stop":
                break
            log.append(("k", handling()))
            continue
        except ValueError:
            return "v", handling(), log
        log.append(("after try", handling()))
    log.append(("after loop", handling()))
    return log


@case(([], "ok"), ([], "k"), ([], "v"))
def return_after_clause_with_as(log, x):
    # A clause with `as` whose name is unbound before the code after the try.
    try:
        probe(log, x)
    except KeyError as e:
        log.append(str(e))
    except ValueError:
        return "v", handling()
    return log, handling()
