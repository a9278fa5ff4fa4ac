"""Session 7 (issue #4), audit of the round-trip "differs" functions of CPython
3.13-3.15 (docs/audit/differs.md): shapes that decompiled into code that behaved
differently.

- A `while c:` loop whose body is (or starts with) a `while True:` that goes round
  again with `continue` without testing `c` (`_pyrepl.unix_console.get_event` on
  3.13): read as one `while c:`, the `continue` tested `c` again (3.11-3.13).
- A `while c:` whose `try` has an `else` clause: the bottom test of `c` copied into
  the `else` was kept there, before a `continue` that tests `c` once more.
"""

from _sem import case


class _Queue:
    """`empty()` answers from `answers` and records each call."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.calls = 0

    def empty(self):
        self.calls += 1
        return self.answers.pop(0) if self.answers else False


@case(([True, True, True, False], [1, 0, 0]), ([True, True, False, False], [0, 0, 5]), ([True, False], [0, 7]))
def inner_while_true_continue_in_except(answers, items):
    # `continue` of the inner `while True:` retries without calling `q.empty()`.
    q = _Queue(answers)
    items = list(items)
    out = []
    while q.empty():
        while True:
            try:
                out.append(10 // items.pop())
            except ZeroDivisionError:
                if not q.empty():
                    out.append("ready")
                    return out, q.calls
                else:
                    continue
            else:
                break
    return out, q.calls


@case(([True, True, True, False], [1, 0, 0]), ([True, False, True], [0, 0, 3]), ([False], []))
def inner_while_true_continue(answers, items):
    q = _Queue(answers)
    items = list(items)
    out = []
    while q.empty():
        while True:
            if items and items.pop():
                out.append("again")
                continue
            break
        out.append(len(items))
    return out, q.calls


@case(([True, True, True, False], [1, 0, 0, 2]), ([True, False, True], [0, 3]), ([True, True, False], [1, 1]))
def try_else_then_loop_test(answers, items):
    # The `else` clause falls to the test of `q.empty()` once per round.
    q = _Queue(answers)
    items = list(items)
    out = []
    while q.empty():
        try:
            out.append(10 // items.pop())
        except (ZeroDivisionError, IndexError):
            out.append("skip")
            continue
        else:
            out.append("ok")
    return out, q.calls
