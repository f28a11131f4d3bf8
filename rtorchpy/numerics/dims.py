"""Dimension arguments: libtorch's range checks and error texts."""
from __future__ import annotations


def _shown(value):
    """A value for an error message: its repr when short and on one line, else its type."""
    text = repr(value)
    return text if len(text) <= 40 and "\n" not in text else f"a {type(value).__name__}"


def normalize_dim(dim, ndim):
    """A dim in [-ndim, ndim) as a non-negative int, with libtorch's error text otherwise."""
    if type(dim) is int:  # the common case, without the conversions and checks below
        n = ndim or 1
        if -n <= dim < n:
            return dim + n if dim < 0 else dim
    try:
        d = int(dim)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"dim must be an integer, got {_shown(dim)}") from None
    if d != dim or isinstance(dim, bool):
        raise TypeError(f"dim must be an integer, got {_shown(dim)}")
    n = max(ndim, 1)  # a 0-dim tensor accepts dims 0 and -1, as libtorch does
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d + n if d < 0 else d


def normalize_dims(dim, ndim):
    """``None`` -> None (all dims); an int or sequence of ints -> sorted tuple of unique dims."""
    if dim is None:
        return None
    if type(dim) is int:
        return (normalize_dim(dim, ndim),)
    if isinstance(dim, (list, tuple)):
        dims = [normalize_dim(d, ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"dim {dims} appears multiple times in the list of dims")
        return tuple(sorted(dims))
    return (normalize_dim(dim, ndim),)
