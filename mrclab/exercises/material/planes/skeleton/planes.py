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
    # TODO 1: planes in turn: start at next_plane and go round (next_plane,
    #         next_plane + 1, ..., wrapping after nplanes - 1), every plane once.
    order = list(range(nplanes))
    # TODO 2: leave out the planes not in `trusted` (None: keep them all).
    return order


def plane_suspect(lost_sent: float, acked_sent: float) -> bool:
    """Is a plane suspect, whose latest packet declared lost was sent at `lost_sent` and
    latest packet delivered at `acked_sent` (-1: none yet)?"""
    # TODO 3: suspect when the plane lost a packet sent after the latest one it
    #         delivered -- not for any loss ever: a later delivery clears it.
    return False


def trusted_planes(suspect: list[bool]) -> frozenset[int] | None:
    """The planes to send on, given which are suspect (`suspect[p]` for plane p); None when
    any will do."""
    # TODO 4: the planes not suspect; but None when every plane is suspect, or none is
    #         (there is nothing to prefer then, and every plane must stay in use).
    return None
