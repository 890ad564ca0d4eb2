"""The tuning database: the plans ``tcc tune`` chose, per program, target
and compiler. One JSON file (``$TCC_TUNING_DB``, default
``<cache dir>/tuning.json``), written atomically; a missing or unreadable
file is an empty database."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

_cache: dict[Path, tuple[float, dict[str, Any]]] = {}


def program_key(text: str, target: str) -> str:
    """The key of a program's plans: its text, target and the compiler (a
    changed compiler re-tunes: its kernels and their names may differ)."""
    from tcc.compiler.cache import compiler_fingerprint

    h = hashlib.sha256()
    for part in (text, target, compiler_fingerprint()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


class TuningDB:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def default(cls) -> TuningDB:
        if env := os.environ.get("TCC_TUNING_DB"):
            return cls(Path(env))
        from tcc.compiler.cache import default_cache_dir

        return cls(default_cache_dir() / "tuning.json")

    def _load(self) -> dict[str, Any]:
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            return {}
        cached = _cache.get(self.path)
        if cached and cached[0] == mtime:
            return cached[1]
        try:
            data = json.loads(self.path.read_text())
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        _cache[self.path] = (mtime, data)
        return data

    def lookup(self, text: str, target: str) -> dict[str, str] | None:
        """The plans recorded for this program and target, or None."""
        data = self._load()
        if not data:  # (no database: no key to compute)
            return None
        entry = data.get(program_key(text, target))
        plans = entry.get("plans") if isinstance(entry, dict) else None
        if not isinstance(plans, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in plans.items()):
            return None
        return dict(plans) or None

    def record(self, text: str, target: str, plans: dict[str, str],
               note: dict[str, Any] | None = None) -> None:
        data = dict(self._load())
        data[program_key(text, target)] = {"target": target, "plans": dict(plans),
                                           **(note or {})}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tuning.")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)
        _cache.pop(self.path, None)

    def entries(self) -> dict[str, Any]:
        return dict(self._load())
