"""The tensor printer: the exact text of R torch's ``print(x)``, which is libtorch 2.8.0's.

Two layers, as in R torch:

* :func:`format_body` is libtorch's ``operator<<`` (``aten/src/ATen/core/Formatting.cpp``):
  the values, then a footer such as ``[ CPUFloatType{2,2} ]``.
* :func:`format_tensor` is R torch's ``Tensor$print(n)``: a ``torch_tensor`` line, the body cut
  to ``n`` lines, and a ``[ grad_fn = <...> ]`` or ``[ requires_grad = TRUE ]`` suffix.

How libtorch chooses a number format
------------------------------------
Values are widened to float64 first. A 1-D tensor is one *group*; a matrix, and every 2-D slice
of a bigger tensor, is a group of its own. For each group:

* ``intMode``: every finite value is a whole number;
* ``expMin`` / ``expMax``: ``floor(log10(m)) + 1`` (the count of integer digits) of the smallest
  and largest finite magnitude ``m``; 1 when ``m`` is 0 or nothing is finite.

Then, first match wins (widths are minimums, values are right-aligned)::

    intMode and expMax > 9     %.4e   width 11
    intMode                    %g     width expMax + 1
    expMax - expMin > 4        %.4e   width 11, or 12 if |expMax| or |expMin| > 99
    expMax > 5 or expMax < 0   %.4f   width 7, values divided by 10^(expMax-1), printed first
                                      as a '<scale> *' line
    otherwise                  %.4f   width expMax + 6, or 7 when expMax == 0

Python's ``format`` gives the same strings as fmt/printf for these codes, and ``repr`` gives
fmt's shortest round-trip ``{}`` (used for 0-dim values and the scale).

Speed: the format choice looks at every value, so it is computed with NumPy over whole arrays;
the line count is computed from it arithmetically, and strings are made only for lines that
will be shown.
"""
from __future__ import annotations

import math
from itertools import islice
from typing import NamedTuple
from collections.abc import Iterator

import numpy as np

__all__ = ["format_body", "format_tensor", "type_word_for", "TRUNCATION_MARKER"]

TRUNCATION_MARKER = "... [the output was truncated (use n=-1 to disable)]"
UNDEFINED_TEXT = "[ Tensor (undefined) ]"
COMPLEX_NOTE = "\u2139 Use `$real` or `$imag` to print the contents of this tensor."
LINE_WIDTH = 80  # libtorch's default `linesize`

_TYPE_WORDS = {
    np.dtype(np.float32): "Float", np.dtype(np.float64): "Double", np.dtype(np.float16): "Half",
    np.dtype(np.int64): "Long", np.dtype(np.int32): "Int", np.dtype(np.int16): "Short",
    np.dtype(np.int8): "Char", np.dtype(np.uint8): "Byte", np.dtype(np.bool_): "Bool",
    np.dtype(np.complex64): "ComplexFloat", np.dtype(np.complex128): "ComplexDouble",
}


def type_word_for(dtype) -> str:
    """The word libtorch puts in the footer (``CPU<word>Type``) for a NumPy dtype."""
    try:
        return _TYPE_WORDS[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"no libtorch type word for NumPy dtype {np.dtype(dtype)}") from None


# ---------------------------------------------------------------------------------------------
# Single values


def _shortest(x: float) -> str:
    """fmt's ``{}`` for a double: shortest round-trip digits, exponent form when the decimal
    exponent is < -4 or >= 16 -- the same rule and spelling as Python's ``repr``, except that
    fmt writes no ``.0`` and keeps the sign of a NaN."""
    if math.isnan(x):
        return _nan_text(x)
    text = repr(x)
    return text[:-2] if text.endswith(".0") else text


def _nan_text(x: float) -> str:
    # fmt writes the sign bit of a NaN ('-nan'); Python's format() never does. NaNs made by
    # x86 arithmetic (0/0, inf-inf) carry the sign bit, R's NaN and NA do not.
    return "-nan" if math.copysign(1.0, x) < 0 else "nan"


class _Format(NamedTuple):
    """How one group's values are written: printf-style code, minimum width, divisor."""

    code: str  # 'g', '.4e' or '.4f'
    width: int
    scale: float

    @property
    def scaled(self) -> bool:
        return self.scale != 1.0

    def scale_line(self) -> str:
        return _shortest(self.scale) + " *"

    def texts(self, values: np.ndarray) -> list:
        """Each value divided by the scale, formatted and right-aligned to the width."""
        if self.scaled:  # a zero scale (underflow on subnormal data) divides as C does: to inf
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                values = values / self.scale
        out = list(map(f"{{:>{self.width}{self.code}}}".format, values.tolist()))
        nan = np.isnan(values)
        if nan.any():
            for i in np.flatnonzero(nan & np.signbit(values)).tolist():
                out[i] = "-nan".rjust(self.width)  # fmt keeps a NaN's sign bit; format() drops it
        return out

    def rows(self, block: np.ndarray, chunk: int = 256) -> Iterator[str]:
        """The rows of a 2-D block, cells joined by one space; formatted ~chunk values at a
        time, so that only the rows that are shown cost anything."""
        cols = block.shape[1]
        step = max(1, chunk // cols)
        for start in range(0, block.shape[0], step):
            cells = self.texts(block[start:start + step].ravel())
            for i in range(0, len(cells), cols):
                yield " ".join(cells[i:i + cols])


# ---------------------------------------------------------------------------------------------
# The format chooser, vectorised over groups (rows of a 2-D array)


class _Choices(NamedTuple):
    """Per-group results of libtorch's ``__printFormat`` (one entry per group)."""

    code: np.ndarray  # 0 = %g, 1 = %.4e, 2 = %.4f
    width: np.ndarray
    scaled: np.ndarray  # True when values are divided by 10^(exp_max-1)
    exp_max: np.ndarray

    def at(self, g: int) -> _Format:
        code = ("g", ".4e", ".4f")[int(self.code[g])]
        # std::pow(10, expMax - 1); Python's float ** also calls the C library's pow
        scale = 10.0 ** float(self.exp_max[g] - 1) if self.scaled[g] else 1.0
        return _Format(code, int(self.width[g]), scale)


def _integer_digits(m: np.ndarray) -> np.ndarray:
    """floor(log10(m)) + 1 for each magnitude, 1 where m is 0 (or not a positive finite number).

    Near exact powers of ten the result hinges on the last bit of log10, so those entries are
    recomputed with ``math.log10`` (the C library's, as libtorch uses) in case NumPy's own
    vectorised log10 rounds differently."""
    out = np.ones(m.shape, dtype=np.int64)
    positive = np.isfinite(m) & (m > 0)
    mags = m[positive]
    if mags.size == 0:
        return out
    logs = np.log10(mags)
    close = np.abs(logs - np.rint(logs)) < 1e-9
    if close.any():
        unique, where = np.unique(mags[close], return_inverse=True)
        logs[close] = np.array([math.log10(v) for v in unique.tolist()])[where]
    out[positive] = np.floor(logs).astype(np.int64) + 1
    return out


def _choose_formats(groups: np.ndarray) -> _Choices:
    """libtorch's format choice for each row of ``groups`` (shape (G, m), float64, m >= 1)."""
    finite = np.isfinite(groups)
    with np.errstate(invalid="ignore"):
        int_mode = np.all(~finite | (groups == np.ceil(groups)), axis=1)
    mags = np.abs(groups)
    largest = np.where(finite, mags, -1.0).max(axis=1)  # -1: the group has no finite value
    smallest = np.where(finite, mags, np.inf).min(axis=1)
    has_finite = largest >= 0
    exp_max = np.where(has_finite, _integer_digits(largest), 1)
    exp_min = np.where(has_finite, _integer_digits(smallest), 1)

    int_sci = int_mode & (exp_max > 9)
    general = int_mode & ~int_sci
    sci = ~int_mode & (exp_max - exp_min > 4)
    scaled = ~int_mode & ~sci & ((exp_max > 5) | (exp_max < 0))
    wide_exponent = (np.abs(exp_max) > 99) | (np.abs(exp_min) > 99)

    code = np.select([int_sci | sci, general], [1, 0], 2)
    width = np.select(
        [int_sci, general, sci, scaled, exp_max == 0],
        [11, exp_max + 1, 11 + wide_exponent, 7, 7],
        exp_max + 6,
    )
    return _Choices(code, width, scaled, exp_max)


# ---------------------------------------------------------------------------------------------
# Layouts: each knows its line count without formatting, and yields its lines lazily


def _vector_lines(vector: np.ndarray, fmt: _Format, chunk: int = 256) -> Iterator[str]:
    if fmt.scaled:
        yield fmt.scale_line()
    for start in range(0, vector.shape[0], chunk):  # a chunk at a time: most are never shown
        yield from fmt.texts(vector[start:start + chunk])


def _columns_per_block(width, indent: int):
    return (LINE_WIDTH - indent) // (width + 1)


def _matrix_line_count(rows: int, cols: int, width, scaled, indent: int):
    """Lines of ``__printMatrix``: each column block has its rows (plus the scale line), and
    blocks after the first are preceded by an empty line. The 'Columns' header shares a line."""
    per_block = _columns_per_block(width, indent)
    blocks = -(-cols // per_block)
    return blocks * (rows + scaled.astype(np.int64)) + blocks - 1


def _matrix_lines(matrix: np.ndarray, fmt: _Format, indent: int) -> Iterator[str]:
    """libtorch's ``__printMatrix``. Its indent is written in three places only: after a
    'Columns a to b' header, after the scale line, and before every row but the first of a
    block -- plus one more space before those rows when the group is scaled."""
    rows, cols = matrix.shape
    per_block = int(_columns_per_block(fmt.width, indent))
    wrapped = per_block < cols
    pad = " " * indent
    later_rows = pad + (" " if fmt.scaled else "")
    for first in range(0, cols, per_block):
        last = min(first + per_block, cols)
        if first:
            yield ""
        lead = f"Columns {first + 1} to {last}{pad}" if wrapped else ""
        if fmt.scaled:
            yield lead + fmt.scale_line()
            lead = pad
        for r, cells in enumerate(fmt.rows(matrix[:, first:last])):
            yield (lead if r == 0 else later_rows) + cells


def _first_index_fastest(lead_shape) -> Iterator[tuple]:
    """(index, slice number in C order) in libtorch's slice order: its counter increments the
    FIRST index fastest."""
    reversed_axes = tuple(range(len(lead_shape)))[::-1]
    numbers = np.arange(int(np.prod(lead_shape))).reshape(lead_shape).transpose(reversed_axes)
    for reversed_index, g in zip(np.ndindex(*lead_shape[::-1]), numbers.ravel().tolist()):
        yield reversed_index[::-1], g


class _Layout:
    """The body of a printed tensor: its total line count and a lazy line iterator. Both
    exclude the footer line."""

    def __init__(self, values: np.ndarray):
        self.values = values
        shape = values.shape
        if values.size == 0 or values.ndim == 0:
            self.choices = None
        elif values.ndim == 1:
            self.choices = _choose_formats(values.reshape(1, -1))
        else:
            self.choices = _choose_formats(values.reshape(-1, shape[-2] * shape[-1]))

    def line_count(self) -> int:
        values, choices = self.values, self.choices
        if values.ndim == 0:
            return 1
        if values.size == 0:
            return 0
        assert choices is not None  # (set for every tensor with elements and dims)
        if values.ndim == 1:
            return int(choices.scaled[0]) + values.shape[0]
        rows, cols = values.shape[-2:]
        indent = 0 if values.ndim == 2 else 1
        per_slice = _matrix_line_count(rows, cols, choices.width, choices.scaled, indent)
        if values.ndim == 2:
            return int(per_slice[0])
        slices = per_slice.shape[0]
        return int(per_slice.sum()) + slices + (slices - 1)  # + headers + separating blanks

    def lines(self) -> Iterator[str]:
        values, choices = self.values, self.choices
        if values.ndim == 0:
            yield _shortest(float(values))
            return
        if values.size == 0:
            return
        assert choices is not None  # (set for every tensor with elements and dims)
        if values.ndim == 1:
            yield from _vector_lines(values, choices.at(0))
        elif values.ndim == 2:
            yield from _matrix_lines(values, choices.at(0), indent=0)
        else:
            yield from self._slice_lines()

    def _slice_lines(self) -> Iterator[str]:
        """libtorch's ``__printTensor``: a '(i,j,.,.) = ' header (trailing space) per 2-D slice,
        each slice printed with indent 1, slices separated by an empty line."""
        lead_shape = self.values.shape[:-2]
        slices = self.values.reshape((-1,) + self.values.shape[-2:])
        choices = self.choices
        assert choices is not None  # (set for every tensor with elements and dims)
        for n, (index, g) in enumerate(_first_index_fastest(lead_shape)):
            if n:
                yield ""
            yield "(" + "".join(f"{i + 1}," for i in index) + ".,.) = "
            yield from _matrix_lines(slices[g], choices.at(g), indent=1)


# ---------------------------------------------------------------------------------------------
# Public entry points


def _as_float64(values) -> np.ndarray:
    """libtorch prints ``tensor.to(kDouble)``: float32 widens exactly, int64 may round."""
    array = np.asarray(values)
    if np.iscomplexobj(array):
        array = array.real  # a complex -> double cast keeps the real part
    return np.asarray(array, dtype=np.float64, order="C")  # (ascontiguousarray drops 0-dim)


def _footer(type_word: str, shape) -> str:
    return f"[ CPU{type_word}Type{{{','.join(str(d) for d in shape)}}} ]"


def format_body(values: np.ndarray | None, type_word: str) -> str:
    """libtorch 2.8.0's ``operator<<`` text for a CPU tensor, ending with its footer line
    (e.g. ``[ CPUFloatType{2,2} ]``), without a trailing newline. ``values=None`` is an
    undefined tensor."""
    if values is None:
        return UNDEFINED_TEXT
    array = _as_float64(values)
    return "\n".join([*_Layout(array).lines(), _footer(type_word, array.shape)])


def _truncated_lines(layout: _Layout, n) -> list:
    """R torch's cut: with k libtorch lines (footer included), if n > 1 and k > n keep lines
    1..n, then the marker, then the footer. Quirk: at k == n + 1 nothing is dropped but the
    marker is still written. n = -1, 0 and 1 never cut."""
    total = layout.line_count() + 1
    if n > 1 and total > n:
        return [*islice(layout.lines(), int(n)), TRUNCATION_MARKER]
    return list(layout.lines())


def format_tensor(values, type_word: str, *, grad_fn_name: str | None = None,
                  requires_grad: bool = False, n: int = 30) -> str:
    """What R torch's ``print(x, n)`` writes, without the final newline."""
    if values is None:
        return "torch_tensor\n" + UNDEFINED_TEXT
    array = np.asarray(values)
    if type_word.startswith("Complex"):
        # R torch does not ask libtorch for complex values; it prints a hint instead
        lines = [COMPLEX_NOTE]
    else:
        array = _as_float64(array)
        lines = _truncated_lines(_Layout(array), n)  # n may be R's Inf
    footer = _footer(type_word, array.shape)
    if grad_fn_name is not None:
        footer += f"[ grad_fn = <{grad_fn_name}> ]"
    elif requires_grad:
        footer += "[ requires_grad = TRUE ]"
    return "\n".join(["torch_tensor", *lines, footer])
