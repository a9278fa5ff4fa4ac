"""Registration helpers for the semantic suite's case modules (tests/semantics/cases/).

A case is a module-level function (or a method, see `method_case`) decorated with
`@case(inputs...)`: each input is a tuple of positional arguments or `K(*args, **kw)`.
The runner (scripts/run_semantics.py) decompiles the function's code, compiles the
source again with the same interpreter and calls both on deep copies of every input;
results, mutated arguments, raised exceptions (type and message) and changed globals
must agree. Generators and coroutines are registered with `driven_case` and a driver
(`drive`, `drive_async`, `run_coroutine`) that runs them and returns a trace. The decorators return the function unchanged, so they do not alter the
code that is decompiled. Must stay importable by CPython 3.8.
"""

CASES = []


class K(object):
    """One call's arguments: `K(1, 2, key=3)`."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


class LogContext(object):
    """A context manager that appends "enter" and "exit" to the list `log` and lets
    every exception through, for cases with a `with` statement."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


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


def driven_case(driver, *inputs):
    """Registers a generator, coroutine or async generator function (or any function
    whose result needs driving) with a driver and the inputs to call it on. The runner
    calls `driver(fn(*args))` and compares what the driver returns, so the function's
    own code object (the generator or coroutine) is the one decompiled. Drivers are
    made by `drive`, `drive_async` and `run_coroutine` below."""
    def register(fn):
        CASES.append(("driven", fn, inputs, driver))
        return fn
    return register


def _step_name(step):
    """A step as printed in a trace: "next", "send 3", "throw ValueError"."""
    if len(step) == 1:
        return step[0]
    arg = step[1].__name__ if isinstance(step[1], type) else repr(step[1])
    return "%s %s" % (step[0], arg)


def drive(*steps):
    """A driver for a generator: runs the steps in order and returns the trace, one
    entry per step: ("next",), ("send", value), ("throw", exc_type, *args),
    ("close",), ("list",) (the rest of the items). Each entry records what the
    generator did: yielded a value, returned (StopIteration's value) or raised (type
    and message). Steps after the end still run (a finished generator's protocol is
    part of the behaviour)."""
    def run(gen):
        trace = []
        for step in steps:
            op = step[0]
            try:
                if op == "next":
                    got = ("yielded", next(gen))
                elif op == "send":
                    got = ("yielded", gen.send(step[1]))
                elif op == "throw":
                    got = ("yielded", gen.throw(step[1](*step[2:])))
                elif op == "close":
                    got = ("closed", gen.close())
                elif op == "list":
                    got = ("rest", list(gen))
                else:
                    raise ValueError("unknown step %r" % (op,))
            except StopIteration as e:
                got = ("returned", e.value)
            except Exception as e:
                got = ("raised", type(e).__name__, str(e))
            trace.append((_step_name(step),) + got)
        return trace
    return run


def run_coroutine(coro):
    """A driver for a coroutine: `asyncio.run(coro)`'s result (an exception propagates
    to the runner, which compares its type and message)."""
    import asyncio
    return asyncio.run(coro)


def drive_async(*steps):
    """A driver for an async generator, like `drive` but awaited inside `asyncio.run`:
    ("next",) awaits `__anext__()`, ("send", v) `asend(v)`, ("throw", exc_type, *args)
    `athrow(exc)`, ("close",) `aclose()`, ("list",) collects the rest with `async for`.
    StopAsyncIteration is recorded as ("stopped",)."""
    import asyncio

    async def steps_of(agen):
        trace = []
        for step in steps:
            op = step[0]
            try:
                if op == "next":
                    got = ("yielded", await agen.__anext__())
                elif op == "send":
                    got = ("yielded", await agen.asend(step[1]))
                elif op == "throw":
                    got = ("yielded", await agen.athrow(step[1](*step[2:])))
                elif op == "close":
                    got = ("closed", await agen.aclose())
                elif op == "list":
                    rest = []
                    async for v in agen:
                        rest.append(v)
                    got = ("rest", rest)
                else:
                    raise ValueError("unknown step %r" % (op,))
            except StopAsyncIteration:
                got = ("stopped",)
            except Exception as e:
                got = ("raised", type(e).__name__, str(e))
            trace.append((_step_name(step),) + got)
        return trace

    def run(agen):
        return asyncio.run(steps_of(agen))
    return run
