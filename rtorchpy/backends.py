"""Devices: rtorchpy computes on the CPU only, so the accelerator checks say no (as R torch's
``cuda_is_available()`` does on a machine without CUDA), and code that picks a device with
``"cuda" if cuda_is_available() else "cpu"`` picks the CPU."""
from __future__ import annotations

__all__ = ["cuda_is_available", "cuda_device_count", "backends_mps_is_available"]


def cuda_is_available():
    """False: rtorchpy has no CUDA backend."""
    return False


def cuda_device_count():
    """0: rtorchpy has no CUDA backend."""
    return 0


def backends_mps_is_available():
    """False: rtorchpy has no MPS backend."""
    return False
