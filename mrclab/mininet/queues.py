"""Egress queue settings of every switch port, and the simple_switch_CLI commands that
apply them on BMv2 (p4emu takes them as flags, see `p4switch.switch_args`)."""

from __future__ import annotations

from dataclasses import dataclass

from mrclab.mininet.mtu import DEFAULT_MTU, check_mtu
from mrclab.mininet.rates import HEADER_PACKET_BYTES, bps_to_pps


@dataclass(frozen=True)
class QueueOptions:
    """Egress settings of every switch port (and the MTU of every fabric interface)."""

    priority_queues: int = 2
    depth: int | None = None  # packets
    # packets in the queues above priority 0 (trimmed headers, ACKs, NACKs, probes); None:
    # `depth`. A switch buffers bytes: the 82-byte headers of a trimmed burst fit many
    # times over in the buffer of `depth` full frames.
    high_priority_depth: int | None = None
    rate_pps: int | None = None
    line_rate_bps: int | None = None
    # IP MTU of every host and switch interface; BMv2 shapes packets/s, so a bits/s rate
    # is converted at frames of this size
    mtu: int = DEFAULT_MTU

    def __post_init__(self) -> None:
        check_mtu(self.mtu)

    def pps(self, bps: int) -> int:
        """The BMv2 packet rate carrying `bps` of MTU-sized frames."""
        return bps_to_pps(bps, self.mtu)

    def header_pps(self, bps: int) -> int:
        """The BMv2 packet rate carrying `bps` of header-only packets (higher priorities)."""
        return bps_to_pps(bps, HEADER_PACKET_BYTES)


def bmv2_rate_commands(queues: QueueOptions, port: int, bps: int | None) -> list[str]:
    """simple_switch_CLI commands shaping `port` at `bps` (None: unlimited).

    BMv2 limits each priority queue on its own, in packets/s. The data queue (priority
    0) gets the packet rate of MTU-sized packets at `bps`; the queues above it carry
    headers alone (trimmed packets, ACKs, NACKs) and get the rate of header-sized ones:
    at the data queue's rate an ACK took a whole frame's time, the ACKs of a link's
    reverse flows filled that queue, and they came back seconds late."""
    if bps is None:
        return [f"set_queue_rate 0 {port} {prio}"  # BMv2: 0 pps = no limit
                for prio in range(queues.priority_queues)]
    return [f"set_queue_rate {queues.pps(bps) if prio == 0 else queues.header_pps(bps)} "
            f"{port} {prio}"
            for prio in range(queues.priority_queues)]


def bmv2_rate_summary(queues: QueueOptions, bps: int) -> str:
    """How BMv2 carries `bps` (see `bmv2_rate_commands`), for the user to read."""
    return (f"{queues.pps(bps)} packets/s of {queues.mtu}-byte packets (data), "
            f"{queues.header_pps(bps)} packets/s of headers (higher priorities)")


def bmv2_queue_commands(queues: QueueOptions, ports: list[int]) -> list[str]:
    """simple_switch_CLI commands applying `queues` to every priority of every port.

    A line rate becomes the packet rate of MTU-sized frames (`bmv2_rate_commands`); an
    explicit --queue-rate (packets/s) wins over it, as on p4emu where the tighter limit
    rules."""
    commands = []
    for port in ports:
        if queues.rate_pps is not None:
            rates = [f"set_queue_rate {queues.rate_pps} {port} {prio}"
                     for prio in range(queues.priority_queues)]
        elif queues.line_rate_bps is not None:
            rates = bmv2_rate_commands(queues, port, queues.line_rate_bps)
        else:
            rates = []
        for prio in range(queues.priority_queues):
            depth = queues.depth if prio == 0 else queues.high_priority_depth or queues.depth
            if depth is not None:
                commands.append(f"set_queue_depth {depth} {port} {prio}")
            commands += rates[prio:prio + 1]
    return commands
