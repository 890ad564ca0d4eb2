"""Generated tcc-dialect programs shared by the tests and the benchmarks."""


def gemm_program(m: int, n: int, k: int, dtype: str, *, bias_gelu: bool = False,
                 name: str = "gemm", batch: int | None = None, layout: str = "nn") -> str:
    """``C = A @ B`` (f32 accumulation, cast back to ``dtype``), optionally with
    a bias row added and GELU(tanh) applied before the cast; with ``batch``,
    ``batch`` independent products of [batch, m, k] and [batch, k, n].
    ``layout`` says how the operands are stored: "nn" (A [m, k], B [k, n]),
    "nt" (B given as [n, k] and transposed, nn.Linear's ``x @ w.T``) or "tn"
    (A given as [k, m])."""
    if layout not in ("nn", "nt", "tn"):
        raise ValueError(f"layout must be nn, nt or tn, got {layout!r}")
    lead = f"{batch}x" if batch else ""
    a, b = f"tensor<{lead}{m}x{k}x{dtype}>", f"tensor<{lead}{k}x{n}x{dtype}>"
    c32, c = f"tensor<{lead}{m}x{n}xf32>", f"tensor<{lead}{m}x{n}x{dtype}>"
    perm = "[0, 2, 1]" if batch else "[1, 0]"
    body = ""
    lhs, rhs = "%a", "%b"
    if layout == "tn":
        stored = f"tensor<{lead}{k}x{m}x{dtype}>"
        args = f"%a: {stored}, %b: {b}"
        body += f"  %at = tcc.transpose %a permutation = {perm} : {stored} -> {a}\n"
        lhs = "%at"
    elif layout == "nt":
        stored = f"tensor<{lead}{n}x{k}x{dtype}>"
        args = f"%a: {a}, %b: {stored}"
        body += f"  %bt = tcc.transpose %b permutation = {perm} : {stored} -> {b}\n"
        rhs = "%bt"
    else:
        args = f"%a: {a}, %b: {b}"
    body += f"  %p = tcc.matmul {lhs}, {rhs} acc(f32) : {a}, {b} -> {c32}\n"
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


def reduction_program(name: str, op: str, shape: tuple[int, ...], dims: tuple[int, ...],
                      dtype: str = "f32") -> str:
    """One ``tcc.<op>`` (``reduce_sum``, ``reduce_max``, ``reduce_min``,
    ``reduce_mean``) of an input of ``shape`` over ``dims``, the result in
    ``dtype`` (sums and means of f16/bf16 accumulate in f32); reducing every
    dim gives a rank-0 result."""
    kept = [s for d, s in enumerate(shape) if d not in dims]
    x = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    y = f"tensor<{''.join(f'{s}x' for s in kept)}{dtype}>"
    return (f"func.func @{name}(%x: {x}) -> {y} {{\n"
            f"  %r = tcc.{op} %x dims = {list(dims)} : {x} -> {y}\n"
            f"  return %r : {y}\n}}\n")


# Reductions along outer dims and split reductions at sizes that fill an
# H200 (>= 256 MiB read): name -> (op, shape, dims, dtype). Built by
# benchmarks/reductions.py and checked for their grids in the tests.
REDUCTION_BENCHMARKS: dict[str, tuple[str, tuple[int, ...], tuple[int, ...], str]] = {
    "column_sum_f32": ("reduce_sum", (16384, 16384), (0,), "f32"),
    "column_max_f32": ("reduce_max", (16384, 16384), (0,), "f32"),
    "column_sum_f16": ("reduce_sum", (16384, 16384), (0,), "f16"),
    "full_sum_f32": ("reduce_sum", (16384, 16384), (0, 1), "f32"),
    "mean_dim1_f32": ("reduce_mean", (64, 4096, 1024), (1,), "f32"),
    "mean_dim1_f16": ("reduce_mean", (64, 4096, 1024), (1,), "f16"),
    "tall_column_sum_f32": ("reduce_sum", (1 << 23, 8), (0,), "f32"),
    "long_row_sum_f32": ("reduce_sum", (4, 1 << 24), (1,), "f32"),
}


def reduction_benchmarks() -> dict[str, str]:
    """The programs of REDUCTION_BENCHMARKS, by name."""
    return {name: reduction_program(name, *case) for name, case in REDUCTION_BENCHMARKS.items()}
