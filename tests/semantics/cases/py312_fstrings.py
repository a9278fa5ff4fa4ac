# semantics: min-version 3.12
"""PEP 701 f-strings (3.12+): the same quotes inside replacement fields, backslashes
and comments in expressions, deeper nesting."""

from _sem import case


@case(({"k": "v"},),)
def fstring_same_quotes(d):
    return f"{d["k"]}", f"{"-".join(["a", "b"])}", f'{'x'}'


@case((["a", "b"],),)
def fstring_backslash_in_expression(xs):
    return f"{"\n".join(xs)}", f"{'\t'.join(xs)!r}"


@case((3,),)
def fstring_deep_nesting(n):
    return f"{f"{f"{f"{n}"}"}"}", f"{n:{f"{n}"}>{n + 2}}"


@case((2,),)
def fstring_multiline_expression(n):
    return f"{
        n
        + 1
    }"


@case((3,),)
def type_params_generic_function(n):
    def first[T](xs: list[T]) -> T:
        return xs[0]
    return first([n, 2])


@case((3,),)
def type_alias_statement(n):
    type Pair = tuple[int, int]
    return Pair.__name__, n
