# Loops that reached the structurer's duplication limit (tests/loop_heads.rs).
# Each function is written as depyf prints it.


def continue_to_while_line(items, n):
    while True:
        while n < 4:
            n += 1
        s = items.pop()
        if s == 'a':
            continue
        n = 3


def elif_continue_chain(it, n):
    lines = []
    while True:
        while len(lines) < 4:
            lines.append(next(it, 'X'))
        s = lines.pop()
        if s == 'X':
            n = 1
        elif s == 'a':
            yield 1
            continue
        elif s == 'b':
            n = 2
        elif s == 'c':
            yield 3
            continue
        while n < 0:
            n += 1
            yield
        if s == 'X':
            break
        yield n


def loop_in_finally(self):
    try:
        self.x()
    finally:
        cancelled = False
        while True:
            try:
                self.acquire()
                break
            except KeyError:
                cancelled = True
        if cancelled:
            raise ValueError
