"""libtorch's ``randperm`` shuffles as array operations.

libtorch shuffles one element at a time, each step reading what earlier steps left. The final
array can be computed without replaying the steps: every position's last write is found by
sorting the random targets, and where a value was carried along a chain of swaps the chain is
followed by pointer doubling (log2(n) rounds of gathers).

Two algorithms, as libtorch picks them:

* ``n < 2^32 / 20``: Fisher-Yates on ``0..n-1`` in place; step ``i`` swaps positions ``i`` and
  ``t_i = i + word32 % (n - i)``.
* larger ``n`` (only reachable with gigabytes of memory): the "inside-out" variant, one 64-bit
  word per step; step ``i`` writes position ``z_i = word64 % (i + 1)``'s content to ``i`` and
  ``i`` to ``z_i``.
"""
from __future__ import annotations

import numpy as np

_I64 = np.int64
LARGE = (2 ** 32 - 1) // 20


def _roots(parent):
    """For each index, the end of its chain ``i -> parent[i] -> ...`` (``parent[r] == r``)."""
    p = parent
    while True:
        q = p[p]
        if np.array_equal(q, p):
            return p
        p = q


def _previous_same(t):
    """For each index ``i``: the largest ``j < i`` with ``t[j] == t[i]``, else -1; and for each
    value ``v``: the largest index ``j`` with ``t[j] == v``, else -1."""
    n = t.size
    if n < 3037000499:
        # sort value * n + index: unique keys, so any (fast, SIMD) sort orders them as a
        # stable sort of the values would
        keys = t * n
        keys += np.arange(n, dtype=_I64)
        keys.sort()
        ts, order = np.divmod(keys, n)
    else:
        order = np.argsort(t, kind="stable")
        ts = t[order]
    same = ts[1:] == ts[:-1]
    prev = np.full(n, -1, _I64)
    prev[order[1:][same]] = order[:-1][same]
    last_of = np.full(n, -1, _I64)
    ends = np.flatnonzero(np.append(~same, True))
    last_of[ts[ends]] = order[ends]
    return prev, last_of


def fisher_yates(t):
    """The array after the steps ``swap(r[i], r[t[i]])``, ``i = 0..n-2``, on ``r = 0..n-1``
    (``t``: int64, ``t[i] >= i``, length ``n - 1``).

    What position ``i`` holds when its step comes (``a[i]``) is what the last earlier step that
    targeted ``i`` carried there, which is what sat at that step's own position then: a chain.
    Step ``i`` then takes what sits at ``t[i]``: ``a`` of the last earlier step that targeted
    ``t[i]``, or ``t[i]`` itself if none did."""
    n = t.size + 1
    idx = np.arange(n, dtype=_I64)
    t = np.append(t, n - 1)          # the last position keeps what it holds
    prev, last_of = _previous_same(t)
    # the last step before i that targeted i: i's previous occurrence if t[i] == i, else the
    # last occurrence of i anywhere (steps that target i all come before i)
    hit = np.where(t == idx, prev, last_of)
    a = _roots(np.where(hit < 0, idx, hit))
    return np.where(prev < 0, t, a[np.maximum(prev, 0)])


def inside_out(z):
    """The array after steps ``r[i] = r[z[i]]; r[z[i]] = i`` for ``i = 0..n-1`` (``z[i] <= i``).

    Position ``p``'s last write is ``max{i > p : z[i] == p}`` if any; else its own step's value
    ``v[p]``: ``p`` when ``z[p] == p``, otherwise what ``z[p]`` held then, the last ``i < p``
    with ``z[i] == z[p]`` (if after ``z[p]``'s own step) or else ``v[z[p]]``: a chain again."""
    n = z.size
    idx = np.arange(n, dtype=_I64)
    prev, last_of = _previous_same(z)
    # v[p] by chains: p -> z[p] while neither ends it
    ends_here = (z == idx) | (prev > z)
    parent = np.where(ends_here, idx, z)
    root = _roots(parent)
    v = np.where(z[root] == root, root, prev[root])
    return np.where(last_of > idx, last_of, v)
