"""Candidate plans per kernel form, around the heuristics' plan: the block
and warp counts (and, for GEMMs, stages) a form's builder takes. Every
candidate is a valid #tile.lowering_config text; one the builder refuses
for a kernel (e.g. a block its layout does not cover) is dropped at build
time."""

from __future__ import annotations

import re

_CONFIG = re.compile(r"#tile\.lowering_config<(.*)>$")
_IN_IR = re.compile(r"#tile\.lowering_config<[^>]*>")


def plan_in(ir: str) -> str | None:
    """The first #tile.lowering_config in a kernel's IR (its plan), or None."""
    found = _IN_IR.search(ir)
    return found.group(0) if found else None


def parse(config: str) -> dict[str, str]:
    """``#tile.lowering_config<form = f, block = [..], ...>`` as a dict of
    its fields' texts."""
    match = _CONFIG.match(config.strip())
    if not match:
        raise ValueError(f"not a #tile.lowering_config: {config!r}")
    fields: dict[str, str] = {}
    for part in re.split(r",\s*(?![^\[]*\])", match.group(1)):
        key, _, value = part.partition("=")
        fields[key.strip()] = value.strip()
    return fields


def render(fields: dict[str, str]) -> str:
    return "#tile.lowering_config<" + ", ".join(f"{k} = {v}" for k, v in fields.items()) + ">"


def _block(fields: dict[str, str]) -> list[int]:
    return [int(x) for x in fields["block"].strip("[]").split(",")]


def _with(fields: dict[str, str], block: list[int], warps: int,
          **extra: str) -> str:
    out = dict(fields)
    out["block"] = "[" + ", ".join(str(b) for b in block) + "]"
    out["num_warps"] = str(warps)
    out.update(extra)
    return render(out)


def _without(fields: dict[str, str], key: str) -> dict[str, str]:
    return {k: v for k, v in fields.items() if k != key}


def candidates(config: str) -> list[str]:
    """Plans to try for a kernel whose heuristics' plan is ``config`` (not
    including it), in a fixed order."""
    fields = parse(config)
    form = fields["form"]
    block = _block(fields)
    warps = int(fields["num_warps"])
    out: list[str] = []
    if form in ("elementwise", "row_reduction", "softmax", "row_program",
                "column_reduction", "transpose"):
        bm, bn = block
        rows = sorted({max(1, bm // 2), bm, bm * 2, bm * 4})
        for r in rows:
            for w in (1, 2, 4, 8, 16):
                if (r, w) != (bm, warps):
                    out.append(_with(fields, [r, bn], w))
        if form in ("softmax", "row_program") and fields.get("walk") in ("looped", "staged"):
            for cols in (bn // 2, bn * 2):
                if cols >= 64:
                    out.append(_with(fields, [bm, cols], warps))
        # A long softmax row: copied once into shared memory, or walked twice
        # over global memory (a staged plan the row does not fit is refused
        # by the builder, and the tuner drops it).
        if form == "softmax" and fields.get("walk") in ("looped", "staged"):
            other = "looped" if fields["walk"] == "staged" else "staged"
            out.append(_with(fields, block, warps, walk=other))
    elif form in ("matmul", "fma_matmul"):
        bm, bn, bk = block
        stages = int(fields.get("num_stages", "3"))
        shapes = {(bm, bn, bk), (bm // 2, bn, bk), (bm, bn // 2, bk), (bm, bn, bk * 2),
                  (bm * 2, bn, bk), (bm, bn * 2, bk)}
        for m, n, k in sorted(shapes):
            if min(m, n, k) < 16:
                continue
            for s in sorted({max(1, stages - 1), stages, stages + 1}):
                for w in sorted({warps, max(1, warps // 2), warps * 2}):
                    if (m, n, k, s, w) != (bm, bn, bk, stages, warps):
                        extra = {"num_stages": str(s)} if "num_stages" in fields else {}
                        out.append(_with(fields, [m, n, k], w, **extra))
        if fields.get("mma") == "wgmma_m64nNk16" and "consumers" not in fields:
            # Hopper: the heuristics' block in other clusters (2 x 1, 1 x 2,
            # none; a kernel that takes none, e.g. with copied operands,
            # refuses them) ...
            for cluster in ("[2, 1]", "[1, 2]", None):
                if cluster != fields.get("cluster"):
                    out.append(_with(_without(fields, "cluster"), block, warps,
                                     **({"cluster": cluster} if cluster else {})))
            # ... and ping-pong consumers (each warpgroup a whole block, so
            # at most 128 x 128; not in clusters) beside the cooperative plans.
            for s in (4, 5):
                out.append(_with(_without(fields, "cluster"), [128, 128, 64], 12,
                                 num_stages=str(s), consumers="pingpong"))
    return list(dict.fromkeys(out))
