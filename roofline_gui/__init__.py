"""Roofline Explorer: how fast can a kernel run on a chip, and what holds it back."""

__version__ = "0.1.0"
