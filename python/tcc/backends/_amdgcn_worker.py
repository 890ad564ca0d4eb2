"""AMDGCN code generation with AMD's LLVM, through rocm-llvm-python's LLVM-C
bindings (`rocm.llvm.c`, Cython over librocmllvm.so).

Run as a standalone script in a child process, never imported next to MLIR:
librocmllvm.so and the MLIR wheels' libLLVM.so both define LLVM's
STB_GNU_UNIQUE globals (e.g. the cl::opt registries), which the dynamic
linker merges process-wide, so loading both aborts with
"Option '...' already exists". The child runs with `-I -S` (no site
hooks, no user paths), adds the directory holding the `rocm` package to its
path (argv[1]) and imports only `rocm.llvm` from it.

Protocol on stdin/stdout, each frame a little-endian u32 length + bytes:
request = JSON {"ir", "triple", "cpu", "features", "opt"}; response = JSON
{"ok", "error", "asm"} frame then one frame with the relocatable ELF.
"""

from __future__ import annotations

import ctypes
import json
import struct
import sys
from typing import Any, BinaryIO


def _load(site: str) -> Any:
    """The bindings' modules (their functions carry the C signatures), with
    every target librocmllvm.so was built with initialized."""
    sys.path.insert(0, site)
    from types import SimpleNamespace

    from rocm.llvm.c import core, error, irreader, target, targetmachine
    from rocm.llvm.c.transforms import passbuilder

    for init in ("LLVMInitializeAllTargetInfos", "LLVMInitializeAllTargets",
                 "LLVMInitializeAllTargetMCs", "LLVMInitializeAllAsmPrinters",
                 "LLVMInitializeAllAsmParsers"):
        getattr(target, init)()
    return SimpleNamespace(core=core, error=error, irreader=irreader, target=target,
                           tm=targetmachine, passes=passbuilder)


def codegen(llvm: Any, req: dict[str, Any]) -> tuple[str, bytes]:
    """Optimize the IR and emit (assembly, relocatable ELF)."""
    core, tm_mod = llvm.core, llvm.tm
    triple = req["triple"].encode()
    opt = req.get("opt", 3)
    failed, target, err = tm_mod.LLVMGetTargetFromTriple(triple)
    if failed:
        raise RuntimeError(f"no LLVM target for {req['triple']}: {err}")
    tm = tm_mod.LLVMCreateTargetMachine(
        target, triple, req["cpu"].encode(), req.get("features", "").encode(),
        tm_mod.LLVMCodeGenOptLevel(opt), tm_mod.LLVMRelocMode.LLVMRelocPIC,
        tm_mod.LLVMCodeModel.LLVMCodeModelDefault)
    ctx = core.LLVMContextCreate()
    try:
        outputs = []
        for kind in (tm_mod.LLVMCodeGenFileType.LLVMAssemblyFile,
                     tm_mod.LLVMCodeGenFileType.LLVMObjectFile):
            # Parse per output: emitting consumes/mutates the module.
            ir = req["ir"].encode()
            buf = core.LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, len(ir), b"tcc")
            failed, mod, err = llvm.irreader.LLVMParseIRInContext(ctx, buf)  # takes buf
            if failed:
                raise RuntimeError(f"AMD LLVM could not parse the IR: {err}")
            core.LLVMSetTarget(mod, triple)
            layout = tm_mod.LLVMCreateTargetDataLayout(tm)
            llvm.target.LLVMSetModuleDataLayout(mod, layout)  # copies it
            llvm.target.LLVMDisposeTargetData(layout)
            opts = llvm.passes.LLVMCreatePassBuilderOptions()
            error = llvm.passes.LLVMRunPasses(mod, f"default<O{opt}>".encode(), tm, opts)
            llvm.passes.LLVMDisposePassBuilderOptions(opts)
            if error is not None:
                raise RuntimeError(
                    f"LLVM optimization failed: {llvm.error.LLVMGetErrorMessage(error)}")
            # The two out-parameters (char **, LLVMMemoryBufferRef *): cells
            # whose addresses the binding passes through.
            message, out = ctypes.c_void_p(), ctypes.c_void_p()
            if tm_mod.LLVMTargetMachineEmitToMemoryBuffer(
                    tm, mod, kind, ctypes.addressof(message), ctypes.addressof(out)):
                text = ctypes.string_at(message.value).decode() if message.value else "?"
                raise RuntimeError(f"AMDGPU code generation failed: {text}")
            outputs.append(ctypes.string_at(int(core.LLVMGetBufferStart(out.value)),
                                            core.LLVMGetBufferSize(out.value)))
            core.LLVMDisposeMemoryBuffer(out.value)
            core.LLVMDisposeModule(mod)
        return outputs[0].decode(), outputs[1]
    finally:
        core.LLVMContextDispose(ctx)
        tm_mod.LLVMDisposeTargetMachine(tm)


def _read_frame(stream: BinaryIO) -> bytes | None:
    head = stream.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack("<I", head)
    return stream.read(size)


def _write_frame(stream: BinaryIO, data: bytes) -> None:
    stream.write(struct.pack("<I", len(data)) + data)


def main() -> None:
    llvm = _load(sys.argv[1])
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (frame := _read_frame(stdin)) is not None:
        try:
            asm, obj = codegen(llvm, json.loads(frame))
            reply: dict[str, Any] = {"ok": True, "asm": asm}
        except Exception as exc:  # reported to the parent, which raises CompileError
            reply, obj = {"ok": False, "error": str(exc)}, b""
        _write_frame(stdout, json.dumps(reply).encode())
        _write_frame(stdout, obj)
        stdout.flush()


if __name__ == "__main__":
    main()
