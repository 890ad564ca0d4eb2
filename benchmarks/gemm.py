"""tcc's tensor-core GEMM on a GPU: correctness against float64 and TFLOP/s
next to cuBLAS (torch.matmul) and an autotuned Triton matmul
(benchmarks/triton_matmul.py), in one run; optional Nsight Compute
bank-conflict counters with the shared-memory swizzle on and off. The f32
cases are the FMA fallback (no tensor-core mapping), next to cuBLAS's FP32
SGEMM (TF32 off); Triton is not timed there (its f32 tl.dot uses TF32).

    # here (CPU, MLIR): compile the GEMMs into DIR
    python benchmarks/gemm.py build DIR
    # on the GPU machine (tcc.runtime, torch, triton):
    PYTHONPATH=python python3 benchmarks/gemm.py run DIR OUT [--check-only]
    # the same kernels at small sizes (the plans of the big ones), for racecheck:
    python benchmarks/gemm.py build DIR --small
    # bank conflicts (one launch per artifact under ncu):
    ncu --clock-control none --metrics \\
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\\
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \\
        python3 benchmarks/gemm.py once DIR NAME
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

# (M, N, K): tile multiples, the large and odd sizes.
CASES = ((4096, 4096, 4096), (8192, 8192, 8192), (1000, 1000, 1000), (4097, 4095, 4096))
DTYPES = ("f16", "bf16")
# The FMA fallback (f32 operands): a power-of-two size and odd sizes.
FMA_CASES = ((1024, 1024, 1024), (1000, 777, 333))
TOLERANCE = {"f16": 2e-3, "bf16": 1e-2, "f32": 1e-5}  # relative error vs float64 (f32 accumulation)
TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}
# The mma.sync + cp.async path (sm_80's PTX, which the H200 runs; sm_90 plans
# its wgmma GEMM instead: benchmarks/hopper_gemm.py).
TARGET = "sm_80"


# --small: each case's plan at a size racecheck finishes (the same warps,
# stages, swizzle, batch and epilogue; odd sizes stay odd).
SMALL = {4096: 256, 8192: 512, 1000: 200, 4097: 257, 4095: 255, 1024: 256, 777: 77,
         512: 128, 333: 33}


def build(directory: Path, small: bool = False) -> None:
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.examples.programs import gemm_program

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    plain = {"epilogue": False, "warps": 4, "swizzle": True, "stages": 3, "batch": None}
    cases = [{**plain, "shape": s, "dtype": dt} for s in CASES for dt in DTYPES]
    big = {**plain, "shape": (4096, 4096, 4096), "dtype": "f16"}
    cases += [{**big, "epilogue": True},
              {**big, "stages": 1},  # synchronous staging
              {**big, "stages": 2},
              {**big, "stages": 4},  # 64 KiB: dynamic shared memory
              # 128x256 blocks, 8 warps
              {**big, "shape": (8192, 8192, 8192), "dtype": "bf16", "warps": 8, "stages": 2},
              {**big, "shape": (8192, 8192, 8192), "dtype": "bf16", "warps": 8, "stages": 3},
              {**big, "warps": 8, "stages": 4},
              {**big, "swizzle": False},  # for ncu
              # linalg.batch_matmul / batched tcc.matmul: batch x blocks programs
              {**big, "shape": (1024, 1024, 1024), "batch": 16},
              {**big, "shape": (1000, 777, 512), "batch": 3, "epilogue": True},
              # the tile stage of a synchronous build, compiled again as a
              # tile-dialect source (swizzled and pipelined by tcc.compile)
              {**big, "tile_program": True},
              # nn.Linear's x @ w.T: B read as stored [N, K] (one kernel),
              # next to its NN twins above
              {**big, "layout": "nt"}, {**big, "dtype": "bf16", "layout": "nt"},
              {**big, "shape": (1000, 1000, 1000), "layout": "nt"},
              {**big, "shape": (1000, 777, 512), "batch": 3, "epilogue": True,
               "layout": "nt"}]
    # The FMA fallback (no tensor-core mapping).
    cases += [{**plain, "shape": s, "dtype": "f32"} for s in FMA_CASES]
    for case in cases:
        m, n, k = (SMALL[d] for d in case["shape"]) if small else case["shape"]
        dtype, batch = case["dtype"], case["batch"]
        name = f"gemm{'_bias_gelu' if case['epilogue'] else ''}_{dtype}_"
        name += (f"{batch}x" if batch else "") + f"{m}x{n}x{k}"
        name += "" if case["warps"] == 4 else f"_w{case['warps']}"
        name += "" if case["swizzle"] else "_noswizzle"
        name += "" if case["stages"] == 3 else f"_s{case['stages']}"
        name += "_tileprog" if case.get("tile_program") else ""
        layout = case.get("layout", "nn")
        name += "" if layout == "nn" else f"_{layout}"
        start = time.perf_counter()
        text = gemm_program(m, n, k, dtype, bias_gelu=case["epilogue"], batch=batch,
                            name="gemm_bias_gelu" if case["epilogue"] else "gemm",
                            layout=layout)
        if case.get("tile_program"):
            text = tcc_compile(text, TARGET, cache=False, num_warps=case["warps"],
                               num_stages=1).ir["tile"]
            # Without its plan (num_stages = 1), as a hand-written tile
            # program: tcc.compile pipelines it with num_stages.
            text = re.sub(r", tile\.lowering_config = #tile\.lowering_config<[^>]*>", "", text)
        kernel = tcc_compile(text, TARGET, cache=False, num_warps=case["warps"],
                             swizzle=case["swizzle"], num_stages=case["stages"])
        kernel.artifact.save(directory / f"{name}.tcck")
        manifest.append({"name": name, "shape": [m, n, k], "batch": batch, "dtype": dtype,
                         "epilogue": case["epilogue"], "layout": layout,
                         "kernels": len(kernel.kernels),
                         "compile_s": time.perf_counter() - start})
        print(f"built {name} in {manifest[-1]['compile_s'] * 1e3:.0f} ms")
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def run(directory: Path, out: Path, check_only: bool = False) -> int:
    import torch
    import triton.testing

    from checks import check_against_float64  # benchmarks/ is the script's directory
    from tcc.runtime import load

    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False  # cuBLAS f32 is true FP32
    gen = torch.Generator(device="cuda").manual_seed(11)
    from triton_matmul import triton_matmul  # benchmarks/ is the script's directory

    triton_mm = triton_matmul()
    rows, failures = [], 0
    for entry in json.loads((directory / "manifest.json").read_text()):
        m, n, k = entry["shape"]
        lead = (entry["batch"],) if entry.get("batch") else ()
        dtype = getattr(torch, TORCH_DTYPES[entry["dtype"]])
        a = torch.randn((*lead, m, k), generator=gen, device="cuda").to(dtype)
        nt = entry.get("layout") == "nt"  # B stored [N, K], read as its transpose
        stored = torch.randn((*lead, *((n, k) if nt else (k, n))), generator=gen,
                             device="cuda").to(dtype)
        b = stored.transpose(-1, -2) if nt else stored
        args = [a, stored]
        ref = a.double() @ b.double()
        if entry["epilogue"]:
            bias = torch.randn((n,), generator=gen, device="cuda")
            args.append(bias)
            ref = torch.nn.functional.gelu(ref + bias.double(), approximate="tanh")
        kernel = load(directory / f"{entry['name']}.tcck")
        result = torch.full((*lead, m, n), float("nan"), device="cuda", dtype=dtype)
        kernel(*args, out=result)
        unwritten, rel = check_against_float64(result, ref)
        ok = unwritten == 0 and rel <= TOLERANCE[entry["dtype"]]
        failures += not ok
        flops = 2.0 * m * n * k * (lead[0] if lead else 1)
        row = {"name": entry["name"], "rel_err": rel, "unwritten": unwritten, "ok": ok}
        print(f"{'ok  ' if ok else 'FAIL'} {entry['name']:32s} rel.err {rel:.1e} "
              f"({entry.get('kernels', 1)} kernel(s))")
        if check_only:
            continue
        timed = {"tcc": lambda k_=kernel, a_=args, o=result: k_(*a_, out=o)}
        if not entry["epilogue"]:
            # NT: F.linear, cuBLAS reading the weight as stored.
            timed["cuBLAS"] = ((lambda a_=a, w_=stored: torch.nn.functional.linear(a_, w_))
                               if nt else (lambda a_=a, b_=b: torch.matmul(a_, b_)))
            # The Triton reference kernel is 2-D; its f32 tl.dot would use TF32.
            if not lead and entry["dtype"] != "f32":
                timed["triton"] = lambda a_=a, b_=b: triton_mm(a_, b_)
        for label, fn in timed.items():
            ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
            row[label] = flops / (ms * 1e-3) / 1e12
        rows.append(row)
        print("    " + " ".join(f"{lab} {row[lab]:.0f}" for lab in timed) + " TFLOP/s")
    if check_only:
        return 1 if failures else 0
    (out / "gemm.json").write_text(json.dumps(rows, indent=1))
    lines = ["| GEMM | rel. err | tcc TFLOP/s | cuBLAS | Triton | tcc / cuBLAS |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        cublas = r.get("cuBLAS")
        lines.append(f"| {r['name']} | {r['rel_err']:.1e} | {r['tcc']:.0f} | "
                     f"{cublas or float('nan'):.0f} | {r.get('triton', float('nan')):.0f} | "
                     f"{(r['tcc'] / cublas) if cublas else float('nan'):.2f} |")
    report = "\n".join(lines)
    (out / "gemm.md").write_text(report + "\n")
    print(report)
    return 1 if failures else 0


def once(directory: Path, name: str) -> None:
    """One launch of one artifact (for ncu)."""
    import torch

    from tcc.runtime import load

    entry = next(e for e in json.loads((directory / "manifest.json").read_text())
                 if e["name"] == name)
    m, n, k = entry["shape"]
    dtype = getattr(torch, TORCH_DTYPES[entry["dtype"]])
    a = torch.randn((m, k), device="cuda").to(dtype)
    b = torch.randn((k, n), device="cuda").to(dtype)
    load(directory / f"{name}.tcck")(a, b)
    torch.cuda.synchronize()


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    if verb == "build":
        build(Path(sys.argv[2]), "--small" in sys.argv[3:])
    elif verb == "run":
        sys.exit(run(Path(sys.argv[2]), Path(sys.argv[3]), "--check-only" in sys.argv[4:]))
    elif verb == "once":
        once(Path(sys.argv[2]), sys.argv[3])
    else:
        print(__doc__)
        sys.exit(2)
