"""One data-plane thread for any number of switches (`TrafficManager`s).

It waits in epoll on every port socket of every switch and on one wake-up pipe, hands a
readable socket to the switch that owns it, runs the switches' injected frames and
egress service, and sleeps until the earliest egress deadline among them. A lone switch
is a loop with one TrafficManager; `p4emu fabric` serves all its switches from one loop,
so a packet crossing several switches costs no thread hand-off (GIL, futex) and no
process switch.

Only the loop thread touches the selector and the switches' queues outside `core.lock`;
other threads change the set of switches through `add`/`remove`, which the loop carries
out between two waits.

The loop's inner part runs in C when p4emu's compiled traffic manager builds (the
EventLoop of `native_tm_module`: epoll, receive, ingress, serve and timers without a
Python frame per packet for a switch whose `fast_path()` gives a compiled server); it
returns here when the wake-up pipe is readable. Without a C compiler, the selector loop
below does it all.
"""

from __future__ import annotations

import logging
import os
import select
import selectors
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

from p4emu.switch.core import SwitchCore
from p4emu.switch.ports import Port, PortSet

log = logging.getLogger(__name__)

IDLE_WAIT_S = 0.1
# epoll waits whole milliseconds (rounded up); shorter waits go through select() on the
# epoll descriptor, which keeps µs resolution, so shaped queues release packets on time
PRECISE_WAIT_S = 0.01
CHANGE_TIMEOUT_S = 5.0


class TrafficManager(Protocol):
    """What the loop needs of a switch (`traffic_manager.TrafficManager`)."""

    core: SwitchCore
    ports: PortSet
    loop: DataplaneLoop | None

    def fast_path(self) -> object | None: ...

    def receive(self, port: Port) -> None: ...

    def serve(self) -> float | None: ...


class DataplaneLoop:
    """The thread, the selector and the wake-up pipe shared by the switches it serves."""

    def __init__(self, tms: Iterable[TrafficManager] = (), native: bool | None = None) -> None:
        """`native`: the inner loop in C (True: or raise; None: when it builds)."""
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._events = _event_loop(self._wake_r, native)
        self._slots: dict[TrafficManager, int] = {}  # the EventLoop's slot of each switch
        # switch -> monotonic time its queues next release a packet (None: empty)
        self._deadlines: dict[TrafficManager, float | None] = {}
        self._woken: deque[TrafficManager] = deque()
        # a wake-up byte is in the pipe: a burst of PacketOuts costs one write and one
        # wake-up, not one each (cleared once the pipe is drained: _drain_wake)
        self._wake_pending = False
        self._changes: deque[tuple[Callable[[], None], threading.Event]] = deque()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        for tm in tms:
            self.add(tm)

    @property
    def tms(self) -> list[TrafficManager]:
        return list(self._deadlines)

    @property
    def native(self) -> bool:
        """Whether the inner loop runs in C."""
        return self._events is not None

    # --- any thread
    def add(self, tm: TrafficManager) -> None:
        """Serve `tm` from now on (its ports must be open)."""
        tm.loop = self
        self._change(lambda: self._attach(tm))

    def remove(self, tm: TrafficManager) -> None:
        """Stop serving `tm`; on return the loop no longer touches its ports or queues."""
        self._change(lambda: self._detach(tm))
        tm.loop = None

    def wake(self, tm: TrafficManager | None = None) -> None:
        """Have the loop look at `tm` (injected frames, changed queues) at once."""
        if tm is not None:
            self._woken.append(tm)
        if self._wake_pending:  # the loop has yet to drain the last one: it sees `tm` too
            return
        self._wake_pending = True
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass  # the pipe is full: a wake-up is already pending

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="dataplane", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._apply_changes()
        for tm in self.tms:
            tm.loop = None
        self._events = None  # closes its epoll descriptor
        self._selector.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _change(self, change: Callable[[], None]) -> None:
        """Run `change` in the loop thread between two waits (here, when it is not running)."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            change()
            return
        done = threading.Event()
        if thread is threading.current_thread():
            if self._events is None:
                change()
            else:  # called back from inside the C loop, which holds its switches: after it
                self._changes.append((change, done))
                self.wake()
            return
        self._changes.append((change, done))
        self.wake()
        if not done.wait(CHANGE_TIMEOUT_S):
            log.error("data-plane loop did not take a change within %.0f s", CHANGE_TIMEOUT_S)

    # --- the loop thread
    def _apply_changes(self) -> None:
        while self._changes:
            change, done = self._changes.popleft()
            try:
                change()
            finally:
                done.set()

    def _attach(self, tm: TrafficManager) -> None:
        self._deadlines[tm] = 0.0  # serve it on the next round
        if self._events is not None:
            ports = [(port.sock.fileno(), number, port)
                     for number, port in tm.ports.ports.items() if port.sock is not None]
            self._slots[tm] = self._events.add(
                tm, tm.core.lock, tm.core, ports, tm.fast_path,
                getattr(tm.ports, "report", None), self._report_error)
            return
        for port in tm.ports.ports.values():
            self._selector.register(port.sock, selectors.EVENT_READ, (tm, port))

    def _detach(self, tm: TrafficManager) -> None:
        if tm not in self._deadlines:
            return
        del self._deadlines[tm]
        slot = self._slots.pop(tm, None)
        if slot is not None:
            self._events.remove(slot)
            return
        for key in list(self._selector.get_map().values()):
            if key.data is not None and key.data[0] is tm:
                self._selector.unregister(key.fileobj)

    def _run(self) -> None:
        if self._events is not None:
            self._run_native()
        else:
            self._run_selector()

    def _run_native(self) -> None:
        """The C loop serves until woken; here: the wake-up, changes, injected frames."""
        events = self._events
        while not self._stop.is_set():
            try:
                events.run(IDLE_WAIT_S)
                self._drain_wake()
                self._apply_changes()
                while self._woken:
                    tm = self._woken.popleft()
                    slot = self._slots.get(tm)
                    if slot is not None:  # not removed meanwhile
                        events.set_deadline(slot, self._guarded(tm, tm.serve))
            except Exception:  # the data plane must survive any one bad packet or bug
                log.exception("data-plane loop error")

    def _report_error(self, tm: TrafficManager, exc: Exception) -> None:
        log.error("data-plane loop error (device %d)", tm.core.device_id, exc_info=exc)

    def _run_selector(self) -> None:
        due: set[TrafficManager] = set()
        while not self._stop.is_set():
            try:
                for key, _ in self._wait(self._timeout()):
                    if key.data is None:
                        self._drain_wake()
                        continue
                    tm, port = key.data
                    due.add(tm)
                    self._guarded(tm, tm.receive, port)
                self._apply_changes()
                while self._woken:
                    due.add(self._woken.popleft())
                now = time.monotonic()
                due.update(tm for tm, t in self._deadlines.items() if t is not None and t <= now)
                for tm in due:
                    if tm in self._deadlines:  # not removed meanwhile
                        self._deadlines[tm] = self._guarded(tm, tm.serve)
                due.clear()
            except Exception:  # the data plane must survive any one bad packet or bug
                log.exception("data-plane loop error")

    def _guarded(self, tm: TrafficManager, work: Callable, *args):
        """One switch's work; a bug in one switch must not stop the others."""
        try:
            return work(*args)
        except Exception:
            log.exception("data-plane loop error (device %d)", tm.core.device_id)
            return time.monotonic() + IDLE_WAIT_S  # look again soon, without spinning

    def _timeout(self) -> float:
        if self._woken or self._changes:
            return 0.0
        deadlines = [t for t in self._deadlines.values() if t is not None]
        if not deadlines:
            return IDLE_WAIT_S
        return min(IDLE_WAIT_S, max(0.0, min(deadlines) - time.monotonic()))

    def _wait(self, timeout: float) -> list:
        if 0 < timeout < PRECISE_WAIT_S:
            select.select([self._selector.fileno()], [], [], timeout)
            timeout = 0
        return self._selector.select(timeout)

    def _drain_wake(self) -> None:
        # drained first, then cleared: a wake() between the two wrote nothing or a byte
        # the next wait sees, and its switch is in _woken, which is read after this. (The
        # other order lost a wake-up for good: a byte written after the flag was cleared
        # and read here left the flag set and the pipe empty, and every later wake()
        # returned early; the loop in C waits for that byte.)
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        self._wake_pending = False


def _event_loop(wake_fd: int, native: bool | None):
    """The C inner loop (`native` None: if the compiled traffic manager builds)."""
    if native is False:
        return None
    from p4emu.switch.native_tm_module import tm_module

    try:
        module = tm_module()
    except (RuntimeError, OSError) as exc:
        if native:
            raise
        log.info("data-plane loop in Python: the compiled one did not build (%s)",
                 str(exc).splitlines()[0])
        return None
    return module.EventLoop(wake_fd)
