"""`p4emu switch`: a simple_switch_grpc-compatible process (P4Runtime, ports, queues)."""
