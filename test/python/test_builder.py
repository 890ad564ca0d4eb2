"""tcc.frontend builds the same IR as the hand-written tcc text."""

import subprocess
import sys

from mlir import ir

import tcc
from tcc.frontend import (
    Tensor,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    program,
    sym,
    syms,
)

M, N, K = syms("M N K")
B = sym("B")


def assert_ir(prog, text):
    """The program's module prints exactly like the parsed hand-written IR."""
    expected = ir.Module.parse(text)
    assert expected.operation.verify()
    module = prog.to_module()
    assert module.operation.verify()
    assert str(module) == str(expected)


@program
def bias_gelu(x: Tensor[M, N, f32], b: Tensor[N, f32]) -> Tensor[M, N, f32]:
    return tcc.frontend.gelu(x + b.broadcast_to(x, dims=[0]), approximate="tanh")


def test_bias_gelu_symbolic(ctx):
    assert_ir(
        bias_gelu,
        """
        func.func @bias_gelu(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
          %c0 = arith.constant 0 : index
          %m = tensor.dim %x, %c0 : tensor<?x?xf32>
          %bb = tcc.broadcast %b dims = [0] sizes(%m) : tensor<?xf32> -> tensor<?x?xf32>
          %s = tcc.add %x, %bb : tensor<?x?xf32>
          %r = tcc.gelu %s approximate = tanh : tensor<?x?xf32>
          return %r : tensor<?x?xf32>
        }
        """,
    )


def test_bias_gelu_specialized(ctx):
    assert_ir(
        bias_gelu.specialize(M=1024, N=4096),
        """
        func.func @bias_gelu(%x: tensor<1024x4096xf32>, %b: tensor<4096xf32>)
            -> tensor<1024x4096xf32> {
          %bb = tcc.broadcast %b dims = [0] : tensor<4096xf32> -> tensor<1024x4096xf32>
          %s = tcc.add %x, %bb : tensor<1024x4096xf32>
          %r = tcc.gelu %s approximate = tanh : tensor<1024x4096xf32>
          return %r : tensor<1024x4096xf32>
        }
        """,
    )


def test_partial_specialization(ctx):
    prog = bias_gelu.specialize(N=64)
    assert prog.symbols == (M,)
    assert bias_gelu.symbols == (M, N)
    assert_ir(
        prog,
        """
        func.func @bias_gelu(%x: tensor<?x64xf32>, %b: tensor<64xf32>) -> tensor<?x64xf32> {
          %c0 = arith.constant 0 : index
          %m = tensor.dim %x, %c0 : tensor<?x64xf32>
          %bb = tcc.broadcast %b dims = [0] sizes(%m) : tensor<64xf32> -> tensor<?x64xf32>
          %s = tcc.add %x, %bb : tensor<?x64xf32>
          %r = tcc.gelu %s approximate = tanh : tensor<?x64xf32>
          return %r : tensor<?x64xf32>
        }
        """,
    )


def test_softmax_op_and_by_hand(ctx):
    @program
    def softmax(x: Tensor[M, N, bf16]):
        return x.softmax(1), tcc.frontend.softmax(x, dim=0)

    assert_ir(
        softmax,
        """
        func.func @softmax(%x: tensor<?x?xbf16>) -> (tensor<?x?xbf16>, tensor<?x?xbf16>) {
          %0 = tcc.softmax %x dim = 1 : tensor<?x?xbf16>
          %1 = tcc.softmax %x dim = 0 : tensor<?x?xbf16>
          return %0, %1 : tensor<?x?xbf16>, tensor<?x?xbf16>
        }
        """,
    )

    @program
    def stable_softmax(x: Tensor[M, 128, f32]) -> Tensor[M, 128, f32]:
        e = (x - x.amax(1).broadcast_to(x, dims=[1])).exp()
        return e / e.sum(-1).broadcast_to(x, dims=[-1])

    assert_ir(
        stable_softmax,
        """
        func.func @stable_softmax(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
          %0 = tcc.reduce_max %x dims = [1] : tensor<?x128xf32> -> tensor<?xf32>
          %1 = tcc.broadcast %0 dims = [1] : tensor<?xf32> -> tensor<?x128xf32>
          %2 = tcc.sub %x, %1 : tensor<?x128xf32>
          %3 = tcc.exp %2 : tensor<?x128xf32>
          %4 = tcc.reduce_sum %3 dims = [1] : tensor<?x128xf32> -> tensor<?xf32>
          %5 = tcc.broadcast %4 dims = [1] : tensor<?xf32> -> tensor<?x128xf32>
          %6 = tcc.div %3, %5 : tensor<?x128xf32>
          return %6 : tensor<?x128xf32>
        }
        """,
    )


@program
def linear_relu(x: Tensor[M, K, f16], w: Tensor[K, N, f16], b: Tensor[N, f32]) -> Tensor[M, N, f16]:
    y = x.matmul(w, acc=f32) + b.broadcast_to((M, N))
    return y.relu().to(f16)


def test_matmul_bias_relu_symbolic(ctx):
    assert_ir(
        linear_relu,
        """
        func.func @linear_relu(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %b: tensor<?xf32>)
            -> tensor<?x?xf16> {
          %0 = tcc.matmul %x, %w acc(f32) : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf32>
          %c0 = arith.constant 0 : index
          %m = tensor.dim %x, %c0 : tensor<?x?xf16>
          %1 = tcc.broadcast %b dims = [0] sizes(%m) : tensor<?xf32> -> tensor<?x?xf32>
          %2 = tcc.add %0, %1 : tensor<?x?xf32>
          %3 = tcc.relu %2 : tensor<?x?xf32>
          %4 = tcc.cast %3 : tensor<?x?xf32> to tensor<?x?xf16>
          return %4 : tensor<?x?xf16>
        }
        """,
    )


def test_matmul_bias_relu_static(ctx):
    assert_ir(
        linear_relu.specialize(M=128, N=256, K=64),
        """
        func.func @linear_relu(%x: tensor<128x64xf16>, %w: tensor<64x256xf16>, %b: tensor<256xf32>)
            -> tensor<128x256xf16> {
          %0 = tcc.matmul %x, %w acc(f32)
              : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
          %1 = tcc.broadcast %b dims = [0] : tensor<256xf32> -> tensor<128x256xf32>
          %2 = tcc.add %0, %1 : tensor<128x256xf32>
          %3 = tcc.relu %2 : tensor<128x256xf32>
          %4 = tcc.cast %3 : tensor<128x256xf32> to tensor<128x256xf16>
          return %4 : tensor<128x256xf16>
        }
        """,
    )


def test_matmul_variants(ctx):
    @program
    def mms(
        a: Tensor[4, 8, f16],
        b: Tensor[8, 2, f16],
        ba: Tensor[B, M, K, f32],
        bb: Tensor[B, K, N, f32],
        ia: Tensor[4, 8, i8],
        ib: Tensor[8, 2, i8],
    ):
        return (
            a @ b,
            a.matmul(b, acc=f32, out=f16),
            tcc.frontend.matmul(ba, bb),
            ba.matmul(bb, acc="f64", out=f32),
            ia @ ib,
            ia.matmul(ib, acc=i32),
        )

    assert_ir(
        mms,
        """
        func.func @mms(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>, %ba: tensor<?x?x?xf32>,
                       %bb: tensor<?x?x?xf32>, %ia: tensor<4x8xi8>, %ib: tensor<8x2xi8>)
            -> (tensor<4x2xf16>, tensor<4x2xf16>, tensor<?x?x?xf32>, tensor<?x?x?xf32>,
                tensor<4x2xi32>, tensor<4x2xi32>) {
          %0 = tcc.matmul %a, %b acc(f32) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
          %1 = tcc.matmul %a, %b acc(f32) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
          %2 = tcc.matmul %ba, %bb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
          %3 = tcc.matmul %ba, %bb acc(f64)
              : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
          %4 = tcc.matmul %ia, %ib : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
          %5 = tcc.matmul %ia, %ib acc(i32) : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
          return %0, %1, %2, %3, %4, %5 : tensor<4x2xf16>, tensor<4x2xf16>, tensor<?x?x?xf32>,
              tensor<?x?x?xf32>, tensor<4x2xi32>, tensor<4x2xi32>
        }
        """,
    )


def test_reductions_keepdims(ctx):
    @program
    def reductions(x: Tensor[M, 8, N, f32], i: Tensor[4, 8, i32]):
        return (
            x.sum(1, keepdims=True),
            x.amax([0, 2]),
            x.amin(-1, keepdims=True),
            x.mean(),
            tcc.frontend.reduce_mean(x, [2, 0], keepdims=True),
            tcc.frontend.reduce_sum(i, 0),
            tcc.frontend.reduce_max(i, 1, keepdims=True),
        )

    assert_ir(
        reductions,
        """
        func.func @reductions(%x: tensor<?x8x?xf32>, %i: tensor<4x8xi32>)
            -> (tensor<?x1x?xf32>, tensor<8xf32>, tensor<?x8x1xf32>, tensor<f32>,
                tensor<1x8x1xf32>, tensor<8xi32>, tensor<4x1xi32>) {
          %0 = tcc.reduce_sum %x dims = [1] keepdims : tensor<?x8x?xf32> -> tensor<?x1x?xf32>
          %1 = tcc.reduce_max %x dims = [0, 2] : tensor<?x8x?xf32> -> tensor<8xf32>
          %2 = tcc.reduce_min %x dims = [2] keepdims : tensor<?x8x?xf32> -> tensor<?x8x1xf32>
          %3 = tcc.reduce_mean %x dims = [0, 1, 2] : tensor<?x8x?xf32> -> tensor<f32>
          %4 = tcc.reduce_mean %x dims = [0, 2] keepdims : tensor<?x8x?xf32> -> tensor<1x8x1xf32>
          %5 = tcc.reduce_sum %i dims = [0] : tensor<4x8xi32> -> tensor<8xi32>
          %6 = tcc.reduce_max %i dims = [1] keepdims : tensor<4x8xi32> -> tensor<4x1xi32>
          return %0, %1, %2, %3, %4, %5, %6 : tensor<?x1x?xf32>, tensor<8xf32>, tensor<?x8x1xf32>,
              tensor<f32>, tensor<1x8x1xf32>, tensor<8xi32>, tensor<4x1xi32>
        }
        """,
    )


def test_casts_every_dtype(ctx):
    dtypes = [f16, bf16, f32, f64, i1, i8, i16, i32, i64]

    @program
    def casts(x: Tensor[N, f32]):
        return tuple(x.cast(d) for d in dtypes) + (x.to("bf16").to(i8),)

    names = [str(d) for d in dtypes]
    body = "\n".join(
        f"%{k} = tcc.cast %x : tensor<?xf32> to tensor<?x{n}>" for k, n in enumerate(names)
    )
    types = [f"tensor<?x{n}>" for n in names] + ["tensor<?xi8>"]
    results = ", ".join(f"%{k}" for k in range(len(names))) + f", %{len(names) + 1}"
    assert_ir(
        casts,
        f"""
        func.func @casts(%x: tensor<?xf32>) -> ({", ".join(types)}) {{
          {body}
          %{len(names)} = tcc.cast %x : tensor<?xf32> to tensor<?xbf16>
          %{len(names) + 1} = tcc.cast %{len(names)} : tensor<?xbf16> to tensor<?xi8>
          return {results} : {", ".join(types)}
        }}
        """,
    )


def test_transpose(ctx):
    @program
    def transposes(x: Tensor[M, 8, f32], y: Tensor[2, M, 6, i64]):
        return x.T, tcc.frontend.transpose(y, [2, 0, 1]), y.transpose(), y.transpose([0, -1, 1])

    assert_ir(
        transposes,
        """
        func.func @transposes(%x: tensor<?x8xf32>, %y: tensor<2x?x6xi64>)
            -> (tensor<8x?xf32>, tensor<6x2x?xi64>, tensor<6x?x2xi64>, tensor<2x6x?xi64>) {
          %0 = tcc.transpose %x permutation = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
          %1 = tcc.transpose %y permutation = [2, 0, 1] : tensor<2x?x6xi64> -> tensor<6x2x?xi64>
          %2 = tcc.transpose %y permutation = [2, 1, 0] : tensor<2x?x6xi64> -> tensor<6x?x2xi64>
          %3 = tcc.transpose %y permutation = [0, 2, 1] : tensor<2x?x6xi64> -> tensor<2x6x?xi64>
          return %0, %1, %2, %3
              : tensor<8x?xf32>, tensor<6x2x?xi64>, tensor<6x?x2xi64>, tensor<2x6x?xi64>
        }
        """,
    )


def test_elementwise_ops_and_operators(ctx):
    @program
    def ew(a: Tensor[4, N, f32], b: Tensor[4, N, f32], i: Tensor[3, i8]):
        fe = tcc.frontend
        return (
            a + b, a - b, a * b, a / b, a ** b, -a, abs(a),
            fe.maximum(a, b), a.minimum(b), fe.pow(a, b),
            a.exp(), fe.log(a), a.sqrt(), a.rsqrt(), a.tanh(), a.sigmoid(), a.relu(),
            a.gelu(), fe.gelu(a, approximate="none"),
            i + i, -i, i.abs(), fe.relu(i), i.maximum(i),
        )  # fmt: skip

    t = "tensor<4x?xf32>"
    ti = "tensor<3xi8>"
    lines = [
        f"%0 = tcc.add %a, %b : {t}", f"%1 = tcc.sub %a, %b : {t}",
        f"%2 = tcc.mul %a, %b : {t}", f"%3 = tcc.div %a, %b : {t}",
        f"%4 = tcc.pow %a, %b : {t}", f"%5 = tcc.neg %a : {t}", f"%6 = tcc.abs %a : {t}",
        f"%7 = tcc.max %a, %b : {t}", f"%8 = tcc.min %a, %b : {t}",
        f"%9 = tcc.pow %a, %b : {t}", f"%10 = tcc.exp %a : {t}", f"%11 = tcc.log %a : {t}",
        f"%12 = tcc.sqrt %a : {t}", f"%13 = tcc.rsqrt %a : {t}", f"%14 = tcc.tanh %a : {t}",
        f"%15 = tcc.sigmoid %a : {t}", f"%16 = tcc.relu %a : {t}", f"%17 = tcc.gelu %a : {t}",
        f"%18 = tcc.gelu %a approximate = none : {t}", f"%19 = tcc.add %i, %i : {ti}",
        f"%20 = tcc.neg %i : {ti}", f"%21 = tcc.abs %i : {ti}", f"%22 = tcc.relu %i : {ti}",
        f"%23 = tcc.max %i, %i : {ti}",
    ]  # fmt: skip
    types = ", ".join([t] * 19 + [ti] * 5)
    results = ", ".join(f"%{k}" for k in range(24))
    assert_ir(
        ew,
        f"""
        func.func @ew(%a: {t}, %b: {t}, %i: {ti}) -> ({types}) {{
          {chr(10).join(lines)}
          return {results} : {types}
        }}
        """,
    )


def test_scalars_become_constants(ctx):
    @program
    def scalars(x: Tensor[2, 4, f32], y: Tensor[M, 4, bf16], i: Tensor[3, i32], p: Tensor[2, i1]):
        return x * 0.5 + 1, 2.0 - x, 1 / x, x**2.5, y * 3.0, i - 7, tcc.frontend.maximum(p, True)

    assert_ir(
        scalars,
        """
        func.func @scalars(%x: tensor<2x4xf32>, %y: tensor<?x4xbf16>, %i: tensor<3xi32>,
                           %p: tensor<2xi1>)
            -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>,
                tensor<?x4xbf16>, tensor<3xi32>, tensor<2xi1>) {
          %0 = tcc.constant dense<0.5> : tensor<2x4xf32>
          %1 = tcc.mul %x, %0 : tensor<2x4xf32>
          %2 = tcc.constant dense<1.0> : tensor<2x4xf32>
          %3 = tcc.add %1, %2 : tensor<2x4xf32>
          %4 = tcc.constant dense<2.0> : tensor<2x4xf32>
          %5 = tcc.sub %4, %x : tensor<2x4xf32>
          %6 = tcc.constant dense<1.0> : tensor<2x4xf32>
          %7 = tcc.div %6, %x : tensor<2x4xf32>
          %8 = tcc.constant dense<2.5> : tensor<2x4xf32>
          %9 = tcc.pow %x, %8 : tensor<2x4xf32>
          %10 = tcc.constant dense<3.0> : tensor<bf16>
          %c0 = arith.constant 0 : index
          %dim = tensor.dim %y, %c0 : tensor<?x4xbf16>
          %11 = tcc.broadcast %10 dims = [0, 1] sizes(%dim) : tensor<bf16> -> tensor<?x4xbf16>
          %12 = tcc.mul %y, %11 : tensor<?x4xbf16>
          %13 = tcc.constant dense<7> : tensor<3xi32>
          %14 = tcc.sub %i, %13 : tensor<3xi32>
          %15 = tcc.constant dense<true> : tensor<2xi1>
          %16 = tcc.max %p, %15 : tensor<2xi1>
          return %3, %5, %7, %9, %12, %14, %16 : tensor<2x4xf32>, tensor<2x4xf32>,
              tensor<2x4xf32>, tensor<2x4xf32>, tensor<?x4xbf16>, tensor<3xi32>, tensor<2xi1>
        }
        """,
    )


def test_full_and_broadcast_forms(ctx):
    @program
    def shapes(x: Tensor[M, N, f32], v: Tensor[N, f32], s: Tensor[f16]):
        return (
            tcc.frontend.full((M, 3), 0.0, f32),
            tcc.frontend.full(x, -1, "f32"),
            v.broadcast_to((N, M), dims=[1]),
            v.broadcast_to((4, N)),
            s.broadcast_to((2, M)),
            tcc.frontend.broadcast_to(v, (N,), dims=[]),
        )

    assert_ir(
        shapes,
        """
        func.func @shapes(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %s: tensor<f16>)
            -> (tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<4x?xf32>,
                tensor<2x?xf16>, tensor<?xf32>) {
          %0 = tcc.constant dense<0.0> : tensor<f32>
          %c0 = arith.constant 0 : index
          %m = tensor.dim %x, %c0 : tensor<?x?xf32>
          %1 = tcc.broadcast %0 dims = [0, 1] sizes(%m) : tensor<f32> -> tensor<?x3xf32>
          %2 = tcc.constant dense<-1.0> : tensor<f32>
          %c1 = arith.constant 1 : index
          %n = tensor.dim %x, %c1 : tensor<?x?xf32>
          %3 = tcc.broadcast %2 dims = [0, 1] sizes(%m, %n) : tensor<f32> -> tensor<?x?xf32>
          %4 = tcc.broadcast %v dims = [1] sizes(%m) : tensor<?xf32> -> tensor<?x?xf32>
          %5 = tcc.broadcast %v dims = [0] : tensor<?xf32> -> tensor<4x?xf32>
          %6 = tcc.broadcast %s dims = [0, 1] sizes(%m) : tensor<f16> -> tensor<2x?xf16>
          %7 = tcc.broadcast %v dims = [] : tensor<?xf32> -> tensor<?xf32>
          return %1, %3, %4, %5, %6, %7 : tensor<?x3xf32>, tensor<?x?xf32>, tensor<?x?xf32>,
              tensor<4x?xf32>, tensor<2x?xf16>, tensor<?xf32>
        }
        """,
    )


def test_same_symbol_and_static_dims(ctx):
    @program(name="square_plus")
    def prog(
        a: Tensor[N, N, f32], b: Tensor["N", 3, f32]
    ) -> tuple[Tensor[N, N, f32], Tensor[3, N, f32]]:
        return a + a.T, b.T

    assert prog.symbols == (N,)
    assert_ir(
        prog,
        """
        func.func @square_plus(%a: tensor<?x?xf32>, %b: tensor<?x3xf32>)
            -> (tensor<?x?xf32>, tensor<3x?xf32>) {
          %0 = tcc.transpose %a permutation = [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
          %1 = tcc.add %a, %0 : tensor<?x?xf32>
          %2 = tcc.transpose %b permutation = [1, 0] : tensor<?x3xf32> -> tensor<3x?xf32>
          return %1, %2 : tensor<?x?xf32>, tensor<3x?xf32>
        }
        """,
    )
    assert_ir(
        prog.specialize(N=5),
        """
        func.func @square_plus(%a: tensor<5x5xf32>, %b: tensor<5x3xf32>)
            -> (tensor<5x5xf32>, tensor<3x5xf32>) {
          %0 = tcc.transpose %a permutation = [1, 0] : tensor<5x5xf32> -> tensor<5x5xf32>
          %1 = tcc.add %a, %0 : tensor<5x5xf32>
          %2 = tcc.transpose %b permutation = [1, 0] : tensor<5x3xf32> -> tensor<3x5xf32>
          return %1, %2 : tensor<5x5xf32>, tensor<3x5xf32>
        }
        """,
    )


def test_returning_arguments_and_nothing(ctx):
    @program
    def swap(a: Tensor[4, f32], b: Tensor[4, i8]) -> tuple[Tensor[4, i8], Tensor[4, f32]]:
        return b, a

    @program
    def nothing(a: Tensor[4, f32]) -> None:
        a.exp()

    assert_ir(
        swap,
        """
        func.func @swap(%a: tensor<4xf32>, %b: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xf32>) {
          return %b, %a : tensor<4xi8>, tensor<4xf32>
        }
        """,
    )
    assert_ir(
        nothing,
        """
        func.func @nothing(%a: tensor<4xf32>) {
          %0 = tcc.exp %a : tensor<4xf32>
          return
        }
        """,
    )


def test_calling_a_program_inlines_it(ctx):
    @program
    def inner(x: Tensor[M, f32]) -> Tensor[M, f32]:
        return x.sigmoid() * x

    @program
    def outer(x: Tensor[M, f32]) -> Tensor[M, f32]:
        return inner(inner(x))

    assert_ir(
        outer,
        """
        func.func @outer(%x: tensor<?xf32>) -> tensor<?xf32> {
          %0 = tcc.sigmoid %x : tensor<?xf32>
          %1 = tcc.mul %0, %x : tensor<?xf32>
          %2 = tcc.sigmoid %1 : tensor<?xf32>
          %3 = tcc.mul %2, %1 : tensor<?xf32>
          return %3 : tensor<?xf32>
        }
        """,
    )


def test_comparison_can_fail(ctx):
    # Guard against a vacuous helper: a different static size must not compare equal.
    text = str(ir.Module.parse(bias_gelu.specialize(M=2, N=3).ir.replace("2x3", "3x3")))
    assert str(bias_gelu.specialize(M=2, N=3).to_module()) != text


def test_without_a_context():
    # No active context: to_module() makes its own; .ir is the text.
    text = bias_gelu.specialize(M=2, N=3).ir
    assert "func.func @bias_gelu(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>)" in text
    module = linear_relu.to_module()
    assert module.operation.verify()


def test_tensor_annotation_and_repr():
    spec = Tensor[M, 8, "bf16"]
    assert str(spec) == "Tensor[M, 8, bf16]"
    assert spec.shape == (M, 8) and spec.dtype == bf16 and spec.rank == 2
    assert Tensor[f32].shape == ()
    assert Tensor[(M, N), f32] == Tensor[M, N, f32]
    assert sym("M") == M and hash(sym("M")) == hash(M)
    assert repr(bias_gelu) == "<program bias_gelu(x: Tensor[M, N, f32], b: Tensor[N, f32])>"


def test_frontend_is_lazy_and_import_stays_fast():
    code = (
        "import sys, time; t = time.perf_counter(); import tcc; "
        "dt = time.perf_counter() - t; assert 'tcc.frontend' not in sys.modules; "
        "assert tcc.frontend.program; print(dt)"
    )
    seconds = float(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert seconds < 2.0
