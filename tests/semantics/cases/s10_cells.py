"""A cell variable's value taken before statements that may rebind it through a nested
function (`nonlocal`): `return x` in a `try` whose `finally` calls such a function
returns `x` as it was before the call (a fresh user's case: it came out as `return x`
after the `finally`, returning the rebound value)."""

from _sem import case


@case((1,), ("a",))
def return_cell_in_try_finally_rebound(x):
    def g():
        nonlocal x
        x = 99
    try:
        return x
    finally:
        g()


@case((1,), (5,))
def return_cell_sum_in_try_finally(x):
    log = []

    def bump():
        nonlocal x
        log.append(x)
        x += 10
    try:
        return x, len(log)
    finally:
        bump()


@case((2,),)
def return_plain_local_in_try_finally(x):
    try:
        return x
    finally:
        x = 0
