# semantics: min-version 3.11
"""Starred annotations of `*args` (PEP 646, 3.11+): `*a: *Ts` and `*a: *tuple[...]`,
which CPython computes as `[*Ts][0]` (an `UNPACK_SEQUENCE 1` whose item no store
takes), next to plain, keyword-only and return annotations, in nested functions and
methods; the annotations dict must come out the same and no name may be bound
besides the function (3.14+ builds it in a compiler-made `__annotate__`)."""

from _sem import case


@case((1,), ("s",))
def star_typevartuple_annotation(n):
    from typing import TypeVarTuple
    Ts = TypeVarTuple("Ts")

    def f(x: int, *a: *Ts, k: str = "a") -> None:
        return (x, a, k)

    ann = f.__annotations__
    return f(n, 2, 3), sorted(ann), repr(ann["a"]).replace("~", ""), ann["k"], sorted(locals())


@case((2,),)
def star_tuple_annotation_in_method(n):
    class K:
        def m(self, *a: *tuple[int, ...]) -> "K":
            return a

    return K().m(n, n), repr(K.m.__annotations__["a"]), K.m.__annotations__["return"], sorted(vars(K)) == sorted(k for k in vars(K) if not k.startswith("__temp"))
