"""try bodies with several exits and except clauses whose code after the pop is a
copy (CPython 3.12+ copies small exit blocks into each jump to them): a `return` in
a `try` inside a `for`, a `return` in a `try` nested in an `except` clause, a
`try`/`except`/`finally` whose `finally` ends in an `if`, `break` in an `except`
clause before a small exit after the loop, an `else` that returns while the clause
falls through, and a clause whose `if` arm leaves the loop while the other arm
returns. Each case runs every exit."""

from _sem import case


class Box(object):
    """An object with a few attributes the cases read and write."""

    def __init__(self, **kw):
        self.log = []
        for k, v in kw.items():
            setattr(self, k, v)


def probe(x):
    """Raises an exception chosen by `x`, else returns `x`."""
    if x is None:
        raise TypeError("none")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    if x == "o":
        raise OSError("o")
    return x


@case((["a", "k", 6],), (["k", "v"],), (["k", "k"],), ([],), ([4],), (["o"],))
def return_in_try_in_for(items):
    for it in items:
        try:
            v = probe(it)
            if v == 6:
                return "six", (v, it)
            else:
                return "other", (v,)
        except KeyError:
            pass
    return None


@case(("x", "y"), ("k", "y"), ("k", "k"), ("k", "v"), ("k", 0), (None, 1))
def return_in_try_in_except(a, b):
    try:
        probe(a)
        return "first"
    except KeyError:
        try:
            v = probe(b)
            if v:
                return "second"
        except KeyError:
            pass
    return ""


@case(("x", "y", []), ("k", "y", []), ("k", "k", []), ("k", 0, []), ("k", "v", []), ("", "y", []))
def clause_try_falls_to_write(a, b, out):
    if a:
        try:
            f = probe(a)
        except KeyError:
            try:
                doc = probe(b)
                if doc:
                    out.append(doc)
                    return
            except KeyError:
                pass
            out.append("nohelp")
            return
        out.append(f)
    else:
        out.append("empty")


@case((None, []), (Box(done=True, result=0, closing=False, paused=False), []),
      (Box(done=True, result=3, closing=False, paused=False), []),
      (Box(done=False, result=3, closing=True, paused=False), []),
      (Box(done=True, result=2, closing=False, paused=True), []),
      (Box(done=True, result="o", closing=False, paused=False), []),
      (Box(done=True, result="v", closing=False, paused=False), []))
def try_except_finally_ending_in_if(fut, seen):
    length = -1
    try:
        if fut is not None:
            if fut.done:
                length = probe(fut.result)
                if length == 0:
                    return
            else:
                seen.append("cancel")
        if fut is not None and fut.closing:
            return
        if fut is not None and not fut.paused:
            seen.append("read")
    except OSError as exc:
        seen.append(("error", str(exc)))
    finally:
        if length != -1:
            seen.append(("data", length))


@case(([1, 2, 3], 2), ([1, 2, 3], 9), ([1, 2, 3], 9, 0, 2), ([], 1), ([1, "k"], 1, 1))
def break_in_except_before_raise(seq, value, start=0, stop=None):
    i = start
    while stop is None or i < stop:
        try:
            v = seq[i]
        except IndexError:
            break
        if v is value or v == value:
            return i
        i += 1
    raise ValueError("not found")


@case((["ab", "c", ""],), (["ab", "BLOCK", "c"],), (["BLOCK"],), (["ab", "BLOCK-x"],))
def break_or_return_in_clause(chunks):
    result = []
    for c in chunks:
        try:
            if c.startswith("BLOCK"):
                raise BlockingIOError(c)
            chunk = c
        except BlockingIOError:
            if result:
                break
            return None
        if not chunk:
            break
        result.append(chunk)
    return "".join(result)


@case((Box(get=lambda: 5, loop="L"),), (Box(loop="L"),))
def else_returns_clause_falls(fut):
    try:
        g = fut.get
    except AttributeError:
        pass
    else:
        return g()
    return fut.loop


@case(([Box(enabled=True, cond=1, ignore=0)],), ([Box(enabled=True, cond=1, ignore=2)],),
      ([Box(enabled=False), Box(enabled=True, cond=0, ignore=0)],), ([Box(enabled=True, cond=None, ignore=0)],),
      ([Box(enabled=True, cond=1, ignore=1), Box(enabled=True, cond="k", ignore=0)],), ([],))
def branch_in_try_in_loop(possibles):
    for b in possibles:
        if not b.enabled:
            continue
        b.log.append("hit")
        try:
            val = probe(b.cond)
            if val:
                if b.ignore > 0:
                    b.ignore -= 1
                else:
                    return (b.log, True)
        except:
            return (b.log, False)
    return (None, None)


@case(("a.pag",), ("a.db",), ("a.dbx",), ("k",), ("zz",))
def nested_try_returns_in_clause(name):
    try:
        if not name.endswith(".pag"):
            raise OSError(name)
        return "pag"
    except OSError:
        try:
            if not name.endswith(".db"):
                raise OSError(name)
            if len(name) > 3:
                return "db"
        except OSError:
            pass
    return ""
