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
    """Expect ``exc`` whose message is exactly ``message``."""
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def test_add_shape_mismatch_names_op_shapes_and_dtypes(ctx):
    def f(x: Tensor[M, N, f32], b: Tensor[N, f32]):
        return x + b

    with raises(
        ShapeError,
        "add: lhs shape (M, N) does not match rhs shape (N,); "
        "lhs is Tensor[M, N, f32], rhs is Tensor[N, f32]",
    ):
        build(f)


def test_symbolic_mismatch(ctx):
    def f(x: Tensor[M, 8, f32], y: Tensor[N, 8, f32]):
        return x * y

    with raises(
        ShapeError,
        "mul: lhs shape (M, 8) does not match rhs shape (N, 8); "
        "lhs is Tensor[M, 8, f32], rhs is Tensor[N, 8, f32]",
    ):
        build(f)


def test_symbol_never_matches_a_static_size_unless_specialized(ctx):
    @program
    def f(x: Tensor[M, f32], y: Tensor[4, f32]):
        return tcc.frontend.sub(x, y)

    with raises(
        ShapeError,
        "sub: lhs shape (M,) does not match rhs shape (4,); "
        "lhs is Tensor[M, f32], rhs is Tensor[4, f32]",
    ):
        f.to_module()
    assert f.specialize(M=4).to_module().operation.verify()


def test_dtype_mismatch(ctx):
    def f(x: Tensor[4, f32], y: Tensor[4, f16]):
        return tcc.frontend.maximum(x, y)

    with raises(
        DTypeError,
        "max: lhs dtype f32 does not match rhs dtype f16; "
        "lhs is Tensor[4, f32], rhs is Tensor[4, f16]",
    ):
        build(f)


def test_float_only_ops_reject_integers(ctx):
    def unary(op):
        def f(x: Tensor[4, i32]):
            return getattr(x, op)()

        return f

    for op in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "gelu", "softmax"):
        with raises(DTypeError, f"{op}: expects a float tensor, got Tensor[4, i32]"):
            build(unary(op))

    def g(x: Tensor[4, i32]):
        return x**2

    with raises(DTypeError, "pow: expects a float tensor, got Tensor[4, i32]"):
        build(g)

    def h(x: Tensor[4, i32]):
        return x.mean(0)

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
        return x.to("float32")

    with pytest.raises(DTypeError, match="^unknown dtype 'float32'; expected one of f16, "):
        build(f)


def test_bad_scalars(ctx):
    def f(x: Tensor[4, i32]):
        return x + 1.5

    with raises(DTypeError, "add: rhs: scalar 1.5 is not a valid i32 value"):
        build(f)

    def g(x: Tensor[4, i8]):
        return 300 * x

    with raises(DTypeError, "mul: lhs: scalar 300 is not a valid i8 value"):
        build(g)


def test_bad_reduction_dims(ctx):
    def f(x: Tensor[M, N, f32]):
        return x.sum(2)

    with raises(ShapeError, "reduce_sum: dim 2 is out of range for rank 2"):
        build(f)

    def g(x: Tensor[M, N, f32]):
        return x.max([1, -1])

    with raises(ShapeError, "reduce_max: dims [1, -1] repeat a dim of Tensor[M, N, f32]"):
        build(g)

    def h(x: Tensor[f32]):
        return x.sum()

    with raises(ShapeError, "reduce_sum: nothing to reduce in Tensor[f32]"):
        build(h)


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

    def g(a: Tensor[M, K, f32], b: Tensor[K, f32]):
        return a @ b

    with raises(
        ShapeError,
        "matmul: expects two rank-2 or two rank-3 tensors; "
        "lhs is Tensor[M, K, f32], rhs is Tensor[K, f32]",
    ):
        build(g)

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

    with pytest.raises(DTypeError, match="^matmul: i8 operands accumulate into and return i32"):
        build(j)

    def k(a: Tensor[4, 4, f16], b: Tensor[4, 4, i8]):
        return a @ b

    with pytest.raises(DTypeError, match="^matmul: lhs dtype f16 does not match rhs dtype i8"):
        build(k)


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
