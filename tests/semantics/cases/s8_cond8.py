"""Branch order and placement: an if/elif/else that ends a loop body (its arms meet
at the loop's end, not in `continue` statements), `continue` statements beside
arms that fall off the body's end, `(a and b) or (c and d)` in if and while tests
and at the bottom of a rotated while, `if x: break` before a loop test whose exit
code is copied, and if/else at a loop's end next to try statements."""

from _sem import case


@case(([3, 0, -1, 5, 5, 5, 5, 5],), ([],), ([1, 1, 1, 1, 1, 0, 2],), ([-1],))
def if_elif_else_ends_for_body(xs):
    out, cur = [], []
    for x in xs:
        if x > 0:
            cur.append(x)
            if len(cur) == 5:
                out.append(sum(cur))
                cur.clear()
        elif x == 0:
            if cur:
                out.append("z-in-cur")
            out.append("z")
        elif x == -1 and len(out) > 5:
            continue
        else:
            out.append(("neg", x))
    return out, cur


@case(([("a", "g", 1), ("b", "l", None), ("a", "x", 2), ("c", "o", 3)],), ([],))
def one_line_continue_then_if_else(rows):
    done, dump = {}, []
    for name, where, value in rows:
        if name in done: continue
        done[name] = 1
        if value is not None:
            if where in ("g", "b"):
                dump.append(("glob", name))
            elif where == "l":
                dump.append(("loc", name))
            else:
                dump.append((where, name))
        else:
            dump.append(name + " undefined")
    return dump


@case(([1, 0, 2, 0, 3],), ([0, 0],), ([5],))
def if_else_ends_for_with_continue_in_arm(xs):
    out = []
    for x in xs:
        if x == 0:
            out.append("zero")
            continue
        if x > 1:
            out.append(x * 2)
        else:
            out.append(x)
    return out


@case((0, 0, 0, 0), (1, 1, 0, 0), (0, 0, 1, 1), (1, 0, 0, 1), (0, 1, 1, 0), (1, 1, 1, 1))
def and_or_and_if(a, b, c, d):
    if a and b or c and d:
        x = "yes"
    else:
        x = "no"
    return x


@case((5, 1, 3, 0), (0, 1, 3, 2), (4, 0, 2, 2), (0, 0, 0, 0))
def and_or_and_while(a, b, c, d):
    n = 0
    while a and b or c and d:
        n += 1
        if a:
            a -= 1
        elif c:
            c -= 1
        else:
            break
    return n, a, c


@case((1, 8, 1000), (50, 8, 1000), (1000, 8, 1000), (3, 2, 10))
def and_or_and_multiline_while(y, L, M):
    R = 0
    while (R <= L and abs(y) << L-R >= M or
           R > L and abs(y) >> R-L >= M):
        y = (M * y) // 3 + 1
        R += 1
        if R > 40:
            break
    return y, R


@case((b"ab\ncd", -1), (b"abcd", 2), (b"abcdef", -1), (b"", 3), (b"\n\n", 5))
def break_before_rotated_while_test(data, size):
    res = bytearray()
    pos = 0
    while size < 0 or len(res) < size:
        b = data[pos:pos + 1]
        pos += 1
        if not b:
            break
        res += b
        if res.endswith(b"\n"):
            break
    return bytes(res)


@case((True, 3), (False, 3), (True, 0), (False, 10))
def nested_if_break_at_while_bottom(read1, n):
    written, steps = 0, []
    while written < n:
        written += 1
        if n - written > 5:
            steps.append("big")
            if written > 2:
                break
        elif not (read1 and written):
            if written % 2:
                break
        if read1 and written:
            steps.append("r")
            break
    return written, steps


@case(({0: int, 1: str, 2: 3},), ({},), ({5: float, 6: 1},))
def if_else_try_else_ends_for(types):
    header = {0: "12", 1: "abc", 2: "xyz", 5: "1.5", 6: "q"}
    score = 0
    for col, kind in types.items():
        if isinstance(kind, int):
            if len(header[col]) != kind:
                score += 1
            else:
                score -= 1
        else:
            try:
                kind(header[col])
            except (ValueError, TypeError):
                score += 10
            else:
                score -= 10
    return score


@case(([1, 0, 2, 0],), ([],), ([0],))
def if_else_ends_while_body(xs):
    out = []
    i = 0
    while i < len(xs):
        x = xs[i]
        i += 1
        if x:
            out.append(x)
        else:
            out.append(-1)
    return out


@case(([[1, 2], [], [3, 0]],), ([],), ([[0, 0]],))
def if_else_ends_inner_for(rows):
    out = []
    for row in rows:
        for v in row:
            if v:
                out.append(v)
            else:
                out.append("z")
        else:
            out.append("end")
    return out


@case((0,), (1,), (4,), (9,))
def failures_and_flag_break(flags):
    failures = 0
    seen = []
    for x in range(6):
        if x % 2:
            failures += 1
        elif x == 4:
            seen.append(x)
        if failures and flags & 8:
            break
    return failures, seen
