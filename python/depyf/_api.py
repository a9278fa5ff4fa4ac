"""``depyf.decompile``: find the code object of a callable and decompile it.

Torch-free on purpose: ``import depyf`` and ``depyf.decompile`` must never import torch.
"""

import ast
import builtins
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
    return _target(obj)[0]


def _target(obj):
    """:func:`code_of`'s walk: ``(code, function)``, ``function`` being the function
    object whose ``__code__`` it is (``None`` when ``obj`` led to a code object)."""
    seen = set()
    while True:
        if isinstance(obj, types.CodeType):
            return obj, None
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
            return code, obj
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
    is no identifier, like ``<lambda>``, becomes one: ``_lambda_``); for module or class
    body code, the body. Constants that have no literal form are named in the source
    (see ``depyf._core.decompile``'s ``opaque_constants``).
    Given a function (not a bare code object), the ``def`` also carries what lives on
    the function object rather than in its code: default values (``__defaults__``,
    ``__kwdefaults__``) and annotations (``__annotations__``), see :func:`_signature`.
    Raises ``TypeError`` for objects without code and ``depyf.DecompilationError`` (with
    ``code_name``, ``offset``, ``opname``, ``python_version``) for bytecode the core
    cannot decompile.
    """
    code, function = _target(fn_or_code)
    source = _core.decompile(code, _def_name(code.co_name)).source
    if function is not None:
        source = _signature(source, function)
    return source


# CPython `Include/cpython/code.h`: the code was compiled under
# `from __future__ import annotations` (PEP 563): its annotations are the source text.
_CO_FUTURE_ANNOTATIONS = 0x1000000


def _signature(source, function):
    """``source`` (a decompiled ``def``) with the defaults and annotations of
    ``function`` in its header; ``source`` unchanged when it holds no ``def`` first
    (lambdas) or the function has none of them.

    Defaults print as literals when ``repr`` reads back equal through
    ``ast.literal_eval``, classes, functions and modules as their dotted names
    (``module.qualname``, builtins bare), anything else as the name
    ``__default_<parameter>__`` (the value has no source form; the ``def`` still
    compiles). Annotations print as written: the text under PEP 563 (the code's
    ``CO_FUTURE_ANNOTATIONS`` flag), a string annotation as a string, a class by its
    dotted name, other objects (``typing`` forms, ``list[int]``) by their ``repr`` when
    it is an expression, else as a string. Annotations that cannot be read (3.14+
    ``__annotate__`` raising, e.g. ``NameError`` for a name defined later) are left out.
    """
    defaults = _get_attr(function, "__defaults__") or ()
    kwdefaults = _get_attr(function, "__kwdefaults__") or {}
    try:
        annotations = dict(function.__annotations__ or {})
    except Exception:
        annotations = {}
    if not (defaults or kwdefaults or annotations):
        return source
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    node = next((s for s in tree.body if not isinstance(s, ast.ImportFrom)), None)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
        return source
    text = bool(function.__code__.co_flags & _CO_FUTURE_ANNOTATIONS)
    home = _get_attr(function, "__module__")
    args = node.args
    positional = args.posonlyargs + args.args
    if len(defaults) <= len(positional):
        args.defaults = [_value(v, a.arg, home) for a, v in zip(positional[len(positional) - len(defaults):], defaults)]
    args.kw_defaults = [_value(kwdefaults[a.arg], a.arg, home) if a.arg in kwdefaults else None for a in args.kwonlyargs]
    every = positional + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a is not None]
    for a in every:
        if a.arg in annotations:
            a.annotation = _annotation(annotations[a.arg], text, home)
    if "return" in annotations:
        node.returns = _annotation(annotations["return"], text, home)
    first, last = node.lineno - 1, node.body[0].lineno - 1
    if hasattr(node.body[0], "decorator_list") and node.body[0].decorator_list:
        last = node.body[0].decorator_list[0].lineno - 1
    header = ast.unparse(_header_only(node)).split("\n", 1)[0]
    lines = source.split("\n")
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    return "\n".join(lines[:first] + [indent + header] + lines[last:])


def _header_only(node):
    """A copy of the ``def`` ``node`` with a body of ``pass`` and no decorators."""
    copy = type(node)(**{f: getattr(node, f, None) for f in node._fields})
    copy.body, copy.decorator_list = [ast.Pass()], []
    return ast.fix_missing_locations(copy)


def _dotted(value, home):
    """``module.qualname`` of a class, function or module (bare for builtins and for
    ``home``, the decompiled function's own module), when that is a dotted run of
    identifiers; else ``None``."""
    if isinstance(value, types.ModuleType):
        name = value.__name__
    else:
        qualname = getattr(value, "__qualname__", None)
        module = getattr(value, "__module__", None)
        if not isinstance(qualname, str) or "<" in qualname:
            return None
        bare = module == home or (module in (None, "builtins") and getattr(builtins, qualname, None) is value)
        name = qualname if bare else f"{module}.{qualname}"
    return name if all(p.isidentifier() for p in name.split(".")) else None


def _value(value, param, home):
    """The expression a default value prints as (see :func:`_signature`)."""
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)):
        name = _dotted(value, home)
        if name:
            return ast.parse(name, mode="eval").body
    try:
        text = repr(value)
        if ast.literal_eval(text) == value and type(ast.literal_eval(text)) is type(value):
            return ast.parse(text, mode="eval").body
    except Exception:
        pass
    return ast.Name(f"__default_{param}__")


def _annotation(value, text, home):
    """The expression an annotation prints as (see :func:`_signature`)."""
    if isinstance(value, str):
        if text:
            try:
                return ast.parse(value, mode="eval").body
            except SyntaxError:
                pass
        return ast.Constant(value)
    if value is None:
        return ast.Constant(None)
    if isinstance(value, type) and not isinstance(value, types.GenericAlias):
        name = _dotted(value, home)
        if name:
            return ast.parse(name, mode="eval").body
    try:
        return ast.parse(repr(value), mode="eval").body
    except SyntaxError:
        return ast.Constant(repr(value))


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
