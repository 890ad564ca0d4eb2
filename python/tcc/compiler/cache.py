"""In-memory + on-disk cache of compiled kernels. MLIR-free.

Layout: ``$TCC_CACHE_DIR`` (default ``$XDG_CACHE_HOME/tcc``, i.e.
``~/.cache/tcc``) / ``kernels`` / ``key[:2]`` / ``key.tccbin``, each file one
:class:`KernelArtifact` in its hashed single-file format.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tcc.runtime.artifact import ArtifactError, KernelArtifact
from tcc.runtime.program import ProgramArtifact, load_artifact

# What the cache holds: single kernels (tcc.compiler.driver) and whole programs
# (tcc.compile).
Artifact = KernelArtifact | ProgramArtifact

COMPILER_VERSION = "tcc-0.2.0+mlir-22.1.8"

_FINGERPRINT: list[str] = []


def compiler_fingerprint() -> str:
    """The compiler that builds artifacts, as a key: COMPILER_VERSION, the
    installed MLIR/LLVM wheels' versions, and each file of the tcc package
    that compiles (Python sources, the arch table, the extension module) by
    size and modification time, so an edited or rebuilt compiler never
    serves its predecessor's kernels. Computed once per process (stat calls
    only: a cache hit imports no MLIR and reads no extension)."""
    if not _FINGERPRINT:
        _FINGERPRINT.append(fingerprint_of(Path(__file__).resolve().parents[1]))
    return _FINGERPRINT[0]


def fingerprint_of(package: Path) -> str:
    """:func:`compiler_fingerprint` of the tcc package at ``package``."""
    from importlib import metadata

    digest = hashlib.sha256(COMPILER_VERSION.encode())
    # nvidia-cuda-nvcc: its ptxas assembles the cubins (absent: PTX only).
    for dist in ("xtc-mlir-python-bindings", "xtc-mlir-dev", "xtc-llvm-dev",
                 "nvidia-cuda-nvcc"):
        try:
            digest.update(f"{dist}={metadata.version(dist)};".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{dist}=?;".encode())
    for path in sorted(package.rglob("*")):
        if path.suffix not in (".py", ".def", ".so", ".mlir") or "__pycache__" in path.parts:
            continue
        st = path.stat()
        digest.update(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return f"{COMPILER_VERSION}+{digest.hexdigest()[:16]}"


def default_cache_dir() -> Path:
    if env := os.environ.get("TCC_CACHE_DIR"):
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "tcc"


def canonical_source(text: str) -> str:
    """Normalize IR text so formatting noise does not change the key."""
    lines = (line.rstrip() for line in text.replace("\r\n", "\n").split("\n"))
    return "\n".join(line for line in lines if line)


def cache_key(
    source: str,
    *,
    target: str,
    shapes: Sequence[Sequence[int | str]] = (),
    dtypes: Sequence[str] = (),
    schedule: Mapping[str, Any] | None = None,
    compiler_version: str | None = None,
) -> str:
    """sha256 over every input that can change the compiled kernel (the
    compiler itself by default: :func:`compiler_fingerprint`)."""
    if compiler_version is None:
        compiler_version = compiler_fingerprint()
    blob = json.dumps(
        {
            "source": canonical_source(source),
            "target": target,
            "shapes": [list(s) for s in shapes],
            "dtypes": list(dtypes),
            "schedule": dict(schedule or {}),
            "compiler_version": compiler_version,
        },
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


class KernelCache:
    """Two-level cache keyed by :func:`cache_key`.

    Memory is an LRU of ``memory_entries`` artifacts. Disk writes go to a
    temporary file in the same directory and are published with os.replace,
    so readers never see a partial file; a corrupt or truncated file is
    deleted and reported as a miss.
    """

    def __init__(
        self, directory: str | Path | None = None, *, memory_entries: int = 512,
        disk: bool = True,
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.disk = disk
        self._memory: OrderedDict[str, Artifact] = OrderedDict()
        self._limit = memory_entries
        self._lock = threading.Lock()
        self.stats = {"memory_hits": 0, "disk_hits": 0, "misses": 0, "corrupt": 0}
        self._warned = False  # an unusable directory is reported once

    def path_for(self, key: str) -> Path:
        return self.directory / "kernels" / key[:2] / f"{key}.tccbin"

    def get(self, key: str) -> Artifact | None:
        with self._lock:
            art = self._memory.get(key)
            if art is not None:
                self._memory.move_to_end(key)
                self.stats["memory_hits"] += 1
                return art
        art = self._read_disk(key) if self.disk else None
        if art is None:
            self.stats["misses"] += 1
            return None
        self.stats["disk_hits"] += 1
        self._remember(key, art)
        return art

    def put(self, key: str, artifact: Artifact) -> None:
        self._remember(key, artifact)
        if self.disk:
            self._write_disk(key, artifact)

    def get_or_build(self, key: str, build: Callable[[], Artifact]) -> Artifact:
        """The cached artifact, or ``build()``'s (stored); ``TCC_ALWAYS_COMPILE=1``
        (or a ``TCC_DUMP_DIR`` to dump into, or ``TCC_TIMING=1`` pass timings to
        print) builds every time, still storing it."""
        always = any(os.environ.get(v, "") not in ("", "0")
                     for v in ("TCC_ALWAYS_COMPILE", "TCC_TIMING",
                               "TCC_PRINT_IR_AFTER_ALL")) or bool(
            os.environ.get("TCC_DUMP_DIR"))
        art = None if always else self.get(key)
        if art is None:
            art = build()
            self.put(key, art)
        return art

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()

    def entries(self) -> list[Path]:
        """The artifact files on disk."""
        root = self.directory / "kernels"
        return sorted(root.glob("*/*.tccbin")) if root.is_dir() else []

    def info(self) -> dict[str, Any]:
        """Where the cache is, how many entries and bytes it holds on disk."""
        files = self.entries()
        return {"directory": str(self.directory), "entries": len(files),
                "bytes": sum(f.stat().st_size for f in files),
                "compiler": compiler_fingerprint()}

    def clear(self) -> int:
        """Remove every entry (memory and disk); returns how many files went."""
        self.clear_memory()
        files = self.entries()
        for f in files:
            with contextlib.suppress(FileNotFoundError):
                f.unlink()
        return len(files)

    # -- internals ---------------------------------------------------------
    def _remember(self, key: str, artifact: Artifact) -> None:
        with self._lock:
            self._memory[key] = artifact
            self._memory.move_to_end(key)
            while len(self._memory) > self._limit:
                self._memory.popitem(last=False)

    def _read_disk(self, key: str) -> Artifact | None:
        path = self.path_for(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:  # a directory, unreadable: a miss (the write reports it)
            return None
        try:
            return load_artifact(data)
        except (ArtifactError, ValueError, KeyError, TypeError, RecursionError):
            # Corrupt (bad hash, truncated, old format): drop it so it is rebuilt.
            self.stats["corrupt"] += 1
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return None

    def _write_disk(self, key: str, artifact: Artifact) -> None:
        try:
            self._write_entry(key, artifact)
        except OSError as exc:
            # The compile succeeded; the cache directory is unusable (a regular
            # file, read-only, full, an entry that is a directory): say so once
            # and keep the artifact in memory.
            if not self._warned:
                self._warned = True
                warnings.warn(f"tcc cache: cannot write under {self.directory} ({exc}); "
                              "artifacts stay in memory only", RuntimeWarning, stacklevel=4)

    def _write_entry(self, key: str, artifact: Artifact) -> None:
        path = self.path_for(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(artifact.to_bytes())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


_default: KernelCache | None = None


def default_cache() -> KernelCache:
    """The process-wide cache (directory read from the environment once)."""
    global _default
    if _default is None:
        _default = KernelCache()
    return _default
