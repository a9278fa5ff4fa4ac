"""``TorchCompileWrapperWithCustomDispatcher``: the original depyf's helper (used by vLLM)
for calling the code that ``torch.compile`` made for a ``forward`` directly, without
Dynamo's guard checks.

Imports torch. The signature and attributes are the original's: a subclass implements
``forward`` and decides in ``__call__`` which compiled code to run.
"""

import contextlib
import types
from abc import abstractmethod

import torch

from depyf.explain import _torch_compat as compat


class TorchCompileWrapperWithCustomDispatcher:
    """Wrap ``compiled_callable`` (usually ``torch.compile(self.forward)``) and collect the
    code objects Dynamo makes for ``forward``.

    In (constructor): ``compiled_callable``; ``use_custom_dispatcher`` (stored for
    subclasses, as in the original). Attributes: ``compiled_callable``,
    ``original_code_object`` (``type(self).forward.__code__``), ``compiled_codes`` (the
    transformed code objects of this instance's ``forward``, oldest first),
    ``use_custom_dispatcher``. ``with self.dispatch_to_code(i): self.forward(...)``
    runs ``compiled_codes[i]`` directly: Dynamo keeps the original's arguments, cell and
    free variables, so the code can stand in for ``forward.__code__``.
    """

    def __init__(self, compiled_callable, use_custom_dispatcher=True):
        self.compiled_callable = compiled_callable
        self.original_code_object = self.__class__.forward.__code__
        self.compiled_codes = []
        self._hook_handle = compat.register_bytecode_hook(self.bytecode_hook)
        self.use_custom_dispatcher = use_custom_dispatcher

    def __call__(self, *args, **kwargs):
        """The dispatch logic; by default just calls ``compiled_callable``."""
        return self.compiled_callable(*args, **kwargs)

    @abstractmethod
    def forward(self, *args, **kwargs):
        ...

    def bytecode_hook(self, old_code: types.CodeType, new_code: types.CodeType):
        """Dynamo's bytecode hook: keep ``new_code`` when it was made for this instance's
        ``forward`` (the frame's ``self`` is this object). Returns None (Dynamo keeps its
        code)."""
        if old_code is not self.original_code_object:
            return None
        frame_locals = compat.compiling_frame_locals()
        if frame_locals is not None and frame_locals.get("self", self) is not self:
            return None
        self.compiled_codes.append(new_code)
        return None

    @contextlib.contextmanager
    def dispatch_to_code(self, index: int):
        """Run ``compiled_codes[index]`` as ``forward`` inside the block."""
        self.__class__.forward.__code__ = self.compiled_codes[index]
        try:
            yield
        finally:
            self.__class__.forward.__code__ = self.original_code_object


__all__ = ["TorchCompileWrapperWithCustomDispatcher"]
