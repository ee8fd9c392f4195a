"""MRC fabrics in Mininet.

- `topos`: Mininet Topo classes (FatTreeTopo, LeafSpineTopo, MultiPlaneTopo, and
  FabricTopo for any fabric model), usable with plain Mininet and `mn --custom`;
- `p4switch`: the Mininet switch node that runs p4emu or simple_switch_grpc;
- `mtu`, `rates`, `queues`: interface MTUs, bits/s as BMv2 packets/s, egress queue settings
  (pure, no Mininet);
- `switch_cli`: runtime settings (port rates) of a running switch over its Thrift port;
- `local_ports`: whether a switch's port listens, reserving them from ephemeral use;
- `network`: a started fabric (FabricNetwork): topology, host setup, link failures;
- `link_failure`: failing a link by dropping what its ends send (nftables) or admin-down;
- `traffic` and `reachability`: pings and transfers used by tests, demo and benchmark.

The topology specs, addressing and topology file are in mrclab.fabric; the lab runner that
adds the controller is in lab.
"""
