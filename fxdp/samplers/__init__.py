"""Layer 2: exact samplers (public wrappers).  Implementations live in
``reference`` (oracle), ``_kernels`` (Numba) and csrc/ (C)."""
