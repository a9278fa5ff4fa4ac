"""A `try` statement inside an `except E as name:` clause (asyncio's
`BaseEventLoop.call_exception_handler`, inspect's `getblock`, pdb): a path of the
inner clause that leaves the outer one too (`return`, `break`, or the end of both)
pops both exceptions and unbinds the outer name, and CPython 3.11+ reaches the
outer clause's end through a copy of it. Recovery left that `name = None; del name`
inside the inner clause on 3.8-3.15 (same behaviour, different code).
"""

from _sem import case


class E(Exception):
    pass


class F(Exception):
    pass


def _raise(x):
    if x == 'e':
        raise E('e')
    if x == 'f':
        raise F('f')
    return x


@case(('ok', 'ok', []), ('e', 'ok', []), ('e', 'f', []), ('e', 'e', []))
def inner_clause_falls_off_both(a, b, log):
    try:
        log.append(_raise(a))
    except E as exc:
        log.append(str(exc))
        try:
            log.append(_raise(b))
        except F:
            log.append('inner')


@case(('ok', 'ok', []), ('e', 'ok', []), ('e', 'f', []))
def inner_clause_then_code_after_outer(a, b, log):
    try:
        log.append(_raise(a))
    except E as exc:
        try:
            log.append(_raise(b))
        except F as inner:
            log.append(str(inner))
    log.append('after')
    return log


@case(('ok', 'ok'), ('e', 'ok'), ('e', 'f'))
def inner_clause_returns(a, b):
    try:
        _raise(a)
    except E as exc:
        try:
            _raise(b)
        except F as inner:
            return 1
    return 2


@case((['ok', 'e', 'ok'], 'f', []), (['e', 'e'], 'ok', []))
def inner_clause_breaks(items, b, log):
    for a in items:
        try:
            log.append(_raise(a))
        except E as exc:
            try:
                log.append(_raise(b))
            except F:
                break
    return log


@case(('ok', 'ok', []), ('e', 'ok', []), ('e', 'f', []))
def inner_clause_with_guard_clauses(a, b, log):
    try:
        log.append(_raise(a))
    except (SystemExit, KeyboardInterrupt):
        raise
    except E as exc:
        try:
            log.append(_raise(b))
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException:
            log.append('logged')


# A `try` body that never completes by itself (its inner `try` body always returns)
# completes through the inner clause: the outer `else` body (pdb's `Pdb.do_help`) was
# read as more of the body, so an exception it raised was caught by the outer clause
# (3.8-3.15, wrong code).
class _Help:
    def __init__(self, fail):
        self.fail = fail

    def error(self, m):
        if self.fail:
            raise AttributeError('from error')
        return m


@case((_Help(False), 'ok', []), (_Help(False), 'e', []), (_Help(True), 'e', []), (_Help(True), 'f', []))
def else_after_inner_try_whose_body_returns(self, arg, log):
    try:
        try:
            return _raise(arg) + '!'
        except TypeError:
            command = arg
        except (E, F):
            command = arg * 2
    except AttributeError:
        log.append('caught')
    else:
        if command == 'ee':
            log.append(self.error('missing'))
            return log
        log.append(command)
    return log
