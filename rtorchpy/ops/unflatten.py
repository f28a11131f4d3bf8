"""``unflatten``: one dim split into several, the inverse of ``flatten`` (a view, ViewBackward0,
as libtorch's), with libtorch's errors. (Beside ``ops/shape.py``, which holds the other views.)"""
from __future__ import annotations

from ..numerics.dims import normalize_dim
from .registry import op
from .shape import _shape_arg, view


def _unexpected(reason):
    """libtorch wraps the errors of its size inference this way (its text is followed by a C++
    backtrace there)."""
    raise RuntimeError(f"unflatten got an unexpected error:\n{reason}")


def _inferred(sizes, numel, dim):
    """``sizes`` with its -1 replaced so that they multiply up to ``numel`` (libtorch's
    infer_size, in its order of checks)."""
    known, infer = 1, None
    for i, s in enumerate(sizes):
        if s == -1:
            if infer is not None:
                _unexpected("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            _unexpected(f"invalid shape dimension {s} at index {i} of shape {list(sizes)}")
    if not (numel == known or (infer is not None and known > 0 and numel % known == 0)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({numel}) in the input tensor")
    if infer is None:
        return sizes
    if known == 0:  # 0 elements and a 0 among the sizes: the -1 could be anything
        _unexpected(f"cannot reshape tensor of 0 elements into shape {list(sizes)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous")
    return sizes[:infer] + (numel // known,) + sizes[infer + 1:]


@op("unflatten", dims=("dim",))
def unflatten(self, dim, sizes):
    """Split dim ``dim`` into dims of ``sizes`` (a sequence; one entry may be -1, inferred):
    a view of ``self``."""
    shape = self._data.shape
    d = normalize_dim(dim, len(shape))
    sizes = _shape_arg((sizes,))  # (a single number, as R gives c(4), is one size)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:
        _unexpected("Dimension specified as 0 but tensor has no dimensions")
    return view(self, shape[:d] + _inferred(sizes, shape[d], d) + shape[d + 1:])
