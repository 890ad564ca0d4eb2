"""AMDGCN code generation with AMD's LLVM (rocm-llvm-python's librocmllvm.so).

Run as a standalone script in a child process, never imported next to MLIR:
librocmllvm.so and the MLIR wheels' libLLVM.so both define LLVM's
STB_GNU_UNIQUE globals (e.g. the cl::opt registries), which the dynamic
linker merges process-wide, so loading both aborts with
"Option '...' already exists". The script uses only the standard library.

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

vp = ctypes.c_void_p
_ASM, _OBJ = 0, 1  # LLVMCodeGenFileType
_RELOC_PIC = 2
_OPT_LEVEL = {0: 0, 1: 1, 2: 2, 3: 3}


def _load(path: str) -> Any:
    lib = ctypes.CDLL(path)
    for target in ("TargetInfo", "Target", "TargetMC", "AsmPrinter", "AsmParser"):
        getattr(lib, f"LLVMInitializeAMDGPU{target}")()
    sig = {
        "LLVMContextCreate": (vp, []),
        "LLVMContextDispose": (None, [vp]),
        "LLVMCreateMemoryBufferWithMemoryRangeCopy": (vp, [ctypes.c_char_p, ctypes.c_size_t,
                                                           ctypes.c_char_p]),
        "LLVMParseIRInContext": (ctypes.c_int, [vp, vp, ctypes.POINTER(vp),
                                                ctypes.POINTER(ctypes.c_char_p)]),
        "LLVMGetTargetFromTriple": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(vp),
                                                   ctypes.POINTER(ctypes.c_char_p)]),
        "LLVMCreateTargetMachine": (vp, [vp, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.c_int, ctypes.c_int, ctypes.c_int]),
        "LLVMDisposeTargetMachine": (None, [vp]),
        "LLVMCreateTargetDataLayout": (vp, [vp]),
        "LLVMSetModuleDataLayout": (None, [vp, vp]),
        "LLVMDisposeTargetData": (None, [vp]),
        "LLVMSetTarget": (None, [vp, ctypes.c_char_p]),
        "LLVMCreatePassBuilderOptions": (vp, []),
        "LLVMDisposePassBuilderOptions": (None, [vp]),
        "LLVMRunPasses": (vp, [vp, ctypes.c_char_p, vp, vp]),
        "LLVMGetErrorMessage": (vp, [vp]),
        "LLVMTargetMachineEmitToMemoryBuffer": (ctypes.c_int, [vp, vp, ctypes.c_int,
                                                               ctypes.POINTER(ctypes.c_char_p),
                                                               ctypes.POINTER(vp)]),
        "LLVMGetBufferStart": (vp, [vp]),
        "LLVMGetBufferSize": (ctypes.c_size_t, [vp]),
        "LLVMDisposeMemoryBuffer": (None, [vp]),
        "LLVMDisposeModule": (None, [vp]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


def codegen(lib: Any, req: dict[str, Any]) -> tuple[str, bytes]:
    """Optimize the IR and emit (assembly, relocatable ELF)."""
    err = ctypes.c_char_p()
    triple = req["triple"].encode()
    target = vp()
    if lib.LLVMGetTargetFromTriple(triple, ctypes.byref(target), ctypes.byref(err)):
        raise RuntimeError(f"no LLVM target for {req['triple']}: {err.value!r}")
    tm = lib.LLVMCreateTargetMachine(
        target, triple, req["cpu"].encode(), req.get("features", "").encode(),
        _OPT_LEVEL[req.get("opt", 3)], _RELOC_PIC, 0,
    )
    ctx = lib.LLVMContextCreate()
    try:
        outputs = []
        for kind in (_ASM, _OBJ):
            # Parse per output: emitting consumes/mutates the module.
            ir = req["ir"].encode()
            buf = lib.LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, len(ir), b"tcc")
            mod = vp()
            if lib.LLVMParseIRInContext(ctx, buf, ctypes.byref(mod), ctypes.byref(err)):
                raise RuntimeError(f"AMD LLVM could not parse the IR: {err.value.decode()}")
            lib.LLVMSetTarget(mod, triple)
            layout = lib.LLVMCreateTargetDataLayout(tm)
            lib.LLVMSetModuleDataLayout(mod, layout)  # copies it
            lib.LLVMDisposeTargetData(layout)
            opts = lib.LLVMCreatePassBuilderOptions()
            error = lib.LLVMRunPasses(mod, f"default<O{req.get('opt', 3)}>".encode(), tm, opts)
            lib.LLVMDisposePassBuilderOptions(opts)
            if error:
                msg = ctypes.string_at(lib.LLVMGetErrorMessage(error)).decode()
                raise RuntimeError(f"LLVM optimization failed: {msg}")
            out = vp()
            if lib.LLVMTargetMachineEmitToMemoryBuffer(
                tm, mod, kind, ctypes.byref(err), ctypes.byref(out)
            ):
                raise RuntimeError(f"AMDGPU code generation failed: {err.value.decode()}")
            outputs.append(ctypes.string_at(lib.LLVMGetBufferStart(out),
                                            lib.LLVMGetBufferSize(out)))
            lib.LLVMDisposeMemoryBuffer(out)
            lib.LLVMDisposeModule(mod)
        return outputs[0].decode(), outputs[1]
    finally:
        lib.LLVMContextDispose(ctx)
        lib.LLVMDisposeTargetMachine(tm)


def _read_frame(stream: BinaryIO) -> bytes | None:
    head = stream.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack("<I", head)
    return stream.read(size)


def _write_frame(stream: BinaryIO, data: bytes) -> None:
    stream.write(struct.pack("<I", len(data)) + data)


def main() -> None:
    lib = _load(sys.argv[1])
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (frame := _read_frame(stdin)) is not None:
        try:
            asm, obj = codegen(lib, json.loads(frame))
            reply: dict[str, Any] = {"ok": True, "asm": asm}
        except Exception as exc:  # reported to the parent, which raises CompileError
            reply, obj = {"ok": False, "error": str(exc)}, b""
        _write_frame(stdout, json.dumps(reply).encode())
        _write_frame(stdout, obj)
        stdout.flush()


if __name__ == "__main__":
    main()
