"""Inputs for the golden print transcripts, keyed by the R line (the transcripts:
r-shim/tests/testthat/fixtures/r-torch-print-golden.txt).

Each case holds the tensor's values as a NumPy array in row-major (C) order with the dtype the R
expression produces (R numeric -> float32, integer -> int64, logical -> bool), plus what the
R print adds: grad_fn name, requires_grad and n. Arithmetic that R torch does in float32 is done
in float32 here too, so the printed digits come from the same numbers. Remember R's matrix()
and array() fill column-major, and torch_arange(a, b) includes b.
"""
import numpy as np

F32, F64, I64 = np.float32, np.float64, np.int64


def case(values, dtype, type_word, *, grad_fn=None, requires_grad=False, n=30):
    array = None if values is None else np.asarray(values, dtype=dtype)
    return {"values": array, "type_word": type_word, "grad_fn_name": grad_fn,
            "requires_grad": requires_grad, "n": n}


def f32(values, **kw):
    return case(values, F32, "Float", **kw)


def arange32(a, b):  # torch_arange(a, b): inclusive of b, float32 for numeric a and b
    return np.arange(a, b + 1, dtype=F32)


_y = np.array([1, 2, 3], dtype=F32)
_s = F32(2)

CASES = {
    "torch_tensor(c(1, 2, 3))": f32([1, 2, 3]),
    "y <- torch_tensor(c(1, 2, 3), requires_grad = TRUE); y": f32([1, 2, 3], requires_grad=True),
    "torch_log(y)": f32(np.log(_y), grad_fn="LogBackward0"),
    "torch_tensor(1:3)": case([1, 2, 3], I64, "Long"),
    "torch_tensor(c(TRUE, FALSE))": case([True, False], np.bool_, "Bool"),
    "torch_tensor(c(1.5, 2.25), dtype = torch_float64())": case([1.5, 2.25], F64, "Double"),
    "torch_tensor(1, dtype = torch_long())": case([1], I64, "Long"),
    "torch_ones(2, 2)": f32(np.ones((2, 2))),
    "x <- torch_ones(2, 2, requires_grad = TRUE); x": f32(np.ones((2, 2)), requires_grad=True),
    "x$mean()": f32(np.ones((2, 2), F32).mean(), grad_fn="MeanBackward0"),
    "torch_tensor(c(1, 2, 3))$sum()": f32(_y.sum()),
    "torch_tensor(c(1, 2))$mean()": f32(np.array([1, 2], F32).mean()),
    "torch_tensor(0.1)$sum()": f32(F32(0.1)),
    "torch_tensor(2)$log()$sum()": f32(np.log(F32(2))),
    "torch_tensor(1:10)[1]   # 0-dim long": case(1, I64, "Long"),
    "(torch_tensor(c(1, 2)) > 0)$all()": case(True, np.bool_, "Bool"),
    "torch_tensor(0.1)": f32([0.1]),
    "torch_tensor(c(-0.5, 0.25))": f32([-0.5, 0.25]),
    "torch_tensor(c(1, -100))": f32([1, -100]),
    "torch_tensor(c(0.5, 123.25))": f32([0.5, 123.25]),
    "torch_tensor(c(12345.5))": f32([12345.5]),
    "torch_tensor(c(123456.5))": f32([123456.5]),
    "torch_tensor(c(1234567, 2345678.5))": f32([1234567, 2345678.5]),
    "torch_tensor(c(0.001, 0.002))": f32([0.001, 0.002]),
    "torch_tensor(c(0, 0.001))": f32([0, 0.001]),
    "torch_tensor(c(1e-5, 1, 100))": f32([1e-5, 1, 100]),
    "torch_tensor(c(123456.5, 1.5))": f32([123456.5, 1.5]),
    "torch_tensor(c(1e10, 1))": f32([1e10, 1]),
    "torch_tensor(1234567)": f32([1234567]),
    "torch_tensor(c(NaN, Inf, -Inf, 1))": f32([np.nan, np.inf, -np.inf, 1]),
    "torch_tensor(c(NaN, 1.5))": f32([np.nan, 1.5]),
    "torch_tensor(numeric(0))": f32(np.zeros(0)),
    "torch_linspace(0, 1, 5)": f32([0, 0.25, 0.5, 0.75, 1]),
    "torch_tensor(matrix(1:10, ncol = 5, byrow = TRUE))":
        case(np.arange(1, 11).reshape(2, 5), I64, "Long"),
    "torch_tensor(rbind(c(-1.1229, -0.1863, 2.2082), c(-0.6380, 0.4617, 0.2674)))":
        f32([[-1.1229, -0.1863, 2.2082], [-0.6380, 0.4617, 0.2674]]),
    "torch_tensor(rbind(c(1234567, 2345678.5), c(3.5e6, 4e6)))":
        f32([[1234567, 2345678.5], [3.5e6, 4e6]]),
    "torch_tensor(rbind(c(0.001, 0.002), c(0.003, 0.004)))": f32([[0.001, 0.002], [0.003, 0.004]]),
    # array() fills column-major: element [i,j,k] (1-based) is i + 2(j-1) + 4(k-1)
    "torch_tensor(array(1:8, dim = c(2, 2, 2)))":
        case(np.arange(1, 9).reshape((2, 2, 2), order="F"), I64, "Long"),
    "torch_arange(0, 7)$reshape(c(2, 2, 2)) / 3": f32(arange32(0, 7).reshape(2, 2, 2) / F32(3)),
    "torch_arange(0, 15)$reshape(c(2, 2, 2, 2))": f32(arange32(0, 15).reshape(2, 2, 2, 2)),
    "torch_arange(0, 59)$reshape(c(2, 30))": f32(arange32(0, 59).reshape(2, 30)),
    "torch_arange(0, 23)$reshape(c(2, 12)) / 7": f32(arange32(0, 23).reshape(2, 12) / F32(7)),
    "s <- torch_tensor(2, requires_grad = TRUE); 2 * s": f32([2 * _s], grad_fn="MulBackward0"),
    "s * 2": f32([_s * 2], grad_fn="MulBackward1"),
    "s + 1": f32([_s + 1], grad_fn="AddBackward1"),
    "s^2": f32([_s ** 2], grad_fn="PowBackward0"),
    "s[1]   # 0-dim select": f32(_s, grad_fn="SelectBackward0"),
    "2 * s$sum()   # numeric on the left becomes a length-1 1-D tensor":
        f32([2 * _s], grad_fn="MulBackward0"),
    "s$sum() * 2": f32(_s * 2, grad_fn="MulBackward1"),
    "torch_tensor(2)$grad  # or any leaf before backward: undefined tensor": f32(None),
    "torch_arange(0, 29)   # exactly 30 values -> marker printed although nothing is dropped":
        f32(arange32(0, 29)),
    "print(torch_arange(0, 9), n = 3)": f32(arange32(0, 9), n=3),
    "print(torch_arange(0, 9), n = 1)   # n = 1 never truncates": f32(arange32(0, 9), n=1),
}
