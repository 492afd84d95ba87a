"""Workloads: whole models as the user sizes them, one widget a module.

- :mod:`.panel`: the Workloads dock (:class:`~.panel.WorkloadsPanel`);
- :mod:`.fields`: a workload's fields, shared by the dock and the dialog;
- :mod:`.dialog`: New Workload (:class:`~.dialog.WorkloadDialog`);
- :mod:`.charts`: the breakdown, memory, sweep and scaling charts (:class:`~.charts.WorkloadCharts`);
- :mod:`.formulas`: a workload's entries and formulas as HTML.
"""
