"""Sweeps (`mrclab sweep`): many ordinary experiment runs over seeds and parameters, run by
Dask's `distributed` (an embedded LocalCluster, or a cluster by address), then aggregated
with confidence intervals (DESIGN.md, "Sweeps: Dask")."""
