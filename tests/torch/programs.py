"""The end-to-end programs: small ``torch.compile`` workloads covering what Dynamo does.

Each :class:`Program` has ``build()`` returning ``(fn, make_calls)``: ``fn`` is the
callable to compile (a function or an ``nn.Module``), ``make_calls()`` returns fresh
``[(args, kwargs), ...]`` (seeded, so eager and compiled runs see equal inputs and
programs that mutate globals start from the same state). ``run(target)`` calls ``target``
on each call and, for ``backward=True``, backpropagates the sum of the tensor outputs and
appends the gradients of the inputs and parameters. ``subset=True`` programs form the
representative subset run on every Python version (marker ``torch_subset``).
"""

import dataclasses
import math

import torch
import torch.nn.functional as F
from torch import nn

PROGRAMS = {}


@dataclasses.dataclass
class Program:
    name: str
    build: object
    backend: str = "eager"
    compile_kwargs: dict = dataclasses.field(default_factory=dict)
    backward: bool = False
    subset: bool = False


def program(name=None, backend="eager", backward=False, subset=False, **compile_kwargs):
    def register(build):
        key = name or build.__name__
        assert key not in PROGRAMS, key
        PROGRAMS[key] = Program(key, build, backend, compile_kwargs, backward, subset)
        return build

    return register


def _x(*shape, requires_grad=False):
    return torch.randn(*shape, requires_grad=requires_grad)


def calls_of(*arg_tuples):
    """``make_calls`` for positional-only calls: a list of callables giving args tuples."""
    def make():
        torch.manual_seed(1)
        return [(f(), {}) for f in arg_tuples]

    return make


# ---------------------------------------------------------------- graph breaks
def _gb_print(x):
    y = x.sin()
    print("depyf-suite: graph break by print", y.shape)
    return y.cos()


@program(subset=True)
def gb_print():
    return _gb_print, calls_of(lambda: (_x(4),))


def _gb_branch(x):
    y = x * 2
    if y.sum() > 0:
        return y + 1
    return y - 1


@program(subset=True)
def gb_data_dependent_branch():
    return _gb_branch, calls_of(lambda: (_x(5).abs(),), lambda: (-_x(5).abs(),))


def _gb_item(x):
    s = x.sum().item()
    return x * s, s


@program()
def gb_item():
    return _gb_item, calls_of(lambda: (_x(3),))


def _gb_tolist(x):
    values = x.tolist()
    total = 0.0
    for v in values:
        total += v
    return x + total


@program()
def gb_tolist():
    return _gb_tolist, calls_of(lambda: (_x(3),))


@torch._dynamo.disable
def _unsupported(t):
    return t.numpy().copy()


def _gb_unsupported_call(x):
    y = torch.relu(x)
    arr = _unsupported(y)
    return y + torch.from_numpy(arr)


@program()
def gb_unsupported_call():
    return _gb_unsupported_call, calls_of(lambda: (_x(4),))


def _loop_step(x, i):
    x = x * 1.5
    if i == 1:
        torch._dynamo.graph_break()
    return x + i


def _gb_in_loop(x):
    # A graph break directly in a loop body makes Dynamo run the whole frame eagerly;
    # the steps called from the loop are compiled, each with its own resume function.
    for i in range(3):
        x = _loop_step(x, i)
    return x


@program(subset=True)
def gb_inside_loop():
    return _gb_in_loop, calls_of(lambda: (_x(4),))


def _gb_in_with(x):
    with torch.no_grad():
        y = x * 3
        torch._dynamo.graph_break()
        y = y + 1
    return y, x.sum()


@program()
def gb_inside_with():
    return _gb_in_with, calls_of(lambda: (_x(4),))


def _try_step(y):
    y = y + 1
    torch._dynamo.graph_break()
    return y / 2


def _gb_in_try(x):
    # Dynamo cannot resume inside a try block: the frame with the try runs eagerly
    # and the function called in it is compiled (with its own graph break).
    try:
        y = _try_step(x)
    except ZeroDivisionError:
        y = x
    finally:
        x = x * 0
    return y


@program()
def gb_inside_try():
    return _gb_in_try, calls_of(lambda: (_x(4),))


def _gb_nested_call_inner(x):
    torch._dynamo.graph_break()
    return x * 2


def _gb_nested_call(x):
    return _gb_nested_call_inner(x + 1) - 1


@program()
def gb_in_called_function():
    return _gb_nested_call, calls_of(lambda: (_x(4),))


def _gb_twice(x):
    x = x + 1
    torch._dynamo.graph_break()
    x = x * 2
    torch._dynamo.graph_break()
    return x - 3


@program()
def gb_twice():
    return _gb_twice, calls_of(lambda: (_x(4),))


# ---------------------------------------------------------------- control flow
def _loop_break_continue(x, n):
    acc = torch.zeros_like(x)
    for i in range(n):
        if i % 2 == 0:
            continue
        if i > 5:
            break
        acc = acc + x * i
    k = 0
    while k < 3:
        acc = acc - 0.5
        k += 1
    return acc


@program(subset=True)
def loops_break_continue():
    return _loop_break_continue, calls_of(lambda: (_x(3), 10))


def _comprehension(xs):
    ys = [x * i for i, x in enumerate(xs)]
    d = {f"k{i}": y.sum() for i, y in enumerate(ys)}
    return sum(ys), d


@program()
def comprehensions():
    return _comprehension, calls_of(lambda: ([_x(2) for _ in range(3)],))


# ---------------------------------------------------------------- closures, nesting
def _make_closure(scale):
    def scaled(x):
        y = x * scale
        if y.sum() > 0:
            y = y + 1
        return y * scale

    return scaled


@program(subset=True)
def closure_with_graph_break():
    return _make_closure(3.0), calls_of(lambda: (_x(4).abs(),), lambda: (-_x(4).abs(),))


def _nested_functions(x):
    def inner(a):
        return a.sin() * 2

    def outer(a):
        return inner(a) + inner(a + 1)

    return outer(x)


@program()
def nested_functions():
    return _nested_functions, calls_of(lambda: (_x(4),))


def _makes_function(x):
    offset = x.sum()

    def add(t):
        return t + offset

    torch._dynamo.graph_break()
    return add(x), add


def _makes_function_calls():
    torch.manual_seed(1)
    return [((_x(3),), {})]


@program()
def function_created_in_transformed_code():
    def fn(x):
        out, add = _makes_function(x)
        return out, add(torch.ones(3))

    return fn, _makes_function_calls


def _cell_mutation(x):
    count = 0

    def bump(t):
        nonlocal count
        count += 1
        return t * count

    y = bump(x)
    y = bump(y)
    return y, count


@program()
def cell_variables():
    return _cell_mutation, calls_of(lambda: (_x(3),))


# ---------------------------------------------------------------- globals, constants
COUNTER = {"calls": 0}
SCALE = 2.0


def _global_mutation(x):
    global SCALE
    COUNTER["calls"] += 1
    SCALE = SCALE + 1.0
    return x * SCALE


def _global_calls():
    global SCALE
    SCALE = 2.0
    COUNTER["calls"] = 0
    torch.manual_seed(1)
    return [((_x(3),), {}), ((_x(3),), {})]


@program(subset=True)
def global_mutation():
    def fn(x):
        return _global_mutation(x), COUNTER["calls"]

    return fn, _global_calls


class _Opaque:
    """An object marshal cannot write, used as a constant by Dynamo's code."""

    def __init__(self, v):
        self.v = v


_OPAQUE = _Opaque(4.0)


def _unmarshalable(x):
    y = x * _OPAQUE.v
    print("depyf-suite: constant", type(_OPAQUE).__name__)
    return y + _OPAQUE.v, torch.float32, slice(1, 2)


@program()
def unmarshalable_constants():
    return _unmarshalable, calls_of(lambda: (_x(3),))


# ---------------------------------------------------------------- modules
class _Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(F.gelu(self.lin(x)) + x)


class _Base(nn.Module):
    def forward(self, x):
        return x * 2


class _Derived(_Base):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([_Block(8) for _ in range(2)])

    def forward(self, x):
        x = super().forward(x)
        for block in self.blocks:
            x = block(x)
        return x


def _module_calls(shape=(2, 8), n=1, grad=False):
    def make():
        torch.manual_seed(1)
        return [((_x(*shape, requires_grad=grad),), {}) for _ in range(n)]

    return make


def _seeded(factory):
    torch.manual_seed(0)
    return factory()


@program(subset=True)
def module_submodules_super():
    return _seeded(_Derived), _module_calls()


@program(backward=True)
def module_backward():
    return _seeded(_Derived), _module_calls(grad=True)


class _GBModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        x = self.a(x)
        if x.mean() > 0:
            x = x.relu()
        return self.b(x)


@program(backward=True)
def module_graph_break_backward():
    return _seeded(_GBModule), _module_calls((3, 4), n=2, grad=True)


class _Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(4))

    def forward(self, x):
        self.running.add_(x.mean(0))
        return x - self.running


@program()
def module_buffer_inplace():
    module = _seeded(_Buffers)
    calls = _module_calls((3, 4), n=2)

    def make():
        module.running.zero_()  # every run starts from the same state
        return calls()

    return module, make


@program()
def conv_batchnorm_eval():
    def build():
        m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        return m.eval()

    return _seeded(build), _module_calls((2, 3, 8, 8))


@program(backward=True)
def rnn_lstm():
    return _seeded(lambda: nn.LSTM(4, 6, batch_first=True)), _module_calls((2, 5, 4), grad=True)


# ---------------------------------------------------------------- signatures, data
def _star_args(x, *args, scale=1.0, **kwargs):
    out = x * scale
    for a in args:
        out = out + a
    for k in sorted(kwargs):
        out = out * kwargs[k]
    return out


@program(subset=True)
def star_args_kwargs():
    def make():
        torch.manual_seed(1)
        return [((_x(3), _x(3), _x(3)), {"scale": 2.0, "b": _x(3), "a": _x(3)})]

    return _star_args, make


def _dict_io(batch):
    out = {"sum": batch["a"] + batch["b"], "items": [batch["a"] * i for i in range(2)]}
    out["nested"] = {"t": (batch["b"].sum(), batch["a"].max())}
    return out


@program()
def dict_list_inputs_outputs():
    return _dict_io, calls_of(lambda: ({"a": _x(3), "b": _x(3)},))


@dataclasses.dataclass
class Pair:
    left: torch.Tensor
    right: torch.Tensor


def _dataclass_io(p):
    return Pair(p.left + p.right, p.left * p.right)


@program()
def dataclass_inputs_outputs():
    return _dataclass_io, calls_of(lambda: (Pair(_x(3), _x(3)),))


def _list_mutation(xs):
    xs.append(xs[0] * 2)
    xs[1] = xs[1] + 1
    return len(xs), xs[-1]


@program()
def list_argument_mutation():
    return _list_mutation, calls_of(lambda: ([_x(2), _x(2)],))


def _inplace(x, y):
    x.add_(1)
    y.mul_(2).clamp_(min=-1)
    z = x.clone()
    z[0] = 5
    return z


@program()
def inplace_ops():
    return _inplace, calls_of(lambda: (_x(3), _x(3)))


# ---------------------------------------------------------------- modes
def _no_grad(x, w):
    with torch.no_grad():
        y = x @ w
    return y.requires_grad, y + 1


@program()
def no_grad_block():
    return _no_grad, calls_of(lambda: (_x(2, 3), _x(3, 2, requires_grad=True)))


def _autocast(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
    return y.float()


@program()
def autocast_block():
    return _autocast, calls_of(lambda: (_x(4, 4), _x(4, 4)))


def _enable_grad(x):
    with torch.enable_grad():
        y = x * 2
    return y.sum()


@program()
def grad_mode_switch():
    def fn(x):
        with torch.no_grad():
            return _enable_grad(x)

    return fn, calls_of(lambda: (_x(3, requires_grad=True),))


# ---------------------------------------------------------------- shapes, recompiles
def _shapes(x):
    return x.reshape(-1, 2).sum(0) * x.shape[0]


@program(subset=True, dynamic=True)
def dynamic_shapes():
    return _shapes, calls_of(lambda: (_x(4, 2),), lambda: (_x(6, 2),), lambda: (_x(8, 2),))


@program()
def automatic_dynamic_recompile():
    return _shapes, calls_of(lambda: (_x(2, 2),), lambda: (_x(4, 2),), lambda: (_x(6, 2),))


def _guard_recompile(x, mode):
    if mode == "double":
        return x * 2
    if mode == "square":
        return x * x
    return x - 1  # a graph here too: a frame without one makes Dynamo skip the code


@program(subset=True)
def guard_driven_recompiles():
    return _guard_recompile, calls_of(
        lambda: (_x(3), "double"), lambda: (_x(3), "square"), lambda: (_x(3), "none"),
        lambda: (_x(3).double(), "double"),
    )


def _python_scalars(x, n, flag):
    y = x
    for _ in range(n):
        y = y + (1 if flag else -1)
    return y, n * 2


@program()
def python_scalar_arguments():
    return _python_scalars, calls_of(lambda: (_x(2), 2, True), lambda: (_x(2), 3, False))


# ---------------------------------------------------------------- fullgraph, backends
def _fullgraph(x, y):
    return torch.where(x > y, x - y, y - x).pow(2).mean()


@program(subset=True, fullgraph=True)
def fullgraph_eager():
    return _fullgraph, calls_of(lambda: (_x(5), _x(5)))


@program(backend="aot_eager", fullgraph=True, backward=True)
def fullgraph_aot_eager_backward():
    return _fullgraph, calls_of(lambda: (_x(5, requires_grad=True), _x(5)))


@program(backend="aot_eager", backward=True, subset=True)
def aot_eager_graph_break_backward():
    return _seeded(_GBModule), _module_calls((3, 4), n=2, grad=True)


@program(backend="inductor", subset=True)
def inductor_graph_break():
    return _gb_print, calls_of(lambda: (_x(4),))


@program(backend="inductor", backward=True)
def inductor_backward():
    return _seeded(lambda: _Block(8)), _module_calls(grad=True)


@program(backend="inductor", dynamic=True)
def inductor_dynamic():
    return _shapes, calls_of(lambda: (_x(4, 2),), lambda: (_x(6, 2),))


def _custom_backend(gm, example_inputs):
    return gm.forward


@program(backend=_custom_backend)
def custom_backend():
    return _gb_branch, calls_of(lambda: (_x(5).abs(),))


def _math_ops(x):
    return torch.stack([x.exp(), x.tanh(), torch.sigmoid(x), x.clamp(-1, 1)]).sum(0) + math.pi


@program(backend="aot_eager")
def math_ops_aot_eager():
    return _math_ops, calls_of(lambda: (_x(6),))


def _attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


@program()
def sdpa():
    return _attention, calls_of(lambda: (_x(1, 2, 4, 8), _x(1, 2, 4, 8), _x(1, 2, 4, 8)))


# ---------------------------------------------------------------- models
def _transformers_model(kind):
    import transformers

    torch.manual_seed(0)
    if kind == "gpt2":
        config = transformers.GPT2Config(
            n_embd=32, n_layer=2, n_head=2, vocab_size=100, n_positions=32
        )
        model = transformers.GPT2LMHeadModel(config)
    elif kind == "bert":
        config = transformers.BertConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, vocab_size=100, max_position_embeddings=32,
        )
        model = transformers.BertModel(config)
    else:
        config = transformers.LlamaConfig(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            num_key_value_heads=1, intermediate_size=64, vocab_size=100,
            max_position_embeddings=32,
        )
        model = transformers.LlamaForCausalLM(config)
    model.eval()

    def fn(input_ids):
        out = model(input_ids=input_ids)
        return out[0]

    def make():
        torch.manual_seed(1)
        return [((torch.randint(0, 100, (2, 8)),), {})]

    return fn, make


@program(subset=True)
def hf_gpt2():
    return _transformers_model("gpt2")


@program()
def hf_bert():
    return _transformers_model("bert")


@program()
def hf_llama():
    return _transformers_model("llama")


@program()
def torchvision_resnet18():
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None, num_classes=10).eval()
    return model, _module_calls((1, 3, 32, 32))


def run(target, make_calls, backward=False, params=()):
    """Call ``target`` on fresh inputs; return the list of outputs (and gradients)."""
    results = []
    for args, kwargs in make_calls():
        out = target(*args, **kwargs)
        results.append(out)
        if backward:
            tensors = [t for t in _tensors(out) if t.requires_grad]
            loss = sum(t.float().sum() for t in tensors)
            loss.backward()
            leaves = [a for a in _tensors(args) if a.requires_grad] + list(params)
            results.append([None if t.grad is None else t.grad.clone() for t in leaves])
            for t in leaves:
                t.grad = None
    return results


def _tensors(obj):
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for field in dataclasses.fields(obj):
            yield from _tensors(getattr(obj, field.name))
    elif hasattr(obj, "to_tuple"):
        yield from _tensors(obj.to_tuple())


def assert_same(got, want, path="out"):
    """Recursive equality: tensors with ``torch.testing.assert_close`` (loose enough for
    Inductor's fused kernels), containers item by item, other values with ``==``."""
    if isinstance(want, torch.Tensor):
        assert isinstance(got, torch.Tensor), (path, type(got))
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4, msg=lambda m: f"{path}: {m}")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), (path, got.keys(), want.keys())
        for k in want:
            assert_same(got[k], want[k], f"{path}[{k!r}]")
    elif dataclasses.is_dataclass(want) and not isinstance(want, type):
        assert type(got) is type(want), path
        for field in dataclasses.fields(want):
            assert_same(getattr(got, field.name), getattr(want, field.name),
                        f"{path}.{field.name}")
    elif callable(want):
        assert callable(got), path
    elif isinstance(want, float):
        assert math.isclose(got, want, rel_tol=1e-4, abs_tol=1e-4), (path, got, want)
    else:
        assert got == want, (path, got, want)
