"""The roofline chart's layers: each owns its pyqtgraph items and draws them from the scene
(``core.chart_scene.ChartScene``) alone; ``RooflinePlot`` only composes them."""
