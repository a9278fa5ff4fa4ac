"""Every use of torch's private API by depyf, in one place.

These are private interfaces of PyTorch that move between releases; each function says
which torch version it was checked against. When torch changes, this module is the one to
adapt. Importing it imports torch.
"""

import contextlib
import os
import re
import sys

import torch
import torch._dynamo  # noqa: F401  (makes torch._dynamo.* available)
from torch._dynamo import convert_frame

RESUME_PREFIX = "torch_dynamo_resume_in_"


def register_bytecode_hook(hook):
    """Register ``hook(original_code, transformed_code) -> code | None`` with Dynamo.

    In: the hook. Out: a handle with ``.remove()``.
    Relies on ``torch._dynamo.convert_frame.register_bytecode_hook`` (torch >= 2.2,
    pytorch/pytorch#110714; checked in torch 2.15 ``torch/_dynamo/convert_frame.py``):
    called at the end of each compile, including resume functions; a returned code object
    is what Dynamo caches and runs, None keeps Dynamo's.
    Raises ``RuntimeError`` when this torch has no such API.
    """
    register = getattr(convert_frame, "register_bytecode_hook", None)
    if register is None:
        raise RuntimeError(
            f"torch {torch.__version__} has no torch._dynamo.convert_frame."
            "register_bytecode_hook (needs torch >= 2.2)"
        )
    return register(hook)


def compiling_frame_globals():
    """The globals of the frame Dynamo is compiling right now, or None.

    In: nothing (call it from inside a bytecode hook). Out: the dict, or None when not
    found (e.g. the frame is None when Dynamo replays a saved compile).
    Relies on torch 2.15 ``torch/_dynamo/convert_frame.py`` ``_compile(code, globals,
    locals, builtins, closure, ..., frame=None, ...)`` being on the stack while hooks run:
    its ``globals`` argument is the dict the transformed code will run with, into which
    Dynamo also injects the names its code loads (``__compiled_fn_*``, ``__resume_at_*``).
    """
    return _compiling_frame_value("globals", "f_globals")


def compiling_frame_locals():
    """The locals of the frame Dynamo is compiling right now, or None (same search as
    :func:`compiling_frame_globals`; torch 2.15 ``_compile``'s ``locals`` argument)."""
    return _compiling_frame_value("locals", "f_locals")


def _compiling_frame_value(argument, frame_attribute):
    """Walks up the stack to torch's ``convert_frame._compile`` and returns its
    ``argument`` (a dict), else the ``frame_attribute`` of its ``frame`` argument, else
    None."""
    frame = sys._getframe(2)
    target = os.path.normcase(os.path.abspath(convert_frame.__file__))
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_compile" and (
            os.path.normcase(os.path.abspath(code.co_filename)) == target
        ):
            value = frame.f_locals.get(argument)
            if isinstance(value, dict):
                return value
            inner = frame.f_locals.get("frame")
            return getattr(inner, frame_attribute, None)
        frame = frame.f_back
    return None


@contextlib.contextmanager
def no_compile_caches():
    """Context manager: turn off the caches that would skip graph generation.

    With the Inductor FX graph cache and the AOTAutograd cache warm, graphs are loaded
    instead of regenerated (torch 2.15 ``torch/_inductor/config.py`` ``fx_graph_cache``,
    ``torch/_functorch/config.py`` ``enable_autograd_cache``), so a dump would miss
    them and runs would differ from a fresh compile. Each config is patched only if this
    torch has it.
    """
    with contextlib.ExitStack() as stack:
        for modname, attr in (
            ("torch._inductor.config", "fx_graph_cache"),
            ("torch._functorch.config", "enable_autograd_cache"),
        ):
            try:
                __import__(modname)
                config = sys.modules[modname]
            except Exception:
                continue
            if hasattr(config, attr):
                stack.enter_context(config.patch(attr, False))
        yield


@contextlib.contextmanager
def run_only():
    """Context manager: Dynamo runs cached code and compiles nothing new.

    Two switches, because a ``torch.compile``'d callable installs its own callback when
    called: ``torch.compiler.set_stance("eager_on_recompile")`` (torch >= 2.6; torch 2.15
    ``torch/_dynamo/eval_frame.py`` ``_callback_from_stance`` maps it to the run-only
    callback ``False``) covers those callables, and
    ``torch._C._dynamo.eval_frame.set_eval_frame(False)`` (returns the previous callback)
    covers frames outside them. Guards that fail run the original code eagerly.
    """
    stance = getattr(torch.compiler, "set_stance", None)
    with contextlib.ExitStack() as stack:
        if stance is not None:
            stack.enter_context(stance("eager_on_recompile"))
        set_eval_frame = torch._C._dynamo.eval_frame.set_eval_frame
        prior = set_eval_frame(False)
        stack.callback(set_eval_frame, prior)
        yield


def cache_entries(fn_or_code):
    """The code objects Dynamo has cached for a function (for tests and reports).

    In: a function or code object (a ``torch.compile`` result is unwrapped through
    ``__wrapped__`` / ``_torchdynamo_orig_callable``). Out: a list of code objects, newest
    first. Relies on torch 2.15 ``torch/_dynamo/eval_frame.py``
    ``_debug_get_cache_entry_list`` whose entries have ``.code``.
    """
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    target = fn_or_code
    for attr in ("_torchdynamo_orig_callable", "__wrapped__"):
        while hasattr(target, attr):
            target = getattr(target, attr)
    if hasattr(target, "__func__"):
        target = target.__func__
    return [entry.code for entry in _debug_get_cache_entry_list(target)]


def bytecode_logger():
    """torch's logger behind ``TORCH_LOGS=+bytecode`` (torch 2.15
    ``torch._logging.getArtifactLogger("torch._dynamo.convert_frame", "bytecode")``);
    a plain ``logging`` logger if this torch has none."""
    try:
        return torch._logging.getArtifactLogger("torch._dynamo.convert_frame", "bytecode")
    except Exception:
        import logging

        return logging.getLogger("depyf.bytecode")


def is_resume_function(code):
    """Whether ``code`` is a Dynamo resume function (named ``torch_dynamo_resume_in_<fn>_at_
    <line>`` since pytorch/pytorch#118201)."""
    return code.co_name.startswith(RESUME_PREFIX)


# The oldest torch that depyf supports: guards as a C++ tree (entry.guard_manager, torch
# 2.6) and the structured trace records used for graphs; tested with 2.14.1 and 2.15.
MIN_TORCH = (2, 6)


def torch_version():
    """``torch.__version__`` as a tuple of ints (major, minor), e.g. ``(2, 15)``."""
    match = re.match(r"(\d+)\.(\d+)", str(torch.__version__))
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def check_supported():
    """Raise ``RuntimeError`` on entry when this torch is too old for depyf's hooks.

    In: nothing. Out: None. Checked: the version against :data:`MIN_TORCH`, and the
    presence of every private API used below, so an unsupported torch fails here with
    a message rather than in the middle of a compile."""
    missing = []
    if torch_version() < MIN_TORCH:
        missing.append(f"torch >= {MIN_TORCH[0]}.{MIN_TORCH[1]}")
    if not hasattr(convert_frame, "register_bytecode_hook"):
        missing.append("torch._dynamo.convert_frame.register_bytecode_hook")
    try:
        from torch._logging._internal import trace_log  # noqa: F401
    except ImportError:
        missing.append("torch._logging._internal.trace_log")
    if missing:
        raise RuntimeError(
            f"depyf does not support torch {torch.__version__}: it needs "
            + ", ".join(missing) + " (tested with torch 2.14.1 and 2.15)"
        )


def current_compile_id():
    """Dynamo's compile id of the compile in progress as ``(frame_id, frame_compile_id)``,
    or None. Relies on torch 2.15 ``torch/_guards.py``
    ``CompileContext.current_compile_id()`` returning a ``CompileId`` with those fields."""
    from torch._guards import CompileContext

    cid = CompileContext.current_compile_id()
    if cid is None or getattr(cid, "frame_id", None) is None:
        return None
    return (cid.frame_id, cid.frame_compile_id)


@contextlib.contextmanager
def structured_trace(handler):
    """Attach ``handler`` to torch's structured trace logger inside the block.

    torch 2.15 ``torch/_logging/_internal.py``: ``trace_structured`` emits a record
    (attributes ``metadata``, a dict with the compile id fields, and ``payload``, a str)
    only when ``trace_log`` has handlers; ``trace_log`` does not propagate. Records that
    carry no payload cost a dict each, so the overhead is small."""
    from torch._logging._internal import trace_log

    old_level = trace_log.level
    trace_log.addHandler(handler)
    if trace_log.level > 10 or trace_log.level == 0:
        trace_log.setLevel(10)  # DEBUG
    try:
        yield
    finally:
        trace_log.removeHandler(handler)
        trace_log.setLevel(old_level)


def guard_parts(guard_manager):
    """The verbose guard strings of a cache entry's guard tree, in tree order.

    torch >= 2.6: ``GuardManagerWrapper.root`` with ``get_leaf_guards()``,
    ``get_child_managers()`` and ``get_epilogue_lambda_guards()``, each leaf with
    ``verbose_code_parts()`` (torch 2.15 ``torch/_dynamo/guards.py``). Falls back to the
    wrapper's ``code_parts`` list."""
    parts = []
    root = getattr(guard_manager, "root", None)
    if root is None:
        return list(getattr(guard_manager, "code_parts", None) or [])

    def visit(node):
        for leaf in node.get_leaf_guards():
            parts.extend(str(p) for p in leaf.verbose_code_parts())
        for child in node.get_child_managers():
            visit(child)

    visit(root)
    for leaf in getattr(root, "get_epilogue_lambda_guards", lambda: [])():
        parts.extend(str(p) for p in leaf.verbose_code_parts())
    return parts


def entries_of(code):
    """Dynamo's cache entries for ``code`` as :class:`depyf.explain._fullcode.Entry`,
    newest first (torch 2.15 ``_debug_get_cache_entry_list``; an entry has ``code``,
    ``guard_manager`` and ``compile_id``)."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    from depyf.explain._fullcode import Entry

    out = []
    for entry in _debug_get_cache_entry_list(code):
        cid = getattr(entry, "compile_id", None)
        key = (cid.frame_id, cid.frame_compile_id) if getattr(cid, "frame_id", None) is not None else None
        try:
            parts = guard_parts(entry.guard_manager)
        except Exception as exc:  # noqa: BLE001 - a torch change must not lose the dump
            parts = [f"(guards not readable: {type(exc).__name__}: {exc})"]
        out.append(Entry(entry.code, parts, key))
    return out


def rank_subfolder():
    """The per-process subfolder for a dump shared by several processes, or None.

    ``rank_<RANK>`` when torchrun (or the user) set ``RANK``, or torch.distributed is
    initialized; ``<process name>`` (e.g. ``SpawnProcess-1``, numbered in start order by
    ``multiprocessing``, as used by ``torch.multiprocessing.spawn``) in a child process;
    None in a single plain process."""
    import multiprocessing

    rank = os.environ.get("RANK")
    try:
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            rank = str(dist.get_rank())
    except Exception:  # noqa: BLE001
        pass
    if rank is not None:
        return f"rank_{rank}"
    if multiprocessing.parent_process() is not None:
        return re.sub(r"[^A-Za-z0-9_.-]", "_", multiprocessing.current_process().name)
    return None


def innermost_fn(fn):
    """The user's function under ``torch.compile`` wrappers (torch 2.15
    ``torch/_dynamo/eval_frame.py`` ``innermost_fn``)."""
    from torch._dynamo.eval_frame import innermost_fn as inner

    return inner(fn)
