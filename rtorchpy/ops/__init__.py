"""The ops layer: every op's forward, registered once in the op registry (``registry.py``), which
makes its function form ``torch_<name>`` and its method form ``x.<name>()``.

Importing this package registers every op, and gives the autograd layer the recorded namespace
its formulas use under ``create_graph`` (``formula_tensors.py``).
"""
from . import (arith, creation, elementwise, formula_tensors, index, inplace, linalg,  # noqa: F401
               linalg_decomp, linalg_norm, linalg_solve, matrix, new_tensors, nnf, reduce,
               rnn, sampling, selection, shape, sorting, special, unflatten)
from . import legacy, everyday, composites  # noqa: F401,E402  (R torch's older names; then composites)
from . import legacy_lu  # noqa: F401,E402
from . import seq_extras, fft  # noqa: F401,E402  (issue 33's ops around sequences, FFT)
from .registry import OPS  # noqa: F401
