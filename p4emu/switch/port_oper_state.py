"""Interface oper-status polling (BMv2 polls about every 200 ms)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2


class OperStateReader:
    """`read(iface)`: whether `iface` is operationally up; a missing interface is down.

    It keeps each interface's `operstate` file open and re-reads it at offset 0, which makes
    sysfs produce the current state again: 3 us a reading against 40 us to open, read and
    close the file, and a shard polls its 40 ports five times a second. An interface deleted
    (the descriptor then fails) is opened afresh at the next reading, in case it is back."""

    def __init__(self, sysfs: Path = Path("/sys/class/net")) -> None:
        self.sysfs = sysfs
        self._fds: dict[str, int] = {}

    def __call__(self, iface: str) -> bool:
        state = self._read(iface, "operstate")
        if state == "unknown":  # drivers without oper state report carrier only
            return self._read(iface, "carrier") == "1"
        return state == "up"

    def _read(self, iface: str, name: str) -> str | None:
        key = f"{iface}/{name}"
        fd = self._fds.get(key)
        try:
            if fd is None:
                fd = self._fds[key] = os.open(self.sysfs / iface / name, os.O_RDONLY)
            return os.pread(fd, 64, 0).decode().strip()
        except OSError:
            if fd is not None:
                os.close(self._fds.pop(key))
            return None

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


class PortOperState:
    """Keeps `is_up(port)` current and reports changes to `on_change(port, up)`."""

    def __init__(self, ifaces: Mapping[int, str],
                 read_up: Callable[[str], bool] | None = None,
                 on_change: Callable[[int, bool], None] = lambda port, up: None,
                 interval_s: float = POLL_INTERVAL_S) -> None:
        self.ifaces = dict(ifaces)
        self._reader = OperStateReader() if read_up is None else None
        self.read_up = read_up or self._reader
        self.on_change = on_change
        self.interval_s = interval_s
        self.state: dict[int, bool] = {port: self.read_up(name) for port, name in self.ifaces.items()}
        self._poller: SharedPoller | None = None

    def is_up(self, port: int) -> bool:
        """Unknown ports (no interface) count as down, as PI does for watch ports."""
        return self.state.get(port, False)

    def poll_once(self) -> list[tuple[int, bool]]:
        changes = []
        for port, name in self.ifaces.items():
            up = self.read_up(name)
            if up != self.state.get(port):
                self.state[port] = up
                changes.append((port, up))
                log.info("port %d (%s) is %s", port, name, "up" if up else "down")
                self.on_change(port, up)
        return changes

    def start(self) -> None:
        """Poll in a thread of its own (switches sharing one: `SharedPoller.add`)."""
        self._poller = SharedPoller(self.interval_s)
        self._poller.add(self)
        self._poller.start()

    def stop(self) -> None:
        if self._poller is not None:
            self._poller.stop()
        if self._reader is not None:
            self._reader.close()


class SharedPoller:
    """One thread polling the `PortOperState` of many switches (`p4emu fabric`), instead
    of a thread per switch waking up five times a second."""

    def __init__(self, interval_s: float = POLL_INTERVAL_S) -> None:
        self.interval_s = interval_s
        self._monitors: list[PortOperState] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, monitor: PortOperState) -> None:
        with self._lock:
            self._monitors.append(monitor)

    def remove(self, monitor: PortOperState) -> None:
        with self._lock:
            if monitor in self._monitors:
                self._monitors.remove(monitor)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="link-monitor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            # a round holds the lock: once `remove` returns, the monitor is not being read
            # (its reader may then close the files it keeps open)
            with self._lock:
                for monitor in self._monitors:
                    try:
                        monitor.poll_once()
                    except Exception:  # a monitor must outlive any one bad reading
                        log.exception("link monitor poll failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
