"""Generators: the default one every random function draws from, ``torch_generator()`` objects
for a ``generator=`` argument, seeding and libtorch's state record.

The numbers are libtorch's CPU generator's (``numerics/mt19937.py``, ``numerics/draws.py``):
after ``torch_manual_seed(s)`` the random functions give PyTorch's and R torch's values.
This module also lays the draws out as libtorch's kernels write them: element by element in
the order of the tensor's memory (for a transposed view, its base's order).
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import dtypes as _dt
from ..numerics import draws
from ..numerics.mt19937 import Engine
from ..tensor import Tensor

__all__ = ["torch_generator", "torch_manual_seed", "torch_initial_seed", "torch_seed",
           "torch_get_rng_state", "torch_set_rng_state", "with_torch_manual_seed",
           "local_torch_manual_seed"]


class Generator:
    """A random number generator of its own (``torch_generator()``): pass it as
    ``generator=`` to draw from it instead of the default one."""

    __slots__ = ("engine", "__weakref__")

    def __init__(self, seed=67280421310721):
        self.engine = Engine(seed)

    def current_seed(self):
        """The seed last set (an int)."""
        return self.engine.seed

    def set_current_seed(self, seed):
        """Reseed; returns the generator."""
        self.engine.manual_seed(_seed_value(seed))
        return self

    manual_seed = set_current_seed
    initial_seed = current_seed

    def get_state(self):
        """libtorch's state record: a uint8 tensor of 5056 bytes."""
        return Tensor._make(self.engine.get_state())

    def set_state(self, state):
        """Restore a state from ``get_state()`` (also one taken in PyTorch or R torch)."""
        self.engine.set_state(_state_bytes(state))
        return self

    def seed(self):
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
        self.engine.manual_seed(s)
        return s

    def __repr__(self):
        return "torch_Generator"


_DEFAULT = Generator()


def torch_generator(seed: int | None = None) -> Generator:
    """A new generator (seeded with ``seed``, else libtorch's default seed)."""
    return Generator() if seed is None else Generator(_seed_value(seed))


def engine(generator=None):
    """The engine to draw from: ``generator``'s, or the default one's."""
    if generator is None:
        return _DEFAULT.engine
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch_generator(), not "
                        f"{type(generator).__name__}")
    return generator.engine


def _seed_value(seed):
    if isinstance(seed, Tensor):
        seed = seed.item()
    if isinstance(seed, float):
        if not seed.is_integer():
            raise TypeError(f"seed must be an integer, got {seed!r}")
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise RuntimeError(f"Overflow when unpacking long long: seed {seed} does not fit")
    return seed


def _state_bytes(state):
    if isinstance(state, Tensor):
        if state._data.dtype != np.uint8:
            raise TypeError(f"expected a uint8 (torch_uint8) state tensor, got "
                            f"{state.dtype!r}")
        return state._data
    try:
        out = np.asarray(state)
    except (TypeError, ValueError):
        out = None
    if out is None or out.dtype.kind not in "iu" or out.ndim != 1 or \
            (out.size and (out.min() < 0 or out.max() > 255)):
        raise TypeError(f"the state must be a uint8 tensor (what get_state() returns), got "
                        f"{type(state).__name__}")
    return out.astype(np.uint8)


def torch_manual_seed(seed: int) -> Generator:
    """Seed the default generator: afterwards the random functions give libtorch's values for
    that seed (PyTorch's and R torch's)."""
    _DEFAULT.set_current_seed(seed)
    return _DEFAULT


def torch_initial_seed() -> int:
    """The default generator's seed."""
    return _DEFAULT.current_seed()


def torch_seed() -> int:
    """Seed the default generator from the operating system; returns the seed."""
    return _DEFAULT.seed()


def torch_get_rng_state() -> Tensor:
    """The default generator's state (uint8 tensor, libtorch's layout)."""
    return _DEFAULT.get_state()


def torch_set_rng_state(state):
    """Restore the default generator's state from ``torch_get_rng_state()``."""
    _DEFAULT.set_state(state)


@contextlib.contextmanager
def with_torch_manual_seed(seed):
    """``with with_torch_manual_seed(1): ...``: the block runs with the default generator seeded
    with ``seed``; its state before the block is restored after it."""
    saved = _DEFAULT.engine.get_state()
    _DEFAULT.set_current_seed(seed)
    try:
        yield
    finally:
        _DEFAULT.engine.set_state(saved)


local_torch_manual_seed = with_torch_manual_seed


# --- laying draws out in memory order --------------------------------------------------------

def memory_order(shape, strides):
    """The axis order, outermost first, in which libtorch's kernels visit an array's elements:
    by decreasing stride (stable), so a transposed view is walked in its base's order."""
    keys = [(-abs(s), i) for i, s in enumerate(strides)]
    return [i for _, i in sorted(keys)]


def lay_out(flat, like):
    """``flat`` (drawn in visit order) as an array shaped like ``like`` (an ndarray)."""
    if like.flags.c_contiguous or like.ndim < 2:
        return flat.reshape(like.shape)
    order = memory_order(like.shape, like.strides)
    out = np.empty(like.shape, flat.dtype)
    np.transpose(out, order)[...] = flat.reshape([like.shape[i] for i in order])
    return out


def uniform_array(like, low=0.0, high=1.0, generator=None):
    """libtorch's ``uniform_(low, high)`` values for an array ``like`` (its shape, dtype and
    memory order)."""
    flat = draws.uniform(engine(generator), like.size, like.dtype, low, high)
    return lay_out(flat.astype(like.dtype, copy=False), like)


def normal_array(like, mean=0.0, std=1.0, generator=None):
    """libtorch's ``normal_(mean, std)`` values for an array ``like``."""
    flat = draws.normal(engine(generator), like.size, like.dtype,
                        contiguous=like.flags.c_contiguous, mean=mean, std=std)
    return lay_out(flat.astype(like.dtype, copy=False), like)


def float_dtype_word(dt):
    return _dt.from_numpy_dtype(np.dtype(dt)).word
