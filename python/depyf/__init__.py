"""depyf: a Python bytecode decompiler and a debugging companion for ``torch.compile``.

The public API is the one of the original pure-Python depyf, so code written for it keeps
working:

- :func:`decompile` (and the original's class API ``Decompiler(code).decompile()``) turns a function, bound method, wrapped callable or code object into
  Python source (never imports torch);
- :func:`prepare_debug` dumps every code object that PyTorch's Dynamo makes into readable
  ``.py`` files and, where the recompiled file is verified, makes Dynamo run it;
- :func:`debug` runs already compiled code with a debugger able to stop in those files;
- :func:`install` / :func:`uninstall` log the decompiled source of Dynamo's code;
- :class:`DecompilationError` is raised for code that cannot be decompiled.

The torch glue lives in :mod:`depyf.explain` and is imported only when one of its entry
points is called, so ``import depyf`` never imports torch.
"""

from depyf._api import Decompiler, decompile
from depyf._core import DecompilationError

try:
    from importlib.metadata import version as _version

    __version__ = _version("depyf")
except Exception:  # noqa: BLE001 - running from a source tree without metadata
    __version__ = "0.0.0"

__all__ = [
    "DecompilationError",
    "Decompiler",
    "__version__",
    "debug",
    "decompile",
    "install",
    "prepare_debug",
    "uninstall",
]


def prepare_debug(dump_src_dir, clean_wild_fx_code=True, log_bytecode=False):
    """Context manager: dump and link every code object that Dynamo makes inside it.

    In: ``dump_src_dir``, the directory the ``.py`` files are written to (created if
    missing); ``clean_wild_fx_code`` and ``log_bytecode`` are accepted for compatibility
    with the original depyf (``log_bytecode=True`` also writes the disassembly of each
    transformed code object at the end of its dump file).
    Out: a context manager whose ``__enter__`` returns a
    :class:`depyf.explain.DumpSession` (its ``records`` list what was dumped).
    Raises ``ImportError`` when torch is not installed. Never lets an error of depyf reach
    the compiled program: see :mod:`depyf.explain`.
    """
    from depyf.explain import prepare_debug as _prepare_debug

    return _prepare_debug(
        dump_src_dir, clean_wild_fx_code=clean_wild_fx_code, log_bytecode=log_bytecode
    )


def debug():
    """Context manager: pause in the debugger, then run already compiled code only.

    In: nothing. Out: a context manager. On entry it calls ``breakpoint()`` (so the
    ``PYTHONBREAKPOINT`` environment variable is honoured) to let the user set breakpoints
    in the files that :func:`prepare_debug` dumped; its body then runs with Dynamo in
    run-only mode, so cached (linked) code runs and nothing new is compiled. Raises
    ``ImportError`` when torch is not installed. See :func:`depyf.explain.debug`.
    """
    from depyf.explain import debug as _debug

    return _debug()


def install():
    """Log the decompiled source of every code object Dynamo makes from now on.

    In: nothing. Out: None. The source goes to torch's ``bytecode`` artifact logger
    (shown with ``TORCH_LOGS=+bytecode``). Raises ``ImportError`` without torch.
    """
    from depyf.explain import install as _install

    _install()


def uninstall():
    """Undo :func:`install`. In: nothing. Out: None. Does nothing if not installed."""
    from depyf.explain import uninstall as _uninstall

    _uninstall()
