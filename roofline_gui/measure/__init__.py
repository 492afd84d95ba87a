"""Measuring this computer (no Qt): memory bandwidth per level, peak compute per precision, and
the timing of kernels that run through numpy. Results become a Chip with its method and spread
in its notes and sources."""
