# semantics: min-version 3.12
"""Part 2, type parameters (PEP 695) and `type` statements (3.12+); the generic
definitions are nested in the case function, so their code objects are decompiled
with it."""

from _sem import case


def params(obj):
    return [(type(p).__name__, p.__name__) for p in obj.__type_params__]


@case((3,), ("s",))
def generic_function(x):
    def ident[T](v: T) -> T:
        return v

    return ident(x), params(ident)


@case((3,),)
def generic_function_bound_and_constraints(x):
    def pick[N: int, S: (str, bytes), *Ts, **P](a: N, b: S) -> tuple[N, S]:
        return a, b

    kinds = params(pick)
    bound = pick.__type_params__[0].__bound__
    constraints = pick.__type_params__[1].__constraints__
    return pick(x, "s"), kinds, bound.__name__, [c.__name__ for c in constraints]


@case((2,),)
def generic_class(x):
    class Box[T]:
        def __init__(self, v: T):
            self.v = v

        def get(self) -> T:
            return self.v

    b = Box(x)
    return b.get(), params(Box), Box.__name__


@case((2,),)
def generic_class_with_base(x):
    class Base:
        def twice(self):
            return self.v * 2

    class Child[T](Base):
        def __init__(self, v):
            self.v = v

    return Child(x).twice(), [c.__name__ for c in Child.__mro__[:2]], params(Child)


@case((1,),)
def type_alias_statement(x):
    type Pair = tuple[int, int]
    return Pair.__name__, repr(Pair.__value__), x


@case((1,),)
def type_alias_generic(x):
    type ListOf[T] = list[T]
    type Mapping[K, V: int] = dict[K, V]
    return params(ListOf), params(Mapping), repr(ListOf.__value__), repr(ListOf[int])


@case((5,),)
def type_alias_lazy(x):
    type Later = Undefined
    try:
        Later.__value__
    except NameError as e:
        return "lazy", str(e)
    return "evaluated"


@case((2,),)
def generic_closure_over_function_local(x):
    scale = x * 10

    def apply[T](v: T) -> T:
        return v * scale

    return apply(x), params(apply)


@case((2,),)
def generic_method_in_class(x):
    class Holder:
        def convert[U](self, v: U) -> list[U]:
            return [v] * x

    return Holder().convert("a"), params(Holder.convert)
