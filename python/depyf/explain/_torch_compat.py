"""Every use of torch's private API by depyf, in one place.

These are private interfaces of PyTorch that move between releases; each function says
which torch version it was checked against. When torch changes, this module is the one to
adapt. Importing it imports torch.
"""

import contextlib
import os
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
    frame = sys._getframe(1)
    target = os.path.normcase(os.path.abspath(convert_frame.__file__))
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_compile" and (
            os.path.normcase(os.path.abspath(code.co_filename)) == target
        ):
            value = frame.f_locals.get("globals")
            if isinstance(value, dict):
                return value
            inner = frame.f_locals.get("frame")
            return getattr(inner, "f_globals", None)
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
