"""Protocol experiments (`mrclab experiment`): definitions, metrics, plots and reports.

Pure modules (no Mininet): config, plans, metrics, validity, flowstats, progress, report,
plots and the experiment definitions (permutation, incast, failure, planes, signals: each
`setup`, `traffic`, `analyse`, `tables`, `figures`, `goals`, plus `run`, which drives a
`live.session.Session`). `live/` holds everything that touches the running lab.
"""
