"""A `return v` inside a `try` whose `finally` body rebinds `v` (unittest's
`_AssertRaisesBaseContext.handle` sets `self = None` there to break a reference cycle):
the value is loaded in the body and returned after the copy of the `finally` body runs,
so recovery names it before the copy's store. Every version refused it ("a try or with
body with several exits").
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


class _Lock:
    def __init__(self, owner, rc):
        self.owner = owner
        self.rc = rc

    def release(self):
        if self.rc is not None:
            self.owner.rc = self.rc

    def __repr__(self):
        return '_Lock(%r)' % (self.rc,)


class _Proc:
    def __init__(self, rc, fail):
        self.rc = rc
        self.fail = fail

    def wait(self):
        if self.fail:
            raise OSError(self.fail)
        self.rc = 'waited'

    def __repr__(self):
        return '_Proc(%r, %r)' % (self.rc, self.fail)


def _poll_args(rc, fail, lock_rc):
    p = _Proc(rc, fail)
    return p, _Lock(p, lock_rc)


@case(_poll_args(None, 0, None), _poll_args(None, 1, None), _poll_args(3, 0, None),
      _poll_args(None, 1, 7), _poll_args(3, 0, 7), _poll_args(None, 0, 7))
def return_attribute_in_try_except_finally(self, lock):
    # subprocess Popen._internal_poll: `return self.returncode` in the body of a
    # try/except/finally (refused everywhere: the copy's `return` of the value named
    # in the body was not read as an exit of the inner try/except).
    try:
        if self.rc is not None:
            return self.rc
        self.wait()
    except OSError as e:
        self.rc = 0
    finally:
        lock.release()
    return self.rc


@case(_poll_args(None, 0, None), _poll_args(None, 1, None), _poll_args(3, 0, None),
      _poll_args(None, 1, 7), _poll_args(3, 0, 7))
def return_const_in_try_except_finally_then_attribute(self, lock):
    # 3.10 copies `finally; return self.rc` (the code after the `try`) into the end
    # of the clause, which was read as `return self.rc` in the clause: the value read
    # before the copy, wrong when the `finally` body changes it.
    try:
        if self.rc is not None:
            return 5
        self.wait()
    except OSError as e:
        self.rc = 0
    finally:
        lock.release()
    return self.rc


def _fail_if(x):
    if x:
        raise OSError(x)


@case((0, 0), (0, 1), (1, 0), (1, 1))
def return_cell_after_try_except_finally(a, b):
    # 3.10 copies `finally; return n` (the code after the `try`) into the end of the
    # clause; `n` is a cell the finally body's call changes, so the copy must not be
    # read as `return n` in the clause (the value would be read before `bump()`).
    n = 0

    def bump():
        nonlocal n
        n += 1
    try:
        if a:
            return 5
        _fail_if(b)
    except OSError:
        pass
    finally:
        bump()
    return n


@case((1, 0, 5), (1, 2, 5), (0, 0, 5), (0, 2, 5), (0, 0, 'boom'), (0, 2, 'boom'))
def return_finally_rebinds_in_one_arm(c, d, x):
    # The `finally` body rebinds `x` only when `d > 1`: 3.10+ name the returned value
    # before the store in that arm only and read it as `x` in the other.
    try:
        if c:
            return x
        x = x + 1
    finally:
        if d > 1:
            x = 0
    return x


@case((1, 0, 5), (1, 1, 5), (1, 2, 5), (0, 0, 5), (0, 1, 5), (0, 2, 5), (0, 1, 'boom'), (0, 2, 'boom'))
def return_finally_rebinds_in_two_arms(c, d, x):
    # Both arms of an `if`/`elif` rebind `x`, the fall-through does not: refused on
    # every version (listed), also when the value returned is `x` alone.
    log = []
    try:
        if c:
            return x, log
        x = x + 1
    finally:
        if d > 1:
            x = 0
        elif d:
            log.append(x)
            x = 1
    return x, log
