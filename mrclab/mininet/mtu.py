"""The IP MTUs the lab can give its host and switch interfaces."""

from __future__ import annotations

DEFAULT_MTU = 1500
MIN_MTU = 576  # the least every IPv4 host must take
MAX_MTU = 9000  # jumbo frames; what veth and both targets carry


def check_mtu(mtu: int) -> None:
    """ValueError (one line) for an MTU the lab cannot give its interfaces."""
    if not MIN_MTU <= mtu <= MAX_MTU:
        raise ValueError(f"MTU {mtu} out of range {MIN_MTU}..{MAX_MTU}")
