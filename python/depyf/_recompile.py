"""Recompile decompiled source into a code object that can stand in for another one.

Torch-free, so it is tested without torch. Used by :mod:`depyf.explain` to hand Dynamo a
code object compiled from a dumped file.

A stand-in must keep the frame layout of the code it replaces, because Dynamo builds the
new frame by copying the old one's slots by position: the argument prefix
``co_varnames[:total_argcount]`` and the trailing cell and free variables (torch 2.15
``torch/_dynamo/convert_frame.py``, the checks after the bytecode hooks run, and
``torch/csrc/dynamo/eval_frame.c``). CPython 3.11 lays ``localsplus`` out as arguments,
other locals, cell variables, then free variables (CPython 3.11 ``Objects/codeobject.c``,
``_PyCode_Validate``/``init_code``).
"""

import ast
import dis
import inspect
import keyword
import types

_ARG_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
# Flags that change what calling the code does (a generator returns a generator...).
_KIND_FLAGS = (
    inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)
_WRAPPER_NAME = "__depyf_closure_of__"


class RecompileError(Exception):
    """The decompiled source does not compile into a usable stand-in code object."""


def total_argcount(code):
    """Number of argument slots of ``code``.

    In: a code object. Out: ``co_argcount + co_kwonlyargcount`` plus one each for
    ``*args`` and ``**kwargs`` (the count Dynamo uses, torch 2.15 ``convert_frame.py``
    ``count_args``; ``co_argcount`` already includes positional-only arguments).
    """
    return (
        code.co_argcount
        + code.co_kwonlyargcount
        + bool(code.co_flags & inspect.CO_VARARGS)
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    )


def layout_mismatch(template, candidate):
    """Say how ``candidate`` fails to have ``template``'s frame layout.

    In: two code objects. Out: ``None`` when argument counts (positional, positional-only,
    keyword-only), the ``*args``/``**kwargs`` and generator/coroutine flags, the argument
    names prefix of ``co_varnames``, ``co_cellvars`` and ``co_freevars`` all match;
    otherwise a one-line description of the first difference. Raises nothing.
    """
    checks = [
        ("co_argcount", template.co_argcount, candidate.co_argcount),
        ("co_posonlyargcount", template.co_posonlyargcount, candidate.co_posonlyargcount),
        ("co_kwonlyargcount", template.co_kwonlyargcount, candidate.co_kwonlyargcount),
        (
            "*args/**kwargs flags",
            template.co_flags & _ARG_FLAGS,
            candidate.co_flags & _ARG_FLAGS,
        ),
        (
            "generator/coroutine flags",
            template.co_flags & _KIND_FLAGS,
            candidate.co_flags & _KIND_FLAGS,
        ),
        (
            "argument names",
            template.co_varnames[: total_argcount(template)],
            candidate.co_varnames[: total_argcount(candidate)],
        ),
        ("co_cellvars", template.co_cellvars, candidate.co_cellvars),
        ("co_freevars", template.co_freevars, candidate.co_freevars),
    ]
    for what, want, got in checks:
        if want != got:
            return f"{what} differ: Dynamo's code has {want!r}, the recompiled file has {got!r}"
    return None


def cell_loads(code):
    """Names whose cell object (not its value) ``code`` pushes, in order.

    In: a code object. Out: a list of names. CPython 3.11-3.12 push a cell with
    ``LOAD_CLOSURE``; from 3.13 that is a pseudo-instruction compiled to ``LOAD_FAST`` on a
    cell or free slot (CPython 3.13 ``Python/flowgraph.c``). Dynamo uses such loads to pass
    closures to resume-function factories; source that loads the value instead gives
    "closure expected cell" at run time, so :mod:`depyf.explain` checks these lists match
    before linking, whatever the verification verdict. Raises nothing.
    """
    cells = set(code.co_cellvars) | set(code.co_freevars)
    names = []
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_CLOSURE":
            names.append(ins.argval)
        elif ins.opname.startswith("LOAD_FAST"):
            # LOAD_FAST, 3.14's LOAD_FAST_BORROW, and the superinstructions that load
            # two slots (argval is then a pair of names).
            loaded = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
            names.extend(n for n in loaded if n in cells)
    return names


def global_loads(code):
    """Names that ``code`` (and the code objects nested in its constants) reads as
    globals or builtins (``LOAD_GLOBAL``/``LOAD_NAME``), as a set. Raises nothing.

    A safety net beside ``_core.compare``: a recompiled file that reads a global which
    Dynamo's code never reads would fail with ``NameError`` (or read something else), so
    :mod:`depyf.explain` does not link it, whatever the verdict."""
    names = set()
    stack = [code]
    while stack:
        current = stack.pop()
        for ins in dis.get_instructions(current):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                names.add(ins.argval)
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return names


def _is_identifier(name):
    return name.isidentifier() and not keyword.iskeyword(name)


def _find_def(body, name):
    """The last top-level ``def``/``async def`` called ``name`` in ``body``, or None."""
    found = None
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node
    return found


def _find_code(code, name, depth=2):
    """The code object called ``name`` among ``code``'s constants (nested ``depth`` deep)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            if depth > 1:
                inner = _find_code(const, name, depth - 1)
                if inner is not None:
                    return inner
    return None


def compile_like(source, filename, template, *, first_line=1):
    """Compile the ``def`` in ``source`` into a stand-in for ``template``.

    In: ``source``, text holding a top-level ``def <template.co_name>(...)`` (as
    ``depyf._core.decompile(template)`` makes it); ``filename``, stored as
    ``co_filename`` (so debuggers open that file); ``template``, the code object to
    stand in for; ``first_line``, the line of the file at which ``source`` starts (the
    lines before it are the dump header), so line numbers in the code match the file.
    Out: a code object compiled from the ``def``, named like ``template`` (``co_name`` and
    ``co_qualname``), with the same free variables: when ``template`` has free
    variables the ``def`` is compiled nested inside a wrapper function that assigns them,
    built with :mod:`ast` so the ``def`` keeps its line numbers.

    Dynamo keeps the original function's cell and free variables even where its code no
    longer uses them (e.g. a resume function whose graph captured the closure value).
    Source that does not mention them compiles without them, so for those the ``def``
    gets a dead ``if False: <names>; lambda: <names>`` on its first line: CPython's
    symbol table still sees the names (making them free, resp. cells) while the compiler
    drops the dead branch, leaving at most a ``NOP`` (CPython 3.11 ``Python/compile.c``,
    constant ``if`` tests are not compiled; ``Python/symtable.c`` runs on the whole AST).

    Raises :class:`RecompileError` when the source does not parse or compile, has no such
    ``def``, or the result does not have ``template``'s layout (see
    :func:`layout_mismatch`).
    """
    code = _compile_once(source, filename, template, first_line, (), ())
    missing_free = [v for v in template.co_freevars if v not in code.co_freevars]
    missing_cells = [v for v in template.co_cellvars if v not in code.co_cellvars]
    if missing_free or missing_cells:
        code = _compile_once(
            source, filename, template, first_line, missing_free, missing_cells
        )
    problem = layout_mismatch(template, code)
    if problem is not None:
        raise RecompileError(problem)
    return code


def _dead_reference(free, cells, line):
    """``if False: (<free>,); lambda: (<cells>,)`` at ``line``, as an AST statement."""
    def names(vars_):
        return ast.Tuple(elts=[ast.Name(id=v, ctx=ast.Load()) for v in vars_], ctx=ast.Load())

    body = []
    if free:
        body.append(ast.Expr(value=names(free)))
    if cells:
        # An assignment makes each name local to the def (the lambda alone would find a
        # global when the source never assigns it); the lambda's reference makes it a cell.
        body.append(ast.Assign(
            targets=[ast.Tuple(elts=[ast.Name(id=v, ctx=ast.Store()) for v in cells],
                               ctx=ast.Store())],
            value=ast.Tuple(elts=[ast.Constant(value=None) for _ in cells], ctx=ast.Load()),
        ))
        no_args = ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
            kw_defaults=[], kwarg=None, defaults=[],
        )
        body.append(ast.Expr(value=ast.Lambda(args=no_args, body=names(cells))))
    stmt = ast.If(test=ast.Constant(value=False), body=body, orelse=[])
    for node in ast.walk(stmt):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    return stmt


def _compile_once(source, filename, template, first_line, dead_free, dead_cells):
    name = template.co_name
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise RecompileError(f"decompiled source does not parse: {exc}") from exc
    if first_line != 1:
        ast.increment_lineno(tree, first_line - 1)
    fndef = _find_def(tree.body, name)
    if fndef is None:
        raise RecompileError(f"decompiled source has no top-level def {name!r}")
    def_name = name if _is_identifier(name) else "__depyf_code__"
    fndef.name = def_name
    if dead_free or dead_cells:
        first = fndef.body[0] if fndef.body else None
        at = 1 if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ) else 0
        fndef.body.insert(at, _dead_reference(dead_free, dead_cells, fndef.lineno))
    body = tree.body
    if template.co_freevars:
        # def __depyf_closure_of__():
        #     <freevar> = None ...      (makes each name a cell of the wrapper)
        #     <source body>
        # The inner def then reads them as free variables, in the order CPython picks.
        line = fndef.lineno
        assigns = [
            ast.Assign(
                targets=[ast.Name(id=var, ctx=ast.Store())],
                value=ast.Constant(value=None, lineno=line, col_offset=0),
                lineno=line,
                col_offset=0,
            )
            for var in template.co_freevars
        ]
        wrapper = ast.FunctionDef(
            name=_WRAPPER_NAME,
            args=ast.arguments(
                posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                kw_defaults=[], kwarg=None, defaults=[],
            ),
            body=assigns + body,
            decorator_list=[],
            returns=None,
            type_comment=None,
            lineno=line,
            col_offset=0,
        )
        end = max(getattr(node, "end_lineno", None) or node.lineno for node in body)
        for node in [wrapper, *assigns, *(a.targets[0] for a in assigns)]:
            node.end_lineno = end if node is wrapper else line
            node.end_col_offset = 0
        for assign in assigns:
            assign.targets[0].lineno, assign.targets[0].col_offset = line, 0
            assign.value.end_lineno, assign.value.end_col_offset = line, 0
        if hasattr(ast.FunctionDef, "type_params"):  # CPython 3.12+ field
            wrapper.type_params = []
        body = [wrapper]
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        module_code = compile(module, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, TypeError) as exc:
        raise RecompileError(f"decompiled source does not compile: {exc}") from exc
    code = _find_code(module_code, def_name)
    if code is None:
        raise RecompileError(f"compiled module has no code object {def_name!r}")
    changes = {"co_name": name}
    if hasattr(code, "co_qualname"):  # CPython 3.11+
        changes["co_qualname"] = template.co_qualname
    return code.replace(**changes)
