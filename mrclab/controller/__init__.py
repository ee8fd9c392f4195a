"""MRC Lab fabric controller (`python -m mrclab.controller --topology build/topology.json`).

Pure logic: next_hops (routes from the topology graph), switch_state (desired state),
write_plan (diff → ordered write phases), probe_liveness (probe frames and link verdicts),
p4rt_codec (SwitchState ops ↔ P4Runtime entities). I/O: switch_session (one P4Runtime
stream per switch, all on one event loop),
fabric (the controller), control_server / control_client (JSON lines on a Unix socket).
"""
