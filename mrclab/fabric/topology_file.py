"""build/topology.json: write a running fabric's description, read it back.

Format (version 1):
  {"version": 1, "spec": ..., "planes": P, "interface_tag": "eth", "target": "p4emu"|"bmv2",
   "cpu_port": 255,
   "p4info": path|null, "device_config": path|null,
   "switches": [{"name", "role", "plane", "pod", "device_id", "grpc_address", "thrift_port",
                 "ports": [{"port", "interface", "peer": {"node", "port"}}]}],
   "hosts": [{"name", "group", "index",
              "nics": [{"name", "index", "plane", "mac", "ip", "prefix_len",
                        "switch", "switch_port"}]}],
   "links": [{"a": {"node", "port"}, "b": {"node", "port"}, "bw", "delay", "loss"}]}
A host's "port" in a link or peer is its NIC index.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from mrclab.fabric.model import (
    Fabric,
    HostNic,
    HostNode,
    Link,
    LinkParams,
    PortPeer,
    SwitchNode,
)

FORMAT_VERSION = 1
DEFAULT_CPU_PORT = 255


@dataclass
class TopologyFile:
    fabric: Fabric
    target: str
    cpu_port: int = DEFAULT_CPU_PORT
    p4info: str | None = None
    device_config: str | None = None


def to_dict(doc: TopologyFile) -> dict:
    fabric = doc.fabric
    switches = []
    for sw in fabric.switches.values():
        switches.append({
            "name": sw.name,
            "role": sw.role,
            "plane": sw.plane,
            "pod": sw.pod,
            "device_id": sw.device_id,
            "grpc_address": sw.grpc_address,
            "thrift_port": sw.thrift_port,
            "ports": [
                {"port": port, "interface": sw.interface(port),
                 "peer": {"node": peer.node, "port": peer.port}}
                for port, peer in sorted(sw.ports.items())
            ],
        })
    hosts = []
    for host in fabric.hosts.values():
        hosts.append({
            "name": host.name,
            "group": host.group,
            "index": host.index,
            "nics": [
                {"name": host.interface(nic.index), "index": nic.index, "plane": nic.plane,
                 "mac": nic.mac, "ip": nic.ip, "prefix_len": nic.prefix_len,
                 "switch": nic.switch, "switch_port": nic.switch_port}
                for nic in host.nics
            ],
        })
    links = [
        {"a": {"node": lk.a, "port": lk.a_port}, "b": {"node": lk.b, "port": lk.b_port},
         "bw": lk.params.bw_mbps, "delay": lk.params.delay, "loss": lk.params.loss_pct}
        for lk in fabric.links
    ]
    return {
        "version": FORMAT_VERSION,
        "spec": fabric.spec,
        "planes": fabric.planes,
        "interface_tag": fabric.intf_tag,
        "target": doc.target,
        "cpu_port": doc.cpu_port,
        "p4info": doc.p4info,
        "device_config": doc.device_config,
        "switches": switches,
        "hosts": hosts,
        "links": links,
    }


def _port_of(address: str, name: str) -> int:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"switch {name}: bad grpc_address {address!r}")
    return int(port)


def from_dict(data: dict) -> TopologyFile:
    """Inverse of to_dict; ValueError on a malformed document."""
    try:
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"unsupported topology version {data.get('version')!r}")
        fabric = Fabric(spec=data["spec"], planes=int(data["planes"]),
                        intf_tag=data.get("interface_tag", "eth"))
        for s in data["switches"]:
            sw = SwitchNode(
                name=s["name"], role=s["role"], plane=int(s["plane"]), pod=s["pod"],
                device_id=int(s["device_id"]),
                grpc_port=_port_of(s["grpc_address"], s["name"]),
                thrift_port=int(s["thrift_port"]), intf_tag=fabric.intf_tag,
            )
            for p in s["ports"]:
                sw.ports[int(p["port"])] = PortPeer(p["peer"]["node"], int(p["peer"]["port"]))
            fabric.switches[sw.name] = sw
        for h in data["hosts"]:
            host = HostNode(name=h["name"], group=int(h["group"]), index=int(h["index"]))
            for n in h["nics"]:
                host.nics.append(HostNic(
                    index=int(n["index"]), plane=int(n["plane"]), ip=n["ip"],
                    prefix_len=int(n["prefix_len"]), mac=n["mac"], switch=n["switch"],
                    switch_port=int(n["switch_port"]),
                ))
            fabric.hosts[host.name] = host
        for lk in data["links"]:
            fabric.links.append(Link(
                lk["a"]["node"], int(lk["a"]["port"]), lk["b"]["node"], int(lk["b"]["port"]),
                LinkParams(lk.get("bw"), lk.get("delay"), lk.get("loss")),
            ))
        return TopologyFile(
            fabric=fabric, target=data["target"], cpu_port=int(data["cpu_port"]),
            p4info=data.get("p4info"), device_config=data.get("device_config"),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed topology document: missing or bad field {exc}") from None


def write_topology(path: str | Path, doc: TopologyFile) -> None:
    """Write atomically so a reader never sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(to_dict(doc), indent=1) + "\n")
    os.replace(tmp, path)


def read_topology(path: str | Path) -> TopologyFile:
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ValueError(f"cannot read topology {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"topology {path} is not JSON: {exc.msg} at line {exc.lineno}") from None
    return from_dict(data)
