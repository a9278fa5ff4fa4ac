"""Every import form inside functions: import, import as, dotted import, from-import,
from-import as, relative-free star-less forms, imports used in expressions."""

from _sem import case


@case((4,),)
def import_plain(x):
    import math
    return math.sqrt(x), math.floor(2.5)


@case((4,),)
def import_as(x):
    import math as m
    return m.isqrt(x) if hasattr(m, "isqrt") else int(m.sqrt(x))


@case(("a/b",),)
def import_dotted(p):
    import os.path
    return os.path.join(p, "c"), os.path.basename(p)


@case(("a/b",),)
def import_dotted_as(p):
    import os.path as osp
    import xml.etree.ElementTree as ET
    return osp.dirname(p), ET.__name__


@case(([3, 1, 2],),)
def from_import(xs):
    from collections import Counter, OrderedDict
    return sorted(Counter(xs + xs).items()), list(OrderedDict.fromkeys(xs))


@case(([3, 1, 2],),)
def from_import_as(xs):
    from functools import reduce as fold
    from operator import add as plus, mul as times
    return fold(plus, xs), fold(times, xs)


@case((2,),)
def from_import_dotted_module(x):
    from os import path
    from xml.etree import ElementTree
    return path.sep * x, ElementTree.__name__


@case((1,),)
def import_global_declared(x):
    global json
    import json
    return json.dumps([x])


@case((1,),)
def import_inside_branch(x):
    if x:
        import string
        return string.digits[:3]
    else:
        import math
        return math.pi


@case((),)
def import_missing():
    import definitely_not_a_module_name_xyz
    return definitely_not_a_module_name_xyz


@case((),)
def from_import_missing_name():
    from math import not_a_real_name
    return not_a_real_name


@case((3,),)
def import_in_nested_function(x):
    def f():
        import math
        return math.factorial(x)
    return f()
