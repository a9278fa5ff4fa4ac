# 3.8 builds the items and merges them with BUILD_*_UNPACK*; 3.9 extends a container.
def call_star_star(f, a, b):
    return f(*a, *b)


def call_kw_kw(f, a, b):
    return f(**a, **b)


def call_all(f, x, a, m):
    return f(x, *a, k=1, **m)


def call_after_star(f, a, x, y):
    return f(*a, x, y)


def call_between(f, x, a, y, z, b):
    return f(x, *a, y, z, *b, w=x, **a, v=y)


def list_two(a, b):
    return [*a, *b]


def list_mixed(a, b, x, y):
    return [x, *a, y, x + y, *b, f(x)]


def tuple_one(a):
    return (*a, 1)


def tuple_names(a, x):
    return (x, *a, x)


def set_two(a, b):
    return {*a, *b}


def set_mixed(a, x, y):
    return {x, *a, y}


def dict_mixed(a, b):
    return {**a, 'k': 1, **b}


def dict_only(a):
    return {**a}


def dict_keys_first(a, x):
    return {'x': x, 'y': 2, **a}


def nested(a, b, c):
    return [*a, *(*b, *c)], {**a, **{**b}}


def in_call(f, a, x, m):
    return f(*[*a, x], **m)


def star_and_kwargs(f, a, m):
    return f(*a, **m)


def kwargs_only(f, x, m):
    return f(x, **m)


def keywords_after_star(f, a, x):
    return f(*a, k=x)


def f(x):
    return x


def ternary_item(a, b, c):
    return [*(a if c else b), *a]


def whole_display_in_branch(a, b, c):
    return [*a, b] if c else [*b, *a]


def one_item_branch(a, b, c):
    return [*(a if c else b)]


def kwargs_branch(f, a, b):
    return f(**(a or b))


def in_finally(f, a, b, c):
    try:
        return f(*a, *b, k=c, **a)
    finally:
        print({*a, *b})
