"""MRC Lab fabric controller (`python -m controller --topology build/topology.json`).

Pure logic: routes (next hops from the topology graph), switch_state (desired state),
reconcile (diff → ordered write phases), link_monitor (probe bookkeeping), p4rt_codec
(SwitchState ops ↔ P4Runtime entities). I/O: session (one P4Runtime stream per switch),
fabric (the controller), control_server / control_client (JSON lines on a Unix socket).
"""
