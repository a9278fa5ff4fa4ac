"""The 3.8 decompiled source of the functions of source.py that decompile."""

def return_in_try(g, h):
    try:
        return g()
    finally:
        h()

def return_const_in_try(g, h):
    try:
        g()
        return 1
    finally:
        h()

def break_continue_in_try(items, h):
    for x in items:
        try:
            if x:
                break
            h(x)
        finally:
            h()
    return x

def return_in_except_as(g):
    try:
        g()
    except ValueError as e:
        return e.args

def return_in_with(a):
    with a as b:
        return b.read()

def break_in_with(items, a):
    for x in items:
        with a:
            if x:
                break
    return 0

def nested_finally(g, h, k):
    try:
        try:
            return g()
        finally:
            h()
    finally:
        k()

def break_in_try(items, h):
    for x in items:
        try:
            if x:
                break
            h(x)
        finally:
            h()
    return 0

def continue_in_try(items, h):
    for x in items:
        try:
            if x:
                continue
            h(x)
        finally:
            h()
    return 0

def break_in_with_call(items, a):
    for x in items:
        with a:
            if x:
                break
            a.f()
    return 0

def continue_in_with(items, a):
    for x in items:
        with a:
            if x:
                continue
            a.f()
    return 0

def return_in_with_loop(items, a):
    for x in items:
        with a:
            if x:
                return x
    return 0

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

def return_in_try_if_else_in_finally(g, x, h, k):
    try:
        return g()
    finally:
        if x:
            h()
        else:
            k()


def return_in_finally(g):
    try:
        g()
        return 1
    except:
        return 1

def return_value_in_finally(g, x):
    try:
        g()
    except:
        return x
    return x

def return_in_finally_if(g, h):
    try:
        g()
    finally:
        if g:
            return 1
        h()

def break_in_finally(a, g, h):
    for x in a:
        try:
            g()
        finally:
            if x:
                break
            h()
    return 2

def continue_in_finally(a, g, h):
    for x in a:
        try:
            g(x)
        finally:
            if x:
                continue
            h()

def return_in_try_and_finally(g, h):
    try:
        __temp_0__ = g()
    except:
        return h
    return h

def return_const_in_try_and_finally(g):
    if g:
        return 2
    return 1

def break_in_try_return_in_finally(a, g):
    for x in a:
        try:
            if x:
                break
            g(x)
        finally:
            if g:
                return x
    return 3

def return_in_finally_in_loop(a, g):
    for x in a:
        try:
            g(x)
        except:
            return x
        return x

def long_loop_in_finally(items, g):
    try:
        g()
    finally:
        for x in items:
            g(x, 0)
            g(x, 1)
            g(x, 2)
            g(x, 3)
            g(x, 4)
            g(x, 5)
            g(x, 6)
            g(x, 7)
            g(x, 8)
            g(x, 9)
            g(x, 10)
            g(x, 11)
            g(x, 12)
            g(x, 13)
            g(x, 14)
            g(x, 15)
            g(x, 16)
            g(x, 17)
            g(x, 18)
            g(x, 19)
            g(x, 20)
            g(x, 21)
            g(x, 22)
            g(x, 23)
            g(x, 24)
            g(x, 25)
            g(x, 26)
            g(x, 27)
            g(x, 28)
            g(x, 29)
            g(x, 30)
            g(x, 31)
            g(x, 32)
            g(x, 33)
            g(x, 34)
            g(x, 35)
            g(x, 36)
            g(x, 37)
            g(x, 38)
            g(x, 39)
    return 4

def try_except_in_finally(g, h):
    try:
        g()
    finally:
        try:
            h()
        except ValueError:
            g(1)

def with_in_finally(g, m):
    try:
        g()
    finally:
        with m:
            g(2)

def break_in_try_with_in_finally(items, m):
    for x in items:
        try:
            if x:
                break
            x()
        finally:
            with m as y:
                y(x)

def try_except_else_in_finally(g, h):
    try:
        g()
    finally:
        try:
            h()
        except (KeyError, ValueError):
            pass
        except:
            g(3)
            raise
        else:
            g(4)
    return 5

def with_try_in_finally_return_in_finally(g, m):
    try:
        g()
    finally:
        with m:
            try:
                g(6)
            except OSError:
                pass
        if g:
            return 7

def return_in_try_and_finally_with_try(g, h):
    try:
        __temp_0__ = g()
    except:
        try:
            h()
        except OSError:
            pass
        return h
    try:
        h()
    except OSError:
        pass
    return h

def yield_in_finally(g):
    try:
        yield g()
    finally:
        yield 8
        g()

def yield_from_in_finally_return_in_try(g, it):
    try:
        return g()
    finally:
        yield from it

async def await_in_finally(g, h):
    try:
        return await g()
    finally:
        await h()

def finally_if_else(g, x, h, k):
    try:
        g()
    finally:
        if x:
            h()
        else:
            k()
    return 0

def finally_if_in_try_finally(g, x, h):
    try:
        try:
            return g()
        finally:
            if x:
                h()
    finally:
        h()

def if_at_end_of_finally(g, x, h):
    try:
        g()
    finally:
        g()
        if x:
            h()
    return x

def return_in_try_if_in_finally(g, x, h):
    try:
        return g()
    finally:
        if x:
            h()


async def async_with(m, g):
    async with m as x:
        g(x)
    g(1)


async def async_with_return(m, g):
    async with m as x:
        return g(x)


async def async_with_break_continue(m, g, items):
    for y in items:
        async with m:
            if g(y):
                break
            if y:
                continue
            g(2)
    return 3


async def async_with_in_try_finally(m, g, h):
    try:
        async with m:
            g(4)
    finally:
        h()


async def async_with_in_finally(m, g, h):
    try:
        g(5)
    finally:
        async with m:
            h()


def try_finally_in_finally(g, h, k):
    g(1, 2, 3)
    try:
        g(1)
    finally:
        try:
            h(2)
        finally:
            k(3)


def try_finally_in_finally_branches(g, h, k):
    g(1, 2, 3, 4, 5)
    try:
        g(1)
    finally:
        try:
            if h:
                h(2)
        finally:
            if k:
                k(3)
            else:
                k(4)
        g(5)


def try_finally_in_finally_in_loop(g, h, items):
    for x in items:
        try:
            g(x)
        finally:
            try:
                h(x)
            finally:
                g(6)
    return 7


def try_except_in_finally_in_finally(g, h):
    g(1, 2, 3, 4)
    try:
        g(1)
    finally:
        try:
            g(2)
        finally:
            try:
                h(3)
            except OSError:
                h(4)


def return_in_try_try_finally_in_finally(g, h):
    g(1, 2, 3)
    try:
        return g(1)
    finally:
        try:
            h(2)
        finally:
            h(3)


def try_finally_in_finally_in_finally(g, h, k):
    g(1, 2, 3, 4)
    try:
        g(1)
    finally:
        try:
            h(2)
        finally:
            try:
                k(3)
            finally:
                k(4)


def try_finally_in_with_in_finally(g, h, m):
    g(1, 2, 3)
    try:
        g(1)
    finally:
        with m:
            try:
                h(2)
            finally:
                h(3)


def close_like(self, g):
    g(self.lock, self.closed, self.mode, self.buf, self.close, self.closefp, self.fp, 1, 2, 0)
    with self.lock:
        if self.closed:
            return None
        try:
            if self.mode == 1:
                self.buf.close()
            elif self.mode == 2:
                g(self.buf)
        finally:
            try:
                if self.closefp:
                    self.fp.close()
            finally:
                self.fp = None
                self.mode = 0


def return_in_finally_in_try_except(g, h):
    try:
        try:
            g(1)
        finally:
            if h:
                return h
    except OSError:
        g(2)
    return 3


def break_in_finally_in_try_except(items, g):
    for x in items:
        try:
            try:
                g(x)
            finally:
                if x:
                    break
        except OSError:
            g(2)
    return 3


def return_value_in_finally_in_try_except(g, h):
    try:
        try:
            __temp_0__ = g(1)
        except:
            pass
        else:
            return h
        return h
    except OSError:
        g(2)


def return_in_try_except_as_in_finally(g, h):
    try:
        return g()
    finally:
        try:
            h()
        except Exception as e:
            g(e)


def continue_in_try_if_in_finally(items, g):
    for x in items:
        try:
            if x:
                continue
            g(x)
        finally:
            if g():
                g()
    return 0
