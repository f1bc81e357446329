"""Layer 3: exact samplers (public wrappers).  Implementations live in
``reference`` (oracle), ``_kernels`` (Numba) and csrc/ (C)."""
