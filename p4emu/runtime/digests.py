"""Digest buffering with P4Runtime's DigestEntry / DigestListAck semantics.

The data plane `push`es one digest message (a tuple of field values) per packet. Messages
of a configured digest are buffered and handed out as `DigestList`s by `poll`: when
`max_list_size` messages are waiting or the oldest has waited `max_timeout_ns`. Until a list
is acked (or `ack_timeout_ns` passes), no further list of that digest is emitted and the
messages it carried are not buffered again (PI's duplicate suppression). Messages of an
unconfigured digest are dropped; every pushed message is also counted in `pushed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.runtime.errors import EntryExists, EntryNotFound, InvalidEntry

Message = tuple[int, ...]


@dataclass(frozen=True)
class DigestConfig:
    max_timeout_ns: int = 0
    max_list_size: int = 1
    ack_timeout_ns: int = 0


@dataclass(frozen=True)
class DigestList:
    digest_id: int
    list_id: int
    messages: tuple[Message, ...]
    timestamp_ns: int


@dataclass
class _DigestState:
    config: DigestConfig
    buffer: list[Message] = field(default_factory=list)
    first_ns: int = 0
    next_list_id: int = 1
    outstanding: DigestList | None = None
    sent_ns: int = 0
    suppressed: set[Message] = field(default_factory=set)


class DigestQueue:
    def __init__(self, digest_ids: set[int] | frozenset[int] = frozenset()) -> None:
        self.digest_ids = frozenset(digest_ids)
        self._states: dict[int, _DigestState] = {}
        self.pushed: dict[int, int] = {}

    # --- control plane
    def _known(self, digest_id: int) -> None:
        if self.digest_ids and digest_id not in self.digest_ids:
            raise InvalidEntry(f"unknown digest id {digest_id}")

    def insert_config(self, digest_id: int, config: DigestConfig) -> None:
        self._known(digest_id)
        if digest_id in self._states:
            raise EntryExists(f"digest {digest_id} is already configured")
        self._validate(config)
        self._states[digest_id] = _DigestState(config)

    def modify_config(self, digest_id: int, config: DigestConfig) -> None:
        state = self._states.get(digest_id)
        if state is None:
            raise EntryNotFound(f"digest {digest_id} is not configured")
        self._validate(config)
        state.config = config

    def delete_config(self, digest_id: int) -> None:
        if self._states.pop(digest_id, None) is None:
            raise EntryNotFound(f"digest {digest_id} is not configured")

    def get_config(self, digest_id: int) -> DigestConfig | None:
        state = self._states.get(digest_id)
        return None if state is None else state.config

    @staticmethod
    def _validate(config: DigestConfig) -> None:
        if config.max_list_size < 0 or config.max_timeout_ns < 0 or config.ack_timeout_ns < 0:
            raise InvalidEntry("digest config values must be non-negative")

    def ack(self, digest_id: int, list_id: int) -> None:
        """Acknowledge a list; unknown ids are ignored, as P4Runtime servers do."""
        state = self._states.get(digest_id)
        if state is None or state.outstanding is None or state.outstanding.list_id != list_id:
            return
        state.suppressed.difference_update(state.outstanding.messages)
        state.outstanding = None

    # --- data plane
    def push(self, digest_id: int, message: Message, now_ns: int) -> None:
        self.pushed[digest_id] = self.pushed.get(digest_id, 0) + 1
        state = self._states.get(digest_id)
        if state is None or message in state.suppressed or message in state.buffer:
            return
        if not state.buffer:
            state.first_ns = now_ns
        state.buffer.append(message)

    def poll(self, now_ns: int) -> list[DigestList]:
        """Lists ready to send to the controller now."""
        ready: list[DigestList] = []
        for digest_id, state in self._states.items():
            if state.outstanding is not None:
                timeout = state.config.ack_timeout_ns
                if timeout and now_ns - state.sent_ns >= timeout:
                    state.suppressed.difference_update(state.outstanding.messages)
                    state.outstanding = None
                else:
                    continue
            if not state.buffer:
                continue
            cfg = state.config
            full = 0 < cfg.max_list_size <= len(state.buffer)  # 0: no size limit
            if not full and now_ns - state.first_ns < cfg.max_timeout_ns:
                continue
            size = cfg.max_list_size if cfg.max_list_size > 0 else len(state.buffer)
            messages, state.buffer = tuple(state.buffer[:size]), state.buffer[size:]
            state.first_ns = now_ns
            dlist = DigestList(digest_id, state.next_list_id, messages, now_ns)
            state.next_list_id += 1
            state.outstanding = dlist
            state.sent_ns = now_ns
            state.suppressed.update(messages)
            ready.append(dlist)
        return ready

    def reset(self) -> None:
        self._states.clear()
        self.pushed.clear()
