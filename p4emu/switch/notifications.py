"""Switch -> controller stream notifications that need polling: digests and idle timeouts.

One thread polls the committed program: digest lists that are due (DigestList), and
table entries idle for at least their TTL (IdleTimeoutNotification, one per table, as
the spec's pseudo-code: after a notification the entry's idle timer restarts, so an
entry still unused is reported again one TTL later). Both go to the primary clients.
Polling slows down when nothing is configured, so an idle switch stays cheap.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from p4.v1 import p4runtime_pb2

from p4emu.switch import codec_tables as ct
from p4emu.switch.bytestrings import encode
from p4emu.switch.core import SwitchCore
from p4emu.switch.program import LoadedProgram
from p4emu.switch.sessions import StreamSession

log = logging.getLogger(__name__)

FAST_POLL_S = 0.01  # the spec's suggested scanning interval
SLOW_POLL_S = 0.2

Msg = p4runtime_pb2.StreamMessageResponse


def digest_messages(program: LoadedProgram, now_ns: int) -> list[Msg]:
    """The digest lists due now (call with the data-plane lock held)."""
    out = []
    for dlist in program.state.digest_queue.poll(now_ns):
        msg = Msg()
        msg.digest.digest_id = dlist.digest_id
        msg.digest.list_id = dlist.list_id
        msg.digest.timestamp = dlist.timestamp_ns
        for message in dlist.messages:
            struct = msg.digest.data.add().struct
            for value in message:
                struct.members.add().bitstring = encode(value)
        out.append(msg)
    return out


def idle_messages(program: LoadedProgram, now_us: int) -> list[Msg]:
    """One IdleTimeoutNotification per table with expired entries; restarts their timers
    (call with the data-plane lock held)."""
    out = []
    for table in program.state.objects("tables"):
        if not table.info.idle_timeout:
            continue
        msg = Msg()
        for entry in table.entries():
            ttl_ns = entry.idle_timeout_ns
            if not ttl_ns or (now_us - entry.last_hit_us) * 1000 < ttl_ns:
                continue
            entry.last_hit_us = now_us
            # the spec's minimum: key, priority, both metadata fields and the TTL
            te = msg.idle_timeout_notification.table_entry.add(
                table_id=table.info.id, priority=entry.priority,
                controller_metadata=entry.controller_metadata, metadata=entry.metadata,
                idle_timeout_ns=ttl_ns)
            te.match.extend(ct.encode_match(table.info, entry.match))
        if msg.HasField("idle_timeout_notification"):
            msg.idle_timeout_notification.timestamp = now_us * 1000
            out.append(msg)
    return out


def _wants_polling(program: LoadedProgram) -> bool:
    queue = program.state.digest_queue
    if any(queue.get_config(d) for d in program.info.digests):
        return True
    return any(t.info.idle_timeout and any(e.idle_timeout_ns for e in t.entries())
               for t in program.state.objects("tables"))


class Notifier:
    """The polling thread; `primaries` gives the sessions to notify."""

    def __init__(self, core: SwitchCore,
                 primaries: Callable[[], Sequence[StreamSession]]) -> None:
        self.core = core
        self.primaries = primaries
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="notifications", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        wait = SLOW_POLL_S
        while not self._stop.wait(wait):
            wait = SLOW_POLL_S
            program = self.core.program
            if program is None:
                continue
            try:
                with self.core.lock:
                    if not _wants_polling(program):
                        continue
                    wait = FAST_POLL_S
                    # the pipeline stamps digests with the switch clock (µs since start)
                    now_us = self.core.clock_us()
                    msgs = digest_messages(program, now_us * 1000)
                    msgs += idle_messages(program, now_us)
                if not msgs:
                    continue
                sessions = self.primaries()
                for msg in msgs:
                    for session in sessions:
                        session.send(msg)
            except Exception:
                log.exception("stream notification failed")
