//===- RowSpace.h - ops of a row program ------------------------*- C++ -*-===//
//
// The ops a row program (one kernel over whole rows: LayerNorm, RMSNorm,
// log-softmax, ...) is made of, shared by tcc-form-kernels (which groups
// them) and convert-linalg-to-tile (which builds the program). An iteration
// space [P..., N] is seen as rows (the leading parallel dims P, flattened)
// by columns (the last dim N).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_ANALYSIS_ROWSPACE_H
#define TCC_ANALYSIS_ROWSPACE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::tcc {

/// How a row-program op covers the rows.
enum class RowOpKind {
  Block,  // all-parallel over [P..., N]
  Reduce, // [P..., N] -> [P...], reducing the last dim
  Rows,   // all-parallel over [P...] (after a reduction)
};

/// How an operand of a Block or Reduce op is read.
enum class RowAccess {
  Block, // (p..., n) -> (p..., n)
  Cols,  // (p..., n) -> (n): one value per column, broadcast down the rows
  Rows,  // (p..., n) -> (p...): one value per row, broadcast along it
  // Any other selection of the dims in order: a scalar (p..., n) -> (), an
  // operand lacking leading or middle dims ((b, s, d) -> (s, d), a
  // positional table added to a batch), read element by element at offsets
  // computed from the row's coordinates (tile.memref_gather).
  Gather,
};

struct RowOpInfo {
  RowOpKind kind;
  SmallVector<int64_t> rows; // the extents of P
  int64_t columns = 0;       // N (0 for Rows ops, which do not see it)

  int64_t numRows() const;
};

/// `op`'s place in a row program, or nullopt when it is none: static shapes,
/// a single init read through (p...) for Reduce (or the value and index
/// inits of an arg reduction, tcc/Analysis/ArgReduction.h), every input read through
/// one of the RowAccess maps (Gather ones only beside an input read
/// whole). An all-parallel op whose maps are all the
/// identity and whose space is `programRows` (the rows of a program with a
/// reduction) is a Rows op of that program; otherwise it is a Block op.
std::optional<RowOpInfo>
classifyRowOp(linalg::GenericOp op,
              std::optional<ArrayRef<int64_t>> programRows = std::nullopt);

/// How `map`, an indexing map of a Block or Reduce op of rank `rank`, reads
/// its operand (nullopt: none of the RowAccess forms).
std::optional<RowAccess> classifyRowAccess(AffineMap map);

} // namespace mlir::tcc

#endif // TCC_ANALYSIS_ROWSPACE_H
