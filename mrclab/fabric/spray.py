"""Spray modes: how a switch picks one of several equal-cost next hops.

The values are `set_spray_mode`'s `mode` argument in mrclab/p4src/mrc.p4:
- ecmp: hash of the 5-tuple (one path per flow);
- ev: hash of the 5-tuple and the MRC entropy value (the sender picks the path per packet);
- random: a random member per packet;
- source: the labels of the MRC header choose the port at every hop.
"""

SPRAY_MODES = {"ecmp": 0, "ev": 1, "random": 2, "source": 3}
SPRAY_NAMES = {v: k for k, v in SPRAY_MODES.items()}
