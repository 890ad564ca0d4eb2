"""AMD backend: gpu dialect -> ROCDL -> LLVM IR -> AMDGCN (+ hsaco).

The MLIR wheels' LLVM has no AMDGPU target, so the LLVM IR is handed to AMD's
LLVM (rocm-llvm-python's librocmllvm.so) running in a child process (see
_amdgcn_worker.py for why it cannot share this process), which optimizes it
and emits gfx assembly and a relocatable ELF. ``ld.lld -shared`` turns the ELF
into a loadable code object (hsaco) when an ld.lld is installed.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from mlir import ir
from mlir.dialects import llvm

from tcc.backends.base import CompileError, Target, check_unresolved
from tcc.targets import archs_of

_TRIPLE = "amdgcn-amd-amdhsa"
# IR attributes newer than AMD's LLVM (22.0.0git) understands; they are
# optimization hints on intrinsic declarations, safe to drop.
_NEWER_IR_TOKENS = (" nocreateundeforpoison",)
_LLD_CANDIDATES = ("/opt/rocm/llvm/bin/ld.lld", "ld.lld", "ld.lld-22", "ld.lld-21", "ld.lld-20",
                   "ld.lld-19")


class AmdTarget(Target):
    vendor = "amd"
    archs = archs_of("amd")

    def gpu_target_attr(self) -> str:
        return f'#rocdl.target<O = 3, chip = "{self.arch}">'

    def _vendor_pipeline(self, bare_ptr: bool) -> Sequence[str]:
        # tanh & co. become exp-based formulas; exp/log/sqrt become LLVM
        # intrinsics that AMDGPU selects natively, instead of __ocml_* calls.
        return (
            "math-expand-ops",
            "convert-math-to-llvm",
            f"convert-gpu-to-rocdl{{chipset={self.arch} "
            f"use-bare-ptr-memref-call-conv={int(bare_ptr)}}}",
        )

    def _post_lowering(self, module: ir.Module) -> None:
        for gm in module.body.operations:
            if gm.operation.name != "gpu.module":
                continue
            for fn in gm.regions[0].blocks[0].operations:
                if fn.operation.name == "llvm.func" and "rocdl.kernel" in fn.operation.attributes:
                    _kernel_pointers_to_global(fn.operation)

    def emit(self, module: ir.Module) -> tuple[str, bytes | None]:
        llvm_ir = translate_to_llvm_ir(module)
        check_unresolved(llvm_ir, f"LLVM IR for {self.arch}",
                         r"declare [^@\n]*@((?:__ocml_|__ockl_|__nv_)\w+)")
        for token in _NEWER_IR_TOKENS:
            llvm_ir = llvm_ir.replace(token, "")
        asm, obj = _worker().codegen(llvm_ir, _TRIPLE, self.arch)
        return asm, link_hsaco(obj)


def translate_to_llvm_ir(module: ir.Module) -> str:
    """LLVM IR text of the (single) lowered gpu.module's body."""
    gms = [op for op in module.body.operations if op.operation.name == "gpu.module"]
    if len(gms) != 1:
        raise CompileError(f"expected one gpu.module, got {len(gms)}")
    with module.context, ir.Location.unknown():
        inner = ir.Module.create()
        for name in ("llvm.data_layout",):
            if name in gms[0].operation.attributes:
                inner.operation.attributes[name] = gms[0].operation.attributes[name]
        inner.operation.attributes["llvm.target_triple"] = ir.StringAttr.get(_TRIPLE)
        for op in gms[0].regions[0].blocks[0].operations:
            inner.body.append(op.clone())
        try:
            return llvm.translate_module_to_llvmir(inner.operation)
        except Exception as exc:
            raise CompileError(f"translation to LLVM IR failed: {exc}") from exc


def _kernel_pointers_to_global(fn: ir.Operation) -> None:
    """Make a kernel's pointer parameters ``ptr addrspace(1)``.

    Kernel arguments always point to global memory; saying so lets AMDGPU's
    address-space inference select global_load/store instead of flat ones
    (what HIP's frontend does for __global__ parameters).
    """
    block = fn.regions[0].blocks[0]
    generic = ir.Type.parse("!llvm.ptr")
    global_ptr = ir.Type.parse("!llvm.ptr<1>")
    first = block.operations[0]
    for arg in block.arguments:
        if arg.type != generic:
            continue
        arg.set_type(global_ptr)
        with ir.InsertionPoint(first), fn.location:
            cast = llvm.AddrSpaceCastOp(generic, arg)
        arg.replace_all_uses_except(cast.result, cast.operation)
    fty = ir.TypeAttr(fn.attributes["function_type"]).value
    ret = str(fty).split("<", 1)[1].split(" (", 1)[0]
    params = ", ".join(str(a.type) for a in block.arguments)
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.Type.parse(f"!llvm.func<{ret} ({params})>"))


# -- AMD LLVM worker process -----------------------------------------------------
def rocm_llvm_library() -> str:
    spec = importlib.util.find_spec("rocm.llvm")
    if spec is None or not spec.submodule_search_locations:
        raise CompileError("AMDGCN needs AMD's LLVM: pip install rocm-llvm-python==7.2.2.562.46")
    lib = Path(next(iter(spec.submodule_search_locations))) / "librocmllvm.so"
    if not lib.exists():
        raise CompileError(f"rocm-llvm-python is installed but {lib} is missing")
    return str(lib)


class _Worker:
    """A long-lived child running _amdgcn_worker.py (spawned on first use)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[bytes]:
        script = Path(__file__).with_name("_amdgcn_worker.py")
        # -I -S: no site-packages, no user paths: the child must not see MLIR.
        # The child imports only the `rocm` package: its directory's parent
        # is the one entry added to its path.
        site = str(Path(rocm_llvm_library()).parents[2])
        return subprocess.Popen(
            [sys.executable, "-I", "-S", str(script), site],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )

    def close(self) -> None:
        """Stop the child (called at exit): EOF on stdin ends its loop."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc is not None:
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()

    def codegen(self, llvm_ir: str, triple: str, cpu: str) -> tuple[str, bytes]:
        request = json.dumps({"ir": llvm_ir, "triple": triple, "cpu": cpu, "opt": 3}).encode()
        with self._lock:
            for attempt in range(2):  # restart once if the worker died
                if self._proc is None or self._proc.poll() is not None:
                    self._proc = self._start()
                proc = self._proc
                assert proc.stdin is not None and proc.stdout is not None
                try:
                    proc.stdin.write(struct.pack("<I", len(request)) + request)
                    proc.stdin.flush()
                    header = _read_frame(proc.stdout)
                    obj = _read_frame(proc.stdout)
                except (BrokenPipeError, EOFError) as exc:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    self._proc = None
                    if attempt:
                        raise CompileError(f"AMDGCN code generator crashed: {err or exc}") from exc
                    continue
                reply = json.loads(header)
                if not reply["ok"]:
                    raise CompileError(f"AMDGCN code generation for {cpu} failed: "
                                       f"{reply['error']}")
                return reply["asm"], obj
        raise AssertionError("unreachable")


def _read_frame(stream: object) -> bytes:
    head = stream.read(4)  # type: ignore[attr-defined]
    if len(head) < 4:
        raise EOFError("worker closed its output")
    (size,) = struct.unpack("<I", head)
    data = stream.read(size)  # type: ignore[attr-defined]
    if len(data) < size:
        raise EOFError("short read from worker")
    return data


_WORKER: _Worker | None = None


def _worker() -> _Worker:
    global _WORKER
    if _WORKER is None:
        _WORKER = _Worker()
        atexit.register(_WORKER.close)
    return _WORKER


# -- hsaco linking ----------------------------------------------------------------
def find_ld_lld() -> str | None:
    """ld.lld from $TCC_LD_LLD, ROCm, or PATH (Debian's lld-N packages give ld.lld-N)."""
    if env := os.environ.get("TCC_LD_LLD"):
        return env if shutil.which(env) else None
    for cand in _LLD_CANDIDATES:
        if path := shutil.which(cand):
            return path
    return None


LLD_MISSING = ("no ld.lld found to link the AMDGCN object into a loadable hsaco: install ROCm "
               "(/opt/rocm/llvm/bin/ld.lld) or an lld 19-22 (`apt-get install lld-19` on "
               "Debian 12, `lld-20` or newer on Ubuntu 24.04+), or set TCC_LD_LLD")


def link_hsaco(obj: bytes) -> bytes | None:
    """Relocatable AMDGPU ELF -> hsaco, or None (with a warning) without ld.lld."""
    lld = find_ld_lld()
    if lld is None:
        import warnings

        warnings.warn(LLD_MISSING, RuntimeWarning, stacklevel=3)
        return None
    with tempfile.TemporaryDirectory(prefix="tcc-hsaco-") as tmp:
        src, dst = Path(tmp) / "kernel.o", Path(tmp) / "kernel.hsaco"
        src.write_bytes(obj)
        proc = subprocess.run([lld, "-shared", str(src), "-o", str(dst)],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CompileError(f"{lld} failed to link the hsaco:\n{proc.stderr}")
        return dst.read_bytes()
