"""Pooling layers: ``nn_max_pool*``, ``nn_avg_pool*``, ``nn_adaptive_avg_pool*``,
``nn_adaptive_max_pool*`` and ``nn_max_unpool*`` (1d, 2d, 3d), thin modules over the
``nnf_*`` functions of ``ops/pool.py`` and ``ops/pool_adaptive.py``."""
from __future__ import annotations

from typing import Any

from ..ops import fold, interpolate, pool, pool_adaptive, pool_fractional
from ..ops import nnf_composite as composite
from .module import nn_module

__all__ = [f"nn_{kind}{k}d" for kind in ("max_pool", "avg_pool", "adaptive_avg_pool",
                                         "adaptive_max_pool", "max_unpool") for k in (1, 2, 3)]


class _MaxPool(nn_module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else \
            kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices)


class _AvgPool(nn_module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else \
            kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        args = (input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                self.count_include_pad)
        if self.divisor_override is not None:
            args += (self.divisor_override,)
        return type(self)._fn(*args)


class _AdaptiveAvg(nn_module):
    _fn = None

    def __init__(self, output_size):
        self.output_size = output_size

    def forward(self, input):
        return type(self)._fn(input, self.output_size)


class _AdaptiveMax(nn_module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)


class _FractionalMax(nn_module):
    _fn: Any = None  # (each subclass's nnf_ function, as a staticmethod)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, "
                             "or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        ratios = () if output_ratio is None else (
            [output_ratio] if isinstance(output_ratio, (int, float)) else list(output_ratio))
        if any(not 0 < float(r) < 1 for r in ratios):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, \
            output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio,
                              self.return_indices, self._random_samples)


class nn_fractional_max_pool2d(_FractionalMax):
    """Fractional max pooling of (N, C, H, W) to ``output_size`` or ``output_ratio`` times the
    input's size, windows of ``kernel_size`` placed by fresh random samples at each call
    (``_random_samples``: fixed ones)."""
    _fn = staticmethod(pool_fractional.nnf_fractional_max_pool2d)


class nn_fractional_max_pool3d(_FractionalMax):
    """Fractional max pooling of (N, C, T, H, W); see ``nn_fractional_max_pool2d``."""
    _fn = staticmethod(pool_fractional.nnf_fractional_max_pool3d)


__all__ += ["nn_fractional_max_pool2d", "nn_fractional_max_pool3d"]


class _MaxUnpool(nn_module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else \
            kernel_size
        self.padding = padding

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


def _make(base, name, fn, doc):
    cls = type(name, (base,), {"_fn": staticmethod(fn), "__doc__": doc,
                               "__module__": __name__})
    globals()[name] = cls


for _k in (1, 2, 3):
    _make(_MaxPool, f"nn_max_pool{_k}d", getattr(pool, f"nnf_max_pool{_k}d"),
          f"{_k}-d max pooling layer (``nnf_max_pool{_k}d``); ``stride`` defaults to "
          "``kernel_size``.")
    _make(_AvgPool, f"nn_avg_pool{_k}d", getattr(pool, f"nnf_avg_pool{_k}d"),
          f"{_k}-d average pooling layer (``nnf_avg_pool{_k}d``).")
    _make(_AdaptiveAvg, f"nn_adaptive_avg_pool{_k}d",
          getattr(pool_adaptive, f"nnf_adaptive_avg_pool{_k}d"),
          f"{_k}-d adaptive average pooling to ``output_size``.")
    _make(_AdaptiveMax, f"nn_adaptive_max_pool{_k}d",
          getattr(pool_adaptive, f"nnf_adaptive_max_pool{_k}d"),
          f"{_k}-d adaptive max pooling to ``output_size``.")
    _make(_MaxUnpool, f"nn_max_unpool{_k}d", getattr(pool_adaptive, f"nnf_max_unpool{_k}d"),
          f"The inverse of ``nn_max_pool{_k}d``: ``forward(input, indices, output_size)``.")


class nn_upsample(nn_module):
    """Resizes its input by ``size`` or ``scale_factor`` (``nnf_interpolate``), in ``mode``
    nearest, linear, bilinear, bicubic or trilinear."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None):
        self.size, self.scale_factor = size, scale_factor
        self.mode, self.align_corners = mode, align_corners

    def forward(self, input):
        return interpolate.nnf_interpolate(input, self.size, self.scale_factor, self.mode,
                                           self.align_corners)


__all__ += ["nn_upsample"]


class _Wrap(nn_module):
    """A module calling one function with the arguments it was made with."""
    _fn = None
    _names = ()

    def __init__(self, *args, **kwargs):
        for name, value in zip(self._names, args):
            setattr(self, name, value)
        for name, value in kwargs.items():
            if name not in self._names:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument "
                                f"'{name}'")
            setattr(self, name, value)

    def forward(self, input):
        return type(self)._fn(input, **{n: getattr(self, n) for n in self._names
                                        if hasattr(self, n)})


def _wrap(name, fn, names, doc):
    cls = type(name, (_Wrap,), {"_fn": staticmethod(fn), "_names": names, "__doc__": doc,
                                "__module__": __name__})
    globals()[name] = cls
    __all__.append(name)


_wrap("nn_lp_pool1d", composite.nnf_lp_pool1d, ("norm_type", "kernel_size", "stride",
                                                 "ceil_mode"),
      "Power-average pooling of (N, C, L) inputs (``nnf_lp_pool1d``).")
_wrap("nn_lp_pool2d", composite.nnf_lp_pool2d, ("norm_type", "kernel_size", "stride",
                                                 "ceil_mode"),
      "Power-average pooling of (N, C, H, W) inputs (``nnf_lp_pool2d``).")
_wrap("nn_local_response_norm", composite.nnf_local_response_norm,
      ("size", "alpha", "beta", "k"), "Local response normalization over channels.")
_wrap("nn_pixel_shuffle", fold.nnf_pixel_shuffle, ("upscale_factor",),
      "Rearranges (*, C r^2, H, W) into (*, C, H r, W r).")
_wrap("nn_pixel_unshuffle", fold.nnf_pixel_unshuffle, ("downscale_factor",),
      "Rearranges (*, C, H r, W r) into (*, C r^2, H, W).")
_wrap("nn_unfold", fold.nnf_unfold, ("kernel_size", "dilation", "padding", "stride"),
      "Extracts sliding blocks as columns (``nnf_unfold``).")
_wrap("nn_fold", fold.nnf_fold, ("output_size", "kernel_size", "dilation", "padding",
                                 "stride"),
      "Sums columns back into an image (``nnf_fold``).")
