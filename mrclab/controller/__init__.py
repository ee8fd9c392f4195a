"""MRC Lab fabric controller (`python -m mrclab.controller --topology build/topology.json`).

Pure logic: core (the decisions, sans I/O: events in, writes and records out; both engines
drive it), next_hops (routes from the topology graph), switch_state (desired state),
write_plan (diff -> ordered write phases), link_monitor and probe_liveness (probe frames
and link verdicts), p4rt_codec (SwitchState ops <-> P4Runtime entities). I/O: switch_session
(one P4Runtime stream per switch, all on one event loop), fabric (the lab's controller:
the core driven by those streams, threads and the wall clock), control_server (JSON lines
on a Unix socket). The simulator drives the same core on its event loop (mrclab.sim).
"""
