"""`p4emu switch`: a simple_switch_grpc-compatible process (P4Runtime, ports, queues).

Entry points: `python -m p4emu switch ...` (`main.main`), `python -m p4emu fabric
--switch "..." ...` (`fabric_main.main`: many switches in one process), `python -m p4emu
cli ...` (`runtime_cli.main`). Parts, each usable alone:

- `options.parse_switch_args` - simple_switch_grpc's command line -> `SwitchOptions`
- `core.SwitchCore` - device id, CPU port, committed program, the data-plane lock
- `grpc_server.serve(core, loader, addr)` - the P4Runtime service: unary RPCs there,
  `stream_channel` (arbitration, PacketOut/PacketIn; `sessions.StreamSession` per stream)
  on the process's one asyncio loop, `rpc_loop.RpcLoop`
  (`program.ir_loader(cpu_port)` loads `p4emu compile -o` IR; `device_config` unwraps a
  p4.tmp.P4DeviceConfig and names a BMv2 JSON sent instead of IR)
- `entity_writes.EntityWriter` / `entity_reads.EntityReader` - P4Runtime entities <->
  `p4emu.runtime.DeviceState`, pure; `codec_tables`, `codec_entities`, `bytestrings`,
  `packet_io` - the protobuf translation and validation underneath
- `notifications.Notifier` - polled stream notifications (DigestList, idle timeouts)
- `reconcile_and_commit.replay_state` - RECONCILE_AND_COMMIT: carry entries into a new program
- `arbitration.Arbiter` - primary election, pure
- `queues.PortQueues` - the egress queue model, pure and clock-injected;
  `traffic_manager.TrafficManager` - one switch's data path around it;
  `dataplane_loop.DataplaneLoop` - the thread serving any number of them
- `instance.SwitchInstance` - one switch (all of the above) inside a process
- `ports.PortSet` (AF_PACKET), `port_oper_state.PortOperState`, `pcap.PortPcaps`
- `runtime_control.RuntimeControlServer` - simple_switch_CLI-style commands over TCP;
  `bmv2_cli` - simple_switch_CLI's stdin/stdout behaviour on top (the shim, `p4emu.shims`)
"""
