"""`return a or b` (and `and`, a conditional expression) as the last statement of a
`try` body: the instructions where the value's branches meet and those after them up
to the return cannot raise, and CPython leaves them out of the protected range (3.11+:
the `RETURN_VALUE`, in a `for` loop the `SWAP 2; POP_TOP` before it, in a `with` the
`NOP` before `__exit__` is called; 3.8-3.10: the body's `POP_BLOCK`s). Recovery folded
the value into that return and wrote it after the `try`, so the call ran outside the
handlers: an `AttributeError` raised by `g` escaped the `except AttributeError` (wrong
code on 3.11-3.14, typing's `_caller` on 3.12; on 3.10 in every shape here, on 3.8-3.9
with a `finally`, in a loop or a `with`).
"""

from _sem import LogContext, case


def _get(d):
    return d["k"].lower()


def _raise_attr(d):
    raise AttributeError("no")


@case((_get, {"k": "A"}), (_get, {"k": ""}), (_raise_attr, {}), (_get, {}))
def return_or_in_try(g, d):
    try:
        return g(d) or d
    except AttributeError:
        pass
    return None


@case((_get, {"k": "A"}), (_get, {"k": ""}), (_raise_attr, {}))
def return_and_in_try(g, d):
    try:
        return g(d) and d
    except AttributeError:
        return "caught"


@case((_get, {"k": "A"}, 1), (_raise_attr, {}, 0), (_get, {"k": "b"}, 0))
def return_ifexp_in_try(g, d, c):
    try:
        return g(d) if c else d
    except AttributeError:
        return "caught"
    finally:
        d["done"] = True


@case((_get, {"k": "A"}), (_raise_attr, {}))
def return_or_in_nested_try(g, d):
    try:
        try:
            return g(d) or d
        except KeyError:
            return "key"
    except AttributeError:
        return "attr"


@case((_get, {"k": "A"}), (_get, {"k": ""}), (_raise_attr, {}))
def return_or_in_try_in_loop(g, d):
    for x in [d, d]:
        try:
            return g(x) or x
        except AttributeError:
            continue
    return "done"


@case((_get, {"k": "A"}), (_get, {"k": ""}), (_raise_attr, {}))
def return_or_in_try_in_with(g, d):
    log = []
    with LogContext(log):
        try:
            return g(d) or log
        except AttributeError:
            log.append("caught")
    return log


@case((_get, {"k": "A"}, 1), (_raise_attr, {}, 1), (_get, {"k": "b"}, 0))
def return_ifexp_in_try_except(g, d, c):
    try:
        return g(d) if c else d
    except AttributeError:
        return "caught"


@case((_get, {"k": "A"}), (_raise_attr, {}), (_get, {"k": ""}))
def return_or_in_try_finally(g, d):
    try:
        return g(d) or d
    finally:
        d["done"] = True
