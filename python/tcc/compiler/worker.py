"""Compile in a warm worker process: an abort inside MLIR never reaches the caller.

MLIR and LLVM report some bad input with an assertion (an abort), not a
diagnostic; in the caller's process that would end the Python program.
``tcc.compile`` therefore runs its stages in one long-lived child process
(``python -m tcc.compiler.worker``, started on the first compile, MLIR
imported once). Before each stage the worker reports the stage, its input IR
and its pipeline; if the worker dies, the caller gets a
:class:`~tcc.compiler.compile.CompilationError` naming the stage and the
signal, and the stage's input and pipeline are saved as a reproducer file
(``tcc-opt FILE --pass-pipeline=...``) whose path the message gives. A stage
that runs longer than ``TCC_COMPILE_TIMEOUT`` seconds (default 900) is
killed the same way. The next compile starts a fresh worker.

``TCC_COMPILE_IN_PROCESS=1`` compiles in the caller's process instead.
Reproducers go to ``TCC_REPRODUCER_DIR`` (default: the temp directory's
``tcc-reproducers``).

Protocol: length-prefixed pickles over two pipes given to the child by file
descriptor (stdout and stderr stay the child's own, for MLIR's messages).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import IO, Any

_HEADER = struct.Struct("<Q")
_START_TIMEOUT = 120.0


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read_exact(stream: IO[bytes], n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("the compile worker closed its pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(stream: IO[bytes]) -> Any:
    (size,) = _HEADER.unpack(_read_exact(stream, _HEADER.size))
    return pickle.loads(_read_exact(stream, size))


def reproducer_dir() -> Path:
    return Path(os.environ.get("TCC_REPRODUCER_DIR",
                               Path(tempfile.gettempdir()) / "tcc-reproducers"))


def save_reproducer(stage: str, pipeline: str, ir: str, why: str) -> Path:
    """The input IR of a stage that crashed, with the command that reruns it."""
    directory = reproducer_dir()
    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(f"{stage}\0{pipeline}\0{ir}".encode()).hexdigest()[:16]
    path = directory / f"tcc-{stage}-{digest}.mlir"
    run = (f"tcc-opt {path} '--pass-pipeline=builtin.module({pipeline})'"
           if pipeline and not pipeline.startswith("(") else f"stage {stage} {pipeline}")
    path.write_text(f"// tcc reproducer: stage '{stage}' {why}\n// rerun: {run}\n{ir}")
    return path


class CompileWorker:
    """The parent's handle on one worker process (started on first use)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._to: IO[bytes] | None = None
        self._from: IO[bytes] | None = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tcc.compiler.worker", str(to_child_r), str(from_child_w)],
            pass_fds=(to_child_r, from_child_w), env=env, stdin=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._to = os.fdopen(to_child_w, "wb")
        # Unbuffered: select() must see every byte not yet read.
        self._from = os.fdopen(from_child_r, "rb", buffering=0)
        # The worker's start (importing MLIR) is not a stage's time.
        if not _wait_readable(self._from, _START_TIMEOUT) or _receive(self._from) != ("ready",):
            self._stop()
            raise RuntimeError(f"the tcc compile worker did not start in {_START_TIMEOUT} s")

    def close(self) -> None:
        """End the worker: it exits when its request pipe closes."""
        if self._to is not None:
            with contextlib.suppress(OSError):
                self._to.close()
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        self._stop()

    def _stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for stream in (self._to, self._from):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._proc = self._to = self._from = None

    def run_stages(self, text: str, target: str, schedule: Any, emit: bool) -> Any:
        """``compile.run_stages`` in the worker; remarks re-issued here."""
        from tcc.compiler.compile import CompilationError, CompilerRemark

        timeout = float(os.environ.get("TCC_COMPILE_TIMEOUT", "900"))
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                self._start()
            assert self._to is not None and self._from is not None
            stage = ("source", "(parse)", text)
            try:
                # The caller's current settings (the worker's environment is
                # the one it started with): dumps, and the tests' faults.
                faults = {k: v for k, v in os.environ.items()
                          if k.startswith("TCC_TEST_") or k in _FORWARDED}
                _send(self._to, (text, target, schedule, emit, faults))
                while True:
                    if not _wait_readable(self._from, timeout):
                        self._stop()
                        path = save_reproducer(stage[0], stage[1], stage[2],
                                               f"ran past {timeout:g} s")
                        raise CompilationError(
                            f"stage {stage[0]!r} did not finish in {timeout:g} s (compile "
                            f"worker stopped); its input and pipeline are saved in {path}")
                    kind, *payload = _receive(self._from)
                    if kind == "stage":
                        stage = tuple(payload)  # type: ignore[assignment]
                        continue
                    break
            except (EOFError, BrokenPipeError, OSError):
                code = self._proc.wait() if self._proc is not None else None
                self._stop()
                why = _describe_exit(code)
                path = save_reproducer(stage[0], stage[1], stage[2], f"crashed ({why})")
                raise CompilationError(
                    f"stage {stage[0]!r} crashed inside MLIR/LLVM ({why}): an assertion or "
                    f"abort on this input; the stage's input IR and pipeline are saved in "
                    f"{path}") from None
        if kind == "error":
            error, remarks = payload
            _reissue(remarks, CompilerRemark)
            raise error
        result, remarks = payload
        _reissue(remarks, CompilerRemark)
        return result


def _wait_readable(stream: IO[bytes], timeout: float) -> bool:
    ready, _, _ = select.select([stream], [], [], timeout)
    return bool(ready)


def _describe_exit(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


# The caller's settings each compile takes along (the worker's environment is
# the one it started with).
_FORWARDED = ("TCC_DUMP_DIR", "TCC_TIMING", "TCC_PRINT_IR_AFTER_ALL", "TCC_VERBOSE_ERRORS")
_TCC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
Caught = tuple[type[Warning], str, str, int]


def _reissue(remarks: list[Caught], remark: type[Warning]) -> None:
    """The worker's warnings, again in this process: attributed to the user's
    file and line where the worker had one (a frontend op's location), else
    to tcc.compile's caller."""
    for category, message, filename, lineno in remarks:
        kind = category if issubclass(category, Warning) else remark
        if filename.endswith(".py") and not os.path.abspath(filename).startswith(_TCC_DIR):
            warnings.warn_explicit(message, kind, filename, lineno)
        else:
            warnings.warn(message, kind, stacklevel=4)


def _warnings(caught: list[warnings.WarningMessage]) -> list[Caught]:
    """The worker's warnings with their categories (pass remarks, and others
    such as the AMD backend's missing-ld.lld RuntimeWarning) and where they
    were attributed."""
    return [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


_WORKER: CompileWorker | None = None


def worker() -> CompileWorker:
    global _WORKER
    if _WORKER is None:
        _WORKER = CompileWorker()
        atexit.register(_WORKER.close)
    return _WORKER


def in_process() -> bool:
    return os.environ.get("TCC_COMPILE_IN_PROCESS", "") not in ("", "0")


# ------------------------------------------------------------- the child --
def _serve(read_fd: int, write_fd: int) -> None:
    from tcc.compiler.compile import run_stages

    requests = os.fdopen(read_fd, "rb")
    replies = os.fdopen(write_fd, "wb")
    _send(replies, ("ready",))
    faults: dict[str, str] = {}

    def progress(stage: str, pipeline: str, ir: str) -> None:
        _send(replies, ("stage", stage, pipeline, ir))
        # Fault injection for tcc's own tests (TCC_TEST_* in the caller's
        # environment): die or stall at a stage.
        if faults.get("TCC_TEST_ABORT_AT_STAGE") == stage:
            os.abort()
        if faults.get("TCC_TEST_SLEEP_AT_STAGE") == stage:
            time.sleep(float(faults.get("TCC_TEST_SLEEP_SECONDS", "30")))

    while True:
        try:
            text, target, schedule, emit, faults = _receive(requests)
        except EOFError:
            return
        for setting in _FORWARDED:
            os.environ.pop(setting, None)
            if setting in faults:
                os.environ[setting] = faults[setting]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = run_stages(text, target, schedule, emit=emit, progress=progress)
                reply: tuple[Any, ...] = ("ok", result, _warnings(caught))
            except Exception as exc:  # noqa: BLE001  (sent to the caller, raised there)
                try:
                    pickle.dumps(exc)
                    error: Exception = exc
                except Exception:  # noqa: BLE001
                    error = RuntimeError(f"{type(exc).__name__}: {exc}")
                reply = ("error", error, _warnings(caught))
        _send(replies, reply)


if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]))
