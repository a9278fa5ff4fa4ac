"""Session 8 (issue #5, helper tmp8): values that recovery once named with a
`__temp_N__` because a stack shape was not recognised, now read back as the plain
expression. Every operand logs when it is evaluated, so a wrong order or a
repeated evaluation shows in the result.

- a conditional expression whose arms each end in their own copy of the exit code
  (`return (v, a if c else b)`, `raise E(a if c else b)`: CPython 3.10+ copies a
  small exit block into each jump to it), with values below the test that both
  arms consume;
- an augmented assignment to an attribute, subscript or slice of an operand that is
  not a plain name (`f().a += v`, `f()[k()] += v`, `f()[i():j()] += v`);
- an assignment whose targets' operands are computed (`reg()[key()] = value = v`,
  `xs[i], xs[n - i - 1] = xs[n - i - 1], xs[i]`);
- `a or b` and `a if c else b` inside an `except` clause, and `return v` in a
  `try` inside an `except` clause (its value waits while the clause's exception is
  popped);
- `a if c and d else b` and the other `and`/`or` tests of a conditional
  expression (both tests jump to one arm)."""

from _sem import case


class Err(Exception):
    pass


def note(log, tag, value):
    """Logs `tag` and returns `value`."""
    log.append(tag)
    return value


class Box(object):
    """An object whose attribute `a`, items and slices log their reads and writes."""

    def __init__(self, log, a=0, items=None):
        self.__dict__["log"] = log
        self.__dict__["_a"] = a
        self.__dict__["items"] = list(items or [0, 1, 2, 3, 4])

    def __getattr__(self, name):
        if name == "a":
            self.log.append("get a")
            return self._a
        if name == "inner":
            self.log.append("get inner")
            return self
        raise AttributeError(name)

    def __setattr__(self, name, value):
        self.log.append(("set", name, value))
        if name == "a":
            self.__dict__["_a"] = value
        else:
            self.__dict__[name] = value

    def __getitem__(self, k):
        self.log.append(("getitem", repr(k)))
        return self.items[k]

    def __setitem__(self, k, v):
        self.log.append(("setitem", repr(k), v))
        self.items[k] = v


def box(log, tag, a=0):
    log.append(tag)
    return Box(log, a)


@case((0,), (1,), (2,))
def tail_fold_return_tuple(n):
    log = []
    return (note(log, "first", n * 10), note(log, "then", "a") if note(log, "test", n == 1) else note(log, "else", "b")), log


@case((0,), (1,))
def tail_fold_return_binop(n):
    log = []
    return note(log, "left", n + 3) * 4 + (4 if note(log, "test", n) else 0), log


@case((None,), ("custom",))
def tail_fold_raise_global(msg):
    log = []
    try:
        raise Err("default message" if note(log, "test", msg) is None else note(log, "msg", msg))
    except Err as e:
        return str(e), log


@case((0,), (1,))
def tail_fold_shared_attribute(n):
    log = []
    a, b = Box(log, "A"), Box(log, "B")
    return (note(log, "first", 1), a.a if note(log, "test", n) else b.a), log


@case(([0, 1, 2],), ([3],), ([],))
def tail_fold_in_loop(xs):
    log = []
    for x in xs:
        if x:
            return (note(log, "v", x), note(log, "big", x) if x > 1 else note(log, "small", -x)), log
    return None, log


@case((0,), (1,), (2,))
def tail_fold_in_try(n):
    log = []
    try:
        return (note(log, "a", n), 1 // (n - 2) if note(log, "t", n) else "zero"), log
    except ZeroDivisionError:
        return "caught", log


@case((0,), (1,), (2,))
def tail_fold_nested_conditional(n):
    log = []
    return [note(log, "x", n), "one" if n == 1 else ("two" if n == 2 else note(log, "other", n))], log


@case((0,), (5,))
def aug_attribute_of_call(n):
    log = []
    b = box(log, "box", n)
    box_ = lambda: note(log, "get box", b)
    box_().a += note(log, "value", 3)
    box_().inner.a -= note(log, "value2", 1)
    return b._a, log


@case((0,), (2,))
def aug_subscript_of_call(k):
    log = []
    b = box(log, "box")
    note(log, "start", b)[note(log, "key", k)] += note(log, "value", 10)
    note(log, "again", b).inner[note(log, "key2", k + 1)] *= note(log, "value2", 3)
    return b.items, log


@case((0, 2), (1, 4))
def aug_slice_of_call(i, j):
    log = []
    b = box(log, "box")
    note(log, "start", b)[note(log, "lo", i):note(log, "hi", j)] += note(log, "value", [7, 8])
    note(log, "again", b).inner[:note(log, "hi2", j)] += [9]
    return b.items, log


@case((1,), (3,))
def aug_attribute_chain(n):
    log = []
    b = Box(log)
    b.__dict__["sub"] = Box(log, n)
    b.sub.inner.a |= note(log, "value", 4)
    return b.sub._a, log


@case(("k",), ("z",))
def chained_assignment_call_target(key):
    log = []
    reg = {}
    note(log, "reg", reg)[note(log, "key", key)] = value = note(log, "value", key * 2)
    return reg, value, log


@case(([1, 2, 3, 4, 5],), ([9, 8],), ([],))
def swap_computed_subscripts(xs):
    log = []
    b = Box(log)
    b.__dict__["items"] = list(xs)
    n = len(xs)
    for i in range(n // 2):
        b[i], b[n - i - 1] = b[n - i - 1], b[i]
    return b.items, log


@case((0, None), (1, None), (0, "enc"), (2, ""))
def or_in_except_clause(n, enc):
    log = []
    try:
        log.append(1 // n)
    except ZeroDivisionError as err:
        encoding = note(log, "first", enc) or note(log, "second", "default")
        value = note(log, "a", enc) if note(log, "test", n) else note(log, "b", "zero")
        return encoding, value, type(err).__name__, log
    return log


@case((0, "a"), (1, "a"), (0, "missing"))
def return_in_try_inside_except(n, attr):
    log = []
    try:
        return 10 // n, log
    except ZeroDivisionError:
        try:
            return getattr(note(log, "box", Box(log, 5)), attr), log
        except AttributeError:
            return False, log


@case((0, 0), (0, 1), (1, 0), (1, 1))
def conditional_with_compound_tests(x, y):
    log = []
    a = note(log, "a", "A") if note(log, "x", x) and not note(log, "y", y) else note(log, "b", "B")
    b = note(log, "c", "C") if note(log, "x2", x) or note(log, "y2", y) else note(log, "d", "D")
    c = note(log, "e", "E") if not note(log, "x3", x) and note(log, "y3", y) else note(log, "f", "F")
    d = note(log, "g", "G") if (note(log, "x4", x) or note(log, "y4", y)) and note(log, "z4", x + y > 1) else note(log, "h", "H")
    return a, b, c, d, log
