"""The package's layers, checked from its source: which module may import which.

Layers, bottom up (docs/internals/index.md): ``numerics`` and ``dtypes`` (NumPy only), then
``tensor`` with ``autograd``, then ``derivatives``, then ``ops``, then ``nn``/``optim``/
``serialization``; ``rtorchpy/__init__`` gathers the public names, and the R bridge ``_r``, a
client of those names, sits on top (the package never imports it; R does).
A module imports only from its own layer or those below, never in a cycle, and never inside a
function (an inner import is a hidden cycle, and costs time on every call).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "rtorchpy"

LAYERS = [
    ("numerics", "dtypes", "_typing"),
    ("tensor", "autograd"),
    ("derivatives",),
    ("ops",),
    ("nn", "optim", "serialization", "backends", "distributions", "data"),
    ("__init__",),
    ("_r",),
]


def _module_name(path):
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _layer(module):
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add its folder to LAYERS and to the "
                         f"layer list in docs/internals/index.md")


def _resolve(module, is_pkg, node):
    if node.level == 0:
        return node.module
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module):
    """(imported rtorchpy module, line, at module level?) for every import in ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    top_level = set()
    for stmt in tree.body:
        for node in ast.walk(stmt) if isinstance(stmt, (ast.Try, ast.If)) else [stmt]:
            top_level.add(id(node))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_pkg, node)
            if not target or not target.startswith("rtorchpy"):
                continue
            names = [target + "." + a.name for a in node.names]
            targets = [n for n in names if n in MODULES] or [target]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.startswith("rtorchpy")]
        else:
            continue
        for t in targets:
            out.append((t, node.lineno, id(node) in top_level))
    return out


def test_no_import_inside_a_function():
    inner = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        top_level = set()
        for stmt in tree.body:
            for node in ast.walk(stmt) if isinstance(stmt, (ast.Try, ast.If)) else [stmt]:
                top_level.add(id(node))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top_level:
                inner.append(f"{module}:{node.lineno}")
    assert not inner, f"imports inside functions or classes: {inner}"


def test_every_module_imports_only_from_its_layer_or_below():
    wrong = []
    for module in MODULES:
        for target, line, _ in _imports(module):
            if target == "rtorchpy":
                target = "rtorchpy.__init__"
            if _layer(target) > _layer(module):
                wrong.append(f"{module}:{line} imports {target}")
    assert not wrong, "imports from a higher layer:\n" + "\n".join(wrong)


def test_no_import_cycle():
    graph = {m: {t if t != "rtorchpy" else "rtorchpy" for t, _, top in _imports(m) if top}
             for m in MODULES}
    # a package's __init__ imported by a submodule is not a cycle the package makes with its own
    # members when the __init__ only gathers them; every edge counts here all the same
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if t not in graph:
                continue
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_source_file_over_600_lines(module):
    n = len(MODULES[module].read_text().splitlines())
    assert n <= 600, f"{module} has {n} lines: split it by topic"
