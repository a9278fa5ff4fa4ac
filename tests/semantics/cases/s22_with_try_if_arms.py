"""A `try` whose body ends in an `if`/`else`, last in a `with` body: xmlrpc's
`gzip_decode`. CPython 3.13+ give the jump at the end of the first arm a block of its
own outside the `try`'s range (under the `with`'s), beside the block the other arm falls
into; both go on to the `__exit__` call. Structuring saw a `try` body with two exits and
refused it ("a try or with body with several exits") on 3.13-3.15.
"""

from _sem import LogContext, case


class Reader(object):
    def __init__(self, data):
        self.data = data

    def read(self, n=-1):
        if self.data is None:
            raise OSError("closed")
        return self.data if n < 0 else self.data[:n]


@case((b"abcdef", -1), (b"abcdef", 2), (None, 3), (b"", 0))
def with_try_if_else(data, limit):
    log = []
    with LogContext(log):
        try:
            if limit < 0:
                decoded = Reader(data).read()
            else:
                decoded = Reader(data).read(limit + 1)
        except OSError:
            raise ValueError("invalid data")
    if limit >= 0 and len(decoded) > limit:
        raise ValueError("too long")
    return decoded, log


@case((0,), (1,), (2,), (5,))
def with_try_elif_chain(k):
    log = []
    with LogContext(log):
        try:
            if k == 0:
                log.append("zero")
            elif k == 1:
                log.append(10 // (k - 1))
            else:
                log.append(k * 2)
        except ZeroDivisionError:
            log.append("div")
    return log
