"""The verdict rule of link liveness: when one fabric link's probes say it is down, and
when they say it is up again.

The controller sends one probe on every fabric link each round (every 50 ms in the lab,
100 µs in the simulator) and numbers them 1, 2, 3, ... per link. For each link it keeps one
`LinkVerdict` and calls, each round, `start_round()` (judge the probes sent so far) and
then `probe_sent()` for the round's new probe; whenever an answer comes back, `counts(seq)`
and, if it counts, `answer(seq)`. When `start_round()` says an up link is silent, the
controller declares it down and calls `went_down()` -- unless one of the link's switches has
not shown it works since (a stalled software switch is silent on all its links; see
`mrclab.controller.probe_liveness`), in which case it asks again next round.

Answers may come late, out of order, twice, or for a probe this controller never sent (one
from before a restart). Silence is measured from the newest probe answered, so a late answer
still shows that the link worked when that probe crossed it.
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
        """Whether an answer to probe `seq` says anything new: a probe that was sent and is
        newer than the newest answered (a duplicate or an older probe's late answer says
        nothing new; a number never sent is not an answer to this controller's probe)."""
        return self.answered < seq <= self.sent

    def answer(self, seq: int) -> bool:
        """A counted answer to probe `seq`; True when it brings the link back up now."""
        self.answered = seq
        if self.up:
            return False
        self.answers_in_a_row += 1
        if self.answers_in_a_row >= self.up_after:
            self.up = True
            return True
        return False

    def start_round(self) -> bool:
        """The round is over (before its new probe goes out): True when the link is up and
        its last `miss_limit` probes all went unanswered."""
        missed = self.sent - self.answered
        if not self.up and missed >= 1:
            # a down link must answer `up_after` probes in a row: a miss starts over
            self.answers_in_a_row = 0
        return self.up and missed >= self.miss_limit

    def went_down(self) -> None:
        """The controller declared the link down: from now on answers count towards up."""
        self.up = False
        self.answers_in_a_row = 0
