"""Switch ports bound to Linux interfaces with AF_PACKET sockets.

A port never hears its own transmissions: the kernel is asked not to loop them back
(PACKET_IGNORE_OUTGOING, Linux >= 4.20: otherwise every frame sent costs a receive and
takes room in the receive buffer from the frames that arrive), and on older kernels the
ones it reports (PACKET_OUTGOING) are skipped; interfaces are put in promiscuous mode by packet
membership (released when the socket closes).
"""

from __future__ import annotations

import logging
import socket
import struct
from array import array
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_OUTGOING = 4
PACKET_IGNORE_OUTGOING = 23  # linux/if_packet.h
MAX_FRAME = 9216  # jumbo limit; longer frames (e.g. GSO super-packets) are dropped
MIN_FRAME = 14  # an Ethernet header
RECV_BUFFER = 65536


class _Counter:
    """One field of PortStats: a slot of its counters array."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __get__(self, stats: PortStats, owner=None) -> int:
        return stats.counters[self.index]

    def __set__(self, stats: PortStats, value: int) -> None:
        stats.counters[self.index] = value


class PortStats:
    """A port's counters, kept in one array('Q') that a compiled traffic manager
    (`native_traffic_manager`) counts into when it does the port's I/O; the order is its
    own."""

    rx_packets = _Counter(0)
    rx_bytes = _Counter(1)
    tx_packets = _Counter(2)
    tx_bytes = _Counter(3)
    rx_dropped = _Counter(4)  # malformed or oversized on receive
    tx_errors = _Counter(5)

    def __init__(self) -> None:
        self.counters = array("Q", bytes(8 * 6))


@dataclass
class Port:
    number: int
    iface: str
    sock: socket.socket | None = None
    stats: PortStats = field(default_factory=PortStats)

    def fileno(self) -> int:
        assert self.sock is not None
        return self.sock.fileno()


def open_interface(iface: str) -> socket.socket:
    """A non-blocking raw socket bound to `iface`, in promiscuous mode."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        sock.bind((iface, 0))
        ifindex = socket.if_nametoindex(iface)
        mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
        sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
        try:
            sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
        except OSError:
            pass  # an older kernel: receive() skips them
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def frame_problem(length: int) -> str | None:
    """Why a received frame of `length` bytes cannot enter the pipeline, or None."""
    if length < MIN_FRAME:
        return f"runt frame of {length} bytes"
    if length > MAX_FRAME:
        return f"oversized frame of {length} bytes (> {MAX_FRAME})"
    return None


class PortSet:
    """The switch's data ports: open, receive, send, close."""

    def __init__(self) -> None:
        self.ports: dict[int, Port] = {}

    def add(self, number: int, iface: str) -> Port:
        if number in self.ports:
            raise ValueError(f"port {number} is given twice")
        port = Port(number, iface, open_interface(iface))
        self.ports[number] = port
        log.info("port %d bound to %s", number, iface)
        return port

    def receive(self, port: Port) -> list[bytes]:
        """All frames waiting on `port` (at most 64), without our own transmissions."""
        frames: list[bytes] = []
        assert port.sock is not None
        for _ in range(64):
            try:
                data, addr = port.sock.recvfrom(RECV_BUFFER)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:  # the interface went away
                self.report(port, exc)
                break
            if addr and addr[2] == PACKET_OUTGOING:  # (no address: a socket pair's)
                continue
            if frame_problem(len(data)) is not None:
                port.stats.rx_dropped += 1
                self.report(port, [len(data)])
                continue
            port.stats.rx_packets += 1
            port.stats.rx_bytes += len(data)
            frames.append(data)
        return frames

    @staticmethod
    def report(port: Port, trouble: OSError | list[int]) -> None:
        """Log what a receive met (here or in C): a failure, or the lengths of the frames
        it dropped (already counted)."""
        if isinstance(trouble, OSError):
            log.warning("port %d (%s): receive failed: %s", port.number, port.iface, trouble)
            return
        for length in trouble:
            log.warning("port %d (%s): dropped %s", port.number, port.iface,
                        frame_problem(length) or f"frame of {length} bytes")

    def send(self, number: int, frame: bytes, start_us: float | None = None) -> bool:
        """Transmit on port `number` now (`start_us`, when the queue began serving it,
        matters only to a simulated port); an unknown port silently loses the frame (as
        BMv2)."""
        port = self.ports.get(number)
        if port is None or port.sock is None:
            log.debug("egress to port %d without an interface: frame lost", number)
            return False
        try:
            port.sock.send(frame)
        except OSError as exc:  # link down, frame too big for the MTU, buffer full
            port.stats.tx_errors += 1
            log.debug("port %d (%s): send failed: %s", number, port.iface, exc)
            return False
        port.stats.tx_packets += 1
        port.stats.tx_bytes += len(frame)
        return True

    def close(self) -> None:
        for port in self.ports.values():
            if port.sock is not None:
                port.sock.close()
                port.sock = None
