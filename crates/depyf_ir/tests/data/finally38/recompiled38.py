"""The 3.8 decompiled source of the functions of source.py that decompile."""

def return_in_try(g, h):
    try:
        __temp_0__ = g()
    finally:
        h()
    return __temp_0__

def return_const_in_try(g, h):
    try:
        g()
    finally:
        h()
    return 1

def return_in_except_as(g):
    try:
        g()
    except ValueError as e:
        __temp_0__ = e.args
        return __temp_0__

def return_in_with(a):
    with a as b:
        return b.read()

def nested_finally(g, h, k):
    try:
        try:
            __temp_0__ = g()
        finally:
            h()
    finally:
        k()
    return __temp_0__

def while_break_in_try(h):
    if h():
        h()
    return 0


def for_in_finally(items, g):
    try:
        g()
    finally:
        for x in items:
            if x:
                break
            g(x)
    return 1

def raise_in_finally(g, x):
    try:
        g()
    finally:
        if x:
            raise ValueError(x)
    return 0
