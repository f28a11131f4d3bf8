"""Cases for ``test_vmap_forward.py`` and its recorder (``record_vmap_forward.py``): forward
mode under vmap reuses the function suite of ``_func_suite.py``; type promotion of a batched
0-d example is a small table written once for both libraries (``ns`` gives dtypes and
constructors)."""
from __future__ import annotations

import numpy as np

from _func_suite import BATCH

BATCH_TANGENTS = np.random.default_rng(351).standard_normal(BATCH.shape)


def promotion_cases(ns):
    """name -> (examples (the batch, mapped over dim 0), f). The examples are 0-d unless the
    name says otherwise; ``other`` is a captured (not batched) tensor."""
    f32, f64, i64, i32, f16 = ns.float32, ns.float64, ns.int64, ns.int32, ns.float16
    ones, tensor = ns.ones, ns.tensor
    return {
        "f32_vector_add_i64_0d": (ones(4, 3, dtype=f32), lambda a: a + tensor(1, dtype=i64)),
        "f32_add_i64_0d": (ones(4, dtype=f32), lambda a: a + tensor(1, dtype=i64)),
        "f64_add_f32_vector": (ones(4, dtype=f64) * 1.1, lambda a: a + ones(3, dtype=f32)),
        "f64_mul_f32_0d": (ones(4, dtype=f64) * 1.1, lambda a: a * tensor(2.0, dtype=f32)),
        "i64_add_f32_vector": (ones(4, dtype=i64), lambda a: a + ones(3, dtype=f32)),
        "f64_vector_add_f32_vector": (ones(4, 2, dtype=f64), lambda a: a + ones(2, dtype=f32)),
        "f32_vector_add_f64_0d": (ones(4, 2, dtype=f32), lambda a: a + tensor(1.5, dtype=f64)),
        "i32_add_i64_vector": (ones(4, dtype=i32), lambda a: a + ones(2, dtype=i64)),
        "f16_add_f32_vector": (ones(4, dtype=f16), lambda a: a + ones(2, dtype=f32)),
        "f64_add_number": (ones(4, dtype=f64), lambda a: a + 2.5),
        "i64_add_number": (ones(4, dtype=i64), lambda a: a + 2.5),
        "f64_sub_from_f32_vector": (ones(4, dtype=f64) * 1.1, lambda a: ones(2, dtype=f32) - a),
        "f64_maximum_f32_vector": (ones(4, dtype=f64) * 1.1,
                                   lambda a: ns.maximum(a, ones(2, dtype=f32))),
        "f64_div_f32_vector": (ones(4, dtype=f64) * 1.1, lambda a: ones(2, dtype=f32) / a),
        "i64_pow_f32_vector": (ones(4, dtype=i64) * 2, lambda a: ones(2, dtype=f32).pow(a)),
        # PyTorch's rules for where and clamp promote the example as a dimensioned tensor
        "f64_where_f32_vector": (ones(4, dtype=f64) * 1.1,
                                 lambda a: ns.where(ones(2, dtype=f32) > 0, a,
                                                    ones(2, dtype=f32))),
        "f64_clamp_min_of_f32_vector": (ones(4, dtype=f64) * 1.1,
                                        lambda a: ns.clamp(ones(2, dtype=f32), min=a)),
        "f64_addcmul_f32_vectors": (ones(4, dtype=f64) * 1.1,
                                    lambda a: ns.addcmul(ones(2, dtype=f32), a,
                                                         ones(2, dtype=f32))),
        # ops that keep one operand's dtype
        "f32_vector_type_as_f64": (ones(4, dtype=f64) * 1.1,
                                   lambda a: ones(2, dtype=f32).type_as(a)),
        "i64_masked_fill_f32_0d": (ones(4, dtype=i64),
                                   lambda a: a.masked_fill(tensor(True), tensor(2.5,
                                                                               dtype=f32))),
        "f32_vector_masked_fill_f64": (ones(4, dtype=f64) * 1.1,
                                       lambda a: ones(2, dtype=f32).masked_fill(
                                           tensor([True, False]), a)),
    }
