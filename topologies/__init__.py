"""Mininet fabrics for MRC Lab.

Topology specs (`topologies.spec.parse_spec`):
  fattree:k=4                              k even; k^3/4 hosts, 5k^2/4 switches
  leafspine:leaves=4,spines=2,hosts=2      hosts = hosts per leaf
  multiplane:planes=2,base=fattree:k=4     P copies of the base fabric; one NIC per plane
  + bw=<Mbit/s>,delay=<1ms>,loss=<percent> on fattree / leafspine (applies to every link)

Addressing: host NIC on plane P in group G (fat-tree pod, leaf-spine leaf) with index H
(1-based within the group) gets 10.P.G.H and MAC 02:00:0a:PP:GG:HH; the prefix is /8 for a
single plane, /16 per plane otherwise. NIC n of a host is `<host>-eth<n>` on plane n.
Every host has static ARP entries for every other host of its planes.

Modules: model (pure data), generators, spec, topology_file (build/topology.json),
p4switch (Mininet node for p4emu / simple_switch_grpc), network (Mininet builder),
target (target choice + compile), cleanup (leftovers of crashed runs), lab (fabric +
controller process), lab_cli (Mininet CLI commands), cli (`mrclab`), traffic and
reachability (checks used by tests, demo and benchmark).
"""
