"""A `while` loop last in a `try` body at the end of a function: http.cookiejar's
`_really_load`. The loop's test jumps straight to the function's implicit `return None`
(CPython 3.14+ keep such a `while` unrotated; 3.10-3.11 jump to the copied exit), a block
outside the `try`'s range that is the body's own `return`; structuring took it for code
outside the `try` that only the loop's except clauses reach ("a loop left by except
clauses of its own for code outside the try around it"). Also 3.15's `return <const>`
exits, whose `None`/`True`/`False` come from `LOAD_COMMON_CONSTANT`: `with` bodies that
return a constant on every path (multiprocessing's `Event.is_set`).
"""

from _sem import LogContext, case


class Lines(object):
    def __init__(self, lines):
        self.lines = list(lines)

    def readline(self):
        if self.lines and self.lines[0] is None:
            raise OSError("broken")
        if self.lines and self.lines[0] == 0:
            self.lines.pop(0)
            raise KeyError("bad")
        return self.lines.pop(0) if self.lines else ""


@case((["a", "#b", "c"],), ([],), (["a", None],), (["x", 0, "y"],))
def while_last_in_try(lines):
    f = Lines(lines)
    seen = []
    try:
        while (line := f.readline()) != "":
            if line.startswith("#"):
                continue
            seen.append(line)
    except OSError:
        seen.append("oserror")
        raise
    except Exception as e:
        seen.append(type(e).__name__)
        raise ValueError("invalid %r" % (seen,))


@case((["a", "b"],), ([],))
def plain_while_last_in_try(lines):
    f = Lines(lines)
    out = []
    try:
        while f.lines:
            out.append(f.readline())
    except OSError:
        raise


@case((True,), (False,))
def with_returns_constants(flag):
    log = []
    with LogContext(log):
        if flag:
            log.append("set")
            return True, log
        return False
