"""f-strings: conversions, format specs (static and nested), self-documenting `=`,
nesting, string concatenation."""

from _sem import case


@case(("ab", 3),)
def fstring_simple(s, n):
    return f"{s}", f"x{s}y", f"{s}{n}", f"{n + 1}", f"{{{s}}}", f"", f"plain"


@case(("a'b", 3.14159),)
def fstring_conversions(s, x):
    return f"{s!r}", f"{s!s}", f"{s!a}", f"{x!r}", f"{'é'!a}"


@case((3.14159, 42),)
def fstring_format_spec(x, n):
    return f"{x:.2f}", f"{n:05d}", f"{n:>8}", f"{n:x}", f"{x:10.3e}", f"{n:,}", f"{'s':^5}"


@case((3.14159, 6, 2),)
def fstring_nested_spec(x, width, prec):
    return f"{x:{width}.{prec}f}", f"{x:>{width}}", f"{'ab':{'*'}^{width}}"


@case(("ab", 7),)
def fstring_conversion_and_spec(s, n):
    return f"{s!r:>10}", f"{n!s:<4}|", f"{s!a:^8}"


@case((2, 3),)
def fstring_expressions(a, b):
    return f"{a * b}", f"{a if a > b else b}", f"{[a, b]}", f"{ {'k': a}['k'] }", f"{(lambda: a)()}"


@case((2,),)
def fstring_self_documenting(x):
    return f"{x=}", f"{x + 1 = }", f"{x=:>4}", f"{x=!s}"


@case(("ab",),)
def fstring_nested_fstring(s):
    return f"{f'{s}'}", f"[{f'<{s!r}>'}]", f"{s:{f'>{5}'}}"


@case(("ab", 1),)
def fstring_concat(s, n):
    return "pre " f"{s}" " post", f"{s}" "{not a field}", "a" "b" f"{n}" f"{n}"


@case((1, 2),)
def fstring_with_calls(a, b):
    return f"{max(a, b)}/{min(a, b)}", f"{str(a).zfill(3)}", f"{'-'.join(map(str, [a, b]))}"


@case(({"k": "v"}, [1, 2]),)
def fstring_subscripts(d, xs):
    return f"{d['k']}", f"{xs[0]}{xs[-1]}", f"{xs[::-1]}"


@case((255,),)
def fstring_in_loop(n):
    out = []
    for base in "xob":
        out.append(f"{n:{base}}")
    return out


@case(("multi",),)
def fstring_multiline(s):
    return f"""line1 {s}
line2 {s!r}"""


@case(("a{b}",),)
def fstring_braces_and_escapes(s):
    return f"{{}}", f"{s}\t{{x}}", f"\n{s}\\", f"{'{'}"


@case(("it's",), ("a\\b",))
def percent_format_quotes_and_backslashes(s):
    # 3.11 compiles a `%` of a tuple into an f-string whose fields need every kind of
    # quote and a backslash: no f-string before 3.12 can spell it (_osx_support).
    return "'%s' --version %r" % (s.replace("'", "'\"'\"'"), "\n"), "%-4s|%5.2r|%.1a%%" % (s, s, "\\")
