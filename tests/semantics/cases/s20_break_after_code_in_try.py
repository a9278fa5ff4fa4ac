"""`while True: try: ... if c: f(); break ... except E: ...`: the `break` leaves the
loop through code of the `try` body, and no other way out is the code after the loop
(CPython 3.12+ copy a small exit such as the implicit `return None` into each `break`;
3.8-3.11 jump there under the body's protection). Structuring refused the loop ("the
way out of a while loop lies inside a try or with of its body"): logging's
`QueueListener._monitor`, multiprocessing's `SharedMemory.__init__` and more, on every
CPython. Now each way out is written where it is reached.
"""

from _sem import case


class Queue(object):
    def __init__(self, items):
        self.items = list(items)
        self.done = 0

    def get(self):
        if not self.items:
            raise LookupError("empty")
        return self.items.pop(0)

    def task_done(self):
        self.done += 1


@case(([1, 2, None, 3], True), ([1, 2], True), ([None], False), ([4, 5], False))
def monitor(items, has_task_done):
    q = Queue(items)
    seen = []
    while True:
        try:
            record = q.get()
            if record is None:
                if has_task_done:
                    q.task_done()
                break
            seen.append(record)
            if has_task_done:
                q.task_done()
        except LookupError:
            break
    return seen, q.done, q.items


@case(([1, None, 2], True), ([1, 2], False), ([None], True))
def break_then_code_after_loop(items, flag):
    q = Queue(items)
    seen = []
    while True:
        try:
            r = q.get()
            if r is None:
                if flag:
                    q.task_done()
                break
            seen.append(r)
        except LookupError:
            break
    seen.append("after")
    return seen, q.done


@case(([1, None, 2], True), ([3], False), ([None], False))
def break_then_return_in_clause(items, flag):
    q = Queue(items)
    seen = []
    while True:
        try:
            r = q.get()
            if r is None:
                if flag:
                    q.task_done()
                break
            seen.append(r)
        except LookupError:
            return seen, "empty"
    seen.append(q.done)
    return seen


@case((3,), (0,), (7,))
def break_after_code_or_retry(n):
    tries = []
    while True:
        try:
            if n <= 0:
                raise ValueError(n)
            tries.append(n)
            if n % 3 == 0:
                tries.append("three")
                break
            n -= 2
        except ValueError:
            tries.append("retry")
            n += 5
            if len(tries) > 5:
                break
    return tries
