"""What the controller, the lab and the tools share about a fabric (pure; no Mininet).

- `model`: switches, hosts, NICs and links of one fabric (`Fabric`);
- `generators` and `spec`: fat-tree, leaf-spine and multi-plane fabrics from a spec string
  such as `fattree:k=4`;
- `topology_file`: build/topology.json, which the lab writes and the controller reads;
- `spray`: the spray modes and their values in p4src/mrc.p4;
- `control_protocol`: the controller's control socket (JSON lines), client side;
- `places`: the checkout, the build directory and the runtime directory (sockets, pids);
- `processes`: stopping a process group (SIGTERM, grace, SIGKILL).

Addressing: host NIC on plane P in group G (fat-tree pod, leaf-spine leaf) with index H
(1-based within the group) gets 10.P.G.H and MAC 02:00:0a:PP:GG:HH; the prefix is /8 for a
single plane, /16 per plane otherwise. NIC n of a host is `<host>-eth<n>` on plane n.
"""
