"""The fabric model: what the controller, the lab, the simulator and the tools share about a
fabric (pure; no Mininet, no I/O).

- `model`: switches, hosts, NICs and links of one fabric (`Fabric`);
- `generators` and `spec`: fat-tree, leaf-spine and multi-plane fabrics from a spec string
  such as `fattree:k=4`;
- `topology_file`: build/topology.json, which the lab writes and the controller reads;
- `spray`: the spray modes and their values in mrclab/p4src/mrc.p4;
- `traffic`: who sends to whom (permutations, incasts);
- `reconvergence`: the record of one reroute, as both engines report it.

The controller's client API is `mrclab.control`; files and processes are `mrclab.places`
and `mrclab.processes`.

Addressing: host NIC on plane P in group G (fat-tree pod, leaf-spine leaf) with index H
(1-based within the group) gets 10.P.G.H and MAC 02:00:0a:PP:GG:HH; the prefix is /8 for a
single plane, /16 per plane otherwise. NIC n of a host is `<host>-eth<n>` on plane n.
"""
