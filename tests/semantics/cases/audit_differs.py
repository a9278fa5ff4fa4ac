"""Shapes found by the audit of round-trip functions whose recompiled bytecode
"differs" (docs/audit/differs.md): each case here was decompiled into code that
behaved differently, or guards a shape next to one that did."""

from _sem import K, case

_audit_g = None
_audit_h = None


@case((),)
def docstring_before_global():
    # A docstring must stay the first statement: `global` printed before it turns
    # it into an expression statement and the function or class loses __doc__
    # (_osx_support._get_system_version).
    def inner():
        """Inner's docstring."""
        global _audit_g
        _audit_g = 1

    class Inner:
        """Inner class docstring."""
        global _audit_h
        _audit_h = 2

    inner()
    return inner.__doc__, Inner.__doc__, _audit_g, _audit_h


def _stat(p):
    if p == "missing":
        raise FileNotFoundError(p)
    return p == "sock"


@case(("missing",), ("sock",), ("file",), ("",))
def test_first_in_try_body(p):
    # The test that opens a `try` body is no operand of the test before the
    # `try`: `if p and _stat(p):` would call _stat outside the try
    # (asyncio.BaseEventLoop.create_datagram_endpoint, 3.10 and 3.12).
    out = []
    if p:
        try:
            if _stat(p):
                out.append("remove")
        except FileNotFoundError:
            out.append("gone")
    return out


def _may_fail(x):
    if x == 0:
        raise ValueError("zero")


def _after(r):
    if r is None:
        raise ValueError("no r")
    return r * 10


@case(([1, 2], True), ([1, 2], False), ([0, 3], False), ([0, 3], True), ([], False))
def try_else_break_after_if(xs, remote):
    # A `try` body ending in an `if`, then `else: break`: the test jumps straight
    # to the `break`; the code after the loop must stay outside the try, or its
    # ValueError is caught by the clause (create_datagram_endpoint, 3.11-3.13).
    r = None
    for x in xs:
        try:
            _may_fail(x)
            if remote:
                r = x
        except ValueError:
            continue
        else:
            break
    else:
        return "exhausted"
    return _after(r)
