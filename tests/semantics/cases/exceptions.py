"""Exception handling and `with`: try/except (typed, tuple, named, bare), else,
finally (with a return inside), nesting, bare raise, with (several items, as targets,
nesting, a manager that suppresses)."""

from _sem import case


def helper(x):
    if x is None:
        raise TypeError("none")
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


class CM(object):
    def __init__(self, log, name, suppress=False):
        self.log = log
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self.name

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name, t.__name__ if t else None))
        return self.suppress


INPUTS = ((1,), (0,), ("k",), ("v",), (None,), (3,))


@case(*INPUTS)
def except_clauses(x):
    log = []
    try:
        log.append(helper(x))
    except ValueError as e:
        log.append(str(e))
    except (KeyError, TypeError):
        log.append("key or type")
    except:
        log.append("other")
    else:
        log.append("else")
    return log


@case(*INPUTS)
def except_finally_return(x):
    log = []
    try:
        return helper(x)
    except (KeyError, ValueError) as e:
        return str(e)
    finally:
        log.append("fin")


@case(*INPUTS)
def with_two_items(x):
    log = []
    with CM(log, "a") as a, CM(log, "b", x == "k") as b:
        log.append(a + b)
        log.append(helper(x))
    return log


@case(*INPUTS)
def nested_try_reraise(x):
    log = []
    try:
        try:
            log.append(helper(x))
        except KeyError:
            raise
        except:
            log.append("bare")
            raise ValueError("again")
        else:
            log.append("else")
    except ValueError as e:
        log.append(e.args)
    return log


@case(*INPUTS)
def return_in_finally(x):
    log = []
    try:
        log.append(helper(x))
    finally:
        if x == 3:
            return "swallowed"
    return log


@case(*INPUTS)
def name_unbound_after_except(x):
    e = 5
    try:
        helper(x)
    except Exception as e:
        pass
    try:
        return e
    except NameError:
        return "unbound"


@case(*INPUTS)
def with_nested_branches(x):
    log = []
    with CM(log, "outer", x == "v"):
        if x == 3:
            log.append(3)
        elif x == 1:
            with CM(log, "inner"):
                log.append(1)
        else:
            log.append(helper(x))
    return log


@case(*INPUTS)
def finally_copied_exits(x):
    log = []
    try:
        if x == 3:
            log.append("three")
        elif x == "k":
            return None
        else:
            log.append(helper(x))
    finally:
        log.append("fin")
