"""Shapes a tester found read as wrong code: a `try` whose body holds a `with` with a
`return` in it, an `except` clause that returns, an `else:` and a `finally:` (3.10-3.15:
the clause's `return` and its copy of the `finally` body were read as code after an inner
`try`), and on 3.10 a `try`/`except`/`else`/`finally` inside an `except` clause whose
`else` holds a loop with a `return` (a copy of the `finally` body was read as the body's
own code).
"""

from _sem import case


class CM:
    def __enter__(self):
        return 'x'

    def __exit__(self, *a):
        return False


@case((0, 0), (1, 0), (0, 1), (1, 1))
def return_in_with_in_try_except_else_finally(a, b):
    try:
        with CM() as f:
            if a:
                return 'ret-in-with'
            r = f
    except OSError:
        return 'oserr'
    else:
        r = r + '!'
    finally:
        if b:
            r = 'fin'
    return r


@case(((0, 0, 0),), ((1, 0, 0),), ((1, 1, 0),), ((1, 0, 1),), ((1, 1, 1),))
def loop_return_in_else_of_try_finally_in_clause(c):
    L = []
    try:
        if c[0]:
            raise ValueError
    except ValueError:
        try:
            L.append(1)
        except KeyError:
            L.append(2)
        else:
            for i in range(2):
                if c[1]:
                    return 'r'
            L.append(3)
        finally:
            if c[2]:
                raise KeyError(4)
        L.append(5)
    return L
