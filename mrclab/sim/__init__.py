"""The virtual-time engine: the lab's own switches (p4emu's pipeline and traffic manager),
controller logic and endpoint, on one event loop, with no sockets and no Mininet.

    net = SimNetwork(parse_spec("fattree:k=4"), SimSettings())
    net.start()                       # programmed, probing
    net.run(until=0.01)

Figures depend only on the inputs and the seed (docs/architecture.md, "Engines").
"""

from mrclab.sim.network import SimNetwork, SimSettings

__all__ = ["SimNetwork", "SimSettings"]
