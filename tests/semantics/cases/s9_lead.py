"""Functions whose last statement is an `if`/`else` or a `try`/`except`/`else` whose
paths all return: CPython 3.8-3.9 leave an unreachable `return None` after it, which
only that form gives back (`_collections_abc.ItemsView.__contains__`,
`argparse._get_action_name`, `MutableMapping.pop`)."""

from _sem import case


@case(({1: 2}, 1), ({}, 1), ([1], 0), ([1], 5), (None, 1))
def try_else_returns(m, key):
    try:
        m[key]
    except KeyError:
        return False
    except TypeError:
        raise ValueError("unsubscriptable")
    else:
        return True


class _Arg:
    def __init__(self, opts, metavar, dest):
        self.option_strings, self.metavar, self.dest = opts, metavar, dest


@case((None, 0), (_Arg(["-a", "--all"], None, None), 0), (_Arg([], "M", None), "M"),
      (_Arg([], None, None), None), (_Arg([], 0, "d"), 0))
def elif_chain_else_return_none(argument, suppress):
    if argument is None:
        return None
    elif argument.option_strings:
        return "/".join(argument.option_strings)
    elif argument.metavar not in (None, suppress):
        return argument.metavar
    else:
        return None


@case(({1: 2}, 1, 0), ({1: 2}, 3, 0), ({1: 2}, 3, None), ([5], 0, 1))
def try_else_with_statements(m, key, default):
    try:
        value = m[key]
    except (KeyError, IndexError):
        if default is None:
            raise
        return default
    else:
        del m[key]
        value = (value, len(m))
        return value


@case((0,), (1,), (2,), (-1,))
def if_else_after_statements(x):
    y = x * 2
    if x > 1:
        return y
    else:
        y += 1
        return -y


@case((0,), (1,), (3,))
def try_then_if_else(x):
    try:
        r = 10 // x
    except ZeroDivisionError:
        return "zero"
    if r > 5:
        return "big"
    else:
        return r


# The code after a `try` that only the clauses reach, a `return` of a computed value:
# CPython 3.10 copies it after each clause's POP_EXCEPT (`_collections_abc.setdefault`).


@case(({1: 2}, 1, 0), ({}, 1, 7), ([], 0, 3))
def return_after_try_from_clause(m, key, default):
    try:
        return m[key]
    except KeyError:
        m[key] = default
    except IndexError as e:
        default = (default, str(e))
    return default


@case((1,), (0,), ("x",), (None,))
def return_after_try_two_clauses_one_raises(x):
    r = [x]
    try:
        return 10 // x
    except ZeroDivisionError:
        r.append("zero")
    except TypeError:
        raise ValueError("bad")
    return r


@case((1,), (0,), (-1,))
def return_in_clause_and_after(x):
    try:
        if x < 0:
            raise KeyError(x)
        return 1 // x
    except KeyError as e:
        return ("clause", e.args)
    except ZeroDivisionError:
        x = x - 1
    return x * 2


@case((1,), (0,), (-1,))
def else_then_return_after(x):
    y = 0
    try:
        y = 1 // x
    except ZeroDivisionError:
        y = -5
    else:
        y += 1
    return y + x


# `not (a and b)` over `is`/`in` comparisons: the jumps of the test give `not a or
# not b`, whose `not (x is y)` operands CPython 3.8-3.13 would fold into `is not`
# (`dataclasses._init_fn`, `bdb.Bdb.dispatch_exception`).
_M = object()


@case((_M, _M, 0), (_M, 1, 0), (1, _M, 0), (1, 2, 3))
def not_and_of_is(a, b, c):
    if not (a is _M and b is _M):
        return "set"
    elif c:
        return "c"
    return "none"


@case((1, [1, 2], None), (3, [1, 2], None), (1, [1], 5), (0, [], 0))
def not_or_of_in(x, xs, y):
    if not (x in xs or y is None):
        return (x, y)
    return xs


@case((0, (1, 2, None)), (7, (StopIteration, 2, None)), (7, (StopIteration, 2, 3)), (0, (StopIteration, 1, None)))
def not_and_three_operands(flags, arg):
    out = []
    if not (flags & 4 and arg[0] is StopIteration and arg[2] is None):
        out.append("user")
    while not (len(out) > 2 or flags in (1, 2)):
        out.append(flags)
        flags += 1
    return out


class _Fut:
    def __init__(self, loop, with_get):
        self._loop = loop
        if with_get:
            self.get_loop = lambda: ("got", loop)


@case((_Fut(1, True),), (_Fut(2, False),))
def else_returns_then_code_after_try(fut):
    try:
        get_loop = fut.get_loop
    except AttributeError:
        pass
    else:
        return get_loop()
    return fut._loop


@case(([1, 2, 3],), ([],), ([1, None, 3],))
def break_in_clause_then_return(items):
    out = []
    i = 0
    while True:
        try:
            k = items[i] + 1
        except IndexError:
            break
        except TypeError as e:
            out.append(type(e).__name__)
            break
        out.append(k)
        i += 1
    return out
