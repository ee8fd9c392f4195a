"""Network namespaces, veth pairs and process groups for integration tests, with cleanup.

Everything created here is recorded in a `LabResources` and removed by `cleanup()`, which
the fixtures call on success, failure and Ctrl-C alike. Names carry a per-run prefix so a
crashed run's leftovers are recognisable (and removed by `remove_leftovers`).
"""

from __future__ import annotations

import logging
import subprocess
from dataclasses import dataclass, field

from mrclab.processes import stop_process_group

log = logging.getLogger(__name__)

PREFIX = "mrct"  # namespaces and veths made by the test plumbing start with this


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


@dataclass
class NetNamespace:
    name: str

    def run(self, *cmd: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.name, *cmd], check=check,
                              capture_output=True, text=True, timeout=timeout)

    def popen(self, *cmd: str, **kwargs) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", self.name, *cmd],
                                start_new_session=True, **kwargs)


@dataclass
class LabResources:
    """What one test created; `cleanup()` undoes it in reverse order."""

    namespaces: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)

    def namespace(self, name: str) -> NetNamespace:
        full = f"{PREFIX}-{name}"
        ip("netns", "del", full, check=False)
        ip("netns", "add", full)
        self.namespaces.append(full)
        ns = NetNamespace(full)
        ns.run("ip", "link", "set", "lo", "up")
        return ns

    def veth(self, a: str, b: str, ns_a: NetNamespace | None = None,
             ns_b: NetNamespace | None = None) -> tuple[str, str]:
        """A veth pair a<->b, each end moved into its namespace (None = root) and up."""
        ip("link", "del", a, check=False)
        ip("link", "add", a, "type", "veth", "peer", "name", b)
        self.links.append(a)
        for end, ns in ((a, ns_a), (b, ns_b)):
            if ns is not None:
                ip("link", "set", end, "netns", ns.name)
                ns.run("ip", "link", "set", end, "up")
            else:
                ip("link", "set", end, "up")
        return a, b

    def spawn(self, cmd: list[str], **kwargs) -> subprocess.Popen:
        """Start a process in its own process group, killed (group-wide) at cleanup."""
        proc = subprocess.Popen(cmd, start_new_session=True, **kwargs)
        self.processes.append(proc)
        return proc

    def track(self, proc: subprocess.Popen) -> subprocess.Popen:
        self.processes.append(proc)
        return proc

    def cleanup(self) -> None:
        for proc in reversed(self.processes):
            stop_process_group(proc, grace=3.0)
        for link in reversed(self.links):
            ip("link", "del", link, check=False)
        for ns in reversed(self.namespaces):
            ip("netns", "del", ns, check=False)
        self.processes.clear()
        self.links.clear()
        self.namespaces.clear()


def remove_leftovers() -> None:
    """Remove namespaces and veths that a crashed earlier run of the test plumbing left."""
    out = ip("netns", "list", check=False).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(f"{PREFIX}-"):
            log.warning("removing leftover namespace %s", name)
            ip("netns", "del", name, check=False)
    out = ip("-o", "link", "show", check=False).stdout
    for line in out.splitlines():
        parts = line.split(":")
        if len(parts) > 1:
            name = parts[1].strip().split("@")[0]
            if name.startswith(PREFIX):
                log.warning("removing leftover link %s", name)
                ip("link", "del", name, check=False)
