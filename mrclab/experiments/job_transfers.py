"""A training job's transfers as the endpoint's host sees them, for both engines' drivers
(the simulator's `sim_engine.collective`, a lab rank's `lab_engine.rank_agent`): the nonce
that opens a transfer, which transfer a whole received message is, a finished sender's
totals, and what the job model starts next."""

from __future__ import annotations

from mrclab.endpoint.core.receiver import Message
from mrclab.endpoint.host import HostFlow
from mrclab.experiments.records import TransportTotals
from mrclab.fabric.training_job import CollectiveJob, transfer_nonce, transfer_of


class JobTransfers:
    def __init__(self, job: CollectiveJob) -> None:
        self.job = job
        self.count = len(job.schedule.transfers)
        self.totals: list[TransportTotals] = []  # per iteration, its senders' totals
        self._tid: dict[int, int] = {}  # id(HostFlow) -> transfer id

    def new_iteration(self) -> None:
        self.totals.append(TransportTotals())

    def nonce(self, tid: int) -> int:
        """The nonce that opens transfer `tid` of the iteration running."""
        return transfer_nonce(self.job.current.index, tid, self.count)

    def started(self, flow: HostFlow, tid: int) -> None:
        self._tid[id(flow)] = tid

    def arrived(self, msg: Message, now: float) -> list[int]:
        """A whole message: the transfers that start now (none for a corrupt message, whose
        sender resends or gives up)."""
        return self.released(*transfer_of(msg.nonce, self.count), now) if msg.ok else []

    def released(self, iteration: int, tid: int, now: float) -> list[int]:
        """Transfer `tid` of `iteration` is here, or will never be (its sender gave up): the
        transfers that start now; none when that iteration is not the one running."""
        if not self.job.running or iteration != self.job.current.index:
            return []
        return self.job.arrived(tid, now)

    def finished(self, flow: HostFlow, now: float) -> tuple[int, bool, list[int]] | None:
        """A sender of the job's is done or gave up: (its transfer, whether it was
        acknowledged, the transfers that start now); None for a flow not the job's."""
        tid = self._tid.pop(id(flow), None)
        if tid is None:
            return None
        ok = flow.sender.done and not flow.sender.failed
        self.totals[-1].add(flow.sender.stats, ok)
        return tid, ok, self.job.sent(tid, now, ok)
