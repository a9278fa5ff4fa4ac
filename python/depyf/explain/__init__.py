"""depyf's glue to ``torch.compile``: ``prepare_debug``, ``debug``, ``install``.

Importing this package imports torch; ``depyf/__init__.py`` imports it only when one of
these entry points is called. Every private torch API used is wrapped in
:mod:`depyf.explain._torch_compat`; the dump/recompile/verify logic is in
:mod:`depyf.explain._dump`.
"""

import contextlib
import sys

from depyf.explain import _torch_compat as compat
from depyf.explain._dump import DumpRecord, DumpSession

__all__ = ["DumpRecord", "DumpSession", "debug", "install", "prepare_debug", "uninstall"]

_sessions = []  # every DumpSession made in this process, oldest first
_install_handle = None


@contextlib.contextmanager
def prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False):
    """Dump, verify and link every code object that Dynamo makes inside the block.

    In: ``dump_src_dir`` (a directory, created if missing; stored absolute, since it
    becomes ``co_filename`` of linked code); ``clean_wild_fx_code`` (accepted for
    compatibility with the original depyf; nothing to clean here); ``log_bytecode``
    (also write each transformed code's disassembly at the end of its file).
    Out (``as`` target): the :class:`DumpSession`, whose ``records`` say, per code
    object, the dump file, the verdict and whether it was linked.

    For each (original, transformed) pair Dynamo reports through its bytecode hook
    (torch 2.15 ``torch/_dynamo/convert_frame.py`` ``register_bytecode_hook``; resume
    functions come the same way), the session writes
    ``__transformed_code_<N>_for_<name>.py``, compiles it with that path as file name into
    a code object with the transformed code's frame layout, binds opaque constants in the
    frame's globals, verifies it with ``depyf._core.compare`` and returns it to Dynamo only
    when "identical" or "equivalent". The Inductor FX graph cache and the AOTAutograd cache
    are off inside the block so graphs are generated afresh.
    Raises ``ImportError`` without torch and ``RuntimeError`` when this torch has no
    bytecode hooks. No exception of depyf reaches the compiled program.
    """
    session = DumpSession(dump_src_dir, compat.compiling_frame_globals, log_bytecode)
    handle = compat.register_bytecode_hook(session.hook)
    _sessions.append(session)
    try:
        with compat.no_compile_caches():
            yield session
    finally:
        handle.remove()


@contextlib.contextmanager
def debug():
    """Pause in the debugger, then run the block with Dynamo in run-only mode.

    In: nothing. Out (``as`` target): None. On entry it prints where the dumped files are
    and calls ``breakpoint()`` (which honours ``PYTHONBREAKPOINT``; ``PYTHONBREAKPOINT=0``
    skips the pause): set breakpoints in the dumped files (``b <file>:<line>``) and
    continue (``c``). The block then runs with cached code only
    (:func:`_torch_compat.run_only`): code linked by :func:`prepare_debug` has its dump
    file as ``co_filename``, so the debugger stops there. Nothing new is compiled;
    calls whose guards fail run eagerly. Raises nothing of its own.
    """
    linked = [r.path for s in _sessions for r in s.records if r.linked]
    if linked:
        print(
            "depyf.debug(): set breakpoints in the dumped files (b <file>:<line>), "
            "then continue (c). Linked files:\n  " + "\n  ".join(linked),
            file=sys.stderr,
        )
    else:
        print(
            "depyf.debug(): no code linked by depyf.prepare_debug() in this process; "
            "breakpoints in dumped files will not be hit.",
            file=sys.stderr,
        )
    breakpoint()
    with compat.run_only():
        yield


def _log_hook(original, transformed):
    """Bytecode hook of :func:`install`: log the decompiled source, return None."""
    from depyf import _core

    logger = compat.bytecode_logger()
    try:
        source = _core.decompile(transformed, transformed.co_name).source
    except Exception as exc:  # noqa: BLE001 - logging only, never disturb Dynamo
        source = f"# depyf could not decompile it: {type(exc).__name__}: {exc}"
    logger.debug(
        "depyf: decompiled code that Dynamo made for %s (%s:%s):\n%s",
        original.co_name, original.co_filename, original.co_firstlineno, source,
    )
    return None


def install():
    """Log the decompiled source of Dynamo's code to torch's ``bytecode`` artifact logger
    (``TORCH_LOGS=+bytecode``). In: nothing. Out: None. Idempotent."""
    global _install_handle
    if _install_handle is None:
        _install_handle = compat.register_bytecode_hook(_log_hook)


def uninstall():
    """Remove the hook of :func:`install`. In: nothing. Out: None. Idempotent."""
    global _install_handle
    if _install_handle is not None:
        _install_handle.remove()
        _install_handle = None
