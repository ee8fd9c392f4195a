"""Per-port pcap files (classic libpcap format, microsecond stamps), written by hand."""

from __future__ import annotations

import struct
import threading
import time
from pathlib import Path
from typing import BinaryIO

PCAP_MAGIC = 0xA1B2C3D4
LINKTYPE_ETHERNET = 1
SNAPLEN = 65535


class PcapWriter:
    """Appends frames to one pcap file; thread-safe, flushed per packet for live reading."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: BinaryIO = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        self._lock = threading.Lock()
        self._file.write(struct.pack("<IHHiIII", PCAP_MAGIC, 2, 4, 0, 0, SNAPLEN,
                                     LINKTYPE_ETHERNET))
        self._file.flush()

    def write(self, frame: bytes, timestamp: float | None = None) -> None:
        ts = time.time() if timestamp is None else timestamp
        sec = int(ts)
        usec = int((ts - sec) * 1e6)
        data = frame[:SNAPLEN]
        with self._lock:
            if self._file.closed:
                return
            self._file.write(struct.pack("<IIII", sec, usec, len(data), len(frame)) + data)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


class PortPcaps:
    """`<dir>/<iface>_in.pcap` and `<dir>/<iface>_out.pcap` per port, as BMv2 names them."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._writers: dict[tuple[int, str], PcapWriter] = {}
        self._names: dict[int, str] = {}

    def add_port(self, port: int, name: str) -> None:
        self._names[port] = name
        for direction in ("in", "out"):
            self._writers[(port, direction)] = PcapWriter(
                self.directory / f"{name}_{direction}.pcap")

    def received(self, port: int, frame: bytes) -> None:
        writer = self._writers.get((port, "in"))
        if writer is not None:
            writer.write(frame)

    def sent(self, port: int, frame: bytes) -> None:
        writer = self._writers.get((port, "out"))
        if writer is not None:
            writer.write(frame)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
