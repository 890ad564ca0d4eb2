"""The FMA fallback: matmuls without a tensor-core mapping (f32, mixed types).

Compiled to PTX and AMDGCN (FMAs, no mma/MFMA), with the remark, and run on
the CPU through the ``gpu`` stage (tcc.testing.simt: one OS thread per GPU
thread, real barriers, cp.async run synchronously), which checks
convert-tile-to-gpu's lowering numerically against float64 without a GPU.
"""

import re

import numpy as np
import pytest
from mlir import ir
from mlir.passmanager import PassManager

from tcc.compiler.compile import CompilationError
from tcc.compiler.compile import compile as tcc_compile
from tcc.examples.programs import gemm_program
from tcc.testing.simt import run_gpu_stage

# Every f32 GEMM here reports the fallback; one test checks that warning.
pytestmark = pytest.mark.filterwarnings("ignore::tcc.compiler.compile.CompilerRemark")


def reference(a, b, bias=None):
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        s = ref + bias
        ref = 0.5 * s * (1 + np.tanh(np.sqrt(2 / np.pi) * (s + 0.044715 * s**3)))
    return ref


def operands(m, n, k, seed=0, bias=False):
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal((m, k)).astype(np.float32),
            rng.standard_normal((k, n)).astype(np.float32)]
    if bias:
        args.append(rng.standard_normal(n).astype(np.float32))
    return args


def rel_err(out, ref):
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def test_sgemm_ptx_uses_fma_not_mma():
    k = tcc_compile(gemm_program(1000, 777, 333, "f32"), "sm_90", cache=False)
    assert "fma.rn.f32" in k.asm
    assert "mma" not in k.asm and "ldmatrix" not in k.asm
    # Rows of 333 and 777 elements: no A or B row start but every fourth is
    # 16-byte aligned, so tcc-coalesce keeps the operand loads at one
    # element per thread (a warp reads 128 consecutive bytes), staged
    # through shared memory; the FMA operands are read back as 16-byte
    # vectors.
    assert "ld.shared.v4" in k.asm and "bar.sync" in k.asm
    assert "ld.global.v4" not in k.asm
    # 64 x 64 blocks, 4 warps: 16 x 13 programs; per K step of 8, 32
    # accumulators x 8 k = 256 FMAs per thread.
    assert k.launch.block == (128, 1, 1) and k.launch.grid == (208, 1, 1)
    assert len(re.findall(r"\bfma\.rn\.f32", k.asm)) == 256
    assert "#tile.blocked" in k.ir["tile"] and "kWidth = 0" in k.ir["tile"]
    assert "nvidia_mma" not in k.ir["tile"]


def test_sgemm_operands_are_pipelined_with_cp_async():
    # Aligned rows: tcc-promote-shared-memory's 3-stage cp.async pipeline
    # feeds the FMA operands (tile.shared_load of a slot).
    k = tcc_compile(gemm_program(1024, 1024, 1024, "f32"), "sm_90", cache=False)
    assert "cp.async.cg.shared.global" in k.asm and "cp.async.wait_group" in k.asm
    # 16-byte copies (cp.async.cg moves only 16): tcc-coalesce's 4 x f32 runs.
    assert "sizePerThread = [1, 4]" in k.ir["tile"]
    assert len(re.findall(r"\bfma\.rn\.f32", k.asm)) == 256 and "mma" not in k.asm
    assert "tile.shared_load" in k.ir["tile"] and "!tile.shared_buffer<3x64x8xf32" in k.ir["tile"]


def test_sgemm_amdgcn_uses_fma_not_mfma():
    k = tcc_compile(gemm_program(1000, 777, 333, "f32", bias_gelu=True), "gfx942", cache=False)
    assert re.search(r"\bv_(pk_)?fmac?_f32", k.asm)
    assert "v_mfma" not in k.asm
    assert "ds_read_b128" in k.asm and "s_barrier" in k.asm
    # wave64: lanes 8 x 8, 128 x 64 blocks of 256 threads.
    assert k.launch.block == (256, 1, 1) and k.launch.grid == (8 * 13, 1, 1)
    assert "threadsPerWarp = [8, 8]" in k.ir["tile"]
    assert not re.search(r"__(ocml|ockl)_", k.asm)


def test_remark_names_the_types_and_the_fallback():
    remarks = []

    def handler(diag):
        remarks.append((diag.severity, str(diag.message)))
        return True

    with ir.Context() as ctx, ir.Location.unknown():
        ctx.attach_diagnostic_handler(handler)
        module = ir.Module.parse(gemm_program(256, 128, 64, "f32"))
        PassManager.parse("builtin.module(tcc-lower-to-tile{target=sm_90})").run(module.operation)
    assert [m for s, m in remarks if s == ir.DiagnosticSeverity.REMARK] == [
        "matmul of 'f32' x 'f32' -> 'f32' has no tensor-core mapping (f16 or bf16 operands "
        "of one type): using the FMA fallback (64x64x8 blocks, f32 accumulation)"
    ]


def test_f16_matmul_keeps_tensor_cores():
    k = tcc_compile(gemm_program(256, 256, 128, "f16"), "sm_80", cache=False)
    assert "mma.sync" in k.asm and "fma.rn.f32" not in k.asm


def test_f64_matmul_is_a_clear_error():
    src = ("func.func @g(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>) -> tensor<64x64xf64> {\n"
           "  %p = tcc.matmul %a, %b : tensor<64x64xf64>, tensor<64x64xf64> -> tensor<64x64xf64>\n"
           "  return %p : tensor<64x64xf64>\n}\n")
    with pytest.raises(CompilationError, match="the FMA fallback f16, bf16 or f32 operands"):
        tcc_compile(src, "sm_90", cache=False)


# Odd sizes: partial blocks in M and N, a K tail (and K below one step), one
# element; 4 warps and other warp counts.
@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
@pytest.mark.parametrize(("m", "n", "k"), [(100, 70, 37), (67, 130, 5), (1, 1, 1)])
def test_sgemm_numerics_through_the_gpu_stage(target, m, n, k):
    kernel = tcc_compile(gemm_program(m, n, k, "f32"), target, cache=False)
    a, b = operands(m, n, k)
    (out,) = run_gpu_stage(kernel, a, b)
    assert not np.isnan(out).any()
    assert rel_err(out, reference(a, b)) < 1e-6


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
@pytest.mark.parametrize("stages", [1, 2, 3])
def test_sgemm_numerics_pipelined(stages, target):
    # Aligned rows into 1..3-slot buffers (1 stage: plain shared staging).
    # sm_90: cp.async copies (run synchronously by the emulator, with their
    # zero-fill); gfx942: loads at the copy, LDS stores at the group's commit
    # after the step's FMAs (register-staged prefetch).
    m, n, k = 96, 136, 44
    kernel = tcc_compile(gemm_program(m, n, k, "f32"), target, cache=False, num_stages=stages)
    assert ("nvgpu.device_async_copy" in kernel.ir["gpu"]) == (stages > 1 and target == "sm_90")
    a, b = operands(m, n, k, seed=stages)
    (out,) = run_gpu_stage(kernel, a, b)
    assert rel_err(out, reference(a, b)) < 1e-6


@pytest.mark.parametrize("warps", [1, 2, 8])
def test_sgemm_numerics_other_warp_counts(warps):
    m, n, k = 150, 90, 20
    kernel = tcc_compile(gemm_program(m, n, k, "f32"), "sm_90", cache=False, num_warps=warps)
    assert kernel.launch.block == (32 * warps, 1, 1)
    a, b = operands(m, n, k, seed=warps)
    (out,) = run_gpu_stage(kernel, a, b)
    assert rel_err(out, reference(a, b)) < 1e-6


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_sgemm_bias_gelu_numerics(target):
    m, n, k = 70, 100, 24
    kernel = tcc_compile(gemm_program(m, n, k, "f32", bias_gelu=True), target, cache=False)
    assert "math.tanh" in kernel.ir["tile"]  # the epilogue runs on the accumulator
    a, b, bias = operands(m, n, k, bias=True)
    (out,) = run_gpu_stage(kernel, a, b, bias)
    assert rel_err(out, reference(a, b, bias)) < 1e-5


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_batched_sgemm_numerics(target):
    # batch x blocks programs on 2-D batch slices; a bias shared by every
    # batch and a per-batch residual in the epilogue.
    bt, m, n, k = 3, 100, 72, 40
    t = f"tensor<{bt}x{m}x{n}xf32>"
    src = (f"func.func @bgemm(%a: tensor<{bt}x{m}x{k}xf32>, %b: tensor<{bt}x{k}x{n}xf32>, "
           f"%bias: tensor<{n}xf32>, %res: {t}) -> {t} {{\n"
           f"  %p = tcc.matmul %a, %b : tensor<{bt}x{m}x{k}xf32>, tensor<{bt}x{k}x{n}xf32> -> {t}\n"
           f"  %bb = tcc.broadcast %bias dims = [0, 1] : tensor<{n}xf32> -> {t}\n"
           f"  %s = tcc.add %p, %bb : {t}\n"
           f"  %r = tcc.add %s, %res : {t}\n"
           f"  return %r : {t}\n}}\n")
    kernel = tcc_compile(src, target, cache=False)
    assert kernel.launch.grid == ((3 * 2 * 2) if target == "sm_90" else (3 * 1 * 2), 1, 1)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((bt, m, k)).astype(np.float32)
    b = rng.standard_normal((bt, k, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    res = rng.standard_normal((bt, m, n)).astype(np.float32)
    (out,) = run_gpu_stage(kernel, a, b, bias, res)
    ref = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b) + bias + res
    assert rel_err(out, ref) < 1e-6


def test_mixed_types_numerics():
    # f16 x f32 -> f16 (linalg.matmul semantics: accumulate in f32 here).
    m, n, k = 50, 40, 30
    src = (f"func.func @mixed(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf32>) "
           f"-> tensor<{m}x{n}xf16> {{\n"
           f"  %z = arith.constant 0.0 : f16\n"
           f"  %e = tensor.empty() : tensor<{m}x{n}xf16>\n"
           f"  %f = linalg.fill ins(%z : f16) outs(%e : tensor<{m}x{n}xf16>) "
           f"-> tensor<{m}x{n}xf16>\n"
           f"  %p = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf32>) "
           f"outs(%f : tensor<{m}x{n}xf16>) -> tensor<{m}x{n}xf16>\n"
           f"  return %p : tensor<{m}x{n}xf16>\n}}\n")
    kernel = tcc_compile(src, "sm_90", cache=False)
    assert "fma.rn.f32" in kernel.asm
    a, b = operands(m, n, k)
    a = a.astype(np.float16)
    (out,) = run_gpu_stage(kernel, a, b)
    assert out.dtype == np.float16
    assert rel_err(out.astype(np.float64), reference(a, b)) < 1e-3


def test_emulator_needs_every_barrier():
    # The emulator runs the threads concurrently: dropping the shared-memory
    # barriers from the gpu stage breaks the result.
    m, n, k = 100, 70, 37
    kernel = tcc_compile(gemm_program(m, n, k, "f32"), "sm_90", cache=False)
    kernel.ir["gpu"] = "\n".join(
        line for line in kernel.ir["gpu"].splitlines() if line.strip() != "gpu.barrier"
    )
    a, b = operands(m, n, k)
    (out,) = run_gpu_stage(kernel, a, b)
    assert rel_err(out, reference(a, b)) > 1e-2


def test_emulator_runs_kernels_in_dynamic_shared_memory():
    # 4 slots of f16 tiles (64 KiB) live in dynamic shared memory (over the
    # 48 KiB of static workgroup buffers): the emulator gives the kernel one
    # buffer of the launch's dynamic bytes, which it views as its slots.
    kernel = tcc_compile(gemm_program(128, 128, 128, "f16"), "sm_80", cache=False, num_stages=4)
    assert "gpu.dynamic_shared_memory" in kernel.ir["gpu"]
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal((128, 128)).astype(np.float16) for _ in range(2))
    (c,) = run_gpu_stage(kernel, a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=2e-2, atol=2e-2 * np.abs(ref).max())


def test_remark_reaches_python_users_as_a_warning():
    from tcc.compiler.compile import CompilerRemark

    with pytest.warns(CompilerRemark, match=r"stage 'tile': .*'f32' x 'f32' -> 'f32' has no "
                                            r"tensor-core mapping .*FMA fallback"):
        tcc_compile(gemm_program(128, 128, 64, "f32"), "sm_90", cache=False)
