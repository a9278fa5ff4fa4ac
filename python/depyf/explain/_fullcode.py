"""``full_code_for_<fn>.py`` and the dump's index: everything Dynamo made for a function.

For each function that Dynamo compiled, one file that reads like the program Dynamo
actually runs: the original source; then, per cache entry, the guards as a Python
function (parts that are not Python kept as comments), the compiled graph functions the
entry calls (their captured graphs) and the transformed code; the resume functions made
at graph breaks, each with its own entries; and a dispatcher that tries the guards in
Dynamo's order. Graph-break and recompile reasons are written as comments where they
happened. The file is valid Python (checked with ``compile``; a section that is not is
kept as comments) but is meant for reading: the code that runs is in the linked
``__transformed_code_*`` files.

Torch-free: cache entries come in as :class:`Entry` values built by
:mod:`depyf.explain._torch_compat`.
"""

import dataclasses
import io
import json
import os
import re
import textwrap
import tokenize

from depyf.explain._artifacts import compile_id_text, safe_name

RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<parent>.+)_at_(?P<line>\d+)$")


@dataclasses.dataclass
class Entry:
    """One cache entry of Dynamo for an original code object (newest first in Dynamo)."""

    code: object  # the code object the entry runs
    guard_parts: list  # verbose guard strings, in tree order
    compile_id: tuple = None  # (frame_id, frame_compile_id) when known


def split_guard(part):
    """Split a verbose guard part into ``(expression, comment)``.

    In: a string like ``"L['n'] == 1   # if n > 2:  # file.py:12 in f"``. Out: the
    expression and the trailing comment (without ``#``), or ``(None, part)`` when the
    expression is not valid Python (e.g. ``___check_global_state() against {...}``).
    """
    text = part.strip()
    expr, comment = text, ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                expr = text[: tok.start[1]].rstrip()
                comment = text[tok.start[1] + 1:].strip()
                break
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None, text
    try:
        compile(expr, "<guard>", "eval")
    except (SyntaxError, ValueError):
        return None, text
    return expr, comment


def guard_function(name, parts):
    """Source of ``def <name>(L, G, **___kwargs_ignored)`` that ANDs the guard parts.

    ``L`` holds the frame's locals and ``G`` its globals, as in Dynamo's guard
    expressions; names such as ``check_tensor`` or ``___check_obj_id`` are Dynamo's
    helpers (the guard tree's ``closure_vars``), so the function documents the guards
    rather than being meant to run."""
    lines = [f"def {name}(L, G, **___kwargs_ignored):", "    __guard_hit = True"]
    for part in parts:
        expr, comment = split_guard(part)
        if expr is None:
            flat = " ".join(str(part).split())
            # Long ones (a global-state dump) are cut, visibly.
            flat = flat if len(flat) <= 400 else f"{flat[:400]} ... (cut: {len(flat)} characters in all)"
            lines.append(f"    # (not Python) {flat}")
            continue
        if "\n" in expr:
            expr = " ".join(expr.split())
        tail = f"  # {comment}" if comment else ""
        lines.append(f"    __guard_hit = __guard_hit and ({expr}){tail}")
    lines.append("    return __guard_hit")
    return "\n".join(lines) + "\n"


def _comment(text, prefix="# "):
    return "\n".join((prefix + line).rstrip() for line in str(text).splitlines()) + "\n"


def _valid(source):
    try:
        compile(source, "<full_code>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


def _section(source):
    """``source`` if it compiles, else the same text as comments (never an invalid file)."""
    return source if _valid(source) else _comment(source)


def _rename_def(source, old, new):
    """Rename the first top-level ``def old(`` of ``source`` to ``new``."""
    return re.sub(rf"^def {re.escape(old)}\(", f"def {new}(", source, count=1, flags=re.M)


def _graph_section(fn_name, info):
    """The compiled graph function ``fn_name`` as its captured graph's code."""
    files = info.graph_files if info is not None else {}
    listing = "".join(
        f"#   {os.path.basename(path)}\n" for key, path in sorted(files.items())
    ) or "#   (none was reported for this compile)\n"
    out = [
        f"# compiled graph function `{fn_name}` (compile id [{info.id_text}]), its graphs:\n"
        if info is not None else f"# compiled graph function `{fn_name}`, its graphs:\n",
        listing,
    ]
    captured = files.get("captured_graph")
    if captured and os.path.isfile(captured):
        with open(captured, encoding="utf-8") as fh:
            text = fh.read()
        body = "".join(line for line in text.splitlines(True) if not line.startswith("# "))
        body = body.strip("\n") + "\n"
        body = re.sub(r"^class \w+\(", f"class {safe_name(fn_name)}_graph(", body, count=1,
                      flags=re.M)
        out.append(_section(body))
    return "".join(out)


def _compiled_fn_names(code):
    return [n for n in getattr(code, "co_names", ()) if n.startswith("__compiled_fn")]


class FullCodeWriter:
    """Writes ``full_code_for_<fn>.py`` files and ``index.md``/``index.json``.

    In (constructor): the :class:`~depyf.explain._dump.DumpSession`, the
    :class:`~depyf.explain._artifacts.ArtifactCollector` (or None) and
    ``entries_of(code) -> list[Entry]``. :meth:`write` returns the paths written."""

    def __init__(self, session, collector, entries_of):
        self.session = session
        self.collector = collector
        self.entries_of = entries_of
        self.full_code_files = {}  # original co_name -> path

    def _record_for(self, code):
        for record in self.session.records:
            if code is record.code or code is record.transformed:
                return record
        return None

    def _info(self, compile_id):
        if self.collector is None or compile_id is None:
            return None
        return self.collector.compiles.get(tuple(compile_id[:2]))

    def _originals(self):
        seen, out = set(), []
        for record in self.session.records:
            if id(record.original) not in seen:
                seen.add(id(record.original))
                out.append(record.original)
        return out

    def _function_block(self, original, label):
        """Source for one original code object: guards, graphs, transformed code per
        cache entry, then a dispatcher ``<label>_dispatch``."""
        out = []
        try:
            entries = self.entries_of(original)
        except Exception as exc:  # noqa: BLE001
            self.session.report_problem(f"reading the cache entries of {original.co_name}", exc)
            entries = []
        if not entries:
            # No cache entry left (reset, or evicted): show what the hook saw.
            entries = [
                Entry(r.code or r.transformed, [], r.compile_id)
                for r in self.session.records if r.original is original
            ]
        args = original.co_varnames[: original.co_argcount + original.co_kwonlyargcount]
        dispatch = []
        for number, entry in enumerate(entries):
            record = self._record_for(entry.code)
            compile_id = entry.compile_id or (record.compile_id if record else None)
            info = self._info(compile_id)
            cid = f" (compile id [{compile_id_text(*compile_id[:2])}])" if compile_id else ""
            out.append(f"\n# ---- cache entry {number} of `{label}`{cid} ----\n")
            if info is not None and info.recompile_reasons:
                out.append("# compiled again because these guards of earlier entries failed:\n")
                out.append(_comment("\n".join(info.recompile_reasons), "#   "))
            if info is not None and info.graph_breaks:
                out.append("# graph breaks in this compile:\n")
                out.append(_comment("\n\n".join(info.graph_breaks), "#   "))
            # Named like the dump file of the entry's code, so the two are easy to pair.
            stem = (
                os.path.basename(record.path)[: -len(".py")] if record is not None
                else f"__transformed_code_entry_{number}_for_{safe_name(label)}"
            )
            code_name = stem
            guard_name = stem.replace("__transformed_code_", "__guard_", 1)
            out.append(_section(guard_function(guard_name, entry.guard_parts)))
            for fn_name in _compiled_fn_names(entry.code):
                out.append("\n" + _graph_section(fn_name, info))
            if record is not None:
                out.append(
                    f"\n# transformed code, dumped as {os.path.basename(record.path)} "
                    f"(verification: {record.verdict}; "
                    f"{'linked' if record.linked else 'not linked'})\n"
                )
                if record.source:
                    # A `from __future__` import may only start a file; this one is
                    # for reading, where the annotations it guards read the same.
                    src = record.source.removeprefix("from __future__ import annotations\n")
                    src = _rename_def(src, record.transformed.co_name, code_name)
                    out.append(_section(src))
                else:
                    out.append(f"# (not decompiled: {record.reason})\n")
            else:
                out.append("# transformed code: not seen by this session\n")
            call = ", ".join(args)
            dispatch.append(
                f"    if {guard_name}(__local_dict, __global_dict):\n"
                f"        return {code_name}({call})\n"
            )
        head = f"def {safe_name(label)}_dispatch({', '.join(args)}):\n"
        local_dict = ", ".join(f"{a!r}: {a}" for a in args)
        dispatch_src = (
            f"\n# How Dynamo picks the code to run for `{original.co_name}`: the first entry "
            "whose guards pass; if none does, it compiles again (or runs the original).\n"
            + head
            + f"    __local_dict = {{{local_dict}}}\n    __global_dict = globals()\n"
            + "".join(dispatch)
            + f"    return {safe_name(original.co_name)}({', '.join(args)})  # recompile / fall back\n"
        )
        out.append(_section(dispatch_src))
        return "".join(out)

    def write(self):
        originals = self._originals()
        parents, resumes = [], {}
        names = {o.co_name for o in originals}
        for original in originals:
            match = RESUME_RE.match(original.co_name)
            parent = match.group("parent") if match else None
            while parent and parent not in names and RESUME_RE.match(parent):
                parent = RESUME_RE.match(parent).group("parent")
            if match and parent in names:
                resumes.setdefault(parent, []).append(original)
            else:
                parents.append(original)
        paths, taken = [], set()
        for original in parents:
            base = f"full_code_for_{safe_name(original.co_name)}"
            path = os.path.join(self.session.dump_dir, base + ".py")
            k = 1
            while path in taken:
                path = os.path.join(self.session.dump_dir, f"{base}_{k}.py")
                k += 1
            taken.add(path)
            text = self._file_text(original, resumes)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            self.full_code_files[id(original)] = path
            paths.append(path)
        return paths

    def _file_text(self, original, resumes):
        where = f"{original.co_filename}:{original.co_firstlineno}"
        out = [
            f"# depyf: everything torch.compile made for `{original.co_name}` ({where})\n"
            "# The original source, then per cache entry: the guards, the compiled graph\n"
            "# functions called and the transformed code; then the resume functions made at\n"
            "# graph breaks. For reading: the code that runs is in the __transformed_code_*\n"
            "# files (linked ones stop debuggers), the graphs in the __compiled_fn_* files.\n\n"
        ]
        record = next((r for r in self.session.records if r.original is original), None)
        src_path = record.source_path if record else None
        out.append("# ==== original source ====\n")
        if src_path and os.path.isfile(src_path):
            with open(src_path, encoding="utf-8") as fh:
                text = "".join(l for l in fh.readlines() if not l.startswith("# "))
            out.append(_section(textwrap.dedent(text)))
        else:
            out.append("# (no source available)\n")
        out.append(self._function_block(original, original.co_name))
        stack = list(resumes.get(original.co_name, []))
        done, labels = set(), {original.co_name}
        while stack:
            resume = stack.pop(0)
            if id(resume) in done:
                continue
            done.add(id(resume))
            # Several resume functions can share a name (one per graph break at the
            # same line, e.g. each arm of a data-dependent branch, or made anew by a
            # later compile); each gets its own label, so the file's headings and
            # `<label>_dispatch` functions stay apart.
            label, k = resume.co_name, 2
            while label in labels:
                label, k = f"{resume.co_name}_{k}", k + 1
            labels.add(label)
            again = "" if label == resume.co_name else f" (code object {k - 1} of that name)"
            out.append(
                f"\n\n# ==== resume function `{resume.co_name}`{again}: runs the rest of "
                f"`{original.co_name}` after a graph break ====\n"
            )
            out.append(self._function_block(resume, label))
            stack.extend(resumes.get(resume.co_name, []))
        text = "".join(out)
        if not _valid(text):  # belt and braces: sections are checked one by one
            text = _comment(text)
        return text

    def write_index(self, full_code_paths):
        """``index.md`` (for people) and ``index.json`` (for tools) of the whole dump."""
        session, collector = self.session, self.collector
        compiles = list(collector.compiles.values()) if collector else []
        data = {"dump_dir": session.dump_dir, "functions": [], "compiles": [],
                "problems": list(session.problems) + list(collector.errors if collector else [])}
        for record in session.records:
            data["functions"].append({
                "name": record.name,
                "original": f"{record.original.co_filename}:{record.original.co_firstlineno}",
                "compile_id": compile_id_text(*record.compile_id[:2]) if record.compile_id else None,
                "file": os.path.basename(record.path),
                "verdict": record.verdict,
                "linked": record.linked,
                "reason": record.reason,
                "compiled_fns": _compiled_fn_names(record.transformed),
            })
        for info in compiles:
            data["compiles"].append({
                "compile_id": info.id_text,
                "function": info.function,
                "graphs": {k: os.path.basename(v) for k, v in info.graph_files.items()},
                "graph_breaks": info.graph_breaks,
                "recompile_reasons": info.recompile_reasons,
                "failure": info.failure,
            })
        data["full_code"] = [os.path.basename(p) for p in full_code_paths]
        with open(os.path.join(session.dump_dir, "index.json"), "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        md = [f"# depyf dump: {session.dump_dir}\n\n"]
        linked = sum(r.linked for r in session.records)
        md.append(
            f"{_count(len(session.records), 'transformed code object')} dumped, {linked} linked; "
            f"{_count(len(compiles), 'compile')}; full code: "
            + ", ".join(f"`{os.path.basename(p)}`" for p in full_code_paths) + "\n\n"
        )
        md.append("## Transformed code\n\n| file | compile id | verification | linked |\n"
                  "| --- | --- | --- | --- |\n")
        for f in data["functions"]:
            why = "" if f["linked"] else f" ({f['reason']})"
            md.append(f"| `{f['file']}` | {f['compile_id'] or '?'} | {f['verdict']} | "
                      f"{'yes' if f['linked'] else 'no' + why.replace('|', '/')} |\n")
        md.append("\n## Compiles\n")
        for c in data["compiles"]:
            md.append(f"\n### [{c['compile_id']}] {c['function']}\n\n")
            if c["failure"]:
                md.append(f"- compile failed: {c['failure']}\n")
            for key, name in c["graphs"].items():
                md.append(f"- {key}: `{name}`\n")
            for reason in c["recompile_reasons"]:
                md.append(f"- recompiled because: `{' '.join(reason.split())}`\n")
            for gb in c["graph_breaks"]:
                md.append("- graph break:\n\n```\n" + gb.strip() + "\n```\n")
        if data["problems"]:
            md.append("\n## Problems of depyf (the program was not affected)\n\n")
            md.extend(f"- {p}\n" for p in data["problems"])
        with open(os.path.join(session.dump_dir, "index.md"), "w", encoding="utf-8") as fh:
            fh.write("".join(md))


def _count(n, noun):
    """``"1 compile"``, ``"2 compiles"``: ``n`` and ``noun``, plural unless ``n`` is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
