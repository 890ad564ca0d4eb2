"""Bank-conflict analysis (tcc.analysis.bank_conflicts) and its agreement with
the tcc-swizzle-shared-memory pass. Counts are exact: a changed model or
swizzle formula fails here."""

import re

import pytest
from mlir import ir
from mlir.passmanager import PassManager

from tcc.analysis.bank_conflicts import (
    BankModel,
    SharedLayout,
    Swizzle,
    choose_swizzle,
    cooperative_store,
    count_conflicts,
    ldmatrix_x4_a,
    ldmatrix_x4_b_trans,
    mfma_lds_read,
    pattern_conflicts,
)

NV = BankModel.nvidia()
AMD = BankModel.amd_lds()
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4}


def plain(shape, elem, order=(1, 0)):
    return SharedLayout(shape, ELEM_BYTES[elem], vec=16 // ELEM_BYTES[elem], order=order)


def swizzled(shape, elem, model=NV, kwidth=0, order=(1, 0)):
    layout = plain(shape, elem, order)
    return layout.with_swizzle(choose_swizzle(model, layout.elem_bytes, shape, order, kwidth))


# -- the counting model --------------------------------------------------------

def test_broadcast_is_free_and_same_bank_serializes():
    assert count_conflicts(NV, [0] * 32, 4) == 0
    assert count_conflicts(NV, [4 * lane for lane in range(32)], 4) == 0
    # 32 distinct words of bank 0: 32 wavefronts, 31 extra.
    assert count_conflicts(NV, [128 * lane for lane in range(32)], 4) == 31
    # Pairs of lanes on one word: still 16 distinct words in bank 0.
    assert count_conflicts(NV, [128 * (lane // 2) for lane in range(32)], 4) == 15


def test_phases_split_wide_accesses():
    # 16-byte accesses: 4 phases of 8 lanes; 8 rows of 128 bytes per phase
    # hit the same 4 banks: 8 wavefronts per phase.
    assert count_conflicts(NV, [128 * (lane % 8) for lane in range(32)], 16) == 4 * 7
    # 8-byte accesses: 2 phases of 16 lanes; contiguous lanes fill one line.
    assert count_conflicts(NV, [8 * lane for lane in range(32)], 8) == 0
    # Every other 8-byte slot: a phase spans 256 bytes, 2 words per bank.
    assert count_conflicts(NV, [16 * lane for lane in range(32)], 8) == 2 * 1
    with pytest.raises(ValueError, match="aligned"):
        count_conflicts(NV, [4] * 32, 16)


def test_amd_phases():
    groups = AMD.phases(16, "load")
    assert sorted(lane for g in groups for lane in g) == list(range(64))
    assert groups[0] == (0, 1, 2, 3, 20, 21, 22, 23)
    assert AMD.phases(16, "store")[1] == tuple(range(8, 16))
    assert [len(g) for g in AMD.phases(8)] == [16] * 4
    assert [len(g) for g in AMD.phases(4)] == [32] * 2


@pytest.mark.parametrize("elem", ["f16", "f32"])
@pytest.mark.parametrize("shape", [(64, 64), (128, 32), (32, 128)])
def test_swizzle_is_a_permutation(elem, shape):
    layout = swizzled(shape, elem)
    offsets = {layout.offset(i, j) for i in range(shape[0]) for j in range(shape[1])}
    assert offsets == set(range(shape[0] * shape[1]))


# -- choose_swizzle: Triton's mma.sync values -----------------------------------

@pytest.mark.parametrize(("elem_bytes", "cols", "expected"), [
    (2, 16, Swizzle(8, 4, 2)),     # 32-byte rows
    (2, 32, Swizzle(8, 2, 4)),     # 64-byte rows
    (2, 64, Swizzle(8, 1, 8)),     # 128-byte rows
    (2, 128, Swizzle(8, 1, 8)),
    (2, 8, Swizzle(8, 8, 1)),      # one 16-byte vector per row: no swizzle
    (2, 4, Swizzle(8, 16, 1)),     # shorter than a vector: no swizzle
    (4, 32, Swizzle(4, 1, 8)),
    (4, 16, Swizzle(4, 2, 4)),
    (1, 128, Swizzle(16, 1, 8)),
])
def test_choose_swizzle_nvidia(elem_bytes, cols, expected):
    assert choose_swizzle(NV, elem_bytes, (64, cols)) == expected


def test_choose_swizzle_amd_and_errors():
    assert choose_swizzle(AMD, 2, (128, 64), kwidth=8) == Swizzle(8, 1, 8)
    assert choose_swizzle(AMD, 2, (128, 64), kwidth=4) == Swizzle(4, 1, 16)
    assert choose_swizzle(AMD, 2, (128, 32), kwidth=4) == Swizzle(4, 2, 8)
    assert choose_swizzle(AMD, 2, (64, 128), kwidth=8, k_contiguous=False) == Swizzle(1, 1, 1)
    with pytest.raises(ValueError, match="power of two"):
        choose_swizzle(NV, 2, (64, 48))


# -- NVIDIA: ldmatrix fragments and cooperative stores --------------------------

# (elem, shape) -> extra wavefronts of one ldmatrix.x4 on the plain layout.
# 128-byte (or longer) rows: the 8 rows of each matrix share 4 banks (7 extra
# per phase); 64-byte rows: two rows per line, 4-way (3 extra per phase).
PLAIN_LDMATRIX = {
    ("f16", (128, 64)): 28, ("bf16", (128, 64)): 28,
    ("f16", (64, 64)): 28, ("bf16", (64, 64)): 28,
    ("f16", (128, 32)): 12, ("bf16", (128, 32)): 12,
    ("f16", (32, 128)): 28, ("bf16", (32, 128)): 28,
    ("f32", (64, 32)): 28, ("f32", (64, 16)): 12,
}


@pytest.mark.parametrize(("elem", "shape"), list(PLAIN_LDMATRIX))
def test_ldmatrix_a_conflicts(elem, shape):
    expected = PLAIN_LDMATRIX[(elem, shape)]
    assert pattern_conflicts(NV, ldmatrix_x4_a(plain(shape, elem), 0, 0)) == expected
    # Every fragment of the tile: plain has the same count each, swizzled none.
    k_step = 32 // ELEM_BYTES[elem]
    frags = [(r, k) for r in range(0, shape[0], 16) for k in range(0, shape[1], k_step)]
    for layout, per_frag in ((plain(shape, elem), expected), (swizzled(shape, elem), 0)):
        total = sum(pattern_conflicts(NV, ldmatrix_x4_a(layout, r, k)) for r, k in frags)
        assert total == per_frag * len(frags)


@pytest.mark.parametrize(("elem", "shape", "warps_n"), [
    (elem, shape, warps_n) for (elem, shape) in PLAIN_LDMATRIX for warps_n in (1, 4)
    # two n tiles of this warp per ldmatrix.x4: 2 * warps_n 16-byte chunks
    if shape[1] * ELEM_BYTES[elem] >= 2 * 16 * warps_n
])
def test_ldmatrix_b_trans_conflicts(elem, shape, warps_n):
    chunk = 16 // ELEM_BYTES[elem]
    n_stride = chunk * warps_n
    expected = PLAIN_LDMATRIX[(elem, shape)]
    frags = [(k, n) for k in range(0, shape[0], 16) for n in range(0, chunk * warps_n, chunk)]
    for layout, per_frag in ((plain(shape, elem), expected), (swizzled(shape, elem), 0)):
        total = sum(pattern_conflicts(NV, ldmatrix_x4_b_trans(layout, k, n, n_stride))
                    for k, n in frags)
        assert total == per_frag * len(frags)


@pytest.mark.parametrize(("elem", "shape"), list(PLAIN_LDMATRIX))
def test_cooperative_16_byte_stores(elem, shape):
    # convert-linalg-to-tile's operand layout: 16 bytes per thread, a warp's
    # threads across the row first.
    spt = 16 // ELEM_BYTES[elem]
    cols = min(32, shape[1] // spt)
    for layout in (plain(shape, elem), swizzled(shape, elem)):
        total = sum(pattern_conflicts(NV, cooperative_store(layout, NV, spt, (32 // cols, cols), r))
                    for r in range(0, shape[0], 32 // cols))
        assert total == 0


def test_column_reads_are_the_limit():
    # 4-byte reads down a column of an f32 tile with 128-byte rows: 32-way
    # plain; the swizzle (tuned for 16-byte rows) leaves 4-way.
    for layout, expected in ((plain((64, 32), "f32"), 31), (swizzled((64, 32), "f32"), 3)):
        addresses = [layout.address(lane, 0) for lane in range(32)]
        assert count_conflicts(NV, addresses, 4) == expected


# -- AMD: MFMA operand reads and ds_write_b128 stores ----------------------------

# (shape, m_dim, kwidth) -> extra LDS cycles of one operand read on the plain
# layout (A, K contiguous).
PLAIN_MFMA = {
    ((128, 64), 32, 8): 56, ((128, 64), 16, 8): 24,
    ((128, 32), 32, 8): 24, ((128, 32), 16, 8): 8,
    ((128, 64), 32, 4): 60, ((128, 32), 32, 4): 28,
}


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize(("shape", "m_dim", "kwidth"), list(PLAIN_MFMA))
def test_mfma_reads(elem, shape, m_dim, kwidth):
    expected = PLAIN_MFMA[(shape, m_dim, kwidth)]
    lay_plain = plain(shape, elem)
    lay_sw = swizzled(shape, elem, AMD, kwidth)
    k_step = kwidth * 64 // m_dim
    frags = [(s, k) for s in range(0, shape[0], m_dim) for k in range(0, shape[1], k_step)]
    for layout, per_frag in ((lay_plain, expected), (lay_sw, 0)):
        total = sum(pattern_conflicts(AMD, mfma_lds_read(layout, 0, m_dim, kwidth, s, k))
                    for s, k in frags)
        assert total == per_frag * len(frags)
    # B stored N x K (order [0, 1]): the same rows, read as opIdx 1.
    b_plain = plain((shape[1], shape[0]), elem, order=(0, 1))
    assert pattern_conflicts(AMD, mfma_lds_read(b_plain, 1, m_dim, kwidth)) == expected
    b_sw = swizzled((shape[1], shape[0]), elem, AMD, kwidth, order=(0, 1))
    assert pattern_conflicts(AMD, mfma_lds_read(b_sw, 1, m_dim, kwidth)) == 0


@pytest.mark.parametrize(("shape", "m_dim", "kwidth"), list(PLAIN_MFMA))
def test_amd_cooperative_stores(shape, m_dim, kwidth):
    # Stores as wide as a swizzle group allows: ds_write_b128 for kWidth 8,
    # b64 for kWidth 4.
    spt = min(8, kwidth)
    cols = min(64, shape[1] // spt)
    for layout in (plain(shape, "f16"), swizzled(shape, "f16", AMD, kwidth)):
        stores = [cooperative_store(layout, AMD, spt, (64 // cols, cols), r)
                  for r in range(0, shape[0], 64 // cols)]
        assert sum(pattern_conflicts(AMD, s) for s in stores) == 0


# tcc's AMD GEMM operands as convert-linalg-to-tile stages them and
# convert-tile-to-gpu reads them, per 32-wide K step of a 128 x 128 block:
# A [128, 32] K-contiguous in kWidth-4 fragments (ds_read_b64), swizzled by
# the pass; B [32, 128] N-contiguous, left unswizzled (K is not contiguous),
# read one element at a time down each lane's column. MFMA 16x16x16 (lanes
# 16 per row, rows 4 apart) against 32x32x8 (32 lanes along one row).
@pytest.mark.parametrize(("m_dim", "a_plain", "b_plain"), [(16, 448, 128), (32, 448, 0)])
def test_tcc_amd_gemm_operand_reads(m_dim, a_plain, b_plain):
    k_step = 4 * 64 // m_dim

    def total(layout, op_idx):
        non_k = layout.shape[op_idx]  # A: rows (dim 0), B: columns (dim 1)
        return sum(pattern_conflicts(AMD, mfma_lds_read(layout, op_idx, m_dim, 4, s, k))
                   for s in range(0, non_k, m_dim) for k in range(0, 32, k_step))

    a_shape, b_shape = (128, 32), (32, 128)
    assert total(plain(a_shape, "f16"), 0) == a_plain
    assert total(swizzled(a_shape, "f16", AMD, 4), 0) == 0
    assert choose_swizzle(AMD, 2, b_shape, kwidth=4, k_contiguous=False).max_phase == 1
    assert total(plain(b_shape, "f16"), 1) == b_plain


# -- the pass makes the same choice ---------------------------------------------

def _run_pass(elem: str, shape, order, opidx, parent: str, kwidth: int, model: str) -> str:
    shape_s = "x".join(map(str, shape))
    order_s = ", ".join(map(str, order))
    ir_text = f"""
#p = {parent}
#b = #tile.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4],
                    order = [1, 0]}}>
#s = #tile.shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [{order_s}]}}>
#o = #tile.dot_operand<{{opIdx = {opidx}, parent = #p, kWidth = {kwidth}}}>
func.func @f(%a: tensor<{shape_s}x{elem}, #b>) -> tensor<{shape_s}x{elem}, #o> {{
  %s = tile.convert_layout %a : tensor<{shape_s}x{elem}, #b> -> tensor<{shape_s}x{elem}, #s>
  %o = tile.convert_layout %s : tensor<{shape_s}x{elem}, #s> -> tensor<{shape_s}x{elem}, #o>
  return %o : tensor<{shape_s}x{elem}, #o>
}}
"""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(ir_text)
        arch = {"nvidia": "sm_90", "amd": "gfx942"}[model]  # banks = model
        PassManager.parse(
            f"builtin.module(tcc-set-target{{arch={arch}}},tcc-swizzle-shared-memory)"
        ).run(module.operation)
        return str(module)


MMA = "#tile.nvidia_mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>"
MFMA = ("#tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], "
        "isTransposed = false}>")
GRID_SHAPES = [(16, 8), (64, 4), (64, 16), (32, 32), (128, 32), (64, 64), (32, 128), (16, 256)]


@pytest.mark.parametrize("elem", ["f16", "bf16", "f32"])
@pytest.mark.parametrize("shape", GRID_SHAPES)
@pytest.mark.parametrize("order", [(1, 0), (0, 1)])
@pytest.mark.parametrize(("model", "opidx", "kwidth"), [
    ("nvidia", 0, 2), ("nvidia", 1, 2), ("amd", 0, 8), ("amd", 1, 4), ("amd", 0, 4), ("amd", 1, 8),
])
def test_pass_matches_choose_swizzle(elem, shape, order, model, opidx, kwidth):
    bank_model = NV if model == "nvidia" else AMD
    out = _run_pass(elem, shape, order, opidx, MMA if model == "nvidia" else MFMA, kwidth, model)
    k_dim = 1 if opidx == 0 else 0
    want = choose_swizzle(bank_model, ELEM_BYTES[elem], shape, order, kwidth,
                          k_contiguous=order[0] == k_dim)
    got = re.findall(r"#tile\.shared<\{vec = (\d+), perPhase = (\d+), maxPhase = (\d+)", out)
    assert len(got) == 1, out
    if want.max_phase == 1:
        assert got[0] == ("1", "1", "1")  # left unchanged
    else:
        assert Swizzle(*map(int, got[0])) == want
