"""Loop shapes of CPython 3.8-3.9 found by the round trip of session 8 (helper pre8):
a `return`/`raise` written last in a loop body (kept dead jump after it), a `break`
in an `except` clause of a `while True:` body, and `except` clauses that end a
loop body's last `try` with or without a written `continue`. Each case records the
path it takes, so code moved in or out of the loop or clause would show."""

from _sem import case


@case(([3, 1, 4], 2), ([1, 1], 5), ([], 0), ([9], 9))
def return_last_in_while_true(items, limit):
    # `if c: return x` ends the body of a `while True:` whose only way out is
    # that return (`_weakrefset.WeakSet.pop`).
    it = iter(items)
    log = []
    while True:
        try:
            x = next(it)
        except StopIteration:
            return ("none", log)
        log.append(x)
        if x >= limit:
            return (x, log)


@case(([0, 0, 1],), ([0, 0],), ([],), ([1],))
def return_last_in_while_test(flags):
    # `while c:` whose body ends with `if c: ...; return`: the return stays in the
    # loop, the code after the loop runs when the test fails
    # (`asyncio.locks.Semaphore._wake_up_next`).
    flags = list(flags)
    log = []
    while flags:
        f = flags.pop(0)
        log.append(f)
        if f:
            log.append("hit")
            return log
    log.append("end")
    return log


@case(([1, -2, 3], 10), ([1, 2], 10), ([5, 5], 3), ([], 1))
def return_value_then_continue(steps, limit):
    # `if j < 0: return j` then `continue` inside an `if`, the loop's test leading
    # to another return (`_markupbase.ParserBase._parse_doctype_subset`).
    j = 0
    k = 0
    while k < len(steps):
        s = steps[k]
        k += 1
        if s > 0:
            j = j + s
            if j > limit:
                return ("over", j)
            continue
        j = s
        if j < 0:
            return ("neg", j, k)
    return ("end", j)


@case(([1, 2, 3],), ([1, 2],), ([],))
def break_in_except_of_while_true(items):
    # `except E: break` in a `while True:` body whose code after the `try` goes on
    # in the loop (`aifc.Aifc_read.initfp`).
    it = iter(items)
    log = []
    while True:
        log.append("top")
        try:
            x = next(it)
        except StopIteration:
            break
        log.append(x)
        if x == 2:
            log.append("two")
    log.append("after")
    return log


@case(([1, "x", 2],), ([],), (["x", "y"],))
def clause_falls_off_last_try(items):
    # The `except` clause ends the loop body's last `try` without `continue`
    # (`ast.iter_fields`).
    log = []
    for x in items:
        try:
            log.append(int(x))
        except ValueError:
            log.append("bad")
    log.append("end")
    return log


@case(([1, "x", 2],), ([],), (["x", "y"],))
def clause_continue_last_try(items):
    # The same with a `continue` written at the clause's end.
    log = []
    for x in items:
        try:
            log.append(int(x))
        except ValueError:
            log.append("bad")
            continue
    log.append("end")
    return log


@case((0,), (1,), (3,), (5,))
def retry_until_else_break(fails):
    # `try: ... except E: ... else: break` ends a `while True:` body
    # (`asyncio.tasks.all_tasks`).
    log = []
    n = 0
    while True:
        try:
            n += 1
            if n <= fails:
                raise RuntimeError(n)
            log.append("ok")
        except RuntimeError as e:
            log.append(("retry", e.args[0]))
            if n >= 4:
                raise
        else:
            break
    log.append("done")
    return log


@case(([1, "x", 2, "y"],), ([],), (["x"],))
def clause_continue_then_code(items):
    # A written `continue` in a clause of a `try` followed by more of the body.
    log = []
    for x in items:
        try:
            v = int(x)
        except ValueError as e:
            log.append(type(e).__name__)
            continue
        log.append(v)
    return log


@case(({"a": 1}, "a", 0), ({}, "b", 5), ({"a": None}, "a", 2))
def setdefault_after_clause(d, key, default):
    # The code after the `try`, a small `return`, which CPython 3.10 copies into
    # the clause's exit after its `POP_EXCEPT` (`_collections_abc.setdefault`).
    try:
        return d[key]
    except KeyError:
        d[key] = default
    return default


class _WithLoop:
    _loop = "attr"

    def get_loop(self):
        return "method"


class _NoLoop:
    _loop = "plain"


@case((_WithLoop(),), (_NoLoop(),))
def else_return_then_attribute(obj):
    # `except: pass`, an `else` that returns, then `return obj._loop`
    # (`asyncio.futures._get_loop`).
    try:
        get_loop = obj.get_loop
    except AttributeError:
        pass
    else:
        return get_loop()
    return obj._loop


@case(("1",), ("x",), (None,))
def clause_then_small_return(s):
    # Two clauses, one binding a name, both going on to the same small `return`.
    r = "start"
    try:
        r = int(s)
    except ValueError as e:
        r = type(e).__name__
    except TypeError:
        r = "type"
    return r
