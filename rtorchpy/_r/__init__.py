"""Python-side glue for the R package ``rtorchpy`` (``r-shim/``). Not a public API.

The R package imports this module and calls into it through reticulate, once per operation, and
never relies on reticulate's array conversion (reticulate 1.28 cannot convert NumPy 2 arrays, and
passing a classed R object costs an R-level dispatch). So the protocol between the two sides uses
only values reticulate converts cheaply in C++:

* **Handles.** Every Python object the R side holds (tensors, nodes, hooks, contexts, custom
  functions) lives in :data:`_OBJECTS` under an integer key. R sees the key as a *complex* number
  ``key + MAGIC*1i``: R keeps every handle with exactly that imaginary part, and a complex
  argument with another one is an R complex number, refused (rtorchpy has no complex dtype), so
  any argument can carry a tensor. Keys are sparse (a random start and step each session,
  below 2^53), so a complex number a user types with that imaginary part names no object and is
  refused as well. Key 0 is the undefined tensor (Python ``None``).
* **R's NA.** reticulate sends ``NA_integer_`` as -2^31, a value R's integers never take; the R
  side sends a logical NA and ``NA_character_`` the same way (reticulate would make them
  ``True`` and ``"NA"``), and every caller here refuses it naming the argument
  (:data:`handles.R_NA_INT`). The C crossing never passes an NA (it leaves such calls to
  reticulate). R frees a
  key with :func:`release` when the R object holding it is garbage collected. A handle Python
  returns may carry flags in its imaginary part (:data:`FLAG_GC`, :data:`FLAG_WARN`).
* **Results.** A tensor comes back as its handle; anything else as a tagged Python list (lists
  cross to R much faster than tuples with reticulate 1.28), which R receives as a list:
  ``("v", value)`` a plain R value, ``("L", [...])`` a list (tensors, or ``None`` as the
  undefined tensor), ``("N", handle, name)`` a graph node, ``("D", name, word)`` a dtype.
  An error comes back as a dict, which R receives as a named list (the only reply with names),
  read by the names of its fields (:data:`protocol.ERROR_MESSAGE` and the others;
  :func:`errors.error_reply`): the message (dims already 1-based), the R condition class
  Python's exception maps to (R torch's ``value_error`` for a ``ValueError``, ...), and whether
  it is an R error raised in an R callback (R then re-raises the original condition).
* **R conventions** are applied here: 1-based dims (from the op registry's ``dim_args``) and
  index arguments, 1-based indices in results (``returns_index``), R's ``[`` rules, R torch's
  inclusive ``torch_arange``, values created from R vectors (column-major bytes, R dtypes).

``r-shim/tools/generate.py`` regenerates the R side's op wrappers from the
op registry; a test checks the committed file is current.
"""
from __future__ import annotations

from .callbacks import (call_function, ctx_mark, ctx_save, ctx_saved, dead_rvalues, gradcheck,
                        make_function, r_function, register_hook, remove_hook)
from .data import export_tensor, import_tensor, take_rows, tensor_epoch, tensor_epoch_next
from .direct import direct_setup
from .distributions import constraint_check, constraint_get, distr_call, distr_get, distr_new
from .errors import RCallbackError
from .handles import collected, release, revive, stats
from .index import index, set_index
from .protocol import TABLES
from .optim import (optim_add_param_group, optim_defaults, optim_groups, optim_load_state_dict,
                    optim_new, optim_repr, optim_set_dispatch, optim_set_groups,
                    optim_state_dict, optim_step, optim_zero_grad)
from .ops import (BINARY, UNARY, binary_callers, fn_caller, method_names, op_caller,
                  op_callers, unary_callers)
from .rnn import rnn_forward, rnn_pack_padded, rnn_pad_packed, rnn_pad_sequence
from .random import (generator_current_seed, generator_get_state, generator_new,
                     generator_set_current_seed, generator_set_state, rng_initial_seed,
                     rng_manual_seed)
from .serial import load, save
from .session import collect_warnings, live_counts, take_warnings, tune_gc
from .tensor import (arange, autograd_backward, autograd_grad, backward, get_attr, grad_mode,
                     node_next_functions, set_anomaly_mode, set_grad, set_grad_mode,
                     set_requires_grad, tensor_method)
from .values import format_tensor, from_r, item, to_r

_stash = None  # a reply r-shim/src/pycall.c does not convert, for R to fetch via reticulate




def c_callable(table, name):
    """The callable the C bridge caches for ``name`` in table number ``table``: the same object
    R reaches through reticulate for it, or None when there is none (R's general path then
    reports the error)."""
    kind = TABLES[table]
    try:
        if kind == "ops":
            return op_caller(name)
        if kind == "binary":
            return BINARY.get(name)
        if kind == "unary":
            return UNARY.get(name)
        if kind == "bridge":
            f = globals().get(name)
            return f if callable(f) and not name.startswith("_") else None
        return fn_caller(name)
    except (KeyError, AttributeError):
        return None


def call_kw(f, args, kwargs):
    """``f(*args, **kwargs)``: R's way to pass keyword arguments through reticulate's
    ``py_call`` (whose own first argument is named ``x``)."""
    return f(*(args or ()), **(kwargs or {}))


def take_stash():
    global _stash
    r, _stash = _stash, None
    return r
from .transforms import (dual_level, jvp_fn, make_dual, transform, unpack_dual,  # noqa: E402
                         vmap_fallback_ops)
from .nn_utils import weight_norm  # noqa: E402
