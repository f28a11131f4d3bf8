"""The package passes ``make typecheck`` (mypy with pyproject.toml's [tool.mypy]), and its
annotations reach a user's code: the package ships a ``py.typed`` marker, everyday code checks
clean, and a mistake in it is reported.

One mypy run checks the package and a user's file together; the second run (the mistakes)
reuses its cache. The mypy runs are skipped when mypy is not installed (it comes with the test
extra).
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_NO_MYPY = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                               reason="mypy is not installed")

# what a user writes: tensors, operators, autograd, a module, an optimizer, a data loader
USER_CODE = """
from rtorchpy import (Tensor, autograd_function, autograd_grad, dataloader, nn_linear, optim_sgd,
                      tensor_dataset, torch_exp, torch_ones, torch_randn, torch_tensor,
                      torch_zeros, with_no_grad)

x = torch_ones(2, 2, requires_grad=True)
out: Tensor = ((x + 2) * (x + 2) * 3).mean()
out.backward()
grad = x.grad
assert grad is not None
with with_no_grad():
    x -= 0.1 * grad
shape: tuple[int, ...] = x.shape
value: float = float(x.sum().item())
y = torch_tensor([1.0, 2.0], requires_grad=True)
(g,) = autograd_grad([(y * y).sum()], [y])
model = nn_linear(3, 1)
opt = optim_sgd(model.parameters, lr=0.1)
data = tensor_dataset(torch_randn(8, 3), torch_zeros(8, 1))
for xb, yb in dataloader(data, batch_size=4):
    opt.zero_grad()
    loss = ((model(xb) - yb) ** 2).mean()
    loss.backward()
    opt.step()
w: Tensor = x.T @ x
square = autograd_function(lambda ctx, a: a * a, lambda ctx, g: 2 * g)
e = torch_exp(square(x)).sum()
"""

# what mypy must refuse, one line each (the line's number is where the error must be)
MISTAKES = """
from rtorchpy import Tensor, torch_ones, torch_randn
x = torch_ones(2, 2)
n: str = x.shape
torch_randn(2, requires_grad="yes")
x.backward(create_graph=1.5)
y: Tensor = x.numpy()
autograd_function(forward=1, backward=2)
"""


def _mypy(*args: str, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args],
                          cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


@_NO_MYPY
def test_the_package_and_a_users_code_type_check(tmp_path: Path, cache: Path) -> None:
    user = tmp_path / "user_code.py"
    user.write_text(USER_CODE)
    # (the package as pyproject.toml configures it, plus the user's file)
    result = _mypy("rtorchpy", str(user), cache=cache)
    assert result.returncode == 0, result.stdout + result.stderr


@_NO_MYPY
def test_a_users_mistakes_are_reported(tmp_path: Path, cache: Path) -> None:
    user = tmp_path / "mistakes.py"
    user.write_text(MISTAKES)
    result = _mypy(str(user), cache=cache)
    lines = {int(m.group(1)) for m in re.finditer(r"mistakes\.py:(\d+): error", result.stdout)}
    # every line after the import and x's is a mistake (line 1 is the empty one)
    expected = set(range(4, len(MISTAKES.splitlines()) + 1))
    assert lines == expected, result.stdout


def test_the_package_says_it_is_typed() -> None:
    assert (ROOT / "rtorchpy" / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    # (a wheel carries only the package data pyproject names)
    assert re.search(r'^\[tool\.setuptools\.package-data\]\s*\nrtorchpy = \[[^\]]*"py\.typed"',
                     text, re.M), "pyproject.toml does not ship rtorchpy/py.typed"


def test_the_users_code_runs() -> None:
    # (so the code type-checked above is real code, not only well-typed)
    exec(compile(USER_CODE, "user_code.py", "exec"), {})
