"""Bank conflicts of compiled kernels' shared accesses (tcc.analysis.
kernel_conflicts), the report's column: the swizzled GEMM operands are
conflict-free on both vendors, the unswizzled ones cost what the bank model
says a plain tile costs (test_bank_conflicts.py's table)."""

import pytest

import tcc
from tcc.analysis.kernel_conflicts import kernel_conflicts
from tcc.frontend import Tensor, f32, program

GEMM = """
func.func @mm(%a: tensor<256x128xf16>, %b: tensor<128x256xf16>) -> tensor<256x256xf16> {
  %c = tcc.matmul %a, %b : tensor<256x128xf16>, tensor<128x256xf16> -> tensor<256x256xf16>
  return %c : tensor<256x256xf16>
}"""


def conflicts(src, target, **kw):
    k = tcc.compile(src, target, cache=False, **kw)
    return kernel_conflicts(k.ir["tile"], "amd" if target.startswith("gfx") else "nvidia"), k


@pytest.mark.parametrize(("target", "reads"), [("sm_80", ("ldmatrix A", "ldmatrix B")),
                                              ("gfx942", ("MFMA A read", "MFMA B read"))])
def test_swizzled_gemm_operands_are_conflict_free(target, reads):
    kc, k = conflicts(GEMM, target)
    kinds = [a.what for a in kc.accesses]
    assert kinds == ["store", "store", *reads]
    assert all(a.requests > 0 for a in kc.accesses)
    assert kc.extra_wavefronts == 0 and kc.summary() == "0"
    assert "| 0 |" in k.report.table()


@pytest.mark.parametrize(("target", "expected"), [
    # 128 x 32 f16 A: 12 extra wavefronts per ldmatrix.x4; 32 x 128 B: 28.
    ("sm_80", {"ldmatrix A": 12.0, "ldmatrix B": 28.0}),
    # A 128 x 32 on MFMA 32x32x8 reads (kWidth 4): 28 per read; B (N
    # contiguous, element-wide reads) conflict-free either way.
    ("gfx942", {"MFMA A read": 28.0}),
])
def test_unswizzled_gemm_operands_cost_what_the_model_says(target, expected):
    kc, k = conflicts(GEMM, target, swizzle=False)
    costly = {a.what: a.per_request for a in kc.accesses if a.extra_wavefronts}
    assert costly == expected
    assert all(f"{what} {v:.1f}/req" in k.report.table() for what, v in expected.items())


def test_staged_softmax_copy_and_read_back_are_conflict_free():
    src = """
    func.func @vocab(%x: tensor<9x50257xf16>) -> tensor<9x50257xf16> {
      %y = tcc.softmax %x dim = 1 : tensor<9x50257xf16>
      return %y : tensor<9x50257xf16>
    }"""
    kc, _ = conflicts(src, "sm_90")
    assert [(a.what, a.extra_wavefronts) for a in kc.accesses] == [("store", 0), ("load", 0)]


def test_what_is_not_modelled_is_named():
    # The Hopper GEMM: TMA copies and wgmma's descriptor reads.
    kc, _ = conflicts(GEMM, "sm_90")
    assert kc.summary() == "TMA+wgmma: hw swizzle"
    # A transpose: a relayout through scratch memory.
    @program
    def transpose(x: Tensor[1024, 1024, f32]):
        return x.T + 1.0

    kc, _ = conflicts(transpose, "sm_80")
    assert kc.summary() == "relayout: not modelled"
    # An elementwise kernel: no shared memory.
    kc, _ = conflicts("""
    func.func @e(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
      %y = tcc.exp %x : tensor<64x64xf32>
      return %y : tensor<64x64xf32>
    }""", "sm_80")
    assert kc.summary() == "-"


def test_nt_gemm_column_major_b_is_conflict_free():
    """x @ w.T on sm_80: B staged column-major (order [0, 1], BK 64), its
    cp.async runs down K and its ldmatrix reads without .trans, swizzled
    along K: no conflicts; unswizzled, B's 128-byte rows cost what A's do."""
    nt = """
    func.func @nt(%a: tensor<256x128xf16>, %w: tensor<256x128xf16>) -> tensor<256x256xf16> {
      %wt = tcc.transpose %w permutation = [1, 0] : tensor<256x128xf16> -> tensor<128x256xf16>
      %c = tcc.matmul %a, %wt : tensor<256x128xf16>, tensor<128x256xf16> -> tensor<256x256xf16>
      return %c : tensor<256x256xf16>
    }"""
    kc, k = conflicts(nt, "sm_80")
    assert len(k.kernels) == 1 and "order = [0, 1]" in k.ir["tile"]
    assert [(a.what, a.extra_wavefronts) for a in kc.accesses] == [
        ("store", 0), ("store", 0), ("ldmatrix A", 0), ("ldmatrix B", 0)]
    kc, _ = conflicts(nt, "sm_80", swizzle=False)
    costly = {a.what: a.per_request for a in kc.accesses if a.extra_wavefronts}
    assert costly == {"ldmatrix A": 28.0, "ldmatrix B": 28.0}
