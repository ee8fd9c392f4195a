"""Frame generators: what a host (or a broken one) may send a switch, by strategy.

- `path`: a frame along one of the parser's paths (`layout.Path`): every header present
  with random field values, the select keys set so the parser goes that way, then some
  fields set to boundary values (0, 1, all ones, all ones - 1, the top bit) or to values
  the control plane has keyed entries on (`planted`), a random payload, and often a cut
  at a header boundary (exactly on it, one byte either side, or inside the header);
- `seed`: an STF packet of the program, as sent or mutated (bytes replaced, cut, grown);
- `cut`: an STF packet cut at one of the path boundaries;
- `noise`: random bytes of random length (0 to about 100, now and then up to 9,216).

`FrameGen.next()` gives (port, frame, strategy); ports are the path's own (a select on
ingress_port), the STF's, or any of 0..511.
"""

from __future__ import annotations

import random

from p4emu.fuzz.layout import Path

STRATEGIES = (("path", 55), ("seed", 20), ("cut", 10), ("noise", 15))
BIG_FRAME = 9216


def boundary_values(width: int) -> list[int]:
    full = (1 << width) - 1
    return sorted({0, 1, full, max(full - 1, 0), 1 << (width - 1), (1 << (width - 1)) - 1})


def set_bits(buf: bytearray, offset: int, width: int, value: int) -> None:
    """Write `value` into `width` bits of `buf` at bit `offset`, MSB first."""
    end = offset + width
    first, last = offset // 8, (end - 1) // 8
    span = (last - first + 1) * 8
    shift = (last + 1) * 8 - end
    cur = int.from_bytes(buf[first:last + 1], "big")
    mask = ((1 << width) - 1) << shift
    cur = (cur & ~mask & ((1 << span) - 1)) | ((value << shift) & mask)
    buf[first:last + 1] = cur.to_bytes(span // 8, "big")


def get_bits(buf: bytes, offset: int, width: int) -> int:
    end = offset + width
    first, last = offset // 8, (end - 1) // 8
    cur = int.from_bytes(buf[first:last + 1], "big")
    return (cur >> ((last + 1) * 8 - end)) & ((1 << width) - 1)


def mutate(rng: random.Random, data: bytes) -> bytes:
    """Bytes replaced, then maybe cut short or grown (the differential test's mutation)."""
    b = bytearray(data)
    for _ in range(rng.choice((0, 1, 1, 2, 4, 8))):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    r = rng.random()
    if r < 0.15 and b:
        del b[rng.randrange(len(b) + 1):]
    elif r < 0.25:
        b += rng.randbytes(rng.randrange(1, 40))
    return bytes(b)


class FrameGen:
    """Frames for one program, deterministic per `rng`."""

    def __init__(self, rng: random.Random, paths: list[Path], seeds: list[tuple[int, bytes]],
                 planted: dict[tuple[str, str], list[int]] | None = None) -> None:
        self.rng = rng
        self.paths = paths
        self.seeds = seeds
        self.planted = planted if planted is not None else {}
        self.ports = sorted({p for p, _ in seeds} | {0, 1, 2, 3, 4, 255, 511})
        self._cuts = sorted({b for p in paths for b in p.boundaries()})
        names, weights = zip(*STRATEGIES, strict=True)
        self._names, self._weights = names, weights

    def port(self, path: Path | None = None) -> int:
        rng = self.rng
        if path is not None and path.port is not None and rng.random() < 0.9:
            return path.port
        r = rng.random()
        if r < 0.7:
            return rng.choice(self.ports)
        return rng.randrange(512)

    def next(self) -> tuple[int, bytes, str]:
        rng = self.rng
        how = rng.choices(self._names, self._weights)[0]
        if how == "path" and not self.paths:
            how = "seed"
        if how in ("seed", "cut") and not self.seeds:
            how = "noise"
        if how == "path":
            path = rng.choice(self.paths)
            return self.port(path), self.from_path(path), how
        if how == "seed":
            port, data = rng.choice(self.seeds)
            if rng.random() < 0.3:
                port = self.port()
            return port, data if rng.random() < 0.15 else mutate(rng, data), how
        if how == "cut":
            port, data = rng.choice(self.seeds)
            cuts = [b for b in self._cuts if b <= len(data)] + [len(data)]
            at = rng.choice(cuts) + rng.choice((0, 0, 0, -1, 1))
            return port, data[:max(at, 0)], how
        if rng.random() < 0.02:
            n = rng.randrange(1500, BIG_FRAME + 1)
        else:
            n = rng.randrange(0, 100)
        return self.port(), rng.randbytes(n), how

    def from_path(self, path: Path) -> bytes:
        rng = self.rng
        buf = bytearray(rng.randbytes(path.length))
        for c in path.constraints:
            cur = get_bits(buf, c.offset, c.width)
            set_bits(buf, c.offset, c.width, (cur & ~c.mask) | c.value)
        for _ in range(rng.choice((0, 0, 1, 2, 3, 6))):
            if not path.fields:
                break
            slot = rng.choice(path.fields)
            planted = self.planted.get((slot.header, slot.name))
            if planted and rng.random() < 0.5:
                value = rng.choice(planted)
            else:
                value = rng.choice(boundary_values(slot.width))
            set_bits(buf, slot.offset, slot.width, value & ((1 << slot.width) - 1))
        if rng.random() < 0.7:  # planted keys on the path's own fields: entries that hit
            for slot in path.fields:
                planted = self.planted.get((slot.header, slot.name))
                if planted and rng.random() < 0.6:
                    set_bits(buf, slot.offset, slot.width, rng.choice(planted))
        r = rng.random()
        if r < 0.05:
            payload = rng.randbytes(rng.randrange(1000, 1500))
        elif r < 0.8:
            payload = rng.randbytes(rng.randrange(0, 64))
        else:
            payload = b""
        data = bytes(buf) + payload
        if rng.random() < 0.3:  # truncated at (or about) a header boundary
            cut = rng.choice(path.boundaries()) + rng.choice((0, 0, -1, 1))
            if rng.random() < 0.2 and path.headers:
                _, start, size = rng.choice(path.headers)
                cut = start + rng.randrange(size + 1)
            data = data[:max(cut, 0)]
        return data
