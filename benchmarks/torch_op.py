"""tcc.torch's CUDA path on a GPU: the f16 LayerNorm artifact of
benchmarks/programs.py registered as a torch custom op, checked against
float64 torch, traced by torch.compile(fullgraph=True), opcheck'ed on CUDA
tensors, and timed next to the runtime's direct call and torch's layer_norm.

    # here (CPU, MLIR):
    PYTHONPATH=build/dev/python_packages python benchmarks/programs.py build DIR \
        layer_norm_16384x4096
    # on the GPU machine (no MLIR there: the op is made from the artifact file):
    PYTHONPATH=python python3 benchmarks/torch_op.py DIR/layer_norm_16384x4096.tccprog
"""

import sys

import torch
import triton.testing as tt

import tcc.runtime
from tcc.torch import custom_op

prog = tcc.runtime.load(sys.argv[1])
op = custom_op(prog, "layer_norm_gpu")
M, N = 16384, 4096
torch.manual_seed(0)
x = torch.randn(M, N, device="cuda", dtype=torch.float16)
w = torch.randn(N, device="cuda", dtype=torch.float16)
b = torch.randn(N, device="cuda", dtype=torch.float16)
ref = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
got = op(x, w, b)
err = float((got.double() - ref).norm() / ref.norm())
print("custom op rel err", err, got.dtype, got.device)



def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return op(x, w, b) * 2 + 1



cf = torch.compile(f, fullgraph=True)
got2 = cf(x, w, b)
err2 = float((got2.double() - (ref * 2 + 1)).norm() / (ref * 2 + 1).norm())
print("torch.compile(fullgraph=True) rel err", err2)
small = [torch.randn(M, N, device="cuda", dtype=torch.float16), w, b]
torch.library.opcheck(op, tuple(small),
                      test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_static"))
print("opcheck ok")
out = torch.empty_like(x)
t_op = tt.do_bench(lambda: op(x, w, b), warmup=50, rep=300, return_mode="median")
t_rt = tt.do_bench(lambda: prog(x, w, b, out=out), warmup=50, rep=300, return_mode="median")
t_torch = tt.do_bench(lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5),
                      warmup=50, rep=300, return_mode="median")
nbytes = 2 * M * N * 2 + 2 * N * 2
rows = (("torch.ops (custom op)", t_op), ("runtime call", t_rt), ("torch layer_norm", t_torch))
for k, t in rows:
    print(f"{k:24s} {t*1e3:8.1f} us  {nbytes / (t * 1e-3) / 1e9:7.0f} GB/s")
