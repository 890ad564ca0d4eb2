"""Generated tcc-dialect programs shared by the tests and the benchmarks."""


def gemm_program(m: int, n: int, k: int, dtype: str, *, bias_gelu: bool = False,
                 name: str = "gemm") -> str:
    """``C = A @ B`` (f32 accumulation, cast back to ``dtype``), optionally with
    a bias row added and GELU(tanh) applied before the cast."""
    a, b = f"tensor<{m}x{k}x{dtype}>", f"tensor<{k}x{n}x{dtype}>"
    c32, c = f"tensor<{m}x{n}xf32>", f"tensor<{m}x{n}x{dtype}>"
    args = f"%a: {a}, %b: {b}"
    body = f"  %p = tcc.matmul %a, %b acc(f32) : {a}, {b} -> {c32}\n"
    last = "%p"
    if bias_gelu:
        bias = f"tensor<{n}xf32>"
        args += f", %bias: {bias}"
        body += (f"  %bb = tcc.broadcast %bias dims = [0] : {bias} -> {c32}\n"
                 f"  %s = tcc.add %p, %bb : {c32}\n"
                 f"  %g = tcc.gelu %s approximate = tanh : {c32}\n")
        last = "%g"
    body += f"  %r = tcc.cast {last} : {c32} to {c}\n"
    return f"func.func @{name}({args}) -> {c} {{\n{body}  return %r : {c}\n}}\n"
