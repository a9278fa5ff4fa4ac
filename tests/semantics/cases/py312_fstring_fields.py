# semantics: min-version 3.12
"""PEP 701 replacement fields the printer writes for 3.12+ code: backslashes and
`#` in a field's strings, the enclosing quote reused, quotes in format specs and
deep nesting."""

from _sem import case


@case((["a", "b"],), ([],))
def field_joins_on_escapes(xs):
    return f"{'\n'.join(xs)}", f"<{'\t#'.join(xs)!r}>", f"{'\\'.join(xs)}"


@case(({"k": 1, "it's": 2},),)
def field_reuses_quotes(d):
    return f'{d['k']}', f"{d["it's"]}|{d['k']}", f'{d["it's"] + d['k']}'


@case((7, 5), ("ab", 3))
def field_spec_with_quotes(x, w):
    return f"{x!r:{'>'}{w}}", f"{x:{'#' if isinstance(x, int) else '<'}{w}}"


@case((True,), (False,))
def field_mixed_quotes(x):
    return f"{'a' if x else "b"}", f"{"it's" if x else 'say "hi"'}\n{'\\' * 2}"


@case((3,), (-1,))
def field_nested_four_deep(n):
    return f"{f'{f"{f'{n}\n'}"}'}", f"{f"{f"{f"{n!r:>{n + 4}}"}"}"}"
