"""Exercise planes: how the MRC sender spreads packets over planes and leaves a failed one.

A multi-plane host has one NIC per plane; each plane is a fabric of its own, with its own
switches, and the sender keeps 64 EVs per plane. The pool (mrclab/endpoint/core/ev_pool.py) asks
these three functions for every packet it sends (a packet on a recycled EV -- one whose ACK
just came back clean -- is filtered by `trusted_planes` alone):

    trusted = trusted_planes([plane_suspect(lost, acked) for each plane])
    for plane in plane_order(next_plane, nplanes, trusted):
        pick the plane's next usable EV; stop at the first plane that has one

and then moves its turn on to the plane after the one it picked. A plane with no usable EV
left (all retired) is passed over by the pool itself.
"""

from __future__ import annotations


def plane_order(next_plane: int, nplanes: int, trusted: frozenset[int] | None) -> list[int]:
    """The planes to try for the next packet, first choice first. `next_plane`: the plane
    whose turn it is; `trusted`: the planes to use, None when any will do."""
    # planes in turn: each plane gets every nplanes-th packet, as many as the others
    order = [(next_plane + i) % nplanes for i in range(nplanes)]
    # a suspect plane gets nothing while another plane can take the packet
    return [p for p in order if trusted is None or p in trusted]


def plane_suspect(lost_sent: float, acked_sent: float) -> bool:
    """Is a plane suspect, whose latest packet declared lost was sent at `lost_sent` and
    latest packet delivered at `acked_sent` (-1: none yet)?"""
    # a loss with nothing delivered that was sent after it: the plane's shared switches may
    # be dead; a later delivery shows the plane works and the loss was its path's alone
    return lost_sent > acked_sent


def trusted_planes(suspect: list[bool]) -> frozenset[int] | None:
    """The planes to send on, given which are suspect (`suspect[p]` for plane p); None when
    any will do."""
    ok = frozenset(p for p, bad in enumerate(suspect) if not bad)
    # with every plane suspect (or none) there is nothing to prefer
    return ok if 0 < len(ok) < len(suspect) else None
