"""MRC fabrics in Mininet.

- `topos`: Mininet Topo classes (FatTreeTopo, LeafSpineTopo, MultiPlaneTopo, and
  FabricTopo for any fabric model), usable with plain Mininet and `mn --custom`;
- `p4switch`: the Mininet switch node that runs p4emu or simple_switch_grpc;
- `network`: a started fabric (FabricNetwork): topology, host setup, link failures;
- `link_failure`: failing a link by dropping what its ends send (nftables) or admin-down;
- `traffic` and `reachability`: pings and transfers used by tests, demo and benchmark.

The topology specs, addressing and topology file are in fabric_model; the lab runner that
adds the controller is in lab.
"""
