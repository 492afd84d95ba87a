"""The side panels: the hardware editor, the kernel library and the comparison table with its explanation."""
