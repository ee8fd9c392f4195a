"""`python -m mrclab.exercises.frames send|capture ...`: hand-made MRC frames between two
hosts of a running lab, for fabric checks of what the switches did to a frame's fields
(the endpoint never sets a UDP checksum, so a transfer cannot show a checksum update).

    send    --iface IF --src-mac M --dst-mac M --src IP --dst IP --conn N --count N
            [--route HEX]          DATA frames with UDP checksums, psn 0..count-1
    capture --iface IF --conn N --count N --timeout S
                                   prints "listening", then each MRC frame of that
                                   connection as one hex line, until count or timeout
"""

from __future__ import annotations

import argparse
import ipaddress
import select
import socket
import sys
import time

from mrclab.exercises.packets import MRC_PORT, mrc_frame, ones_sum

ETH_P_ALL = 0x0003


def frame(src_mac: str, dst_mac: str, src: str, dst: str, conn: int, psn: int,
          route: int) -> bytes:
    body = mrc_frame(src=int(ipaddress.IPv4Address(src)), dst=int(ipaddress.IPv4Address(dst)),
                     conn=conn, psn=psn, ev=(0x5000 + psn) & 0xFFFF, route=route)
    mac = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex(src_mac.replace(":", ""))
    return mac + body[12:]


def is_ours(data: bytes, conn: int) -> bool:
    return (len(data) >= 82 and data[12:14] == b"\x08\x00" and data[23] == 17
            and int.from_bytes(data[36:38], "big") == MRC_PORT
            and int.from_bytes(data[46:50], "big") == conn)


def udp_checksum_ok(data: bytes) -> bool:
    """A UDP checksum of 0 (none) or one that matches the datagram."""
    if data[40:42] == b"\0\0":
        return True
    length = int.from_bytes(data[38:40], "big")
    pseudo = data[26:34] + bytes([0, 17]) + data[38:40]
    return ones_sum(pseudo + data[34:34 + length]) == 0xFFFF


def _send(args: argparse.Namespace) -> int:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((args.iface, 0))
    for psn in range(args.count):
        sock.send(frame(args.src_mac, args.dst_mac, args.src, args.dst, args.conn, psn,
                        int(args.route, 16)))
        time.sleep(args.gap)
    return 0


def _capture(args: argparse.Namespace) -> int:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((args.iface, 0))
    print("listening", flush=True)
    seen, deadline = 0, time.monotonic() + args.timeout
    while seen < args.count and time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        data, addr = sock.recvfrom(65535)
        if addr[2] != socket.PACKET_OUTGOING and is_ours(data, args.conn):
            print(data.hex(), flush=True)
            seen += 1
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mrclab.exercises.frames")
    sub = ap.add_subparsers(dest="cmd", required=True)
    send = sub.add_parser("send")
    for name in ("--iface", "--src-mac", "--dst-mac", "--src", "--dst"):
        send.add_argument(name, required=True)
    send.add_argument("--conn", type=int, required=True)
    send.add_argument("--count", type=int, required=True)
    send.add_argument("--route", default="0", help="the route word, hex")
    send.add_argument("--gap", type=float, default=0.01, help="seconds between frames")
    capture = sub.add_parser("capture")
    capture.add_argument("--iface", required=True)
    capture.add_argument("--conn", type=int, required=True)
    capture.add_argument("--count", type=int, required=True)
    capture.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args(argv)
    return _send(args) if args.cmd == "send" else _capture(args)


if __name__ == "__main__":
    sys.exit(main())
