"""Layer 4: the memoized (longitudinal) mechanisms: a permanent response drawn once per
device and value, then an instantaneous one per report.

Longitudinal GRR and UE (L-GRR, L-OUE), dBitFlip, and full RAPPOR with its server side.
"""
