# semantics: min-version 3.14
"""3.14: template strings (PEP 750) and deferred annotations (PEP 649/749)."""

from _sem import case


def parts(t):
    return list(t.strings), [(i.value, i.expression, i.conversion, i.format_spec) for i in t.interpolations]


@case(("ab", 3),)
def tstring_simple(s, n):
    return parts(t"x{s}y{n}z"), parts(t""), parts(t"{n + 1}")


@case(("ab", 3.14159),)
def tstring_conversion_and_spec(s, x):
    return parts(t"{s!r}"), parts(t"{x:.2f}"), parts(t"{s!a:>8}"), parts(t"{x:{'>'}{10}}")


@case((2,),)
def tstring_self_documenting(n):
    return parts(t"{n=}"), parts(t"{n + 1 = :>4}")


@case((2,),)
def deferred_annotation_forward_reference(n):
    def f(x: Later) -> Later:
        return x * n

    class Later:
        pass
    return f(3), f.__annotations__["x"] is Later


@case((2,),)
def deferred_annotation_class_body(n):
    class C:
        a: Undefined
        b: int = n
    return C.b, "a" in C.__annotate__(2) if hasattr(C, "__annotate__") else None
