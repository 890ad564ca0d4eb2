"""Static analyses of tile programs that need no MLIR (pure Python).

``bank_conflicts``: shared-memory / LDS bank-conflict counts of one warp's
access pattern under a ``#tile.shared`` layout, and the swizzle choice that
``tcc-swizzle-shared-memory`` makes.
"""

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

__all__ = [
    "BankModel",
    "SharedLayout",
    "Swizzle",
    "choose_swizzle",
    "cooperative_store",
    "count_conflicts",
    "ldmatrix_x4_a",
    "ldmatrix_x4_b_trans",
    "mfma_lds_read",
    "pattern_conflicts",
]
