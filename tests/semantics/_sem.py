"""Registration helpers for the semantic suite's case modules (tests/semantics/cases/).

A case is a module-level function (or a method, see `method_case`) decorated with
`@case(inputs...)`: each input is a tuple of positional arguments or `K(*args, **kw)`.
The runner (scripts/run_semantics.py) decompiles the function's code, compiles the
source again with the same interpreter and calls both on deep copies of every input;
results, mutated arguments, raised exceptions (type and message) and changed globals
must agree. The decorators return the function unchanged, so they do not alter the
code that is decompiled. Must stay importable by CPython 3.8.
"""

CASES = []


class K(object):
    """One call's arguments: `K(1, 2, key=3)`."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


def case(*inputs):
    """Registers a module-level function with the inputs to call it on."""
    def register(fn):
        CASES.append(("function", fn, inputs))
        return fn
    return register


def method_case(*inputs):
    """Registers a method of a module-level class; it is called on a fresh instance
    (`Class()`) with each input. The method's own code is decompiled (free variables
    such as `__class__` included)."""
    def register(fn):
        CASES.append(("method", fn, inputs))
        return fn
    return register
