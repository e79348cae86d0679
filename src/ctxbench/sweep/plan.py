"""What a sweep measures: mechanisms -> engine ids, sizes, strides, and the
list of (id, size, stride) points, with resume (which points are missing).

Default sizes come from the machine (environment record): powers of two
from 1 KiB until one party's array alone is as large as the whole
last-level cache (so both parties together hold twice it: the switching
run works from memory, whatever share of a shared LLC the measured CPU
gets), and at least twice the per-core L2 and the first-level dTLB reach,
plus points at the L1/L2 sizes that are not powers of two and at 1.5x
each, so that every boundary has a point on each side.
"""
from __future__ import annotations


from ctxbench.core import model
from ctxbench.core.errors import UserError, shown
from ctxbench.ui import options

# Mechanism name -> engine id (same CPU: a switch cost, not a wake-up).
MECHANISMS = {
    "kernel/process/pipe": "kernel/process/pipe/same-cpu",
    "kernel/thread/futex": "kernel/thread/futex/same-cpu",
    "user/asm": "user/asm/same-thread",
    "kernel/thread/pipe": "kernel/thread/pipe/same-cpu",
    "kernel/process/futex": "kernel/process/futex/same-cpu",
}
# One kernel-level and one user-level switch (docs/method.md#working-set-sweep):
# a third default mechanism took a third of the budget that the points past
# the L2 need (--mechanism adds it).
DEFAULT_MECHANISMS = ["kernel/process/pipe", "user/asm"]
DEFAULT_STRIDES = [0, 8, 16, 32, 64, 128, 256]
MIN_SIZE = 1024
# When the machine says nothing about its caches: past a typical 32 MiB LLC.
FALLBACK_MAX = 32 << 20
ELEM = 8  # bytes per element (double), the traversal's unit

def parse_size(text: str, what: str = "size") -> int:
    """One size grammar for every command (ui.options.size), named by flag."""
    try:
        return options.size(text)
    except options.Bad as e:
        raise UserError(f"--{what}: {e}")


def fmt_size(n: int) -> str:
    for unit, f in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= f and n % f == 0:
            return f"{n // f}{unit}"
        if n >= f and (n * 2) % f == 0:
            return f"{n / f:g}{unit}"
    return str(n)


def parse_sizes(text: str) -> list[int]:
    """'1K..16M' (powers of two, both ends included) or '1K,48K,64K'."""
    sizes: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if ".." in part:
            lo_s, hi_s = part.split("..", 1)
            lo, hi = parse_size(lo_s, "sizes"), parse_size(hi_s, "sizes")
            if lo <= 0 or hi < lo:
                raise UserError(f"--sizes: empty range '{part}'")
            s = lo
            while s <= hi:
                sizes.add(s)
                s *= 2
            sizes.add(hi)
        else:
            sizes.add(parse_size(part, "sizes"))
    for s in sizes:
        if s < ELEM or s % ELEM:
            raise UserError(f"--sizes: each size must be a positive multiple of {ELEM} bytes, got {s}")
        if s > 1 << 32:
            raise UserError(f"--sizes: {fmt_size(s)} per party is more than this tool will allocate (4G)")
    if not sizes:
        raise UserError("--sizes: no sizes given")
    return sorted(sizes)


def parse_strides(text: str) -> list[int]:
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        d = parse_size(part, "strides")
        if d % ELEM:
            raise UserError(f"--strides: each stride must be a multiple of {ELEM} bytes (one element), got {d}")
        if d > 1 << 20:
            raise UserError(f"--strides: {d} is larger than 1M")
        out.add(d)
    if not out:
        raise UserError("--strides: no strides given")
    if 0 not in out:
        raise UserError("--strides: must include 0 (the direct cost every indirect cost is measured against)")
    return sorted(out)


def resolve_mechanisms(text: str | None, known_ids: set[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """[(name, id)] to measure and notes for the ones the engine lacks.
    A name may also be an engine id itself (e.g. a hidden test id)."""
    names = [m.strip() for m in text.split(",") if m.strip()] if text else list(DEFAULT_MECHANISMS)
    if not names:
        raise UserError("--mechanism: no mechanism given")
    out, notes = [], []
    for name in names:
        bid = MECHANISMS.get(name, name)
        if name not in MECHANISMS and bid not in known_ids:
            raise UserError(f"--mechanism: unknown mechanism '{name}' (known: {', '.join(MECHANISMS)})")
        if bid not in known_ids:
            notes.append(f"{name}: this engine has no id '{bid}' yet; skipped")
            continue
        if (name, bid) not in out:
            out.append((name, bid))
    if not out:
        raise UserError("none of the mechanisms asked for exists in this engine: " + "; ".join(notes))
    return out, notes


# ---- the machine's boundaries ---------------------------------------------

def boundaries(env: dict) -> list[dict]:
    """Cache and TLB capacities to mark on plots: [{label, size, kind}]."""
    out = []
    caches = model.Environment(env).caches
    for c in caches:
        size, level, typ = c.get("size"), c.get("level"), c.get("type")
        if not size or typ == "instruction":
            continue
        shared = c.get("shared_by_pus") or 1
        if level == 1:
            out.append({"label": f"L1d {fmt_size(size)}", "size": size, "kind": "cache"})
        elif shared > 1 and level == max(x.get("level", 0) for x in caches):
            share = size // shared
            out.append({"label": f"LLC share {fmt_size(share)} (of {fmt_size(size)} / {shared} CPUs)",
                        "size": share, "kind": "cache"})
        else:
            out.append({"label": f"L{level} {fmt_size(size)}", "size": size, "kind": "cache"})
    for t in model.Environment(env).dtlb:
        if t.get("entries") and t.get("page_size"):
            reach = t["entries"] * t["page_size"]
            out.append({"label": f"dTLB L{t.get('level', 1)} reach {fmt_size(reach)} "
                                 f"({t['entries']} x {fmt_size(t['page_size'])})",
                        "size": reach, "kind": "tlb"})
    return sorted(out, key=lambda b: b["size"])


def default_sizes(env: dict) -> list[int]:
    caches = model.Environment(env).caches
    data = [c for c in caches if c.get("size") and c.get("type") != "instruction"]
    l2 = [c["size"] for c in data if c.get("level") == 2]
    l1 = [c["size"] for c in data if c.get("level") == 1]
    reaches = [t["entries"] * t["page_size"] for t in model.Environment(env).dtlb
               if t.get("entries") and t.get("page_size") and t.get("level", 1) == 1]
    levels = [c.get("level") or 0 for c in data]
    llc = [c["size"] for c in data if levels and (c.get("level") or 0) == max(levels) and c.get("level", 0) > 2]
    top = max([2 * x for x in l2 + reaches] + llc or [FALLBACK_MAX])
    top = max(top, 1 << 20)
    sizes, s = set(), MIN_SIZE
    while s < top:
        sizes.add(s)
        s *= 2
    sizes.add(s)  # the first power of two at or past the target
    for c in l1 + l2:
        for x in (c, c * 3 // 2):
            if MIN_SIZE < x < s and x % 1024 == 0:
                sizes.add(x)
    return sorted(sizes)


# ---- points and rounds ----------------------------------------------------

def points(sizes: list[int], strides: list[int]) -> list[tuple[int, int]]:
    """Size-major, stride 0 first: each size's direct cost is measured just
    before its strided points, in the same round (the pairing)."""
    return [(s, d) for s in sizes for d in strides]


def key(result: dict) -> tuple[str, int, int] | None:
    """(id, size, stride) of a sweep point; None for anything else."""
    r = model.Result(result)
    p = r.params
    try:
        return (r.id, int(p["size"]), int(p["stride"]))
    except (KeyError, TypeError, ValueError):
        return None


def round_points(chosen: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The engine's --points for one round of one mechanism: every size with
    a chosen point gets its stride-0 reference first (the pairing), sizes
    ascending."""
    by: dict[int, set[int]] = {}
    for s, d in chosen:
        by.setdefault(s, set()).update({0, d})
    return [(s, d) for s in sorted(by) for d in sorted(by[s])]


def grid_of_file(plan: dict | None, path: str) -> dict[int, tuple[int, ...]] | None:
    """The grid a sweep file planned (size -> strides), to continue it
    unchanged whatever budget the resumed run has: `plan.strides_by_size`
    (core/results/upgrade.py makes it of a file from before issue 22);
    None when the file records none. `plan`: the section's plan record."""
    by = plan.get("strides_by_size") if isinstance(plan, dict) else None
    if by is None:
        return None
    try:
        grid = {int(s): tuple(sorted(int(d) for d in ds)) for s, ds in by.items()}
    except (AttributeError, TypeError, ValueError):
        grid = {}
    if not grid or any(s <= 0 or s % ELEM or not ds or ds[0] != 0 or any(d % ELEM for d in ds)
                       for s, ds in grid.items()):
        raise UserError(f"{shown(path)} is malformed: its sweep plan must give every size (a positive multiple "
                        f"of {ELEM} bytes) its strides, 0 among them")
    return grid
