"""tcc.frontend rejects bad programs in Python, with messages naming the op and operands."""

import re

import pytest

import tcc
from tcc.frontend import (
    DTypeError,
    FrontendError,
    ShapeError,
    Tensor,
    f16,
    f32,
    i1,
    i8,
    i32,
    program,
    sym,
    syms,
)

M, N, K = syms("M N K")


def build(fn):
    return program(fn).to_module()


def raises(exc, message):
    """Expect ``exc`` whose message is exactly ``message``, after the user's
    FILE:LINE:COL when it was raised while tracing an op."""
    return pytest.raises(exc, match=r"^(\S+\.py:\d+:\d+: )?" + re.escape(message) + "$")


def test_a_tracing_error_starts_at_the_users_line(ctx):
    def f(x: Tensor[4, 8, f32], b: Tensor[4, f16]):
        y = x * 2.0
        return y + b  # the line the message names

    with pytest.raises(ShapeError) as info:
        build(f)
    line = f.__code__.co_firstlineno + 2
    assert str(info.value).startswith(f"{__file__}:{line}:16: add: lhs shape (4, 8) ")
    assert info.value.position == (__file__, line, 16)


SYMBOL_HINT = " (a symbol only matches itself; specialize() to fix sizes)"


def test_bad_broadcast_names_op_shapes_and_dtypes(ctx):
    def f(x: Tensor[4, 8, f32], b: Tensor[4, f16]):
        return x + b

    with raises(
        ShapeError,
        "add: lhs shape (4, 8) and rhs shape (4,) do not broadcast: at dim -1, lhs has 8 "
        "and rhs has 4; lhs is Tensor[4, 8, f32], rhs is Tensor[4, f16]",
    ):
        build(f)


def test_symbolic_mismatch(ctx):
    def f(x: Tensor[M, 8, f32], y: Tensor[N, 8, f32]):
        return x * y

    with raises(
        ShapeError,
        "mul: lhs shape (M, 8) and rhs shape (N, 8) do not broadcast: at dim -2, lhs has M "
        f"and rhs has N{SYMBOL_HINT}; lhs is Tensor[M, 8, f32], rhs is Tensor[N, 8, f32]",
    ):
        build(f)


def test_symbol_never_matches_a_static_size_unless_specialized(ctx):
    @program
    def f(x: Tensor[M, f32], y: Tensor[4, f32]):
        return tcc.frontend.sub(x, y)

    with raises(
        ShapeError,
        "sub: lhs shape (M,) and rhs shape (4,) do not broadcast: at dim -1, lhs has M "
        f"and rhs has 4{SYMBOL_HINT}; lhs is Tensor[M, f32], rhs is Tensor[4, f32]",
    ):
        f.to_module()
    assert f.specialize(M=4).to_module().operation.verify()


def test_where_broadcast_names_all_operands(ctx):
    def f(c: Tensor[5, 1, i1], x: Tensor[4, 3, f32], y: Tensor[2, 1, 3, f16]):
        return tcc.frontend.where(c, x, y)

    with raises(
        ShapeError,
        "where: condition shape (5, 1) and input shape (4, 3) do not broadcast: at dim -2, "
        "condition has 5 and input has 4; condition is Tensor[5, 1, i1], "
        "input is Tensor[4, 3, f32], other is Tensor[2, 1, 3, f16]",
    ):
        build(f)


def test_dtype_errors(ctx):
    # Mixed float dtypes promote (torch); these do not.
    def f(x: Tensor[4, f32]):
        return tcc.frontend.where(x, x, 0.0)

    with raises(DTypeError, "where: condition must be an i1 (bool) tensor, got Tensor[4, f32]"):
        build(f)

    def g(x: Tensor[4, i32], p: Tensor[4, i1]):
        return x & p

    with raises(
        DTypeError, "and: expects i1 (bool) operands; lhs is Tensor[4, i32], rhs is Tensor[4, i1]"
    ):
        build(g)


def test_float_only_ops_reject_integers(ctx):
    def unary(op):
        def f(x: Tensor[4, i32]):
            return getattr(x, op)()

        return f

    # exp, log, ... compute integers in f32 (torch); these refuse them, as torch does.
    for op in ("gelu", "softmax", "log_softmax", "silu", "var", "mean"):
        with raises(DTypeError, f"{op}: expects a float tensor, got Tensor[4, i32]"):
            build(unary(op))

    def g(x: Tensor[4, i32]):
        return x**2

    with raises(DTypeError, "pow: expects a float tensor, got Tensor[4, i32]"):
        build(g)

    def h(x: Tensor[4, i32]):
        return tcc.frontend.reduce_mean(x, 0)

    with raises(DTypeError, "reduce_mean: expects a float tensor, got Tensor[4, i32]"):
        build(h)


def test_unknown_dtype():
    with raises(
        DTypeError,
        "Tensor[...]: the last entry must be a dtype; unknown dtype 'f8'; "
        "expected one of f16, bf16, f32, f64, i1, i8, i16, i32, i64",
    ):
        Tensor[4, "f8"]
    with pytest.raises(DTypeError, match="the last entry must be a dtype; unknown dtype M"):
        Tensor[4, M]


def test_unknown_cast_dtype(ctx):
    def f(x: Tensor[4, f32]):
        return x.to("float8")

    with pytest.raises(DTypeError, match=r"^(\S+: )?unknown dtype 'float8'; expected one of f16, "):
        build(f)


def test_bad_scalars(ctx):
    def f(x: Tensor[4, i8]):
        return x + 128

    with raises(DTypeError, "add: rhs: scalar 128 is not a valid i8 value"):
        build(f)

    def g(x: Tensor[4, i8]):
        return 300 * x

    with raises(DTypeError, "mul: lhs: scalar 300 is not a valid i8 value"):
        build(g)


def test_bad_reduction_dims(ctx):
    def f(x: Tensor[M, N, f32]):
        return x.sum(2)

    with raises(ShapeError, "sum: dim 2 is out of range for rank 2"):
        build(f)

    def g(x: Tensor[M, N, f32]):
        return x.amax([1, -1])

    with raises(ShapeError, "amax: dims [1, -1] repeat a dim of Tensor[M, N, f32]"):
        build(g)

    def h(x: Tensor[f32]):
        return tcc.frontend.reduce_sum(x)

    with raises(ShapeError, "reduce_sum: nothing to reduce in Tensor[f32]"):
        build(h)

    def k(x: Tensor[M, N, f32]):
        return x.max((0, 1))

    with raises(
        ShapeError, "max: dim must be an int, got (0, 1); use amax/amin to reduce several dims"
    ):
        build(k)

    def v(x: Tensor[M, N, f32]):
        return x.var(-3)

    with raises(ShapeError, "var: dim -3 is out of range for rank 2"):
        build(v)

    def u(x: Tensor[M, N, f32]):
        return x.unsqueeze(3)

    with raises(ShapeError, "unsqueeze: dim 3 is out of range for rank 3"):
        build(u)


def test_bad_softmax_and_transpose(ctx):
    def f(x: Tensor[M, N, f32]):
        return x.softmax(-3)

    with raises(ShapeError, "softmax: dim -3 is out of range for rank 2"):
        build(f)

    def g(x: Tensor[M, N, 4, f32]):
        return x.transpose([0, 1])

    with raises(
        ShapeError,
        "transpose: permutation [0, 1] has 2 entries but the input Tensor[M, N, 4, f32] has rank 3",
    ):
        build(g)

    def h(x: Tensor[M, N, f32]):
        return x.transpose([1, 1])

    with raises(ShapeError, "transpose: permutation [1, 1] repeats a dim"):
        build(h)

    def t(x: Tensor[M, N, 4, f32]):
        return x.T

    with raises(
        ShapeError, "T: expects a 2-D tensor, got Tensor[M, N, 4, f32]; use transpose(permutation)"
    ):
        build(t)


def test_bad_broadcasts(ctx):
    def f(x: Tensor[M, N, f32], b: Tensor[M, f32]):
        return b.broadcast_to(x)

    with raises(
        ShapeError,
        "broadcast_to: target dim 1 (size N) does not match input dim 0 (size M); "
        "input is Tensor[M, f32], target shape is (M, N)",
    ):
        build(f)

    def g(x: Tensor[M, N, f32], b: Tensor[N, f32]):
        return b.broadcast_to(x, dims=[0, 1])

    with raises(
        ShapeError,
        "broadcast_to: dims [0, 1] add 2 dim(s) but the target rank 2 is the input rank 1 "
        "plus 1; input is Tensor[N, f32], target shape is (M, N)",
    ):
        build(g)

    def h(x: Tensor[M, N, f32]):
        return x.broadcast_to((N,))

    with raises(
        ShapeError,
        "broadcast_to: target rank 1 is lower than input rank 2; "
        "input is Tensor[M, N, f32], target shape is (N,)",
    ):
        build(h)

    def k(b: Tensor[N, f32]):
        return b.broadcast_to((K, N))

    with raises(
        ShapeError,
        "broadcast_to: symbolic size K is not the size of any argument dim, "
        "so its runtime value is unknown",
    ):
        build(k)

    def neg(b: Tensor[N, f32]):
        return b.broadcast_to((-1, N))

    with raises(ShapeError, "broadcast_to: dim must be a non-negative int or a symbol, got -1"):
        build(neg)


def test_bad_matmuls(ctx):
    def f(a: Tensor[M, K, f32], b: Tensor[N, K, f32]):
        return a @ b

    with raises(
        ShapeError,
        "matmul: lhs shape (M, K) and rhs shape (N, K) disagree on K (K vs N); "
        "lhs is Tensor[M, K, f32], rhs is Tensor[N, K, f32]",
    ):
        build(f)

    def g(a: Tensor[M, K, f32], b: Tensor[f32]):
        return a @ b

    with raises(
        ShapeError,
        "matmul: expects tensors of rank 1 or more; lhs is Tensor[M, K, f32], rhs is Tensor[f32]",
    ):
        build(g)

    def batch(a: Tensor[2, M, K, f32], b: Tensor[3, K, N, f32]):
        return a @ b

    with raises(
        ShapeError,
        "matmul: lhs shape (2, M, K) and rhs shape (3, K, N) disagree on the batch dims "
        "(dim -3: 2 vs 3); lhs is Tensor[2, M, K, f32], rhs is Tensor[3, K, N, f32]",
    ):
        build(batch)

    def h(a: Tensor[M, K, f32], b: Tensor[K, N, f32]):
        return a.matmul(b, acc=f16)

    with raises(
        DTypeError,
        "matmul: acc f16 must be f32 or a wider float type; "
        "lhs is Tensor[M, K, f32], rhs is Tensor[K, N, f32]",
    ):
        build(h)

    def i(a: Tensor[4, 4, i32], b: Tensor[4, 4, i32]):
        return a @ b

    with raises(
        DTypeError,
        "matmul: expects float or i8 operands; lhs is Tensor[4, 4, i32], rhs is Tensor[4, 4, i32]",
    ):
        build(i)

    def j(a: Tensor[4, 4, i8], b: Tensor[4, 4, i8]):
        return a.matmul(b, out=i8)

    with pytest.raises(DTypeError,
                       match=r"^(\S+: )?matmul: i8 operands accumulate into and return i32"):
        build(j)

    def k(a: Tensor[4, 4, f16], b: Tensor[4, 4, i8]):
        return a @ b

    with pytest.raises(DTypeError,
                       match=r"^(\S+: )?matmul: lhs dtype f16 does not match rhs dtype i8"):
        build(k)


def test_bad_reshapes(ctx):
    def f(x: Tensor[4, 6, f32]):
        return x.view(5, 5)

    with raises(
        ShapeError,
        "view: shape (5, 5) (25 elements) is invalid for input Tensor[4, 6, f32] of 24 elements",
    ):
        build(f)

    def g(x: Tensor[4, 6, f32]):
        return x.reshape(5, -1)

    with raises(
        ShapeError,
        "reshape: shape (5, -1) is invalid for input Tensor[4, 6, f32] of 24 elements "
        "(the -1 dim is not a whole size)",
    ):
        build(g)

    def h(x: Tensor[M, 6, f32]):
        return x.reshape(-1, -1)

    with raises(
        ShapeError, "reshape: only one dim can be -1, got [-1, -1]; input is Tensor[M, 6, f32]"
    ):
        build(h)

    def p(x: Tensor[M, N, 4, f32]):
        return x.permute(0, 1)

    with raises(
        ShapeError,
        "permute: permutation [0, 1] has 2 entries but the input Tensor[M, N, 4, f32] has rank 3",
    ):
        build(p)


def test_bad_gelu_approximation(ctx):
    def f(x: Tensor[4, f32]):
        return x.gelu(approximate="erf")

    with raises(FrontendError, "gelu: approximate must be 'none' or 'tanh', got 'erf'"):
        build(f)


def test_signature_errors(ctx):
    def no_annotation(x):
        return x

    with raises(
        FrontendError, "no_annotation: parameter x needs a Tensor[..., dtype] annotation, got None"
    ):
        program(no_annotation)

    def wrong_result(x: Tensor[M, f32]) -> Tensor[M, f16]:
        return x

    with raises(
        DTypeError,
        "wrong_result: result 0 is Tensor[M, f32] but the annotation says Tensor[M, f16]",
    ):
        build(wrong_result)

    def wrong_shape(x: Tensor[M, f32]) -> Tensor[N, f32]:
        return x

    with raises(
        ShapeError, "wrong_shape: result 0 is Tensor[M, f32] but the annotation says Tensor[N, f32]"
    ):
        build(wrong_shape)

    def wrong_count(x: Tensor[M, f32]) -> tuple[Tensor[M, f32], Tensor[M, f32]]:
        return x

    with raises(FrontendError, "wrong_count: returns 1 value(s) but is annotated with 2"):
        build(wrong_count)

    def not_tensor(x: Tensor[M, f32]):
        return 1.0

    with raises(FrontendError, "not_tensor: result 0 must be a Tensor of this program, got 1.0"):
        build(not_tensor)


def test_specialize_errors():
    @program
    def f(x: Tensor[M, N, f32]):
        return x

    with raises(
        ShapeError, "f: specialize: unknown symbol 'K'; the program's free symbols are ['M', 'N']"
    ):
        f.specialize(K=3)
    with raises(ShapeError, "f: specialize: M must be a non-negative int, got -2"):
        f.specialize(M=-2)
    with raises(
        ShapeError, "f: specialize: unknown symbol 'M'; the program's free symbols are ['N']"
    ):
        f.specialize(M=2).specialize(M=3)


def test_misuse_outside_and_across_programs(ctx):
    with raises(FrontendError, "full: no program is being built; use tensors inside @program"):
        tcc.frontend.full((4,), 1.0, f32)

    leaked = []

    def first(x: Tensor[4, f32]):
        leaked.append(x)
        return x

    build(first)

    def second(y: Tensor[4, f32]):
        return y + leaked[0]

    with raises(FrontendError, "add: rhs Tensor[4, f32] belongs to another program"):
        build(second)

    def truthy(x: Tensor[4, f32]):
        return x if x else x

    with raises(FrontendError, "Tensor[4, f32] has no truth value while a program is being built"):
        build(truthy)

    with pytest.raises(FrontendError, match="call it from inside a @program"):
        program(first)(1.0)


def test_bad_symbol_names():
    with raises(ShapeError, "symbol name must be an identifier, got '2M'"):
        sym("2M")


def test_failed_build_leaves_no_builder_behind(ctx):
    def f(x: Tensor[4, f32], y: Tensor[5, f32]):
        return x + y

    with pytest.raises(ShapeError):
        build(f)
    with pytest.raises(FrontendError, match="no program is being built"):
        tcc.frontend.full((4,), 1.0, i32)


def test_string_annotations_with_local_names_are_a_clear_error():
    import pytest

    from tcc.frontend import FrontendError, program

    def body(x):
        return x

    body.__annotations__ = {"x": "LocalTensor[4, f32]"}
    with pytest.raises(FrontendError, match="cannot evaluate its annotations.*LocalTensor"):
        program(body)


def test_emit_without_an_insertion_point_says_how_to_call_it():
    from tcc.frontend import FrontendError, Tensor, f32, program

    @program
    def double(x: Tensor[8, f32]):
        return x + x

    with pytest.raises(FrontendError, match=r"double: Program.emit\(\) builds at the current "
                                            r"MLIR insertion point and there is none"):
        double.emit()
    assert "func.func @double" in str(double.to_module())
