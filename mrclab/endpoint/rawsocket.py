"""AF_PACKET sockets for MRC frames (`mrclab.endpoint.netio` builds and parses them).

A classic BPF filter hands only IPv4/UDP/port-4793 frames to Python, and of those only
what goes to the socket's end of a connection (`RawLink`'s `accept`). A UDP socket bound
to port 4793 with a drop-everything filter (`PortGuard`) keeps the kernel from answering
MRC packets with ICMP port-unreachable, without any packet reaching it. Never compiled:
the filter's buffer must live until the kernel has copied it, which compiled code, freeing
a value after its last use, does not promise.
"""

from __future__ import annotations

import errno
import select
import socket
import struct

from mrclab.endpoint.netio import ETH_P_IP
from mrclab.endpoint.wire import MRC_UDP_PORT, MRC_VERSION, MsgType

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_OUTGOING = 4
PACKET_IGNORE_OUTGOING = 23  # linux/if_packet.h, Linux >= 4.20
SO_ATTACH_FILTER = 26

# Classic BPF instructions (sock_filter: code, jt, jf, k)
_LDH, _LDB, _LDH_X, _LDB_X, _LDXB_MSH = 0x28, 0x30, 0x48, 0x50, 0xB1
_LD_LEN, _TXA, _TAX, _ADD, _JEQ, _JGE_X, _JSET, _RET = (0x80, 0x87, 0x07, 0x04, 0x15,
                                                       0x3D, 0x45, 0x06)
_ACCEPT, _DROP = "accept", "drop"


def mrc_filter(accept: frozenset[MsgType] | None = None) -> list[tuple[int, int, int, int]]:
    """A classic BPF program passing IPv4 UDP frames to port 4793 (first fragments only).

    With `accept`, well-formed MRC frames of the other types are dropped too: a host's
    sender and receiver each have a socket on the same interface, and without this each
    would wake up for, copy and parse every frame of the other. A frame too short for an
    MRC header, or of another version, still reaches Python, which counts it."""
    code: list[tuple[int, int | str, int | str, int]] = [
        (_LDH, 0, 0, 12),  # ethertype
        (_JEQ, 0, _DROP, ETH_P_IP),
        (_LDB, 0, 0, 23),  # IP protocol
        (_JEQ, 0, _DROP, 17),
        (_LDH, 0, 0, 20),  # flags + fragment offset
        (_JSET, _DROP, 0, 0x1FFF),
        (_LDXB_MSH, 0, 0, 14),  # X = IP header length
        (_LDH_X, 0, 0, 16),  # UDP destination port
        (_JEQ, 0, _DROP, MRC_UDP_PORT)]
    others = sorted(set(MsgType) - accept) if accept is not None else []
    if others:
        code += [(_TXA, 0, 0, 0), (_ADD, 0, 0, 14 + 8 + 1), (_TAX, 0, 0, 0),  # X = end of byte 0
                 (_LD_LEN, 0, 0, 0), (_JGE_X, 0, _ACCEPT, 0),  # shorter: Python judges it
                 (_LDXB_MSH, 0, 0, 14),
                 (_LDB_X, 0, 0, 14 + 8)]  # MRC version and type
        code += [(_JEQ, _DROP, 0, MRC_VERSION << 4 | t) for t in others]
    code += [(_RET, 0, 0, 0x40000), (_RET, 0, 0, 0)]
    labels = {_ACCEPT: len(code) - 2, _DROP: len(code) - 1}

    def offset(at: int, target: int | str) -> int:
        return target if isinstance(target, int) else labels[target] - at - 1
    return [(op, offset(i, jt), offset(i, jf), k) for i, (op, jt, jf, k) in enumerate(code)]


_DROP_ALL = [(_RET, 0, 0, 0)]


def _attach_filter(sock: socket.socket, program: list[tuple[int, int, int, int]]) -> None:
    import ctypes

    code = b"".join(struct.pack("HBBI", *insn) for insn in program)
    buf = ctypes.create_string_buffer(code)
    fprog = struct.pack("HL", len(program), ctypes.addressof(buf))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)


class RawLink:
    """A non-blocking AF_PACKET socket on one interface that sees only MRC frames, and of
    those only the types in `accept` (`mrclab.endpoint.wire.TO_SENDER`, `TO_RECEIVER`; None: all)."""

    def __init__(self, iface: str, rcvbuf: int = 8 << 20,
                 accept: frozenset[MsgType] | None = None) -> None:
        self.iface = iface
        self.send_drops = 0
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        try:
            _attach_filter(self.sock, mrc_filter(accept))
            for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
                self.sock.setsockopt(socket.SOL_SOCKET, opt, rcvbuf)
            try:
                # What the host's other sockets send (a sender's DATA, a receiver's ACKs on
                # the same interface) would be copied here and discarded: measured on the
                # permutation experiment, endpoints took 0.48 cores with the copies, 0.39 without.
                self.sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
            except OSError:
                pass  # an older kernel: recv_batch skips them
            self.sock.bind((iface, ETH_P_ALL))
            self.sock.setblocking(False)
        except OSError:
            self.sock.close()
            raise
        self._drain()

    def _drain(self) -> None:
        """Drop frames queued between socket() and the filter taking effect."""
        self.recv_batch(1 << 16)

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, frame: bytes) -> None:
        try:
            try:
                self.sock.send(frame)
            except BlockingIOError:
                # The socket buffer is full for a moment: wait briefly for room once.
                select.select([], [self.sock], [], 0.002)
                self.sock.send(frame)
        except OSError as exc:
            # A full socket buffer or a qdisc drop (ENOBUFS) is a full NIC queue: the frame
            # is lost and the transport recovers it like any other loss.
            if exc.errno not in (errno.EAGAIN, errno.ENOBUFS):
                raise
            self.send_drops += 1

    def recv_batch(self, limit: int = 256) -> list[bytes]:
        frames: list[bytes] = []
        while len(frames) < limit:
            try:
                data, addr = self.sock.recvfrom(65535)
            except (BlockingIOError, InterruptedError):
                break
            if addr[2] != PACKET_OUTGOING:  # our own transmissions show up here too
                frames.append(data)
        return frames

    def close(self) -> None:
        self.sock.close()


class PortGuard:
    """Binds UDP 4793 so the kernel sends no ICMP port-unreachable; accepts nothing."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            _attach_filter(self.sock, _DROP_ALL)
            self.sock.bind(("0.0.0.0", MRC_UDP_PORT))
        except OSError:
            self.sock.close()
            raise

    def close(self) -> None:
        self.sock.close()
