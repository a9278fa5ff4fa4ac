"""``depyf.decompile``: find the code object of a callable and decompile it.

Torch-free on purpose: ``import depyf`` and ``depyf.decompile`` must never import torch.
"""

import keyword
import os
import re
import types

from depyf import _core


def code_of(obj):
    """Return the code object that ``obj`` runs.

    In: a code object, a function, a bound method, a ``classmethod``/``staticmethod``
    object, a ``functools.partial``, or any object with a ``__wrapped__`` chain ending in
    one of those (``functools.wraps`` decorators, ``torch.compile``'d functions).
    Out: a ``types.CodeType``.
    Raises ``TypeError`` when ``obj`` has no code (builtins, classes, plain objects,
    ``__wrapped__`` cycles).

    ``__wrapped__`` is followed before ``__code__`` because a ``functools.wraps`` wrapper
    is itself a function whose own code is only the wrapper's (CPython ``functools.py``,
    ``update_wrapper`` sets ``__wrapped__``).
    """
    seen = set()
    while True:
        if isinstance(obj, types.CodeType):
            return obj
        if id(obj) in seen:
            raise TypeError(f"cycle of __wrapped__ attributes at {obj!r}")
        seen.add(id(obj))
        wrapped = _get_attr(obj, "__wrapped__")
        if wrapped is not None:
            obj = wrapped
            continue
        if isinstance(obj, types.MethodType):
            obj = obj.__func__
            continue
        if isinstance(obj, (classmethod, staticmethod)):
            obj = obj.__func__
            continue
        func = _get_attr(obj, "func")
        if func is not None and type(obj).__name__ == "partial":
            obj = func
            continue
        code = _get_attr(obj, "__code__")
        if isinstance(code, types.CodeType):
            return code
        raise TypeError(
            f"depyf.decompile expects a function, method or code object; "
            f"{type(obj).__name__} object {obj!r:.80} has no Python code"
        )


def _get_attr(obj, name):
    """``getattr(obj, name, None)`` that also swallows errors raised by properties."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def decompile(fn_or_code):
    """Decompile a function, bound method, wrapped callable or code object.

    In: anything :func:`code_of` accepts.
    Out: Python source as ``str``: for a function's code a complete
    ``def <co_name>(<params>):`` definition that compiles on its own (a ``co_name`` that
    is no identifier, like ``<lambda>``, becomes one: ``_lambda_``; default values live on
    the function object, not in the code, so they are not shown); for module or class
    body code, the body. Constants that have no literal form are named in the source
    (see ``depyf._core.decompile``'s ``opaque_constants``).
    Raises ``TypeError`` for objects without code and ``depyf.DecompilationError`` (with
    ``code_name``, ``offset``, ``opname``, ``python_version``) for bytecode the core
    cannot decompile.
    """
    code = code_of(fn_or_code)
    return _core.decompile(code, _def_name(code.co_name)).source


def _def_name(co_name):
    """A name the ``def`` can carry: ``co_name`` if it is an identifier, else ``co_name``
    with other characters replaced (``<lambda>`` -> ``_lambda_``), so the output compiles."""
    if co_name.isidentifier() and not keyword.iskeyword(co_name):
        return co_name
    name = re.sub(r"\W", "_", co_name)
    return name if name.isidentifier() and not keyword.iskeyword(name) else f"_{name}"


class Decompiler:
    """The original depyf's class API: ``Decompiler(code).decompile()``.

    In (constructor): a code object or anything :func:`code_of` accepts (the original
    took a code object or a callable). ``decompile(indentation=4, temp_prefix="__temp_",
    overwite_fn_name=None)`` (the original's parameter names, misspelling included)
    returns the source of a complete ``def``; ``indentation`` re-indents the body,
    ``temp_prefix`` is accepted for compatibility (the core names its temporaries
    ``tmp_<n>``), ``overwite_fn_name`` replaces the function's name. Raises
    ``depyf.DecompilationError`` like :func:`decompile`.
    """

    def __init__(self, code):
        self.code = code_of(code)

    def decompile(self, indentation=4, temp_prefix="__temp_", overwite_fn_name=None):
        name = overwite_fn_name or _def_name(self.code.co_name)
        source = _core.decompile(self.code, name).source
        if indentation != 4:
            source = _reindent(source, indentation)
        return source

    @staticmethod
    def decompile_and_compile_like(
        code_to_decompile, reference_code, indentation=4, temp_prefix="__temp_",
        filepath_template=None,
    ):
        """Decompile ``code_to_decompile`` and compile it into a code object with
        ``reference_code``'s frame layout (arguments, cell and free variables), as the
        original did for Dynamo. ``filepath_template`` (``"...%s..."`` or ``"...{}..."``)
        names the file the source is written to and that becomes ``co_filename``; without
        it nothing is written. Raises ``depyf.DecompilationError`` or
        ``depyf._recompile.RecompileError``."""
        from depyf._recompile import compile_like

        source = Decompiler(code_to_decompile).decompile(
            indentation=indentation, overwite_fn_name=reference_code.co_name
        )
        filename = "noname"
        if filepath_template is not None:
            index = 0
            while True:
                filename = (
                    filepath_template % index if "%" in filepath_template
                    else filepath_template.format(index)
                )
                if not os.path.exists(filename):
                    break
                index += 1
            with open(filename, "w", encoding="utf-8") as fh:
                fh.write(source)
        return compile_like(source, filename, reference_code)


def _reindent(source, width):
    """Re-indent 4-space-indented ``source`` with ``width`` spaces per level."""
    out = []
    for line in source.splitlines(True):
        stripped = line.lstrip(" ")
        levels, rest = divmod(len(line) - len(stripped), 4)
        out.append(" " * (levels * width + rest) + stripped)
    return "".join(out)
