"""depyf's glue to ``torch.compile``: ``prepare_debug``, ``debug``, ``install``.

Importing this package imports torch; ``depyf/__init__.py`` imports it only when one of
these entry points is called. Every private torch API used is wrapped in
:mod:`depyf.explain._torch_compat`; the dump/recompile/verify logic is in
:mod:`depyf.explain._dump`.
"""

import contextlib
import os
import sys

from depyf.explain import _torch_compat as compat
from depyf.explain._artifacts import ArtifactCollector
from depyf.explain._dump import DumpRecord, DumpSession
from depyf.explain._fullcode import RESUME_RE, FullCodeWriter

__all__ = [
    "DumpRecord", "DumpSession", "debug", "dump_src", "install", "prepare_debug", "uninstall",
]

_sessions = []  # every DumpSession made in this process, oldest first
_active = []  # sessions whose prepare_debug block is running
_install_handle = None


@contextlib.contextmanager
def prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False):
    """Dump, verify and link every code object that Dynamo makes inside the block.

    In: ``dump_src_dir`` (a directory, created if missing; stored absolute, since it
    becomes ``co_filename`` of linked code; in a process that is one rank of several, a
    subfolder ``rank_<N>`` of it, see :func:`_torch_compat.rank_subfolder`);
    ``clean_wild_fx_code`` (accepted for compatibility with the original depyf; nothing
    is written outside the folder); ``log_bytecode`` (also write the original,
    transformed and recompiled bytecode, as ``.pyc`` and disassembly text).
    Out (``as`` target): the :class:`DumpSession`; ``session.records`` say, per code
    object, the dump file, the verdict and whether it was linked, and after the block
    ``session.full_code_files`` and ``session.compiles`` (graphs per compile id).

    Inside the block: for each (original, transformed) pair Dynamo reports through its
    bytecode hook (torch 2.15 ``convert_frame.register_bytecode_hook``; resume functions
    come the same way) the session writes ``__transformed_code_<k>_for_<name>.py``,
    compiles it with that path as file name into a code object with the transformed
    code's frame layout, verifies it with ``depyf._core.compare`` and hands it to Dynamo
    only when "identical" or "equivalent". Graphs and generated code arrive through
    torch's structured trace (:mod:`depyf.explain._artifacts`), each into its own
    ``__compiled_fn_<frame>_<compile>_for_<fn>.<stage>.py``. The FX graph cache and the
    AOTAutograd cache are off. On exit: ``full_code_for_<fn>.py`` per compiled function
    and ``index.md`` / ``index.json``.
    Raises on entry: ``ImportError`` without torch, ``RuntimeError`` for an unsupported
    torch, ``OSError`` when the folder cannot be written. Nothing of depyf reaches the
    compiled program afterwards: problems are written to the dump and warned about once.
    """
    compat.check_supported()
    dump_dir = os.path.abspath(dump_src_dir)
    sub = compat.rank_subfolder()
    if sub:
        dump_dir = os.path.join(dump_dir, sub)
    session = DumpSession(
        dump_dir, compat.compiling_frame_globals, log_bytecode,
        compile_id_getter=compat.current_compile_id,
    )
    collector = ArtifactCollector(session.dump_dir)
    session.collector = collector
    session.full_code_files = []
    handle = compat.register_bytecode_hook(session.hook)
    _sessions.append(session)
    _active.append(session)
    try:
        with compat.no_compile_caches(), compat.structured_trace(collector):
            yield session
    finally:
        handle.remove()
        _active.remove(session)
        _finish(session)


def _finish(session):
    """Write what needs the whole run: full code files and the index. Never raises."""
    collector = session.collector
    try:
        collector.flush_pending()
        writer = FullCodeWriter(session, collector, compat.entries_of)
        session.full_code_files = writer.write()
        writer.write_index(session.full_code_files)
    except Exception as exc:  # noqa: BLE001 - the program's results are already made
        session.report_problem("while writing full_code_for_*.py and index.md", exc)
    if collector.errors:
        session.report_problem(
            "while writing graphs", RuntimeError("; ".join(collector.errors[:3]))
        )


def dump_src(original_code, module):
    """Source of everything Dynamo made for ``original_code`` (as in
    ``full_code_for_<fn>.py``), from inside :func:`prepare_debug`.

    In: the original function's code object (or the function) and the globals dict of
    its module (accepted for compatibility with the original depyf: Dynamo's cache
    entries are found from the code object). Out: the text. Raises ``AssertionError``
    outside ``prepare_debug``, like the original."""
    assert _active, "`dump_src` must be used inside `depyf.prepare_debug`."
    from depyf._api import code_of

    code = code_of(original_code)
    session = _active[-1]
    writer = FullCodeWriter(session, session.collector, compat.entries_of)
    resumes = {}
    for record in session.records:
        match = RESUME_RE.match(record.original.co_name)
        if match and record.original not in resumes.setdefault(match.group("parent"), []):
            resumes[match.group("parent")].append(record.original)
    return writer._file_text(code, resumes)


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
