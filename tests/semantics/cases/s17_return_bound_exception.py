"""`return name` in an `except E as name:` clause: the compiler reads `name`, then
unbinds it (`name = None; del name`) and returns the value read. Recovery copied the
value into a temporary before the unbind (`__temp_0__ = e; e = None; del e; return
__temp_0__`): the same values, other bytecode, so `--verify` called such a function
different and `prepare_debug` did not link it (every version). Inside a `with`
(3.11+) the `return` came out after the clause, reading the unbound name: refused now.
"""

from _sem import LogContext, case


def _raise(exc):
    def f(*args):
        raise exc
    return f


@case((_raise(ValueError("v")), 1), (lambda b: b * 2, 3), (lambda b: 0, 0))
def return_bound_exception(a, b):
    try:
        return a(b) or b
    except ValueError as e:
        return e.args, type(e).__name__


@case(([_raise(KeyError("k"))],), ([lambda: 1, _raise(KeyError("j"))],), ([lambda: 1],))
def return_bound_exception_in_loop(fs):
    for f in fs:
        try:
            f()
        except KeyError as e:
            return repr(e)
    return "none"


@case((_raise(KeyError("k")), True), (_raise(KeyError("k")), False), (lambda: 2, True))
def return_bound_exception_in_if(f, c):
    log = []
    try:
        f()
    except KeyError as e:
        if c:
            return str(e)
        log.append(str(e))
    return log


@case((_raise(KeyError("k")),), (lambda: 2,))
def return_the_exception_itself(f):
    try:
        f()
    except KeyError as err:
        return err
    return None


@case((_raise(KeyError("k")),), (lambda: 2,))
def return_the_exception_in_with(f):
    # CPython 3.11+: structuring puts the `return` after the clause, where `err` is
    # unbound (the value was read inside it); refused rather than printed so.
    with LogContext([]):
        try:
            f()
        except KeyError as err:
            return err
