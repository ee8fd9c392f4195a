"""What an MRC sender is told (`SenderConfig`) and what it counts (`SenderStats`).

Kept apart from the state machine in `mrclab.endpoint.core.sender`, which imports both, so the
runner, the simulator and the CLI can build a configuration without reading the protocol.
`emulated_fabric_config` is the configuration all three use on the lab's fabrics.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SenderConfig:
    mss: int = 1432
    evs_per_plane: int = 64
    init_cwnd: float = 16.0
    # the receiver ACKs every packet, so one packet keeps the ACK clock; at 2, 15 incast
    # senders kept 30 packets at a port trimming above 8, and 70 % of DATA was trimmed.
    # Losses stop at 2 packets (congestion.DctcpWindow).
    min_cwnd: float = 1.0
    max_cwnd: float = 512.0
    min_rto: float = 0.002
    max_rto: float = 1.0
    initial_rto: float = 0.1
    idle_timeout: float = 10.0
    retire_after: int = 1
    max_probe_backoff: float = 0.5
    qmax_threshold: int = 0  # 0: `qmax` is recorded but never counts as a mark
    reorder_margin: float = 0.25
    seed: int = 1
    nonce: int | None = None  # connection-open nonce; None: drawn from `seed`
    # per plane, the `route` words (mrclab.endpoint.wire.route_word) of the paths to spray over
    # in turn; empty: EVs are hashed by the fabric (ev_pool.EvPool has the why)
    routes: tuple[tuple[int, ...], ...] = ()
    # DCTCP's alpha gain (congestion.DctcpWindow); None: the window's own, 1/4, fit for
    # the lab's ~6 packets in flight (a datacenter's BDP of tens of packets wants less)
    dctcp_gain: float | None = None
    # alpha's prior, averaged with the measured fractions from the first window on; None:
    # the window's conservative 1, replaced by the first window's fraction (the lab's)
    dctcp_init_alpha: float | None = None
    # the first window's ssthresh; None: slow start until the first mark (the lab's 16
    # packets grow to its BDP). A first window of a whole BDP has nothing to probe for.
    init_ssthresh: float | None = None
    # set aside the window's share of a plane left out (suspect) until it returns
    # (`congestion.PlaneShare`); the simulator's datacenter senders do
    window_follows_planes: bool = False
    # seconds of queueing below which the window grows in proportion (DctcpWindow's
    # proportional increase); None: additive increase only
    delay_target: float | None = None
    # seconds of queueing under which a whole window of ACKs counts as meeting no queue,
    # and the window then grows by a quarter per RTT (DctcpWindow's fast increase); None: off
    fast_delay: float | None = None
    # the window after a cut measures but does not cut (DctcpWindow.echo_window)
    echo_window: bool | None = None
    # after an RTO with nothing sent, a message's first DATA raises the connection's
    # window to a new connection's if below it (`connection.Connection.resume`); the
    # simulator's datacenter senders do
    resume_at_init_cwnd: bool = False
    # a marked ACK recycles its EV unless the marks steer it away (ev_pool.EvPool)
    recycle_marked: bool = False
    # after ~2 RTTs of silence, resend the oldest packet in flight on an EV none of the
    # silent packets is on (`MrcSender._tail_probe`); off: only the retransmission timer
    # acts on a silent window
    tail_probe: bool = True

    def window_settings(self) -> dict[str, float | bool]:
        """The window's keyword arguments beyond cwnd and its bounds: only those set, so a
        window class with the original signature (the congestion exercise's) still fits."""
        settings: dict[str, float | bool | None] = {
            "gain": self.dctcp_gain, "ssthresh": self.init_ssthresh,
            "alpha": self.dctcp_init_alpha, "delay_target": self.delay_target,
            "fast_delay": self.fast_delay, "echo_window": self.echo_window}
        out: dict[str, float | bool] = {k: v for k, v in settings.items() if v is not None}
        if "alpha" in out:
            out["alpha_measured"] = True  # a prior to average with, not to replace
        return out


@dataclass(slots=True)
class SenderStats:
    data_sent: int = 0
    bytes_sent: int = 0
    retransmits: int = 0
    nack_retransmits: int = 0
    loss_retransmits: int = 0
    timeouts: int = 0
    tail_probes: int = 0  # packets resent after a silence to draw an ACK (`_tail_probe`)
    acks: int = 0
    nacks: int = 0
    ecn_echoes: int = 0
    stale_acks: int = 0
    ignored: int = 0
    opens_sent: int = 0
    probes_sent: int = 0
    probe_replies: int = 0
    max_qmax: int = 0
    max_loss_recovery: float = 0.0
    losses_by_reorder: int = 0
    losses_by_timeout: int = 0
    spurious_retransmits: int = 0  # inferred losses later seen delivered (Eifel or duplicate)
    # losses not held against their EV: it (or its source route) delivered later packets,
    # or one timeout lost packets of several source routes
    losses_not_blamed: int = 0
    evs_unretired: int = 0  # retirements undone because their loss was spurious
    timeouts_undone: int = 0  # window cuts of timeouts shown spurious, undone (Eifel)
    # timeouts every packet of which arrived after all (late, trimmed, or overtaken by its
    # resent copy on another EV): they recovered no loss. Not always undone: a resent copy acked
    # first keeps the cut (`DctcpWindow.confirm_timeout`).
    timeouts_spurious: int = 0
    window_plane_refits: int = 0  # window shares set aside or given back (planes left, returned)


# Fit for the emulated fabrics this lab runs on: 20 pure-Python switches and the hosts share
# two cores, so every so often all of them wait for a CPU and no ACK moves for 50-150 ms
# (srtt ~7 ms, p99 RTT 25-40 ms, up to 120 ms under load). The RTO follows the recent RTT
# peak, but a stall longer than any seen so far would still fire it on packets that are
# only late. Losses are found by RACK (later ACKs) well before this; the floor delays only
# tail losses and blackouts. Real hardware wants a lower floor.
EMULATED_MIN_RTO = 0.1
EMULATED_MAX_CWND = 256.0


def emulated_fabric_config(min_rto: float = EMULATED_MIN_RTO, **settings) -> SenderConfig:
    """A `SenderConfig` for an emulated fabric (the endpoint CLI, the experiments' agent,
    the simulated permutation): the RTO floor `min_rto` with a ceiling of at least 1 s, a
    window of at most `EMULATED_MAX_CWND` unless `settings` say otherwise."""
    settings.setdefault("max_cwnd", EMULATED_MAX_CWND)
    return SenderConfig(min_rto=min_rto, max_rto=max(1.0, min_rto), **settings)
