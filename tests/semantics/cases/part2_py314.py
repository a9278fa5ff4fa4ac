# semantics: min-version 3.14
"""Part 2, 3.14: `except` and `except*` with several types without parentheses
(PEP 758)."""

from _sem import case

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
def except_unparenthesized(x):
    try:
        return check(x)
    except KeyError, ValueError:
        return "kv"


@case(*X)
def except_unparenthesized_then_named(x):
    try:
        return check(x)
    except KeyError, ZeroDivisionError:
        return "kz"
    except Exception as e:
        return "named", str(e)


@case(*X)
def except_unparenthesized_three(x):
    log = []
    for v in (x, 1):
        try:
            log.append(check(v))
        except ZeroDivisionError, KeyError, ValueError:
            log.append("caught")
            continue
        finally:
            log.append("fin")
    return log


@case(*X)
def except_star_unparenthesized(x):
    got = "ok"
    try:
        try:
            check(x)
        except* KeyError, ValueError:
            got = "star caught"
    except ExceptionGroup:
        return "group escaped"
    except ZeroDivisionError:
        return "plain"
    return got
