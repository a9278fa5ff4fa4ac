"""The bytecode hook behind ``depyf.prepare_debug``: dump, recompile, verify, link.

Torch-free: the torch specifics come in through :mod:`depyf.explain._torch_compat`, so
this module is also exercised by tests that fake Dynamo's calls.
"""

import dataclasses
import dis
import inspect
import io
import itertools
import os
import re
import textwrap
import threading
import types

from depyf.explain._artifacts import compile_id_text
import warnings

from depyf import _core
from depyf._recompile import RecompileError, cell_loads, compile_like, global_loads

LINKED_VERDICTS = ("identical", "equivalent")
RESUME_PREFIX = "torch_dynamo_resume_in_"
_HEADER_LINES = 8
_MAX_FIELD = 240
# Prefixes for the names of opaque constants, unique in the process: linked code stays in
# Dynamo's cache after its session ends and its names must keep their values, even when a
# later session dumps code that runs with the same module globals.
_PREFIXES = itertools.count()


@dataclasses.dataclass
class DumpRecord:
    """What happened to one (original, transformed) pair that Dynamo passed to the hook.

    ``number`` is the N of ``__transformed_code_<N>_for_<name>.py`` (code objects are
    numbered per name), ``index`` the place of the record in the session (over every
    name), and ``path`` that file. ``verdict`` is ``_core.compare``'s ("identical", "equivalent", "differs") or
    "not decompiled" / "not recompiled" / "error". ``linked`` says whether the recompiled
    code object ``code`` was returned to Dynamo (then ``code.co_filename == path``);
    ``reason`` says why not otherwise.
    """

    index: int
    name: str
    original: types.CodeType
    transformed: types.CodeType
    path: str
    verdict: str = "error"
    detail: str = ""
    linked: bool = False
    number: int = 0
    reason: str = ""
    code: types.CodeType = None
    source_path: str = None
    const_prefix: str = ""
    compile_id: tuple = None  # Dynamo's (frame_id, frame_compile_id), when known
    source: str = None  # the decompiled source, when decompilation succeeded
    bytecode_files: list = dataclasses.field(default_factory=list)


def _safe_name(name):
    """``name`` reduced to characters that are safe in a file name."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name) or "code"


# Files a session writes; a new session removes them first, so a folder shows one run.
_OWN_FILES = re.compile(
    r"^(__transformed_code_\d+_for_|__original_source_for_|full_code_for_|__compiled_fn_)"
    r".*\.(py|pyc|txt)$|^index\.(md|json)$"
)


def check_writable(dump_dir):
    """Create ``dump_dir`` if needed and prove that files can be written in it.

    In: a path. Out: its absolute form. Raises ``OSError`` naming the folder when it
    cannot be created or written (reported on entry of ``prepare_debug`` rather than
    in the middle of a compile)."""
    path = os.path.abspath(dump_dir)
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".depyf_write_test_{os.getpid()}")
        with open(probe, "w", encoding="utf-8") as fh:
            fh.write("")
        os.remove(probe)
    except OSError as exc:
        raise OSError(
            exc.errno, f"depyf.prepare_debug: cannot write the dump folder {path!r}: "
            f"{exc.strerror or exc}"
        ) from exc
    return path


def _one_line(text):
    text = " ".join(str(text).split())
    return text if len(text) <= _MAX_FIELD else text[: _MAX_FIELD - 3] + "..."


def _comment_block(title, text):
    lines = [f"# {title}"]
    lines += [("# " + line).rstrip() for line in str(text).splitlines()]
    return "\n".join(lines)


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)  # co_qualname: CPython 3.11+


def _where(code):
    return f"{code.co_filename}:{code.co_firstlineno}"


class DumpSession:
    """One ``prepare_debug`` dump: numbers, writes and links Dynamo's code objects.

    In (constructor): ``dump_dir`` (made absolute and created), ``globals_getter`` (a
    callable returning the globals dict of the frame being compiled, or None, called from
    inside the hook), ``log_bytecode`` (append the transformed code's disassembly to each
    dump file). ``records`` lists a :class:`DumpRecord` per hook call, in order.
    Stale ``__transformed_code_*`` / ``__original_source_*`` files in ``dump_dir`` are
    removed so the directory only shows this session.
    """

    def __init__(self, dump_dir, globals_getter, log_bytecode=False, compile_id_getter=None):
        self.dump_dir = check_writable(dump_dir)
        for entry in os.listdir(self.dump_dir):
            if _OWN_FILES.match(entry):
                try:
                    os.remove(os.path.join(self.dump_dir, entry))
                except OSError:
                    pass
        self.globals_getter = globals_getter
        self.compile_id_getter = compile_id_getter or (lambda: None)
        self.log_bytecode = log_bytecode
        self.records = []
        self.problems = []  # one line per exception of depyf caught in this session
        self._lock = threading.Lock()
        self._warned = False
        self._source_files = {}  # id(original code) -> path or None
        self._per_name = {}  # co_name -> number of dumps so far

    def report_problem(self, what, exc):
        """Record an exception of depyf (never raised to the program) and warn once per
        session. In: a short description and the exception. Out: None."""
        line = f"{what}: {type(exc).__name__}: {exc}"
        self.problems.append(line)
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"depyf.prepare_debug: {line}; Dynamo keeps its own code. Further problems "
                f"are only written into the dump (see index.md in {self.dump_dir}).",
                RuntimeWarning,
                stacklevel=3,
            )

    @property
    def files(self):
        """Paths of every file this session wrote, in the order written."""
        paths = []
        for record in self.records:
            if record.source_path and record.source_path not in paths:
                paths.append(record.source_path)
            paths.append(record.path)
        return paths

    def hook(self, original, transformed):
        """Dynamo's bytecode hook: ``hook(original_code, transformed_code) -> code | None``.

        In: the code object Dynamo compiled and the code it made for it. Out: a code
        object compiled from the dump file, verified "identical" or "equivalent" to
        ``transformed`` and with its frame layout, for Dynamo to cache and run; or None,
        so Dynamo keeps ``transformed``. Raises nothing: any exception is caught, warned
        about once per session and written into the dump file, because depyf must never
        change what the user's program does (Dynamo would otherwise abandon the compile).
        """
        with self._lock:
            # Numbered per function name, not per session: a program that compiles one
            # more function elsewhere keeps the names (and breakpoints) of the others.
            number = self._per_name.get(transformed.co_name, 0)
            self._per_name[transformed.co_name] = number + 1
            record = DumpRecord(
                index=len(self.records),
                name=transformed.co_name,
                original=original,
                transformed=transformed,
                path=os.path.join(
                    self.dump_dir,
                    f"__transformed_code_{number}_for_{_safe_name(transformed.co_name)}.py",
                ),
                const_prefix=f"__const_{next(_PREFIXES)}",
                number=number,
            )
            self.records.append(record)
            try:
                record.compile_id = self.compile_id_getter()
            except Exception:  # noqa: BLE001 - only used for names in the index
                record.compile_id = None
            try:
                result = self._handle(record)
                if self.log_bytecode:
                    self._write_bytecode(record, record.code)
                return result
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001 - must never reach the user
                record.verdict, record.linked, record.code = "error", False, None
                record.reason = f"depyf failed: {type(exc).__name__}: {exc}"
                self.report_problem(f"while dumping {record.name} to {record.path}", exc)
                try:
                    self._write(record, source=None, opaque={}, footer=_format_exc(exc))
                except Exception:
                    pass
                return None

    def _handle(self, record):
        transformed = record.transformed
        record.source_path = self._write_original_source(record.original)
        try:
            result = _core.decompile(
                transformed, transformed.co_name, const_prefix=record.const_prefix
            )
        except _core.DecompilationError as exc:
            record.verdict = "not decompiled"
            record.reason = f"decompilation failed: {exc}"
            self._write(record, source=None, opaque={}, footer=_describe_error(exc))
            return None
        source = result.source
        record.source = source
        opaque = {
            name: transformed.co_consts[index]
            for name, index in dict(result.opaque_constants).items()
        }
        module_globals = self.globals_getter() if opaque else None
        if opaque and module_globals is None:
            record.reason = (
                "the code has constants without a literal form and the globals it runs "
                "with were not found, so they cannot be bound"
            )
        if opaque and module_globals is not None and _clashes(opaque, module_globals):
            record.reason = (
                "the names chosen for constants without a literal form are already "
                f"bound in the module: {', '.join(_clashes(opaque, module_globals))}"
            )
        try:
            code = compile_like(
                source, record.path, transformed, first_line=_HEADER_LINES + 1
            )
        except RecompileError as exc:
            record.verdict = "not recompiled"
            record.reason = f"the decompiled source cannot replace Dynamo's code: {exc}"
            self._write(record, source=source, opaque=opaque, footer="")
            return None
        verdict, detail = _core.compare(transformed, code, const_prefix=record.const_prefix)
        record.verdict, record.detail = verdict, detail
        if verdict not in LINKED_VERDICTS:
            record.reason = f"verification says {verdict}"
        elif cell_loads(transformed) != cell_loads(code):
            # A safety net beside compare: passing a closure cell's value where Dynamo
            # passes the cell breaks the program ("closure expected cell").
            record.reason = (
                f"Dynamo's code passes the cells of {cell_loads(transformed)!r}, the "
                f"recompiled file those of {cell_loads(code)!r} (values instead of cells)"
            )
        elif global_loads(code) - global_loads(transformed) - set(opaque):
            # A safety net beside compare: a global that Dynamo's code never reads is a
            # name the decompiler made up (NameError at run time, or another value).
            extra = sorted(global_loads(code) - global_loads(transformed) - set(opaque))
            record.reason = (
                f"the recompiled file reads globals that Dynamo's code does not: {extra}"
            )
        elif not record.reason:
            if opaque:
                module_globals.update(opaque)
            record.linked, record.code = True, code
        self._write(record, source=source, opaque=opaque, footer="")
        return record.code

    def _write_bytecode(self, record, recompiled):
        """``log_bytecode=True``: the original, transformed and recompiled code objects as
        ``.pyc`` files (loadable with ``marshal.loads(data[16:])``) beside the dump, and
        their disassembly as text. A code object that marshal cannot write (Dynamo puts
        arbitrary objects in ``co_consts``) gets only the text, which says so."""
        import importlib.util
        import marshal

        stem = record.path[: -len(".py")]
        for kind, code in (
            ("original", record.original),
            ("transformed", record.transformed),
            ("recompiled", recompiled),
        ):
            if code is None:
                continue
            note = ""
            try:
                data = marshal.dumps(code)
            except ValueError as exc:
                note = f"# not written as .pyc: marshal cannot write it ({exc})\n"
            else:
                path = f"{stem}.{kind}.pyc"
                with open(path, "wb") as fh:
                    fh.write(importlib.util.MAGIC_NUMBER + b"\x00" * 12 + data)
                record.bytecode_files.append(path)
            path = f"{stem}.{kind}.txt"
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(f"# {kind} bytecode of {code.co_name} ({_where(code)})\n{note}")
                fh.write(_dis(code))
            record.bytecode_files.append(path)

    def _write_original_source(self, original):
        """Write the original function's source beside the dumps (once per code object)
        and return its path, or None when it has no source (resume functions, code
        made by ``exec``): ``inspect.getsource`` reads ``co_filename`` at
        ``co_firstlineno``."""
        key = id(original)
        if key in self._source_files:
            return self._source_files[key][0]
        path = None
        if not original.co_name.startswith(RESUME_PREFIX):
            try:
                text = textwrap.dedent(inspect.getsource(original))
            except (OSError, TypeError, IndexError):
                text = None
            if text:
                base = f"__original_source_for_{_safe_name(original.co_name)}"
                path = os.path.join(self.dump_dir, base + ".py")
                taken = {p for p, _ in self._source_files.values()}
                k = 1
                while path in taken:
                    path = os.path.join(self.dump_dir, f"{base}_{k}.py")
                    k += 1
                header = (
                    f"# depyf: source of `{_qualname(original)}` as written, from "
                    f"{_where(original)}\n"
                    "# (torch.compile transformed it into the __transformed_code_*_for_"
                    f"{_safe_name(original.co_name)}.py files beside this one)\n"
                )
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(header + text)
        # Keep the code object alive so its id is not reused within the session.
        self._source_files[key] = (path, original)
        return path

    def _write(self, record, source, opaque, footer):
        original, transformed = record.original, record.transformed
        if original.co_name.startswith(RESUME_PREFIX):
            origin = (
                f"# original: resume function `{original.co_name}` that Dynamo made "
                f"(after a graph break in {_where(original)})"
            )
        else:
            origin = f"# original: `{_qualname(original)}` at {_where(original)}"
        if record.linked:
            linked = (
                "# linked: yes, Dynamo runs the code compiled from this file; breakpoints "
                "set here are hit (e.g. under depyf.debug())"
            )
        else:
            linked = (
                f"# linked: no ({_one_line(record.reason)}); Dynamo runs its own "
                "bytecode, this file is for reading only"
            )
        cid = getattr(record, "compile_id", None)
        header = [
            f"# depyf: decompiled bytecode that torch.compile (Dynamo) made for "
            f"`{transformed.co_name}` (code object {record.number} of that name, the "
            f"{record.number} in this file's name; the {_ordinal(record.index + 1)} of this session"
            + (f"; compile id [{compile_id_text(*cid[:2])}]" if cid else "") + ")",
            origin,
            "# original source: "
            + (os.path.basename(record.source_path) if record.source_path else "not available"),
            f"# verification: {record.verdict}"
            + (f" ({_one_line(record.detail)})" if record.detail else ""),
            linked,
            "# opaque constants: "
            + (
                _one_line(", ".join(f"{n} = {v!r}" for n, v in opaque.items()))
                if opaque
                else "none"
            ),
            "# (the body below is decompiled from Dynamo's bytecode; details at the end)",
            "",
        ]
        assert len(header) == _HEADER_LINES
        parts = ["\n".join(header), "\n"]
        if source is not None:
            parts.append(source if source.endswith("\n") else source + "\n")
        else:
            parts.append("# (no source: see the end of this file)\n")
        tail = []
        if record.detail:
            tail.append(_comment_block("verification detail:", record.detail))
        if record.reason:
            tail.append(_comment_block("not linked because:", record.reason))
        if footer:
            tail.append(_comment_block("error:", footer))
        if self.log_bytecode or source is None:
            tail.append(_comment_block("disassembly of Dynamo's code:", _dis(transformed)))
        if tail:
            parts.append("\n\n" + "\n\n".join(tail) + "\n")
        with open(record.path, "w", encoding="utf-8") as fh:
            fh.write("".join(parts))


def _clashes(opaque, module_globals):
    """Names of ``opaque`` already bound to another object in ``module_globals``.

    In: ``{name: value}`` and the globals dict. Out: a sorted list (empty when binding is
    safe). Names carry a per-process prefix (see :data:`_PREFIXES`), so a clash means a
    user global looks like ours; the dump is then not linked rather than renamed, because
    ``_core.compare`` recognizes the constants by ``<prefix>_<index>``.
    """
    return sorted(
        name for name, value in opaque.items()
        if name in module_globals and module_globals[name] is not value
    )


def _dis(code):
    out = io.StringIO()
    try:
        dis.dis(code, file=out)
    except Exception as exc:  # noqa: BLE001 - best effort, for reading only
        out.write(f"(disassembly failed: {exc})")
    return out.getvalue()


def _describe_error(exc):
    fields = ("code_name", "offset", "opname", "python_version")
    extra = ", ".join(f"{f}={getattr(exc, f, None)!r}" for f in fields)
    return f"{type(exc).__name__}: {exc}\n({extra})"


def _format_exc(exc):
    import traceback

    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _ordinal(n):
    """``"1st"``, ``"2nd"``, ``"3rd"``, ``"4th"``, ``"11th"``, ``"21st"`` for ``n >= 1``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
