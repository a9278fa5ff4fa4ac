"""Layout that shows in the bytecode: call arguments, operands and collection items
on lines of their own (CPython 3.13+ fuses two adjacent local loads only on one
line), and the implicit `return None` copied into the branches of a function whose
body has a `try` or `with` (the copies end the function, in a `try` body, handler
or `with` body at its end too)."""

from _sem import case


def _pair(*args, **kwargs):
    return args, sorted(kwargs.items())


@case((1, 2), ("a", "b"))
def call_args_on_own_lines(a, b):
    return _pair(a,
                 b)


@case((1, 2, 3), (4, 5, 6))
def operands_and_items_on_own_lines(a, b, c):
    s = (a +
         b)
    t = [a, b,
         c]
    d = {"x": a,
         "y": b}
    k = _pair(x=a,
              y=c)
    return s, t, d, k


@case((1, 2), (0, 0))
def fstring_field_after_own_line(a, b):
    return [a,
            b, f"{a:{b}}"]


class _Lock:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")


@case((True, None, []), (True, 3, []), (False, 3, []))
def implicit_return_after_with(flag, item, log):
    if flag:
        with _Lock(log):
            log.append("inside")
        if item is not None:
            log.append(item)
    else:
        log.append("other")


@case((None, []), (5, []), (0, []), (3, []), ("x", []))
def implicit_return_in_try_at_end(path, log):
    if path is not None:
        log.append("start")
        try:
            if 10 // path == 2:
                log.append("five")
        except ZeroDivisionError:
            log.append("zero")
        except TypeError as err:
            log.append(type(err).__name__)


@case((1, []), (0, []), (5, []))
def implicit_return_in_try_else_at_end(x, log):
    try:
        y = 10 // x
    except ZeroDivisionError:
        log.append("zero")
    else:
        if y > 2:
            log.append("big")


@case((1, []), (0, []))
def explicit_return_in_handler(x, log):
    try:
        y = 10 // x
    except ZeroDivisionError:
        return None
    log.append(y)


@case((1, []), (0, []))
def implicit_return_before_finally(x, log):
    try:
        if x:
            log.append("x")
    finally:
        log.append("fin")


@case((0, []), (1, []), (2, []))
def implicit_return_with_body_at_end(x, log):
    with _Lock(log):
        if x == 1:
            log.append("one")
        else:
            log.append("other")


class _Node(object):
    def __init__(self, context=None):
        self.context = context


@case((_Node(_Node(_Node())), None, []), (_Node(_Node()), "stop", []), (_Node(), None, []))
def loop_return_or_break_then_code(node, marker, seen):
    while 1:
        nxt = node.context
        if nxt is None or nxt is marker:
            return
        if len(seen) > 0:
            break
        seen.append("step")
        node = nxt
    seen.append("after")


@case(([1, 2, 3], True), ([], True), (["a"], False), ([None], True))
def else_return_then_rest(items, clean):
    if not items or items[0] is None:
        return None
    first = items[0]
    if isinstance(first, int) and first > 0:
        text = str(first)
    else:
        return None
    if clean:
        text = text.strip()
    return text + "!"


@case((0,), (1,), (2,), (3,))
def else_raise_then_rest(x):
    out = []
    if x == 1:
        out.append("one")
    elif x == 2:
        out.append("two")
    else:
        raise ValueError(x)
    out.append("rest")
    return out
