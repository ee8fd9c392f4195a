"""Remember which links are down across controller restarts.

A controller restarted while a link is down must not route over that link until probes
prove it back, or it would disturb traffic it is meant to leave alone. The file is tied to
one topology by a digest of its description, so a different fabric ignores it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from mrclab.controller.next_hops import LinkId
from mrclab.fabric.topology_file import TopologyFile, to_dict

log = logging.getLogger(__name__)


def topology_digest(topology: TopologyFile) -> str:
    text = json.dumps(to_dict(topology), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_down_links(path: Path | None, topology: TopologyFile,
                    known: set[LinkId]) -> set[LinkId]:
    if path is None or not path.exists():
        return set()
    try:
        data = json.loads(path.read_text())
        if data.get("topology") != topology_digest(topology):
            return set()
        links = {((a, int(pa)), (b, int(pb))) for a, pa, b, pb in data["down_links"]}
    except (OSError, ValueError, KeyError, TypeError):
        log.warning("ignoring unreadable link state file %s", path)
        return set()
    return links & known


def save_down_links(path: Path | None, topology: TopologyFile, down: set[LinkId]) -> None:
    if path is None:
        return
    data = {"topology": topology_digest(topology),
            "down_links": sorted([a, pa, b, pb] for (a, pa), (b, pb) in down)}
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_text(json.dumps(data) + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        log.warning("cannot save link state to %s: %s", path, exc.strerror)
