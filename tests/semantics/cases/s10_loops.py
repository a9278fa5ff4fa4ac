"""Loop and branch shapes of CPython 3.8-3.9 round trips (issue #5): an `if`/`else`
in a loop body whose arms meet at code that leaves the function, and an `if` whose
then-branch jumps over an `else` that returns or raises."""

from _sem import case


@case(("ab>cd", "doctype"), ("ab>cd", "other"), ("abcd", "doctype"), ("", "x"))
def if_else_then_return_in_loop(rawdata, decltype):
    # `if`/`else` then `return` last in a `while` body: the `return` is no block of
    # the loop, and still the code after the `if` (_markupbase.parse_declaration).
    out = []
    j, n = 0, len(rawdata)
    while j < n:
        c = rawdata[j]
        if c == ">":
            if decltype == "doctype":
                out.append(("decl", rawdata[:j]))
            else:
                out.append(("unknown", rawdata[:j]))
            return j + 1, out
        j = j + 1
    return -1, out


@case(([1, 2, 3], 2), ([1, 2, 3], 5), ([], 0), ([4, 4], 4))
def if_else_then_code_then_return_in_for(xs, k):
    out = []
    for x in xs:
        if x == k:
            if x % 2:
                out.append("odd")
            else:
                out.append("even")
            out.append(x)
            return out
        out.append(-x)
    return out


@case((True,), (False,))
def then_falls_else_raises(locked):
    # `if c: A` / `else: raise`, last in the function: the then-branch jumps over the
    # `else` to the implicit return (asyncio.Lock.release).
    state = []
    if locked:
        state.append("released")
        state.append("woken")
    else:
        raise RuntimeError("Lock is not acquired.")


@case(("(x)y", 0), ("abc", 0), ("(", 0), ("(ab)", 1))
def then_falls_else_returns_then_code(rawdata, j):
    # `if c: j = ...` / `else: return -1`, then more code after the `if`
    # (_markupbase._parse_doctype_attlist).
    if "(" in rawdata[j:]:
        j = rawdata.find(")", j) + 1
    else:
        return -1
    return rawdata[j:j + 1], j


@case(([1, 2, 0, 3],), ([0],), ([],), ([5, 6],))
def then_falls_else_raises_in_loop(xs):
    total = []
    for x in xs:
        if x:
            total.append(x * 2)
        else:
            raise ValueError("zero at %d" % len(total))
        total.append(-1)
    return total


class _Lines(object):
    def __init__(self, lines):
        self.lines = list(lines)

    def readline(self):
        return self.lines.pop(0) if self.lines else ""


@case((["a\n", "b\n"],), ([],), (["--x", "--end--", "z"],), (["--end", "q"],))
def code_then_break_in_while_true(lines):
    # `self.done = -1; break` in a `while True:` whose only other way out is the
    # `break`: the code before the `break` is in the body, the code after the loop
    # is the `break`'s target (cgi.FieldStorage.read_lines_to_eof/skip_lines).
    fp = _Lines(lines)
    out = []
    done = 0
    last = True
    while True:
        line = fp.readline()
        out.append(len(line))
        if not line:
            done = -1
            break
        if line.startswith("--") and last:
            s = line.strip()
            if s == "--end":
                break
            if s == "--end--":
                done = 1
                break
        last = line.endswith("\n")
    out.append(done)
    return out


@case(([3, 0, 5],), ([1, 2],), ([],), ([7, -1, 2],))
def break_then_if_not_elif(xs):
    # `if a: break` followed by `if b:` (no `elif`): on 3.8-3.9 an `elif` leaves an
    # unreached jump after the `break`.
    out = []
    for x in xs:
        if x == 0:
            break
        if x < 0:
            out.append("neg")
            continue
        out.append(x)
    return out


@case(("%%a(b",), ("ab",), ("(%",), ("%q",), ("",))
def elif_chain_last_arm_raises_in_while(rest):
    # An `if`/`elif`/`else` chain ending a `while c:` body whose `else` raises: the
    # loop's jump back is laid out after the `raise` and carries its line; the
    # nested `if`/`else` of the `elif` arm jumps to it (configparser-like).
    accum = []
    while rest:
        c = rest[0]
        if c == "%":
            accum.append("%")
            rest = rest[2:]
        elif c == "(":
            rest = rest[1:]
            if "%" in rest:
                accum.append(1)
            else:
                accum.append(rest)
        elif c == "a":
            rest = rest[1:]
        else:
            raise ValueError(c)
    return accum


@case(([1, 2, 3, 4],), ([5, 0],), ([],))
def nested_if_else_in_elif_arm_of_for(xs):
    out = []
    for x in xs:
        if x == 1:
            out.append("one")
        elif x % 2 == 0:
            if x > 2:
                out.append("big even")
            else:
                out.append("even")
        else:
            out.append(x)
    return out


@case(([1, 2], [2, 3]), ([], [1]), ([5, 5], [5]), ([1], []))
def if_then_continue_statement(a, b):
    # `if c: A` followed by a `continue` statement: 3.8-3.9 retarget the test's
    # jump past the `continue` to the loop's top (difflib.Differ._fancy_replace).
    eqi = None
    out = []
    for j in b:
        for i in a:
            if i == j:
                if eqi is None:
                    eqi = i
                continue
            out.append(i)
    return eqi, out


@case((["ab", "c", "defg", " "], []), ([], ["x"]), (["abcd"], [" "]), (["abcd"], ["y"]))
def if_then_break_statement(chunks, cur_line):
    # `if c: A` followed by `break` in the `else` of an `if` in a loop
    # (distutils.fancy_getopt.wrap_text).
    while chunks:
        if len(chunks[0]) < 3:
            cur_line.append(chunks[0])
            del chunks[0]
        else:
            if cur_line and cur_line[-1] == " ":
                del cur_line[-1]
            break
    return cur_line, chunks


@case((0, 3), (5, 2), (300, -2), (301, -1), (7, -3))
def return_none_if_else_value(n, e):
    # `return None if c else x`: 3.8-3.9 replace the `None` arm's jump to the shared
    # `RETURN_VALUE` by one of its own, a `return None` laid out before the rest
    # (_pydecimal._decimal_lshift_exact).
    if n == 0:
        return 0
    elif e >= 0:
        return n * 10 ** e
    else:
        str_n = str(abs(n))
        val_n = len(str_n) - len(str_n.rstrip("0"))
        return None if val_n < -e else n // 10 ** -e


@case((["ab\ncd\nef", "g"], True), (["ab\ncd", "x"], False), (["ab", "c\n"], False), ([""], True), (["abc"], True))
def code_with_branches_then_break(chunks, keepends):
    # Several blocks of code ending in `break` in a `while True:` (an `if`/`else`
    # and an `if` before the `break`): all of it is in the body, the code after the
    # loop is the `break`'s target (codecs.StreamReader.readline).
    line = ""
    buf = None
    chunks = list(chunks)
    while True:
        data = chunks.pop(0) if chunks else ""
        line += data
        lines = line.splitlines(True)
        if lines:
            if len(lines) > 1:
                line = lines[0]
                del lines[0]
                if len(lines) > 1:
                    buf = lines
                else:
                    buf = lines[0]
                if not keepends:
                    line = line.splitlines(False)[0]
                break
        if not data:
            return "end", line
    return line, buf


@case((["a", "b", "c"], "b"), (["x"], "y"), ([], "a"))
def args_consumed_with_break(args, stop):
    # argparse-like `while True:` whose `break` follows an `if`/`else`.
    out = []
    i = 0
    while True:
        if i >= len(args):
            out.append("done")
            return out
        arg = args[i]
        if arg == stop:
            if i:
                out.append(("stop at", i))
            else:
                out.append("stop first")
            break
        out.append(arg)
        i += 1
    out.append("after")
    return out


@case(("abc",), ([1, 2],), ((3, 4),), (iter([5]),))
def if_pass_elif(value):
    # `if a: pass` / `elif b: X`: on 3.8-3.9 the `pass` gives the then-branch's
    # jump its own line; `if not a and b:` has no such jump
    # (distutils.dist._ensure_list).
    if isinstance(value, str):
        pass
    elif not isinstance(value, list):
        value = list(value)
    return value


@case((None, {1: "a"}), ({2: "b"}, None), ({}, {}))
def if_none_use_default(map, default):
    out = []
    if map is None:
        map = default
    for k in list(map or ()):
        out.append(k)
    return out


@case(([1, 0, 2], "error"), ([0, 0], "ignore"), ([0, 3], "newer"), ([], "x"))
def elif_pass_arm_in_loop(xs, missing):
    # `if a: pass` as an arm of an `if` nested in a loop body
    # (distutils.dep_util.newer_group, curses.textpad.Textbox.do_command).
    out = []
    for x in xs:
        if not x:
            if missing == "error":
                pass
            elif missing == "ignore":
                continue
            elif missing == "newer":
                return 1, out
        out.append(x)
    return 0, out


@case((3, 0), (0, 0), (0, 2), (0, 5))
def elif_chain_with_pass(x, y):
    out = []
    if x > 0:
        out.append("left")
    elif y == 0:
        pass
    elif y > 3:
        out.append("up far")
    else:
        out.append("up")
    out.append("end")
    return out
