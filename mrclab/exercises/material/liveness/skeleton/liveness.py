"""Exercise liveness: when the controller declares a fabric link down, and up again.

The controller sends one probe on every fabric link each round (every 50 ms in the lab,
100 µs in the simulator) and numbers them 1, 2, 3, ... per link. For each link it keeps one
`LinkVerdict` and calls, each round, `start_round()` (judge the probes sent so far) and
then `probe_sent()` for the round's new probe; whenever an answer comes back, `counts(seq)`
and, if it counts, `answer(seq)`. When `start_round()` says an up link is silent, the
controller declares it down and calls `went_down()` -- unless one of the link's switches has
not shown it works since (a stalled software switch is silent on all its links), in which
case it asks again next round. A link going down or up makes the controller recompute the
routes and rewrite the switches whose routes changed.

Answers may come late, out of order, twice, or for a probe this controller never sent (one
from before a restart). Only the numbers matter here; no clock is needed.
"""

from __future__ import annotations


class LinkVerdict:
    """One link's verdict from the sequence numbers of its probes and their answers."""

    def __init__(self, miss_limit: int = 3, up_after: int = 2, up: bool = True) -> None:
        self.miss_limit = miss_limit  # unanswered probes in a row that make a failure
        self.up_after = up_after  # answers in a row that bring a down link back
        self.up = up
        self.sent = 0  # the newest probe sent
        self.answered = 0  # the newest probe answered
        self.answers_in_a_row = 0  # while down: answers since the last unanswered probe

    def probe_sent(self) -> int:
        """A new probe goes out: its sequence number."""
        self.sent += 1
        return self.sent

    def counts(self, seq: int) -> bool:
        """Whether an answer to probe `seq` says anything new."""
        # TODO 1: only an answer to a probe that was sent (seq <= self.sent) and is newer
        #         than the newest answered one counts. A duplicate, or an older probe's
        #         answer arriving late, says nothing new; a number never sent is not an
        #         answer to this controller's probe.
        return True

    def answer(self, seq: int) -> bool:
        """A counted answer to probe `seq`; True when it brings the link back up now."""
        self.answered = seq
        # TODO 4: an up link just stays up (False). A down link comes back after
        #         `up_after` answers in a row: count this one in self.answers_in_a_row,
        #         and when the count reaches up_after set self.up and return True -- once.
        return False

    def start_round(self) -> bool:
        """The round is over (before its new probe goes out): True when the link should be
        declared down."""
        # TODO 2: an up link is silent (return True) when its last `miss_limit` probes all
        #         went unanswered. Count them from the newest answered probe, not from the
        #         answers that came this round: a late answer to probe n still shows the
        #         link worked when n crossed it. A link already down is not declared again.
        # TODO 3: a down link whose newest probe went unanswered starts counting its answers
        #         towards `up_after` again from 0: a flapping link that answers every other
        #         probe must stay down.
        return False

    def went_down(self) -> None:
        """The controller declared the link down: from now on answers count towards up."""
        self.up = False
        self.answers_in_a_row = 0
