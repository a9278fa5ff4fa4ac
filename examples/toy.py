"""The toy program of depyf's README: a function with a data-dependent branch, which
makes Dynamo break the graph and create resume functions, and the same code as an
`nn.Module.forward`. Run it under `depyf.prepare_debug` (see README.md)."""

import torch


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


class ToyModule(torch.nn.Module):
    def forward(self, a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b


def run(backend="eager"):
    """Compiles `toy_example` and `ToyModule` with `backend` and calls both with inputs
    that take each branch. Returns the list of (compiled output, eager output) pairs."""
    torch.manual_seed(0)
    fn = torch.compile(toy_example, backend=backend)
    mod = ToyModule()
    cmod = torch.compile(mod, backend=backend)
    results = []
    for sign in (1, -1):
        a = torch.randn(10)
        b = torch.randn(10).abs() * sign
        results.append((fn(a, b), toy_example(a, b)))
        results.append((cmod(a, b), mod(a, b)))
    return results


if __name__ == "__main__":
    for got, want in run():
        assert torch.allclose(got, want)
    print("ok")
