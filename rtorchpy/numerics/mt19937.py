"""libtorch's CPU random engine: a 32-bit Mersenne Twister (mt19937) seeded as libtorch seeds
it, with the two cached normal values libtorch keeps beside it.

The words themselves come from NumPy's ``MT19937`` bit generator, which runs the same twist
and tempering in C. Only the seeding differs: NumPy seeds through ``init_by_array``, libtorch
through the classic ``init_genrand`` recurrence on the low 32 bits of the seed. So the state
vector is computed here (624 steps of plain integer arithmetic) and written into NumPy's
generator; from then on its ``random_raw()`` gives libtorch's words, one 32-bit word each.

libtorch's engine counts ``left`` (words until the next twist, plus one) where NumPy counts
``pos`` (the index of the next word); ``pos = 625 - left`` maps one onto the other, and a
freshly seeded engine (``left = 1``) is NumPy's ``pos = 624``: twist before the first word.

``get_state``/``set_state`` use libtorch's byte layout (5056 bytes: the legacy generator
record followed by the float normal cache), so a state taken from PyTorch or R torch restores
here and the other way round.
"""
from __future__ import annotations

import struct

import numpy as np

N = 624
_MASK32 = 0xFFFFFFFF
STATE_BYTES = 5056
# the legacy record: seed, left, seeded, next, 624 state words (as uint64), normal_x,
# normal_y, normal_rho, normal_is_valid; then the float cache and its flag
_LAYOUT = struct.Struct("<QiiQ" + "Q" * N + "dddi4xf?3x")


def seeded_key(seed):
    """The 624-word state ``init_genrand`` makes from the low 32 bits of ``seed``."""
    key = [0] * N
    x = int(seed) & _MASK32
    key[0] = x
    for i in range(1, N):
        x = (1812433253 * (x ^ (x >> 30)) + i) & _MASK32
        key[i] = x
    return np.array(key, dtype=np.uint32)


class Engine:
    """One stream of libtorch's CPU generator: 32-bit words, 64-bit words made of two of
    them (the first is the high half, as libtorch's ``random64``), and the normal caches."""

    __slots__ = ("_bits", "seed", "next_double_normal", "next_float_normal")

    def __init__(self, seed=67280421310721):
        # (67280421310721 is libtorch's default seed when none is set)
        self._bits = np.random.MT19937(0)
        self.manual_seed(seed)

    def manual_seed(self, seed):
        seed = int(seed) & 0xFFFFFFFFFFFFFFFF  # a negative seed wraps as libtorch's uint64
        self.seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": seeded_key(seed), "pos": N}}
        self.next_double_normal = None
        self.next_float_normal = None

    def words32(self, n):
        """``n`` raw 32-bit words as uint64 (what NumPy hands out; values below 2^32)."""
        return self._bits.random_raw(int(n))

    def words64(self, n):
        """``n`` 64-bit words, each from two consecutive 32-bit words (high word first)."""
        w = self._bits.random_raw(2 * int(n))
        hi = w[0::2]
        hi <<= np.uint64(32)
        hi |= w[1::2]
        return hi

    def word32(self):
        return int(self._bits.random_raw())

    def word64(self):
        w = self._bits.random_raw(2)
        return (int(w[0]) << 32) | int(w[1])

    # state in libtorch's layout ------------------------------------------------------------
    def get_state(self):
        """libtorch's 5056-byte state record, as a uint8 array."""
        st = self._bits.state["state"]
        pos = int(st["pos"])
        # libtorch's `next` is 0, not 624, on a freshly seeded engine (same `left` = 1)
        fresh = pos == N and np.array_equal(st["key"], seeded_key(self.seed))
        left, nxt = N + 1 - pos, 0 if fresh else pos
        dn = self.next_double_normal
        fn = self.next_float_normal
        packed = _LAYOUT.pack(self.seed, left, 1, nxt, *(int(v) for v in st["key"]),
                              0.0, 0.0 if dn is None else float(dn), 0.0, int(dn is not None),
                              0.0 if fn is None else float(fn), fn is not None)
        return np.frombuffer(packed, dtype=np.uint8).copy()

    def set_state(self, data):
        """Restore a state made by ``get_state`` (here, in PyTorch or in R torch)."""
        raw = np.ascontiguousarray(np.asarray(data, dtype=np.uint8)).tobytes()
        if len(raw) != STATE_BYTES:
            raise RuntimeError(f"Expected either a THGeneratorState of size 5048 or a "
                               f"CPUGeneratorImplState of size {STATE_BYTES} but found the "
                               f"input RNG state size to be {len(raw)}")
        vals = _LAYOUT.unpack(raw)
        seed, left, _seeded, _next = vals[:4]
        key = np.array(vals[4:4 + N], dtype=np.uint64).astype(np.uint32)
        _x, normal_y, _rho, normal_valid, fnormal, fvalid = vals[4 + N:]
        if not 1 <= left <= N:
            raise RuntimeError(f"The legacy_pod.left value of the RNG state must be in "
                               f"[1, {N}], got {left}")
        self.seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": key, "pos": N + 1 - left}}
        self.next_double_normal = normal_y if normal_valid else None
        self.next_float_normal = fnormal if fvalid else None
