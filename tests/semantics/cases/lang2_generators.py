"""Generators and coroutines without exception handling: yield, yield as an
expression, send(), yield from with its result, generators that return early, await
(3.8-3.10 normalize them through `pre311_gen`). Each case consumes its generator, so
results are plain values."""

import asyncio

from _sem import case


@case((3,), (0,))
def gen_simple(n):
    def g(k):
        for i in range(k):
            yield i * 2
        yield "end"
    return list(g(n))


@case((4,), (1,))
def gen_send_accumulate(n):
    def acc():
        total = 0
        while True:
            v = yield total
            if v is None:
                return total
            total += v

    def wrap():
        r = yield from acc()
        yield ("ret", r)

    g = wrap()
    out = [next(g)]
    for i in range(n):
        out.append(g.send(i))
    out.append(g.send(None))
    return out


@case((2,), (5,))
def gen_yield_from_list_and_gen(n):
    def inner(k):
        yield from range(k)
        return k * 10

    def outer(k):
        yield from [1, 2]
        r = yield from inner(k)
        yield r
        x = yield
        yield x
    return list(outer(n))


@case((0,), (3,), (7,))
def gen_early_return(n):
    def g(k):
        i = 0
        while True:
            if i >= k:
                return
            if i == 5:
                break
            yield i
            i += 1
        yield "broke"
    return list(g(n))


@case((3,),)
def gen_yield_in_expressions(n):
    def g(k):
        a = (yield k) or 1
        b = [(yield a), (yield a + 1)]
        yield b
        print_like = str((yield "x"))
        yield print_like
    gen = g(n)
    out = [next(gen)]
    for v in [None, 5, 6, None, 7]:
        out.append(gen.send(v))
    return out


@case((3,), (0,))
def gen_lambda_and_genexpr(n):
    squares = (i * i for i in range(n) if i % 2 == 0)
    nested = ((i, j) for i in range(n) for j in range(i))
    return list(squares), list(nested)


@case((2,), (5,))
def coroutine_await(n):
    async def add(a, b):
        await asyncio.sleep(0)
        return a + b

    async def main(k):
        total = 0
        for i in range(k):
            total = await add(total, i)
        return total, await add(1, 2)
    return asyncio.run(main(n))


@case((3,),)
def coroutine_await_in_expressions(n):
    async def val(x):
        return x

    async def main(k):
        xs = [await val(i) for i in range(k)]
        d = {await val("k"): await val(k)}
        return xs, d, (await val(1)) + (await val(2))
    return asyncio.run(main(n))
