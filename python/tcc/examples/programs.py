"""Generated tcc-dialect programs shared by the tests and the benchmarks."""


def gemm_program(m: int, n: int, k: int, dtype: str, *, bias_gelu: bool = False,
                 name: str = "gemm", batch: int | None = None) -> str:
    """``C = A @ B`` (f32 accumulation, cast back to ``dtype``), optionally with
    a bias row added and GELU(tanh) applied before the cast; with ``batch``,
    ``batch`` independent products of [batch, m, k] and [batch, k, n]."""
    lead = f"{batch}x" if batch else ""
    a, b = f"tensor<{lead}{m}x{k}x{dtype}>", f"tensor<{lead}{k}x{n}x{dtype}>"
    c32, c = f"tensor<{lead}{m}x{n}xf32>", f"tensor<{lead}{m}x{n}x{dtype}>"
    args = f"%a: {a}, %b: {b}"
    body = f"  %p = tcc.matmul %a, %b acc(f32) : {a}, {b} -> {c32}\n"
    last = "%p"
    if bias_gelu:
        bias = f"tensor<{n}xf32>"
        args += f", %bias: {bias}"
        dims = "[0, 1]" if batch else "[0]"
        body += (f"  %bb = tcc.broadcast %bias dims = {dims} : {bias} -> {c32}\n"
                 f"  %s = tcc.add %p, %bb : {c32}\n"
                 f"  %g = tcc.gelu %s approximate = tanh : {c32}\n")
        last = "%g"
    body += f"  %r = tcc.cast {last} : {c32} to {c}\n"
    return f"func.func @{name}({args}) -> {c} {{\n{body}  return %r : {c}\n}}\n"
