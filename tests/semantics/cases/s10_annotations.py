"""Annotated names in class bodies under other statements: from CPython 3.14 they are
conditional (the body adds the annotation's index to `__conditional_annotations__`
where the statement ran, and the compiler-made `__annotate__` reads only those), one
in dropped code (`if False:`) is never added; before 3.14 they are stored into
`__annotations__` as the body runs. The class's annotations and values are the result."""

from _sem import case


def annotations_of(cls):
    # In order: the compiler-made `__annotate__` of 3.14+ builds the dict in source order.
    return [(k, v if isinstance(v, str) else getattr(v, "__name__", repr(v))) for k, v in cls.__dict__.get("__annotations__", cls.__annotations__).items()]


@case((True,), (False,))
def class_annotations_under_if(flag):
    class C:
        a: int = 1
        if flag:
            b: str = "yes"
        else:
            c: float
        d: list
    return annotations_of(C), C.a, getattr(C, "b", None)


@case((0,), (2,))
def class_annotations_in_loop_and_try(n):
    class C:
        for i in range(n):
            x: int = i
        try:
            y: bytes = b"1" if n else None.attr
        except AttributeError:
            z: complex = 1j
    return annotations_of(C), getattr(C, "x", None), getattr(C, "y", None), getattr(C, "z", None)


@case((1,),)
def class_annotation_in_dropped_code(n):
    class C:
        first: int = n
        if False:
            never: str
        last: float = 2.5
    return annotations_of(C), C.first, C.last
