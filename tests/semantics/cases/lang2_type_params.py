# semantics: min-version 3.12
"""PEP 695 type parameters (3.12+): generic functions with TypeVar, TypeVarTuple and
ParamSpec parameters, bounds and constraints, defaults of generic functions, and `type`
aliases with and without parameters, and generic classes (bases, keywords, decorators,
docstrings, methods that use the class's parameters, generic methods)."""

from _sem import case


@case((3,),)
def generic_function_params(n):
    def first[T, *Ts, **P](xs: list[T], *rest) -> T:
        return xs[0]
    names = list(map(str, first.__type_params__))
    kinds = list(map(type, first.__type_params__))
    return first([n, 2]), names, kinds


@case((3,),)
def generic_function_uses_param(n):
    def pair[A, B](a: A, b: B) -> tuple[A, B]:
        return (a, b, A.__name__, B.__name__)
    return pair(n, "x"), pair.__annotations__["return"].__args__[0].__name__


@case((3,),)
def type_alias_plain(n):
    type Pair = tuple[int, int]
    return Pair.__name__, Pair.__value__, Pair.__type_params__, n


@case((3,),)
def type_alias_generic(n):
    type Table[K, *Vs] = dict[K, tuple[*Vs]]
    names = list(map(str, Table.__type_params__))
    return Table.__name__, names, repr(Table.__value__), n


@case((3,),)
def generic_function_decorated(n):
    def deco(f):
        f.tag = "t"
        return f

    @deco
    def ident[T](x: T) -> T:
        return x
    return ident(n), ident.tag, ident.__type_params__[0].__name__


@case((3,),)
def generic_function_bound(n):
    def clamp[T: int, U: (str, bytes)](x: T, u: U) -> T:
        return x
    t, u = clamp.__type_params__
    return clamp(n, "s"), t.__bound__, u.__constraints__, u.__bound__


@case((3,),)
def generic_class(n):
    class Box[T]:
        def __init__(self, v: T):
            self.v = v
    return Box(n).v, Box.__type_params__[0].__name__


@case((3,),)
def generic_function_defaults(n):
    def f[T](x: T = n, y=2, *, k=n + 1, j=4) -> T:
        return x, y, k, j

    def g[T](*, k: T = n):
        return k

    def h[T](x=n):
        return x
    return f(), f(0, k=1), g(), h(), f.__defaults__, f.__kwdefaults__


@case((3,),)
def generic_class_full(n):
    def deco(c):
        c.tag = "t"
        return c

    class Meta(type):
        def __new__(mcls, name, bases, ns, flag=0):
            ns["flag"] = flag
            return super().__new__(mcls, name, bases, ns)

    class Base:
        def hello(self):
            return "base"

    @deco
    class Box[T: int, *Ts, **P](Base, metaclass=Meta, flag=n):
        """A box."""
        size: int = 2

        def get(self) -> T:
            return super().hello(), self.size

        def conv[U](self, v: U) -> tuple[T, U]:
            return (v, T.__name__, U.__name__)
    b = Box()
    names = [p.__name__ for p in Box.__type_params__]
    bases = [c.__name__ for c in Box.__mro__]
    return b.get(), b.conv(n), names, bases, Box.tag, Box.flag, Box.__doc__, Box.__type_params__[0].__bound__


@case((3,),)
def generic_class_reads_class_names(n):
    class Outer:
        K = int

        def make[V](self, v: V) -> K:
            return v

        class Inner[T]:
            def get(self, x: T):
                return x
    return Outer().make(n), Outer.make.__annotations__["return"], Outer.Inner().get(n + 1)
