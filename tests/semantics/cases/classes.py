"""Classes: bodies, bases, keywords, super(), __class__, class attributes, methods,
properties, static/class methods, name mangling, nested classes; methods decompiled
on their own (with the __class__ cell)."""

from _sem import case, method_case


class Base(object):
    kind = "base"

    def __init__(self):
        self.log = []

    def hello(self, x):
        return "base %s" % x

    @classmethod
    def create(cls):
        return cls.__name__


class Child(Base):
    kind = "child"

    @method_case((1,), ("z",))
    def hello(self, x):
        self.log.append(x)
        return "child " + super().hello(x)

    @method_case(())
    def which_class(self):
        return __class__.__name__, type(self).__name__, __class__ is Child

    @method_case((2,))
    def explicit_super(self, n):
        return super(Child, self).hello(n), Base.hello(self, n * 2)

    @method_case(())
    def private_attr(self):
        self.__secret = 5
        return self.__secret, sorted(k for k in vars(self) if "secret" in k)

    @method_case((3,))
    def reads_class_attr(self, n):
        return self.kind * n, Child.kind, self.create()


@case((1,),)
def class_simple(x):
    class C:
        a = x
        b = a + 1

        def m(self):
            return self.a + self.b
    return C().m(), C.a, C.__name__, C.__qualname__


@case((1,),)
def class_with_bases(x):
    class A:
        def f(self):
            return "A"

    class B(A):
        def g(self):
            return self.f() + "B"

    class C(B, A):
        pass
    return C().g(), [k.__name__ for k in C.__mro__]


@case((2,),)
def class_super_zero_arg(x):
    class A:
        def f(self, v):
            return v + 1

    class B(A):
        def f(self, v):
            return super().f(v) * 10
    return B().f(x)


@case((2,),)
def class_dunder_class(x):
    class A:
        def who(self):
            return __class__.__name__

    class B(A):
        pass
    return B().who(), A().who()


@case((2,),)
def class_init_and_attributes(x):
    class P:
        def __init__(self, a, b=2):
            self.a = a
            self.b = b

        def total(self):
            return self.a + self.b

        def __repr__(self):
            return "P(%r, %r)" % (self.a, self.b)
    p = P(x)
    p.b += 1
    return p.total(), repr(p)


@case((3,),)
def class_property(x):
    class T:
        def __init__(self):
            self._v = x

        @property
        def v(self):
            return self._v * 2

        @v.setter
        def v(self, value):
            self._v = value
    t = T()
    a = t.v
    t.v = 10
    return a, t.v


@case((1,),)
def class_static_and_classmethod(x):
    class S:
        count = x

        @staticmethod
        def twice(v):
            return v * 2

        @classmethod
        def bump(cls):
            cls.count += 1
            return cls.count
    return S.twice(4), S.bump(), S.bump(), S().twice(1)


@case((1,),)
def class_keywords_metaclass(x):
    class Meta(type):
        def __new__(mcs, name, bases, ns, flag=0):
            ns["flag"] = flag
            return super().__new__(mcs, name, bases, ns)

    class C(metaclass=Meta, flag=x):
        pass
    return C.flag, type(C).__name__


@case((1,),)
def class_init_subclass(x):
    seen = []

    class Base:
        def __init_subclass__(cls, tag=None, **kw):
            super().__init_subclass__(**kw)
            seen.append((cls.__name__, tag))

    class A(Base, tag=x):
        pass

    class B(A):
        pass
    return seen


@case((2,),)
def class_decorated(x):
    def add_attr(cls):
        cls.extra = x
        return cls

    @add_attr
    class C:
        pass
    return C.extra


@case((1,),)
def class_private_names(x):
    class C:
        __hidden = x

        def get(self):
            return self.__hidden

        def __mangled(self):
            return "m"

        def call(self):
            return self.__mangled()
    return C().get(), C().call(), hasattr(C, "_C__hidden")


@case((1,),)
def class_nested(x):
    class Outer:
        class Inner:
            val = x

        def make(self):
            return self.Inner()
    return Outer().make().val, Outer.Inner.__qualname__


@case((5,),)
def class_body_uses_closure(x):
    y = x * 2

    class C:
        a = x
        b = [y]

        def m(self):
            return y
    return C.a, C.b, C().m()


@case((1,),)
def class_docstring_and_dunders(x):
    class C:
        """Doc of C."""
        def __eq__(self, other):
            return isinstance(other, C)

        def __hash__(self):
            return 1

        def __len__(self):
            return x
    return C.__doc__, C() == C(), len(C()), hash(C())


@case((3,),)
def class_dataclass(x):
    import dataclasses

    @dataclasses.dataclass
    class Point:
        x: int
        y: int = 0

        def norm1(self):
            return abs(self.x) + abs(self.y)
    p = Point(x, -2)
    return p.norm1(), repr(p), p == Point(x, -2)


@case((2,),)
def class_body_control_flow(x):
    class C:
        if x > 1:
            big = True
        else:
            big = False
        items = [i * x for i in range(3)]
        for i in range(2):
            last = i
    return C.big, C.items, C.last


@case((4,),)
def class_annotations(x):
    class C:
        a: int = x
        b: str
    return C.a, sorted(C.__annotations__)
