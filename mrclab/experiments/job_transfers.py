"""A training job's transfers as the endpoint's host sees them, for both engines' drivers
(the simulator's `sim_engine.collective`, a lab rank's `lab_engine.rank_agent`): the nonce
that opens a transfer, which transfer a whole received message is, a finished sender's
totals, and what the job model starts next.

Connections are opened ahead of their data: when a rank starts transfers, the next
`window` of its sends (`CollectiveJob.upcoming`) are opened holding their data
(`MrcSender`'s `hold`), and released when the job starts them. So a ring step's slice goes
as soon as the slice it forwards has arrived, without a round trip to open its message
first, as NCCL's connections to a channel's peers exist before the collective does."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mrclab.endpoint.core.receiver import Message
from mrclab.endpoint.host import HostFlow
from mrclab.experiments.records import TransportTotals
from mrclab.fabric.training_job import CollectiveJob, transfer_nonce, transfer_of

# (transfer id, hold) -> the flow of the transfer, started on its sending rank's host
OpenTransfer = Callable[[int, bool], HostFlow]
# a held flow's data is ready: release it on its host (`EndpointHost.release`)
ReleaseFlow = Callable[[HostFlow], None]


class JobTransfers:
    def __init__(self, job: CollectiveJob, open_transfer: OpenTransfer,
                 release: ReleaseFlow) -> None:
        self.job = job
        self.count = len(job.schedule.transfers)
        self.totals: list[TransportTotals] = []  # per iteration, its senders' totals
        self._open, self._release = open_transfer, release
        self._tid: dict[int, int] = {}  # id(HostFlow) -> transfer id
        self._held: dict[int, HostFlow] = {}  # transfer id -> its flow, opened ahead

    def new_iteration(self) -> None:
        self.totals.append(TransportTotals())
        self._held.clear()  # a stalled iteration's: never released

    def nonce(self, tid: int) -> int:
        """The nonce that opens transfer `tid` of the iteration running."""
        return transfer_nonce(self.job.current.index, tid, self.count)

    def start(self, tids: list[int]) -> None:
        """Send transfers `tids` (the job's answer to an event) now, then open ahead the
        next sends of the ranks that sent them."""
        for tid in tids:
            flow = self._held.pop(tid, None)
            if flow is None:
                self._tid[id(self._open(tid, False))] = tid
            else:
                self._release(flow)
        self.open_ahead({self.job.schedule.transfers[tid].src for tid in tids})

    def open_ahead(self, ranks: Iterable[int]) -> None:
        """Open the connections of the next `window` sends of each of `ranks` not opened
        yet, their data held until `start`."""
        for rank in ranks:
            for tid in self.job.upcoming(rank, self.job.spec.window):
                if tid not in self._held:
                    flow = self._held[tid] = self._open(tid, True)
                    self._tid[id(flow)] = tid

    def arrived(self, msg: Message, now: float) -> None:
        """A whole message: start the transfers it lets go (none for a corrupt message,
        whose sender resends or gives up)."""
        if msg.ok:
            self.released(*transfer_of(msg.nonce, self.count), now)

    def released(self, iteration: int, tid: int, now: float) -> None:
        """Transfer `tid` of `iteration` is here, or will never be (its sender gave up):
        start the transfers that wait for it; none when that iteration is not the one
        running."""
        if self.job.running and iteration == self.job.current.index:
            self.start(self.job.arrived(tid, now))

    def finished(self, flow: HostFlow, now: float) -> tuple[int, bool] | None:
        """A sender of the job's is done or gave up: (its transfer, whether it was
        acknowledged), after starting the transfers it lets go; None for a flow not the
        job's."""
        tid = self._tid.pop(id(flow), None)
        if tid is None:
            return None
        ok = flow.sender.done and not flow.sender.failed
        self.totals[-1].add(flow.sender.stats, ok)
        self.start(self.job.sent(tid, now, ok))
        return tid, ok
