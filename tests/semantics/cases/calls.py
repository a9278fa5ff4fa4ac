"""Calls of every shape: positional, keyword, *args, **kwargs, mixed, method calls,
nested calls, calls on call results."""

from _sem import K, case


def show(*args, **kwargs):
    return args, sorted(kwargs.items())


def kwonly(a, *, b=2, c=3):
    return a, b, c


class Box(object):
    def __init__(self, v):
        self.v = v

    def get(self, extra=0):
        return self.v + extra

    def chain(self):
        return self

    @staticmethod
    def st(x):
        return x * 10

    @classmethod
    def make(cls, v):
        return cls(v)


@case((1, 2),)
def call_positional(a, b):
    return show(a, b), show(), show(a), max(a, b), divmod(b, a)


@case((1, 2),)
def call_keywords(a, b):
    return show(x=a, y=b), show(a, y=b), kwonly(a, c=b), kwonly(a=b)


@case(([1, 2, 3],), ([],))
def call_star_args(xs):
    return show(*xs), show(0, *xs), show(*xs, 9), show(*xs, *xs), show(0, *xs, 1, *xs)


@case(({"a": 1},), ({},))
def call_star_kwargs(d):
    return show(**d), show(z=0, **d), show(**d, z=1), show(**d, **{"q": 2})


@case(([1], {"k": 2}),)
def call_all_shapes(xs, d):
    return show(0, *xs, key=1, **d), show(*xs, **d), show(*xs, y=3, *xs, **d)


@case((3,),)
def method_calls(n):
    b = Box(n)
    return b.get(), b.get(1), b.get(extra=2), b.chain().chain().get(), Box.st(n), Box.make(n).v


@case(("Hello World",),)
def str_method_calls(s):
    return s.lower(), s.split(), s.replace("o", "0", 1), s.upper().lower().title(), "-".join(s.split())


@case((4,),)
def nested_calls(n):
    return len(list(range(abs(-n)))), sorted(map(str, range(n)), reverse=True), sum(map(int, str(n * 123)))


@case((2,),)
def call_result_called(n):
    def make(k):
        return lambda x: x * k
    return make(n)(5), (lambda: make)()(3)(n)


@case(([3, 1, 2],),)
def builtin_keyword_calls(xs):
    return sorted(xs, key=lambda v: -v), sorted(xs, reverse=True), max(xs, default=0), print is not None


@case(([1, 2], {"a": 3}),)
def call_method_star(xs, d):
    b = Box(1)
    return b.get(*xs[:1]), b.get(**{"extra": 5}), "{}-{}".format(*xs), "{a}".format(**d)


@case((1,),)
def call_generator_arg(n):
    return sum(x * n for x in range(5)), list(x for x in "ab"), max((x for x in [3, 9, 2]), default=None)


@case((0,), (7,))
def call_with_conditional_args(x):
    return show(x if x else -1, k=x or "none"), show(*([x] if x else []))


@case((5,),)
def call_many_args(n):
    return show(n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7, a=1, b=2, c=3, d=4, e=5)


@case((2,),)
def call_kw_and_star_order(n):
    xs = [n, n]
    return show(1, *xs, 2, k=3, *xs), show(a=1, **{"b": n}, c=3)


@case(("x",),)
def call_on_subscript_and_attr(s):
    fs = {"up": str.upper, "rep": lambda v: v * 3}
    return fs["up"](s), fs["rep"](s), [str.lower][0]("AB"), Box(s).get.__name__
