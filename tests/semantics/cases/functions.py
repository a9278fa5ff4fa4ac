"""Nested functions, closures, nonlocal, global, defaults, keyword-only and
positional-only parameters, annotations, decorators."""

from _sem import K, case

import functools

level = 10


def twice(f):
    def wrapper(*args, **kwargs):
        return f(f(*args, **kwargs))
    return wrapper


def tag(label):
    def deco(f):
        f.label = label
        return f
    return deco


@case((2,),)
def nested_function(x):
    def inner(y):
        return y * 3
    return inner(x) + inner(1)


@case((2,),)
def closure_read(x):
    def inner(y):
        return x + y
    return inner(5), inner(x)


@case((3,),)
def closure_counter(n):
    count = 0

    def bump(k=1):
        nonlocal count
        count += k
        return count

    for i in range(n):
        bump(i)
    bump()
    return count


@case((1,),)
def closure_nested_three_levels(a):
    def mid(b):
        def inner(c):
            return a + b + c
        return inner
    return mid(10)(100)


@case((4,),)
def closure_late_binding(n):
    fs = []
    for i in range(n):
        def f():
            return i
        fs.append(f)
    return [f() for f in fs]


@case((4,),)
def closure_default_binding(n):
    fs = []
    for i in range(n):
        def f(i=i):
            return i * 2
        fs.append(f)
    return [f() for f in fs]


@case((2,),)
def nonlocal_in_nested_levels(x):
    total = x

    def outer_inc():
        def inner_inc():
            nonlocal total
            total *= 10
        inner_inc()
        return total

    return outer_inc(), total


@case((1,),)
def closure_cell_reassigned(x):
    val = x

    def get():
        return val

    a = get()
    val = x + 100
    return a, get()


@case((5,),)
def global_in_nested(n):
    def setter():
        global level
        level = n
        return level
    return setter(), level


@case((1, 2),)
def defaults_positional(a, b):
    def f(x, y=a, z=b * 2):
        return x, y, z
    return f(0), f(0, 1), f(0, z=3)


@case((1,),)
def keyword_only(a):
    def f(x, *, k, m=a):
        return x, k, m
    return f(1, k=2), f(1, k=2, m=3)


@case((1,),)
def keyword_only_missing(a):
    def f(*, k):
        return k
    return f()


@case((1,),)
def positional_only(a):
    def f(x, y, /, z=3, *, w=4):
        return x, y, z, w
    return f(a, 2), f(a, 2, z=9, w=8), f(a, 2, 3)


@case((1,),)
def positional_only_as_keyword(a):
    def f(x, /):
        return x
    return f(x=a)


@case((1, 2, 3),)
def varargs_varkw(a, b, c):
    def f(first, *args, **kwargs):
        return first, args, sorted(kwargs.items())
    return f(a), f(a, b, c), f(a, k=b), f(*[a, b], **{"z": c})


@case((1,),)
def all_parameter_kinds(a):
    def f(p, /, q, r=2, *args, s, t=5, **kw):
        return p, q, r, args, s, t, sorted(kw)
    return f(a, 1, s=3), f(a, 1, 2, 3, 4, s=0, t=1, u=2)


@case((3,),)
def annotations_nested(x):
    def f(a: int, b: "str" = "q", *args: float, c: list = None, **kw: dict) -> tuple:
        return a, b
    ann = f.__annotations__
    return f(x), sorted((k, v if isinstance(v, str) else v.__name__) for k, v in ann.items())


@case((2,),)
def decorator_simple(x):
    @twice
    def add(v):
        return v + x
    return add(1)


@case((2,),)
def decorator_with_args(x):
    @tag("t%d" % x)
    @twice
    def mul(v):
        return v * x
    return mul(3), getattr(mul, "label", None)


@case((3,),)
def decorator_functools(x):
    @functools.lru_cache(maxsize=None)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    @functools.wraps(fib)
    def wrapped(n):
        return fib(n) * x
    return wrapped(10), wrapped.__name__


@case((1,),)
def decorator_expression_order(x):
    log = []

    def deco(name):
        log.append("make " + name)

        def d(f):
            log.append("apply " + name)
            return f
        return d

    @deco("a")
    @deco("b")
    def f():
        return x
    return f(), log


@case((5,),)
def recursion_nested(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)
    return fact(n)


@case((2,),)
def function_attributes(x):
    def f(a, b=x):
        """doc of f"""
        return a
    return f.__name__, f.__qualname__, f.__defaults__, f.__doc__, f.__code__.co_argcount


@case((3,),)
def closure_over_parameter_and_local(p):
    q = p * 2

    def f():
        return p + q
    def g():
        nonlocal q
        q = 0
    r = f()
    g()
    return r, f()


@case((1,),)
def lambda_in_default(x):
    def f(k=lambda v: v + x):
        return k(1)
    return f(), f(lambda v: v * 100)


@case((4,),)
def generator_expression_closure(n):
    k = 3
    return list(i * k for i in range(n)), sum(i * n for i in range(k))


@case((2,),)
def return_none_forms(x):
    def a():
        return
    def b():
        pass
    def c():
        return None
    def d(v):
        if v:
            return 1
    return a(), b(), c(), d(0), d(x)


@case((1,),)
def kwdefaults_evaluated_once(x):
    calls = []

    def make():
        calls.append(1)
        return []

    def f(*, acc=make()):
        acc.append(x)
        return len(acc)
    return f(), f(), len(calls)
