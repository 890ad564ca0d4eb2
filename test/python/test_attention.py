"""Fused attention (issue 13): ``((q @ k.transpose(-1, -2)) * s).softmax(-1) @ v``
written as a PyTorch user writes it compiles to one kernel on sm_80, sm_90 and gfx942
(form = attention: FlashAttention-2's loop, the scores never stored), and that
kernel's gpu stage runs on the CPU emulator against float64 on fresh inputs
(the output poisoned with NaN first), across tails of the key loop, head dims,
dtypes, an additive bias and a mask written with ``where``."""

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.frontend import Tensor, bf16, f16, f32, i32, program, syms
from tcc.testing.cpu import _from_bf16_bits as from_bf16
from tcc.testing.cpu import _to_bf16_bits as to_bf16
from tcc.testing.simt import run_gpu_stage

B, H, S, D, DV = syms("B H S D DV")


def attention_program(elt, scale: float):  # noqa: ANN001, ANN201
    @program
    def attention(q: Tensor[B, S, D, elt], k: Tensor[B, S, D, elt],
                  v: Tensor[B, S, DV, elt]):
        return ((q @ k.transpose(-1, -2)) * scale).softmax(-1) @ v
    return attention


def softmax_attention(q, k, v, scale, bias=None, mask=None):  # noqa: ANN001, ANN201
    s = q @ k.transpose(0, 2, 1) * scale
    if bias is not None:
        s = s + bias
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def inputs(rng, b, s, d, dv, dtype):  # noqa: ANN001, ANN201
    """Stored operands and their float64 values."""
    shapes = ((b, s, d), (b, s, d), (b, s, dv))
    data = [rng.standard_normal(shape) for shape in shapes]
    if dtype == "bf16":
        stored = [to_bf16(x) for x in data]
        return stored, [from_bf16(x).astype(np.float64) for x in stored]
    stored = [x.astype(np.float16) for x in data]
    return stored, [x.astype(np.float64) for x in stored]


def rel_err(got, ref) -> float:  # noqa: ANN001
    got = np.asarray(got, dtype=np.float64)
    assert not np.isnan(got).any(), "unwritten (NaN-poisoned) elements"
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("b, s, d, dv, dtype", [
    (2, 80, 64, 64, "f16"),     # one whole block of keys, then a tail of 16
    (1, 192, 64, 64, "f16"),    # three whole blocks: the running max and sum
    (1, 72, 128, 128, "bf16"),  # 8 warps of 16 rows, bf16 (gfx942: 64 x 32 blocks)
    (3, 40, 32, 16, "f16"),     # S below one block (64-row programs), Dv != D
])
def test_attention_is_one_kernel_and_matches_float64(target, b, s, d, dv, dtype):
    scale = 1.0 / np.sqrt(d)
    elt = {"f16": f16, "bf16": bf16}[dtype]
    kernel = tcc.compile(attention_program(elt, scale), target, B=b, S=s, D=d, DV=dv)
    assert len(kernel.kernels) == 1
    tile_ir = kernel.ir["tile"]
    assert "form = attention" in tile_ir
    assert f"{s}x{s}" not in tile_ir  # the scores are never a buffer
    rng = np.random.default_rng(b * 1000 + s + d)
    stored, (q, k, v) = inputs(rng, b, s, d, dv, dtype)
    (out,) = run_gpu_stage(kernel, *stored)
    if dtype == "bf16":
        out = from_bf16(np.asarray(out))
    # P is rounded to the operand type for the second product, as SDPA does.
    tolerance = {"f16": 2e-3, "bf16": 1.5e-2}[dtype]
    assert rel_err(out, softmax_attention(q, k, v, scale)) < tolerance


@program
def heads(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16], v: Tensor[B, H, S, D, f16]):
    return ((q @ k.transpose(-1, -2)) * 0.125).softmax(-1) @ v


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_attention_on_b_h_s_d_heads(target):
    # torch's [B, H, S, D] layout: the batch dims flatten, K's transpose
    # folds into the product and the softmax's reshape moves past it, so the
    # chain is the 3-D one.
    kernel = tcc.compile(heads, target, B=2, H=3, S=70, D=64)
    assert len(kernel.kernels) == 1
    rng = np.random.default_rng(9)
    stored, (q, k, v) = inputs(rng, 6, 70, 64, 64, "f16")
    (out,) = run_gpu_stage(kernel, *(x.reshape(2, 3, 70, 64) for x in stored))
    ref = softmax_attention(q, k, v, 0.125).reshape(2, 3, 70, 64)
    assert rel_err(out, ref) < 2e-3


def nanogpt_program(elt, causal: bool, kt_first: bool = False):  # noqa: ANN001, ANN201
    """nanoGPT's attention: q, k, v stored [B, S, H, D], the heads read with
    ``.transpose(1, 2)``, the result transposed back and viewed [B, S, H * D]
    (``kt_first``: Kᵀ written as one permute of the stored k)."""
    @program
    def nanogpt(q: Tensor[B, S, H, D, elt], k: Tensor[B, S, H, D, elt],
                v: Tensor[B, S, H, D, elt]):
        qh, vh = q.transpose(1, 2), v.transpose(1, 2)
        kt = k.permute(0, 2, 3, 1) if kt_first else k.transpose(1, 2).transpose(-2, -1)
        att = (qh @ kt) * 0.125
        if causal:
            keep = tf.arange(S).reshape(S, 1) >= tf.arange(S).reshape(1, S)
            att = tf.where(keep, att, float("-inf"))
        return (att.softmax(-1) @ vh).transpose(1, 2).reshape(B, S, H * D)
    return nanogpt


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("causal, kt_first, dtype, d", [
    (False, False, "f16", 64),
    (True, False, "f16", 64),
    (False, True, "bf16", 128),
])
def test_attention_on_stored_b_s_h_d_heads_is_one_kernel(target, causal, kt_first, dtype, d):
    # The transposes are views of the attention kernel (AttentionView): no
    # permute kernels around it, the stored tensors read and written in place.
    b, s, h = 2, 80, 3
    elt = {"f16": f16, "bf16": bf16}[dtype]
    kernel = tcc.compile(nanogpt_program(elt, causal, kt_first), target, B=b, S=s, H=h, D=d)
    assert len(kernel.kernels) == 1
    assert "form = attention" in kernel.ir["tile"]
    rng = np.random.default_rng(17 + causal + d)
    stored, (q, k, v) = inputs(rng, b * h, s, d, d, dtype)
    as_stored = [x.reshape(b, h, s, d).transpose(0, 2, 1, 3).copy() for x in stored]
    (out,) = run_gpu_stage(kernel, *as_stored)
    if dtype == "bf16":
        out = from_bf16(np.asarray(out))
    mask = np.tril(np.ones((s, s), dtype=bool)) if causal else None
    ref = softmax_attention(q, k, v, 0.125, mask=mask)
    ref = ref.reshape(b, h, s, d).transpose(0, 2, 1, 3).reshape(b, s, h * d)
    assert rel_err(out, ref) < {"f16": 2e-3, "bf16": 1.5e-2}[dtype]


@program
def llama(xq: Tensor[B, S, H, D, f16], keys: Tensor[B, S, H, D, f16],
          values: Tensor[B, S, H, D, f16]):
    # Llama's: the softmax in f32, P cast back (F.softmax(scores.float(),
    # dim=-1).type_as(xq)), the heads stored [B, S, H, D].
    xq, keys, values = xq.transpose(1, 2), keys.transpose(1, 2), values.transpose(1, 2)
    scores = (xq @ keys.transpose(2, 3)) / 8.0
    scores = scores.float().softmax(-1).to(f16)
    return (scores @ values).transpose(1, 2).reshape(B, S, H * D)


@program
def masked_heads(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
                 v: Tensor[B, H, S, D, f16], mask: Tensor[S, S, f16]):
    # nanoGPT's masked_fill of a [1, 1, S, S] buffer over the heads' scores.
    att = (q @ k.transpose(-2, -1)) * 0.125
    att = tf.where(mask.reshape(1, 1, S, S) == 0, float("-inf"), att)
    return att.softmax(-1) @ v


@program
def f32_scores(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
               v: Tensor[B, H, S, D, f16]):
    att = tf.matmul(q, k.transpose(-2, -1), out="f32") * 0.125
    return att.softmax(-1).to(f16) @ v


@program
def timm(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16], v: Tensor[B, H, S, D, f16]):
    # timm's ViT: q scaled before the product (the scale moves to the scores).
    q = q * 0.125
    return (q @ k.transpose(-2, -1)).softmax(-1) @ v


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("variant", ["llama", "masked_heads", "f32_scores", "timm"])
def test_attention_written_other_torch_ways_is_one_kernel(target, variant):
    # An f32 softmax with P cast back (its cast kept out of the P V
    # contraction), a mask shared by the heads over [B, H, S, S] scores (its
    # batch dims collapsed onto the batched matmul's), f32 scores.
    b, h, s, d = 2, 2, 80, 64
    program_ = {"llama": llama, "masked_heads": masked_heads, "f32_scores": f32_scores,
                "timm": timm}[variant]
    kernel = tcc.compile(program_, target, B=b, H=h, S=s, D=d)
    assert len(kernel.kernels) == 1
    assert "form = attention" in kernel.ir["tile"]
    rng = np.random.default_rng(23)
    stored, (q, k, v) = inputs(rng, b * h, s, d, d, "f16")
    mask = None
    if variant == "llama":
        args = [x.reshape(b, h, s, d).transpose(0, 2, 1, 3).copy() for x in stored]
    else:
        args = [x.reshape(b, h, s, d) for x in stored]
    if variant == "masked_heads":
        keep = np.tril(np.ones((s, s), dtype=bool))
        mask = keep
        args.append(keep.astype(np.float16))
    (out,) = run_gpu_stage(kernel, *args)
    ref = softmax_attention(q, k, v, 0.125, mask=mask).reshape(b, h, s, d)
    if variant == "llama":
        ref = ref.transpose(0, 2, 1, 3).reshape(b, s, h * d)
    assert rel_err(out, ref) < 2e-3


def sdpa_program(kind: str):  # noqa: ANN201
    """torch's F.scaled_dot_product_attention, as tf.scaled_dot_product_attention."""
    @program
    def sdpa(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
             v: Tensor[B, H, S, D, f16], mask: Tensor[S, S, f16]):
        if kind == "plain":
            return tf.scaled_dot_product_attention(q, k, v)
        if kind == "causal":
            return tf.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.125)
        if kind == "bool_mask":
            return tf.scaled_dot_product_attention(q, k, v, attn_mask=mask != 0)
        return tf.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return sdpa


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("kind", ["plain", "causal", "bool_mask", "float_mask"])
def test_scaled_dot_product_attention_is_one_kernel(target, kind):
    b, h, s, d = 2, 2, 80, 64
    kernel = tcc.compile(sdpa_program(kind), target, B=b, H=h, S=s, D=d)
    assert len(kernel.kernels) == 1
    assert "form = attention" in kernel.ir["tile"]
    rng = np.random.default_rng(29)
    stored, (q, k, v) = inputs(rng, b * h, s, d, d, "f16")
    keep = np.tril(np.ones((s, s), dtype=bool))
    mask = (keep if kind == "bool_mask" else rng.standard_normal((s, s))).astype(np.float16)
    (out,) = run_gpu_stage(kernel, *(x.reshape(b, h, s, d) for x in stored), mask)
    ref = softmax_attention(
        q, k, v, 0.125, mask=keep if kind in ("causal", "bool_mask") else None,
        bias=mask.astype(np.float64) if kind == "float_mask" else None)
    assert rel_err(out, ref.reshape(b, h, s, d)) < 2e-3


def test_scaled_dot_product_attention_refuses_what_it_does_not_do():
    def build(with_mask: bool = False, **kwargs):  # noqa: ANN003, ANN202
        @program
        def sdpa(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16]):
            mask = q.sum(-1, keepdim=True) >= 0 if with_mask else None
            return tf.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kwargs)
        return sdpa.ir
    with pytest.raises(tf.FrontendError, match="dropout_p must be 0"):
        build(dropout_p=0.1)
    with pytest.raises(tf.FrontendError, match="is_causal or attn_mask, not both"):
        build(with_mask=True, is_causal=True)
    with pytest.raises(tf.FrontendError, match="enable_gqa is not supported"):
        build(enable_gqa=True)
    with pytest.raises(tf.ShapeError, match="needs a static head dim.*pass scale="):
        build()


@program
def bert_padding(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
                 v: Tensor[B, H, S, D, f16], mask: Tensor[B, S, f16]):
    # BERT's additive padding mask [B, S], viewed [B, 1, 1, S] across heads and queries.
    att = (q @ k.transpose(-1, -2)) / 8.0
    att = att + mask.reshape(B, 1, 1, S)
    return att.softmax(-1) @ v


@program
def bert_padding_f32(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
                     v: Tensor[B, H, S, D, f16], mask: Tensor[B, S, f32]):
    # The same mask in f32, the softmax in f32 and P cast back (HF's upcast).
    att = tf.matmul(q, k.transpose(-1, -2), out="f32") * 0.125
    att = att + mask.reshape(B, 1, 1, S)
    return att.softmax(-1).to(f16) @ v


@program
def bert_keep(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
              v: Tensor[B, H, S, D, f16], mask: Tensor[B, S, f16]):
    # A boolean key padding mask through SDPA: attn_mask [B, 1, 1, S].
    return tf.scaled_dot_product_attention(q, k, v, attn_mask=mask.reshape(B, 1, 1, S) != 0)


@program
def batch_mask(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
               v: Tensor[B, H, S, D, f16], mask: Tensor[B, S, S, f16]):
    # A per-batch [B, 1, S, S] mask (padding and causal, as HF builds it).
    att = (q @ k.transpose(-1, -2)) * 0.125
    return (att + mask.reshape(B, 1, S, S)).softmax(-1) @ v


@program
def head_bias(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
              v: Tensor[B, H, S, D, f16], bias: Tensor[H, S, S, f16]):
    # A per-head bias [1, H, S, S] (ALiBi's slopes times distances, T5's buckets).
    att = (q @ k.transpose(-1, -2)) * 0.125
    return (att + bias.reshape(1, H, S, S)).softmax(-1) @ v


@pytest.mark.parametrize("target", ["sm_80", "sm_90", "gfx942"])
@pytest.mark.parametrize("variant", ["bert_padding", "bert_padding_f32", "bert_keep",
                                     "batch_mask", "head_bias"])
def test_attention_with_per_batch_or_per_head_operands_is_one_kernel(target, variant):
    # Operands over some of the [B, H] batch dims (tcc-flatten-attention-scores):
    # the kernel reads each at its program's (b, h) = (i floordiv H, i mod H).
    b, h, s, d = 2, 3, 80, 64
    program_ = {"bert_padding": bert_padding, "bert_padding_f32": bert_padding_f32,
                "bert_keep": bert_keep, "batch_mask": batch_mask, "head_bias": head_bias}[variant]
    kernel = tcc.compile(program_, target, B=b, H=h, S=s, D=d)
    assert len(kernel.kernels) == 1
    assert "form = attention" in kernel.ir["tile"]
    assert f"{b * h}x{s}x{s}" not in kernel.ir["tile"]  # the scores are never a buffer
    rng = np.random.default_rng(37)
    stored, (q, k, v) = inputs(rng, b * h, s, d, d, "f16")
    # Batch 0 keeps its first 61 keys, batch 1 its first 23 (a partly masked
    # block of keys, a wholly masked one, the tail block).
    lengths = (61, 23)
    keep = np.arange(s)[None, :] < np.array(lengths)[:, None]  # [B, S]
    bias = mask = None
    if variant in ("bert_padding", "bert_padding_f32", "bert_keep"):
        operand = np.where(keep, 0.0, -10000.0)
        if variant == "bert_keep":
            operand = keep.astype(np.float64)
            mask = np.repeat(keep, h, axis=0)[:, None, :]
        else:
            bias = np.repeat(operand, h, axis=0)[:, None, :]
        operand = operand.astype(np.float32 if variant == "bert_padding_f32" else np.float16)
    elif variant == "batch_mask":
        allowed = keep[:, None, :] & np.tril(np.ones((s, s), bool))[None]
        operand = np.where(allowed, 0.0, -10000.0).astype(np.float16)  # [B, S, S]
        bias = np.repeat(operand.astype(np.float64), h, axis=0)
    else:
        slopes = 2.0 ** (-8.0 * np.arange(1, h + 1) / h)
        distance = np.arange(s)[None, :] - np.arange(s)[:, None]
        operand = (slopes[:, None, None] * -np.abs(distance)[None]).astype(np.float16)
        bias = np.tile(operand.astype(np.float64), (b, 1, 1))
    (out,) = run_gpu_stage(kernel, *(x.reshape(b, h, s, d) for x in stored), operand)
    ref = softmax_attention(q, k, v, 0.125, bias=bias, mask=mask)
    assert rel_err(out, ref.reshape(b, h, s, d)) < 2e-3


@program
def extended_mask(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
                  v: Tensor[B, H, S, D, f16], mask: Tensor[B, 1, 1, S, f16]):
    # HF's extended attention mask, passed as [B, 1, 1, S], through SDPA.
    return tf.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@program
def head_key_bias(q: Tensor[B, H, S, D, f16], k: Tensor[B, H, S, D, f16],
                  v: Tensor[B, H, S, D, f16], bias: Tensor[1, H, 1, S, f16]):
    return ((q @ k.transpose(-1, -2)) * 0.125 + bias).softmax(-1) @ v


@pytest.mark.parametrize("variant", ["extended_mask", "head_key_bias"])
def test_attention_with_operands_of_unit_dims_is_one_kernel(variant):
    # Operands stored with unit dims ([B, 1, 1, S], [1, H, 1, S]) broadcast
    # over the others: read at (b floordiv H, 0, 0, n) and (0, b mod H, 0, n).
    b, h, s, d = 2, 3, 80, 64
    program_, shape = {"extended_mask": (extended_mask, (b, 1, 1, s)),
                       "head_key_bias": (head_key_bias, (1, h, 1, s))}[variant]
    kernel = tcc.compile(program_, "sm_80", B=b, H=h, S=s, D=d)
    assert len(kernel.kernels) == 1
    assert "form = attention" in kernel.ir["tile"]
    rng = np.random.default_rng(47)
    stored, (q, k, v) = inputs(rng, b * h, s, d, d, "f16")
    operand = rng.standard_normal(shape).astype(np.float16)
    (out,) = run_gpu_stage(kernel, *(x.reshape(b, h, s, d) for x in stored), operand)
    bias = np.broadcast_to(operand.astype(np.float64), (b, h, s, s)).reshape(b * h, s, s)
    assert rel_err(out, softmax_attention(q, k, v, 0.125, bias=bias).reshape(b, h, s, d)) < 2e-3


@program
def padded_batch(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16],
                 mask: Tensor[B, S, f16]):
    # One head: the padding mask [B, S] read at (b, n) on [B, S, S] scores.
    return ((q @ k.transpose(-1, -2)) * 0.125 + mask.reshape(B, 1, S)).softmax(-1) @ v


def test_attention_with_a_per_batch_padding_mask_of_one_head():
    b, s, d = 3, 100, 64
    kernel = tcc.compile(padded_batch, "sm_80", B=b, S=s, D=d)
    assert len(kernel.kernels) == 1
    assert "form = attention" in kernel.ir["tile"]
    rng = np.random.default_rng(43)
    stored, (q, k, v) = inputs(rng, b, s, d, d, "f16")
    mask = np.where(np.arange(s)[None, :] < np.array([[100], [64], [9]]), 0.0, -1e4)
    (out,) = run_gpu_stage(kernel, *stored, mask.astype(np.float16))
    assert rel_err(out, softmax_attention(q, k, v, 0.125, bias=mask[:, None, :])) < 2e-3


def test_attention_with_an_operand_over_a_batch_dim_and_f32_heads_stays_unfused():
    # f32 operands: no attention kernel, the chain stays on the [B, H, S, S]
    # view (the flattening undone) and compiles as kernels of their own.
    @program
    def f32_padding(q: Tensor[B, H, S, D, f32], k: Tensor[B, H, S, D, f32],
                    v: Tensor[B, H, S, D, f32], mask: Tensor[B, S, f32]):
        att = (q @ k.transpose(-1, -2)) * 0.125
        return (att + mask.reshape(B, 1, 1, S)).softmax(-1) @ v
    b, h, s, d = 2, 2, 40, 32
    kernel = tcc.compile(f32_padding, "sm_80", B=b, H=h, S=s, D=d)
    assert len(kernel.kernels) > 1
    assert "form = attention" not in kernel.ir["tile"]
    rng = np.random.default_rng(41)
    q, k, v = (rng.standard_normal((b * h, s, d)).astype(np.float32) for _ in range(3))
    mask = np.where(np.arange(s)[None, :] < np.array([[30], [17]]), 0.0, -1e4).astype(np.float32)
    (out,) = run_gpu_stage(kernel, *(x.reshape(b, h, s, d) for x in (q, k, v)), mask)
    bias = np.repeat(mask.astype(np.float64), h, axis=0)[:, None, :]
    ref = softmax_attention(*(x.astype(np.float64) for x in (q, k, v)), 0.125, bias=bias)
    assert rel_err(out, ref.reshape(b, h, s, d)) < 1e-4


@program
def attention_block(x: Tensor[B, S, D, f16], wq: Tensor[D, D, f16], wk: Tensor[D, D, f16],
                    wv: Tensor[D, D, f16], wo: Tensor[D, D, f16]):
    # A causal self-attention layer as nanoGPT writes it (2 heads).
    b, t, c = x.shape
    q, k, v = ((x @ w.T).view(b, t, 2, c // 2).transpose(1, 2) for w in (wq, wk, wv))
    y = tf.scaled_dot_product_attention(q, k, v, is_causal=True)
    return y.transpose(1, 2).reshape(b, t, c) @ wo.T


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_a_causal_self_attention_layer_is_five_kernels(target):
    # The three projections, the attention kernel reading their [B, S, H, Dh]
    # results through views, the output projection reading its result.
    b, t, c = 2, 80, 128
    kernel = tcc.compile(attention_block, target, B=b, S=t, D=c)
    assert len(kernel.kernels) == 5
    assert kernel.ir["tile"].count("form = attention") == 1
    rng = np.random.default_rng(31)
    x = rng.standard_normal((b, t, c)).astype(np.float16)
    ws = [(rng.standard_normal((c, c)) / np.sqrt(c)).astype(np.float16) for _ in range(4)]
    (out,) = run_gpu_stage(kernel, x, *ws)
    xd, (wq, wk, wv, wo) = x.astype(np.float64), (w.astype(np.float64) for w in ws)
    q, k, v = ((xd @ w.T).reshape(b, t, 2, c // 2).transpose(0, 2, 1, 3).reshape(2 * b, t, -1)
               for w in (wq, wk, wv))
    y = softmax_attention(q, k, v, 1 / np.sqrt(c // 2), mask=np.tril(np.ones((t, t), bool)))
    ref = y.reshape(b, 2, t, -1).transpose(0, 2, 1, 3).reshape(b, t, c) @ wo.T
    assert rel_err(out, ref) < 2e-3


@program
def biased(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16],
           bias: Tensor[S, S, f16]):
    return ((q @ k.transpose(-1, -2)) * 0.125 + bias).softmax(-1) @ v


@program
def masked(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16],
           qpos: Tensor[S, i32], kpos: Tensor[S, i32]):
    s = (q @ k.transpose(-1, -2)) * 0.125
    keep = qpos.reshape(S, 1) >= kpos.reshape(1, S)
    return tf.where(keep, s, float("-inf")).softmax(-1) @ v


def test_attention_with_a_bias_of_the_scores():
    kernel = tcc.compile(biased, "sm_80", B=2, S=100, D=64)
    assert len(kernel.kernels) == 1
    rng = np.random.default_rng(5)
    stored, (q, k, v) = inputs(rng, 2, 100, 64, 64, "f16")
    bias = rng.standard_normal((100, 100)).astype(np.float16)
    (out,) = run_gpu_stage(kernel, *stored, bias)
    assert rel_err(out, softmax_attention(q, k, v, 0.125, bias=bias)) < 2e-3


def test_attention_with_a_mask_written_with_where():
    # Causal, from the positions of the queries and keys: rows whose first
    # block of keys is partly masked, keys masked in the tail block.
    kernel = tcc.compile(masked, "sm_80", B=1, S=150, D=64)
    assert len(kernel.kernels) == 1
    rng = np.random.default_rng(6)
    stored, (q, k, v) = inputs(rng, 1, 150, 64, 64, "f16")
    pos = np.arange(150, dtype=np.int32)
    (out,) = run_gpu_stage(kernel, *stored, pos, pos)
    keep = pos[:, None] >= pos[None, :]
    assert rel_err(out, softmax_attention(q, k, v, 0.125, mask=keep)) < 2e-3


@program
def causal(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16]):
    s = (q @ k.transpose(-1, -2)) * 0.125
    keep = tf.arange(S).reshape(S, 1) >= tf.arange(S).reshape(1, S)
    return tf.where(keep, s, float("-inf")).softmax(-1) @ v


@pytest.mark.parametrize("target, b, s, loops", [
    ("sm_80", 1, 300, 2),  # programs at rows 0, 128, 256: 0, 2 and 4 unmasked blocks
    ("sm_90", 2, 150, 5),  # the Hopper schedule: the producer's walk and key loop too
    ("gfx942", 1, 200, 2),  # 64-row blocks (64 KiB of LDS)
    ("sm_80", 2, 40, 0),   # one 64-row program: its diagonal, one step (no loop)
])
def test_causal_attention_skips_the_masked_blocks(target, b, s, loops):
    kernel = tcc.compile(causal, target, B=b, S=s, D=64)
    assert len(kernel.kernels) == 1
    # Two loops: before the program's first row (no mask), its diagonal
    # (sm_90: inside the persistent walk, beside the producer's).
    assert kernel.ir["tile"].count("scf.for") == loops
    rng = np.random.default_rng(s)
    stored, (q, k, v) = inputs(rng, b, s, 64, 64, "f16")
    (out,) = run_gpu_stage(kernel, *stored)
    keep = np.tril(np.ones((s, s), dtype=bool))
    assert rel_err(out, softmax_attention(q, k, v, 0.125, mask=keep)) < 2e-3


def test_arange_takes_integer_types_only():
    with pytest.raises(tf.DTypeError, match="arange: elt must be i32 or i64, got f16"):
        @program
        def bad(x: Tensor[S, f16]):
            return x + tf.arange(S, "f16")

        tcc.compile(bad, "sm_80", S=8)


@program
def attention_f32(q: Tensor[B, S, D, f32], k: Tensor[B, S, D, f32], v: Tensor[B, S, D, f32]):
    return ((q @ k.transpose(-1, -2)) * 0.125).softmax(-1) @ v


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_f32_attention_stays_unfused(target):
    # f32 operands (no tensor-core products): K's transpose, the two FMA
    # products, the softmax.
    kernel = tcc.compile(attention_f32, target, B=2, S=64, D=64)
    assert len(kernel.kernels) == 4
