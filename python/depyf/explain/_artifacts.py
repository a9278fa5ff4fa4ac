"""Graphs, generated code, graph breaks and recompile reasons, from torch's structured trace.

Every stage of ``torch.compile`` reports what it made through torch's structured trace
logger (the one behind ``TORCH_TRACE`` and tlparse): Dynamo's captured graph, AOTAutograd's
joint/forward/backward/inference graphs, Inductor's pre- and post-grad graphs and output
code, graph-break and recompile reasons, each record tagged with Dynamo's compile id
(frame id, frame compile id, attempt). :class:`ArtifactCollector` is a ``logging.Handler``
for that logger (attached by :mod:`depyf.explain` through ``_torch_compat``) that writes
each graph to its own file, named after the compiled function and the compile id, so the
names are the same on every run of the same program (no uuids).

Torch-free: it only reads ``record.metadata`` (a dict) and ``record.payload`` (a str), so
tests can feed it records by hand. Record names checked against torch 2.15
``torch/_dynamo/output_graph.py`` (``dynamo_output_graph``),
``torch/_functorch/_aot_autograd`` (``aot_*_graph``), ``torch/_inductor/compile_fx.py``
(artifacts ``before_pre_grad_graph``, ``after_pre_grad_graph``,
``inductor_post_grad_graph``; ``inductor_output_code``), ``torch/_dynamo/exc.py`` and
``convert_frame.py`` (artifact ``dynamo_graph_break_reason``), ``torch/_dynamo/guards.py``
(artifact ``recompile_reasons``).
"""

import dataclasses
import logging
import os
import re
import threading

# record name (or artifact name) -> file suffix, in the order the stages run
GRAPH_STAGES = {
    "dynamo_output_graph": "captured_graph",
    "before_pre_grad_graph": "inductor_pre_grad_graph",
    "after_pre_grad_graph": "inductor_after_pre_grad_graph",
    "aot_joint_graph": "aot_joint_graph",
    "aot_forward_graph": "aot_forward_graph",
    "aot_backward_graph": "aot_backward_graph",
    "aot_inference_graph": "aot_inference_graph",
    "inductor_post_grad_graph": "inductor_post_grad_graph",
    "inductor_output_code": "inductor_output_code",
}
STAGE_TITLES = {
    "captured_graph": "Dynamo's captured FX graph (what the backend receives)",
    "inductor_pre_grad_graph": "Inductor's graph before its pre-grad passes",
    "inductor_after_pre_grad_graph": "Inductor's graph after its pre-grad passes",
    "aot_joint_graph": "AOTAutograd's joint forward+backward graph",
    "aot_forward_graph": "AOTAutograd's forward graph",
    "aot_backward_graph": "AOTAutograd's backward graph",
    "aot_inference_graph": "AOTAutograd's inference graph (no gradients needed)",
    "inductor_post_grad_graph": "Inductor's graph after its post-grad passes",
    "inductor_output_code": "Inductor's output code (the kernel wrapper module it runs)",
}
_AOT_KIND = re.compile(r"#\s*AOT ID:\s*\['\d+_(\w+)'\]")
# A `class` line of a printed graph module whose name is no identifier: torch prints the
# class of AOTAutograd's graphs, made from lambdas, as `class <lambda>(torch.nn.Module):`.
_BAD_CLASS = re.compile(r"^(?P<indent>[ \t]*)class (?P<name>[^\s(:]+)(?P<rest>[(:])", re.M)


def valid_class_names(payload):
    """``(payload, renamed)``: ``payload`` with each ``class`` line whose name is no
    identifier renamed (``<lambda>`` -> ``_lambda_``), so that the dumped graph is
    valid Python that editors and linters read; ``renamed`` lists ``(old, new)``."""
    renamed = []

    def fix(m):
        name = m.group("name")
        if name.isidentifier():
            return m.group(0)
        new = re.sub(r"\W", "_", name)
        new = new if new.isidentifier() else f"_{new}"
        if (name, new) not in renamed:
            renamed.append((name, new))
        return f"{m.group('indent')}class {new}{m.group('rest')}"

    return _BAD_CLASS.sub(fix, payload), renamed


def compile_id_text(frame_id, frame_compile_id, attempt=None):
    """Dynamo's compile id as tlparse writes it: ``"0/1"`` (``"0/1_2"`` with an attempt)."""
    text = f"{frame_id}/{frame_compile_id}"
    return f"{text}_{attempt}" if attempt else text


def safe_name(name):
    """``name`` reduced to characters that are safe in a file name."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name) or "code"


@dataclasses.dataclass
class CompileInfo:
    """What the structured trace said about one Dynamo compile (one compile id)."""

    frame_id: int
    frame_compile_id: int
    function: str = None  # the compiled function's co_name
    graph_files: dict = dataclasses.field(default_factory=dict)  # suffix -> path
    graph_breaks: list = dataclasses.field(default_factory=list)
    recompile_reasons: list = dataclasses.field(default_factory=list)
    guards_text: str = ""
    failure: str = None
    _pending_post_grad: list = dataclasses.field(default_factory=list)

    @property
    def key(self):
        return (self.frame_id, self.frame_compile_id)

    @property
    def id_text(self):
        return compile_id_text(self.frame_id, self.frame_compile_id)

    @property
    def stem(self):
        """The stable file-name stem of this compile's graphs:
        ``__compiled_fn_<frame id>_<frame compile id>_for_<function>``."""
        return (
            f"__compiled_fn_{self.frame_id}_{self.frame_compile_id}_for_"
            f"{safe_name(self.function or 'unknown')}"
        )


class ArtifactCollector(logging.Handler):
    """A handler for torch's structured trace logger that writes one file per graph.

    In (constructor): ``dump_dir``, an existing directory. Out: files
    ``<stem>.<suffix>.py`` (see :attr:`CompileInfo.stem` and :data:`GRAPH_STAGES`), and
    :attr:`compiles`, a dict ``(frame_id, frame_compile_id) -> CompileInfo`` in compile
    order. Emitting never raises (a failure is counted in :attr:`errors` and reported by
    the session): logging must not disturb the compile.
    """

    def __init__(self, dump_dir):
        super().__init__(level=logging.DEBUG)
        self.dump_dir = dump_dir
        self.compiles = {}
        self.errors = []
        self._names = {}  # function name -> stem already taken, for unknown functions
        self._lock_ = threading.RLock()

    def info(self, frame_id, frame_compile_id):
        key = (frame_id, frame_compile_id)
        if key not in self.compiles:
            self.compiles[key] = CompileInfo(frame_id, frame_compile_id)
        return self.compiles[key]

    def emit(self, record):
        try:
            metadata = getattr(record, "metadata", None)
            if not isinstance(metadata, dict):
                return
            self.handle_trace(metadata, getattr(record, "payload", None))
        except Exception as exc:  # noqa: BLE001 - never disturb the compile
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def handle_trace(self, metadata, payload):
        """Process one structured-trace record (``metadata`` dict, ``payload`` str)."""
        if "frame_id" not in metadata or "frame_compile_id" not in metadata:
            return
        if metadata.get("compiled_autograd_id") is not None:
            return  # compiled autograd graphs are not Dynamo frames
        with self._lock_:
            info = self.info(metadata["frame_id"], metadata["frame_compile_id"])
            if "dynamo_start" in metadata:
                stack = (metadata["dynamo_start"] or {}).get("stack") or []
                if stack and info.function is None:
                    info.function = stack[-1].get("name")
                return
            if "compilation_metrics" in metadata:
                metrics = metadata["compilation_metrics"] or {}
                info.function = info.function or metrics.get("co_name")
                if metrics.get("fail_reason"):
                    info.failure = str(metrics["fail_reason"])
                return
            if "dynamo_cpp_guards_str" in metadata:
                info.guards_text = payload or ""
                return
            name = None
            if "artifact" in metadata:
                artifact = (metadata["artifact"] or {}).get("name")
                if artifact == "dynamo_graph_break_reason":
                    # Dynamo's own traceback after the reason is noise for users.
                    payload = (payload or "").split("\nTraceback (most recent call last)")[0]
                    payload = payload.rstrip()
                    # `traceback.format_exc()` with no exception being handled, which
                    # Dynamo appends to some reasons.
                    payload = payload.removesuffix("\nNoneType: None").rstrip()
                    if payload and payload not in info.graph_breaks:
                        info.graph_breaks.append(payload)
                    return
                if artifact == "recompile_reasons":
                    info.recompile_reasons.extend(_reasons(payload))
                    return
                if artifact in GRAPH_STAGES:
                    name = artifact
            else:
                name = next((k for k in GRAPH_STAGES if k in metadata), None)
            if name is None or payload is None:
                return
            suffix = GRAPH_STAGES[name]
            if name == "inductor_post_grad_graph":
                # named after the output code that follows it (forward/backward/inference)
                info._pending_post_grad.append(payload)
                return
            if name == "inductor_output_code":
                match = _AOT_KIND.search(payload[:400])
                kind = match.group(1) if match else None
                for pending in info._pending_post_grad:
                    self._write(info, "inductor_post_grad_graph", pending, kind)
                info._pending_post_grad.clear()
                self._write(info, suffix, payload, kind)
                return
            self._write(info, suffix, payload, None)

    def flush_pending(self):
        """Write post-grad graphs that no output code followed (at the session's end)."""
        with self._lock_:
            for info in self.compiles.values():
                for pending in info._pending_post_grad:
                    self._write(info, "inductor_post_grad_graph", pending, None)
                info._pending_post_grad.clear()

    def _write(self, info, suffix, payload, kind):
        title = STAGE_TITLES.get(suffix, suffix)
        full = f"{suffix}_{kind}" if kind else suffix
        key = full
        k = 1
        while key in info.graph_files:
            key = f"{full}_{k}"
            k += 1
        path = os.path.join(self.dump_dir, f"{info.stem}.{key}.py")
        payload, renamed = valid_class_names(payload)
        header = (
            f"# depyf: {title}\n"
            f"# compiled function: {info.function or 'unknown'}, compile id "
            f"[{info.id_text}] (tlparse notation: frame id / frame compile id)\n"
            + (f"# part: {kind}\n" if kind else "")
            + "".join(f"# torch printed the class `{old}`; written as `{new}` to be valid Python\n" for old, new in renamed)
            + "\n"
        )
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(header + payload.rstrip("\n") + "\n")
        info.graph_files[key] = path


def _reasons(payload):
    """Recompile reasons from the ``recompile_reasons`` artifact: a string, or a JSON-ish
    list that ``trace_structured`` printed one item per line."""
    if not payload:
        return []
    text = payload.strip()
    if text.startswith("["):
        import json

        try:
            items = json.loads(text)
            return [str(item) for item in items]
        except ValueError:
            pass
    return [text]
