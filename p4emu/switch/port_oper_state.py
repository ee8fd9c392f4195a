"""Interface oper-status polling (BMv2 polls about every 200 ms)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2


def read_oper_up(iface: str, sysfs: Path = Path("/sys/class/net")) -> bool:
    """Whether `iface` is operationally up; a missing interface is down."""
    try:
        state = (sysfs / iface / "operstate").read_text().strip()
    except OSError:
        return False
    if state == "up":
        return True
    if state == "unknown":  # drivers without oper state report carrier only
        try:
            return (sysfs / iface / "carrier").read_text().strip() == "1"
        except OSError:
            return False
    return False


class PortOperState:
    """Keeps `is_up(port)` current and reports changes to `on_change(port, up)`."""

    def __init__(self, ifaces: Mapping[int, str],
                 read_up: Callable[[str], bool] = read_oper_up,
                 on_change: Callable[[int, bool], None] = lambda port, up: None,
                 interval_s: float = POLL_INTERVAL_S) -> None:
        self.ifaces = dict(ifaces)
        self.read_up = read_up
        self.on_change = on_change
        self.interval_s = interval_s
        self.state: dict[int, bool] = {port: read_up(name) for port, name in self.ifaces.items()}
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
            with self._lock:
                monitors = list(self._monitors)
            for monitor in monitors:
                try:
                    monitor.poll_once()
                except Exception:  # a monitor must outlive any one bad reading
                    log.exception("link monitor poll failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
