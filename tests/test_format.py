"""Tests of rtorchpy/numerics/format.py, the printer that must match R torch (libtorch 2.8.0) byte
for byte.

The module is loaded straight from its file when the package cannot be imported yet, so these
tests depend on nothing else in rtorchpy.
"""
import importlib.util
import math
import os
import re
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

ROOT = Path(__file__).resolve().parents[1]


def _load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


try:
    from rtorchpy.numerics import format as fmt
except Exception:  # the package is not importable yet: use the file on its own
    fmt = _load_file("rtorchpy_format_standalone", ROOT / "rtorchpy" / "numerics" / "format.py")

golden_cases = _load_file("rtorchpy_golden_cases", Path(__file__).with_name("golden_cases.py"))
format_body, format_tensor, type_word_for = fmt.format_body, fmt.format_tensor, fmt.type_word_for
MARKER = "... [the output was truncated (use n=-1 to disable)]"


# ---------------------------------------------------------------------------------------------
# 1. The golden transcripts


def _find_golden() -> Path:
    # the repository's own copy (the R tests' fixture), unless RTORCHPY_SHARED names another spec
    if os.environ.get("RTORCHPY_SHARED"):
        return Path(os.environ["RTORCHPY_SHARED"]) / "spec" / "r-torch-print-golden.txt"
    return ROOT / "r-shim" / "tests" / "testthat" / "fixtures" / "r-torch-print-golden.txt"


def parse_golden(text):
    """{R line: expected output}. A block starts at a '> ' line and ends at the footer, the
    first line starting with '[ ' (blank lines inside a block belong to it)."""
    blocks, key, lines = {}, None, []
    for line in text.split("\n"):
        if key is None:
            if line.startswith("> "):
                key, lines = line[2:], []
            continue
        lines.append(line)
        if line.startswith("[ "):
            assert key not in blocks, f"duplicate golden block {key!r}"
            blocks[key] = "\n".join(lines)
            key = None
    assert key is None, f"golden block {key!r} has no footer"
    return blocks


GOLDEN = parse_golden(_find_golden().read_text(encoding="utf-8"))


def test_golden_file_has_all_53_blocks_and_each_has_a_case():
    assert len(GOLDEN) == 53
    assert sorted(GOLDEN) == sorted(golden_cases.CASES)


@pytest.mark.parametrize("r_line", sorted(GOLDEN))
def test_golden_transcript(r_line):
    c = golden_cases.CASES[r_line]
    got = format_tensor(c["values"], c["type_word"], grad_fn_name=c["grad_fn_name"],
                        requires_grad=c["requires_grad"], n=c["n"])
    assert got == GOLDEN[r_line]


# ---------------------------------------------------------------------------------------------
# 2. Outputs printed in R torch's "using autograd" article. The article's
# text lost its runs of spaces, and was made with an R torch that wrote no grad suffix, so the
# body (format_body) is compared with whitespace collapsed.

def _collapsed(text):
    return " ".join(text.split())


_F = np.float32
SEED_002 = [
    (np.ones((2, 2), _F), "Float", "torch_tensor #> 1 1 #> 1 1 #> [ CPUFloatType{2,2} ]"),
    (np.ones((2, 2), _F) + 2, "Float", "torch_tensor #> 3 3 #> 3 3 #> [ CPUFloatType{2,2} ]"),
    (np.full((2, 2), 3, _F) * 3 * 3, "Float",
     "torch_tensor #> 27 27 #> 27 27 #> [ CPUFloatType{2,2} ]"),
    (np.full((2, 2), 27, _F).mean(), "Float", "torch_tensor #> 27 #> [ CPUFloatType{} ]"),
    (np.array([[0.2653, 1.6269], [1.1373, 1.1909]], _F), "Float",
     "torch_tensor #> 0.2653 1.6269 #> 1.1373 1.1909 #> [ CPUFloatType{2,2} ]"),
    (np.full((2, 2), 4.5, _F), "Float",
     "torch_tensor #> 4.5000 4.5000 #> 4.5000 4.5000 #> [ CPUFloatType{2,2} ]"),
    (np.array([-35.0288, -209.1356, 64.9385], _F), "Float",
     "torch_tensor #> -35.0288 #> -209.1356 #> 64.9385 #> [ CPUFloatType{3} ]"),
    # x$grad after y <- 100 * x; y$backward(v): 100 * v computed in float32
    (_F(100) * np.array([0.1, 1.0, 0.0001], _F), "Float",
     "torch_tensor #> 1.0000e+01 #> 1.0000e+02 #> 1.0000e-02 #> [ CPUFloatType{3} ]"),
    (np.bool_(True), "Bool", "torch_tensor #> 1 #> [ CPUBoolType{} ]"),
]


@pytest.mark.parametrize("values, word, printed", SEED_002)
def test_vignette_using_autograd_outputs(values, word, printed):
    body = "torch_tensor\n" + format_body(values, word)
    assert _collapsed(body) == _collapsed(printed.replace(" #> ", "\n"))


# ---------------------------------------------------------------------------------------------
# Spec examples not in the golden file


def body_of(values, word="Float"):
    """The printed lines between 'torch_tensor' and the footer."""
    return format_tensor(values, word, n=-1).split("\n")[1:-1]


@pytest.mark.parametrize("value, text", [
    (_F(1e-5), "9.999999747378752e-06"), (_F(123456789), "123456792"),
    (1e15, "1000000000000000"), (1e16, "1e+16"), (-0.0, "-0"), (2.0, "2"), (1.5, "1.5"),
    (np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf"),
])
def test_zero_dim_is_shortest_round_trip(value, text):
    assert body_of(np.float64(value)) == [text]


def test_nan_with_sign_bit_prints_minus_nan_as_fmt_does():
    negative_nan = -np.float64(np.nan)
    assert body_of(negative_nan) == ["-nan"]
    assert body_of(np.array([negative_nan, 1.5])) == ["   -nan", " 1.5000"]


def test_scale_line_uses_shortest_form():
    assert body_of(np.array([1e-5, 2e-5]))[0] == "1e-05 *"
    assert body_of(np.array([100000.5]))[0] == "100000 *"


def test_scientific_width_grows_for_three_digit_exponents():
    assert body_of(np.array([1e-100, 1.5])) == ["1.0000e-100", " 1.5000e+00"]
    assert body_of(np.array([1e-101, 1.5])) == [" 1.0000e-101", "  1.5000e+00"]


def test_scaled_slice_of_a_3d_tensor_indents_as_libtorch_2_8():
    values = np.array([[[1, 2], [3, 4]], [[4e6 + 0.5, 5e6], [6e6, 7e6]]])
    assert body_of(values, "Double") == [
        "(1,.,.) = ", " 1  2", "  3  4", "",
        "(2,.,.) = ", "1000000 *", "  4.0000  5.0000", "   6.0000  7.0000"]


def test_wrapped_scaled_matrix_writes_scale_after_columns_header():
    values = np.arange(24).reshape(2, 12) * 1000.0 + 1e6 + 0.5
    lines = body_of(values, "Double")
    assert lines[0] == "Columns 1 to 101000000 *"
    assert lines[1].startswith(" 1.0000  1.0010")
    assert lines[2].startswith("  1.0120")
    assert lines[3] == "" and lines[4] == "Columns 11 to 121000000 *"


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3), (2, 0, 2), (0, 1, 1, 1)])
def test_empty_tensors_print_only_the_footer(shape):
    dims = ",".join(map(str, shape))
    expected = f"torch_tensor\n[ CPUFloatType{{{dims}}} ]"
    assert format_tensor(np.zeros(shape, _F), "Float") == expected


def test_undefined_tensor():
    assert format_body(None, "Float") == "[ Tensor (undefined) ]"
    expected = "torch_tensor\n[ Tensor (undefined) ]"
    assert format_tensor(None, "Float", requires_grad=True) == expected


def test_suffixes_and_other_types():
    assert format_tensor(np.array([1], np.uint8), "Byte", requires_grad=True) == \
        "torch_tensor\n 1\n[ CPUByteType{1} ][ requires_grad = TRUE ]"
    assert format_tensor(np.ones(2, np.complex64), "ComplexFloat").split("\n")[1:] == [
        "\u2139 Use `$real` or `$imag` to print the contents of this tensor.",
        "[ CPUComplexFloatType{2} ]"]


def test_type_word_for():
    words = {np.float32: "Float", np.float64: "Double", np.int64: "Long", np.int32: "Int",
             np.int16: "Short", np.int8: "Char", np.uint8: "Byte", np.bool_: "Bool",
             np.float16: "Half"}
    for dtype, word in words.items():
        assert type_word_for(np.dtype(dtype)) == word
    with pytest.raises(TypeError):
        type_word_for(np.dtype("U3"))


def test_slices_follow_first_index_fastest_order():
    lines = body_of(np.zeros((2, 3, 1, 1), _F))
    headers = [line for line in lines if line.startswith("(")]
    assert headers == ["(1,1,.,.) = ", "(2,1,.,.) = ", "(1,2,.,.) = ", "(2,2,.,.) = ",
                       "(1,3,.,.) = ", "(2,3,.,.) = "]


# ---------------------------------------------------------------------------------------------
# 3. Properties


def reference_print(values, word, n):
    """The R truncation rule applied to the full libtorch text -- the slow, obvious way."""
    lines = format_body(values, word).split("\n")
    if n > 1 and len(lines) > n:
        lines = lines[:n] + [MARKER] + lines[-1:]
    return "\n".join(["torch_tensor"] + lines)


DTYPES = [np.float32, np.float64, np.int64, np.bool_, np.int8, np.uint8, np.float16]


@st.composite
def any_tensor(draw, allow_subnormal=True, max_dims=4, min_dims=0):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=5))
    if dtype.kind == "f" and draw(st.booleans()):
        # values of one magnitude, so that the fixed and scaled formats get chosen too
        magnitude = draw(st.sampled_from([1e-30, 1e-3, 0.1, 1.0, 1e4, 1e7, 1e12, 1e30]))
        unit = draw(hnp.arrays(np.float64, shape, elements=st.floats(-1e3, 1e3)))
        with np.errstate(over="ignore"):
            values = (unit * magnitude).astype(dtype)
        if not allow_subnormal:
            values[np.abs(values) < np.finfo(dtype).tiny] = 0
        return values
    elements = None
    if dtype.kind == "f":
        elements = st.floats(width=dtype.itemsize * 8, allow_subnormal=allow_subnormal)
    return draw(hnp.arrays(dtype, shape, elements=elements))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_tensor(), st.sampled_from([-1, 0, 1, 2, 3, 5, 8, 30]))
def test_printing_never_raises_and_lazy_truncation_matches_full_text(values, n):
    word = type_word_for(values.dtype)
    with np.errstate(all="ignore"):
        assert format_tensor(values, word, n=n) == reference_print(values, word, n)


def _tolerance(token):
    """Half a unit in the last printed digit."""
    mantissa, _, exponent = token.partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return Decimal(5).scaleb(int(exponent or 0) - decimals - 1)


def assert_token_matches(token, value, scale):
    """The printed token times the scale is the value, to the printed precision (decimal
    arithmetic, so that tokens near the float64 limit do not overflow)."""
    if math.isnan(value):
        assert token in ("nan", "-nan")
    elif math.isinf(value):
        assert float(token) == value
    else:
        scale = Decimal(scale)
        slack = _tolerance(token) * scale * Decimal("1.000000001") + Decimal(abs(value)) / 10**12
        assert abs(Decimal(token) * scale - Decimal(value)) <= slack, (token, value, scale)


def parse_printed_matrix(lines, rows, cols):
    """{(row, col): (token, scale)} from a 2-D print, read from its printed structure alone."""
    found, blocks, current = {}, [], []
    for line in lines:
        if line == "":
            blocks.append(current)
            current = []
        else:
            current.append(line)
    blocks.append(current)
    for block in blocks:
        header = re.match(r"Columns (\d+) to (\d+)", block[0])
        first, last = (int(header[1]) - 1, int(header[2])) if header else (0, cols)
        if header:
            block = [block[0][header.end():]] + block[1:]
        scale = 1.0
        if block[0].endswith(" *"):
            scale, block = float(block[0][:-2]), block[1:]
        assert len(block) == rows
        for r, line in enumerate(block):
            tokens = line.split()
            assert len(tokens) == last - first
            for c, token in zip(range(first, last), tokens):
                found[(r, c)] = (token, scale)
    assert len(found) == rows * cols
    return found


@settings(max_examples=300, deadline=None)
@given(any_tensor(allow_subnormal=False, min_dims=1, max_dims=1))
def test_1d_values_parse_back_and_share_one_width(values):
    lines = body_of(values, type_word_for(values.dtype))
    scale = 1.0
    if lines and lines[0].endswith(" *"):
        scale, lines = float(lines[0][:-2]), lines[1:]
    assert len(lines) == values.size
    for token, value in zip(lines, values.astype(np.float64).tolist()):
        assert_token_matches(token.strip(), value, scale)
    if lines:  # a value only breaks the common width when it overflows it (no padding left)
        width = min(map(len, lines))
        assert all(len(line) == width or line[0] != " " for line in lines)


@settings(max_examples=300, deadline=None)
@given(any_tensor(allow_subnormal=False, min_dims=2, max_dims=2))
def test_2d_values_parse_back(values):
    lines = body_of(values, type_word_for(values.dtype))
    if values.size == 0:
        assert lines == []
        return
    found = parse_printed_matrix(lines, *values.shape)
    wide = values.astype(np.float64)
    for (r, c), (token, scale) in found.items():
        assert_token_matches(token, float(wide[r, c]), scale)


# ---------------------------------------------------------------------------------------------
# 4. Large tensors: only the shown part is formatted (timing lives in benchmarks, not here)


def test_million_element_vector_prints_30_values():
    values = np.random.default_rng(0).standard_normal(10**6).astype(np.float32)
    lines = format_tensor(values, "Float").split("\n")
    assert lines[0] == "torch_tensor" and lines[-2:] == [MARKER, "[ CPUFloatType{1000000} ]"]
    assert len(lines) == 33


def test_thousand_by_thousand_matrix_prints_30_lines():
    values = np.arange(10**6, dtype=np.float32).reshape(1000, 1000) / np.float32(7)
    lines = format_tensor(values, "Float").split("\n")
    assert len(lines) == 33 and lines[-2:] == [MARKER, "[ CPUFloatType{1000,1000} ]"]
    assert lines[1].startswith("Columns 1 to ")


def test_many_slices_print_only_what_is_shown():
    values = np.arange(10**6, dtype=np.int64).reshape(1000, 10, 100)
    lines = format_tensor(values, "Long", n=50).split("\n")
    assert len(lines) == 53 and lines[1] == "(1,.,.) = "
    assert lines[-2:] == [MARKER, "[ CPULongType{1000,10,100} ]"]
