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
