"""The lab runner: a fabric in Mininet with its controller process.

- `lab`: `Lab` brings up the Mininet network (topologies), compiles and starts the
  switches, starts the controller and talks to it over its control socket;
- `target`: p4emu or BMv2, and compiling the program for it;
- `mininet_cli`: the fabric commands of the lab's Mininet CLI (link_down, spray, ...);
- `cli` and `demo`: `mrclab run | demo | shell | trace`;
- `shell`: p4runtime-shell as a backup client of a running lab's switch;
- `cleanup`: removes what a run created, by the names and pids it recorded.
"""
