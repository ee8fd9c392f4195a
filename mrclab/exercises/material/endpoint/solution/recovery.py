"""Exercise endpoint: what the MRC sender does after a NACK and after a loss.

The sender (mrclab/endpoint/core/sender.py) calls these two functions; everything else -- ACK and
SACK processing, loss detection, congestion window, probing -- is the project's.

- A NACK says a switch trimmed the packet: its EV's path crosses a full queue. The sender
  queues the PSN for an immediate resend (ahead of new data) and asks resend_ev() for the
  EV to resend it on. The same EV is asked after an inferred loss.
- An inferred loss (SACK gap or timeout) on an EV that delivered nothing sent after the
  lost packet is evidence that the EV's path is broken. The sender calls on_loss(); when it
  returns True the EV is retired: no more data on it, and PROBEs test it later, with
  growing intervals, until a PROBE_REPLY puts it back into service.
"""

from __future__ import annotations

from collections.abc import Callable

from mrclab.endpoint.core.ev_pool import EvState

Choose = Callable[[float, EvState | None], EvState]


def resend_ev(choose: Choose, now: float, sent_on: EvState) -> EvState:
    """The EV for resending a PSN whose last transmission went on `sent_on`.

    `choose(now, avoid)` is the pool's normal per-packet choice (a recycled EV with a clean
    ACK, else round-robin over healthy EVs); it never returns `avoid` while another usable
    EV exists."""
    # the old EV crosses the full queue (or broken link): a resend there meets the same fate
    return choose(now, sent_on)


def on_loss(st: EvState, retire_after: int) -> bool:
    """Account for one lost packet sent on `st`; True when `st` must be retired now.

    An ACK on `st` resets st.losses_in_row to 0 (the pool does that)."""
    st.losses += 1
    st.losses_in_row += 1
    # a single loss may be a random drop; retire_after in a row with no ACK between is a path
    return st.usable and st.losses_in_row >= retire_after
