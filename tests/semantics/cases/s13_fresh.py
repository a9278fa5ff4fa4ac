"""A `return v` inside a `try` whose `finally` body rebinds `v` (unittest's
`_AssertRaisesBaseContext.handle` sets `self = None` there to break a reference cycle):
the value is loaded in the body and returned after the copy of the `finally` body runs,
so recovery names it before the copy's store. Every version refused it ("a try or with
body with several exits"); a `finally` body that ends in an `if` still is (the copy's
`return` lands in the `if`).
"""

from _sem import case


class Box:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return 'Box(%r)' % (self.v,)


def _call(args, kwargs):
    if args and args[0] == 'boom':
        raise ValueError('boom')
    return len(args) + len(kwargs)


@case((Box(1), (), {}), (Box(2), (), {'msg': 'm'}), (Box(3), ('a',), {}), (Box(4), ('boom',), {}))
def return_self_finally_rebinds_self(self, args, kwargs):
    try:
        if not args:
            self.msg = kwargs.pop('msg', None)
            return self
        _call(args, kwargs)
    finally:
        self = None


@case(('s', (), []), ('s', (1,), []), ('s', ('boom',), []))
def return_after_statement_in_finally_that_rebinds(self, args, log):
    try:
        log.append(1)
        if not args:
            return self
        _call(args, {})
        log.append(args[0])
    finally:
        log.append(2)
        self = None
    return log, self


@case((0, 0), (1, 0), (0, 1), (1, 1))
def return_finally_rebinds_then_may_raise(c, d):
    x = [c, d]
    try:
        if c:
            return x
        x.append(3)
    finally:
        x = None
        if d:
            raise KeyError(d)
    return x
