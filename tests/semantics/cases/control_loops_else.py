"""Control flow of loops with `else` and `break` nested in other loops, and other
flow that must structure without an error (issue #4, part 1)."""

from _sem import case


@case(((1, 2), ("a", "b")), ((0, 0), ()), ((), (1,)))
def nested_for_else_return(xs, ys):
    for y in ys:
        for x in xs:
            if x:
                break
        else:
            return 1
    return 2


@case(((1, 0), (1, 2)), ((0, 0), (3,)), ((), ()))
def nested_for_else_call(xs, ys):
    out = []
    for y in ys:
        for x in xs:
            if x:
                out.append((x, y))
                break
        else:
            out.append(y)
    return out


class _Base:
    a = None
    b = 1


class _Derived(_Base):
    c = 2


@case((_Derived, "a"), (_Derived, "b", "c"), (_Derived, "zz"), (_Derived,))
def for_else_break_inside_if(C, *methods):
    mro = C.__mro__
    for method in methods:
        for B in mro:
            if method in B.__dict__:
                if B.__dict__[method] is None:
                    return NotImplemented
                break
        else:
            return NotImplemented
    return True


@case(([3, 4, 5], 4), ([1], 9), ([], 0))
def for_else_then_statement(xs, target):
    found = -1
    for i, x in enumerate(xs):
        if x == target:
            found = i
            break
    else:
        found = -2
    found += 10
    return found


@case(([[1, 2], [3, 4]], 3), ([[1]], 5), ([], 1))
def for_else_break_to_outer_break(rows, target):
    hits = []
    for row in rows:
        for v in row:
            if v == target:
                break
        else:
            hits.append(row)
            continue
        hits.append("found")
        break
    return hits


@case((1, None, None), (2, None, None), (3, 0, None), (4, 5, 0))
def assert_in_elif_branch(t, k, d):
    out = []
    if t in (1, 2):
        if k is None:
            out.append(3)
    else:
        assert t > 2, "t"
        if k is not None:
            out.append(k)
    if t == 4 and d is not None:
        out.append("d")
    return out


@case(("fzq",), ("zz",), ("",))
def assert_in_loop(fmt):
    new = []
    z = None
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        i += 1
        if ch == "f":
            new.append(1)
        elif ch == "z":
            if z is None:
                z = ""
            assert "%" not in z
            new.append(z)
        else:
            new.append(3)
    return new


class _Sections(dict):
    def sections(self):
        return list(self)


@case((_Sections(a=1, b=2),), (_Sections(),))
def for_body_never_loops(d):
    for key in d.sections():
        value = d[key]
        del d[key]
        return key, value
    raise KeyError


@case(([0, 1],), ([3],), ([],))
def for_breaks_at_first_item(xs):
    for x in xs:
        if x:
            return x
        break
    return None


@case(("ab=\nc=4=41=\n\nx=",), ("",), ("=",))
def while_continue_in_for(encoded):
    eol = "|"
    decoded = ""
    for line in encoded.splitlines():
        line = line.rstrip()
        if not line:
            decoded += eol
            continue
        i = 0
        n = len(line)
        while i < n:
            c = line[i]
            if c != "=":
                decoded += c
                i += 1
            elif i + 1 == n:
                i += 1
                continue
            else:
                decoded += c.upper()
                i += 1
            if i == n:
                decoded += eol
    return decoded


@case((5,), (0,), (12,))
def while_continue_then_else(n):
    out = []
    i = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i > 10:
            break
        out.append(i)
    else:
        out.append("done")
    return out


@case(("a b", "x  "), ("", ""), ("  ", " y"))
def genexp_ternary_with_and(s, tag_s):
    return "".join(c if tag_c == " " and c.isspace() else tag_c for c, tag_c in zip(s, tag_s))


@case(([1, 0, None, 3],),)
def listcomp_ternary_with_or(xs):
    return [x if x is None or x > 1 else -1 for x in xs]


@case((1, 0), (0, 1), (0, 0), (2, 3))
def if_elif_else_all_leave(a, b):
    if a:
        return 1
    elif b:
        raise ValueError(b)
    else:
        y = a + b
        return y


@case((["a", "b", "c"], 2), (["a"], None), ([], 0))
def for_break_then_return(items, maxlines):
    lines = []
    for lineno, item in enumerate(items, 1):
        if maxlines is not None and lineno > maxlines:
            break
        lines.append(item)
    return lines


class _Waiter:
    def __init__(self, done):
        self._done = done
        self.result = "unset"

    def done(self):
        return self._done

    def set_result(self, r):
        self.result = r


@case(([True, False, False],), ([True],), ([],))
def while_break_at_function_end(flags):
    ws = list(map(_Waiter, flags))
    waiters = list(ws)
    while waiters:
        waiter = waiters.pop(0)
        if not waiter.done():
            waiter.set_result(None)
            break
    return list(map(vars, ws)), len(waiters)


class _Node:
    def __init__(self, n):
        self.n = n

    @property
    def back(self):
        return _Node(self.n - 1) if self.n > 0 else None


@case((_Node(3), None, []), (_Node(3), 1, []), (None, 0, []), (_Node(0), None, []))
def while_and_at_function_end(frame, stop, seen):
    while frame and frame.n != stop:
        seen.append(frame.n)
        frame = frame.back


@case((5, 3, 4), (5, 0, 1), (0, 3, 1), (9, 2, 7))
def while_and_and_return(a, b, c):
    out = []
    while a and b and c:
        out.append((a, b, c))
        a, b, c = a - 1, b - 1, c - 1
    return out


@case((5, 0, False), (5, 2, True), (0, 0, True), (3, 9, False))
def while_and_not_return_in_body(a, b, stop):
    out = []
    while a and not b > a:
        out.append(a)
        a -= 1
        if stop:
            return out
    return


@case(("ab (c) d;e",), ("",), (";",), ("  x",))
def while_elif_chain_break(s):
    out = []
    i = 0
    while i < len(s):
        if s[i] == " ":
            i += 1
        elif s[i] == "(":
            out.append("comment")
            i += 1
        elif s[i] == ")":
            out.append("end")
            i += 1
        elif s[i] == ";":
            break
        else:
            out.append(s[i])
            i += 1
    return out
