"""The roofline charts: the pyqtgraph items, one chart's drawing, the overlay and
side-by-side canvas, and their exports."""
