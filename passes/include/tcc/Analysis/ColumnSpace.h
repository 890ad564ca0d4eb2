//===- ColumnSpace.h - ops of a column reduction ----------------*- C++ -*-===//
//
// Column reductions: reductions of a dim that is not the innermost one, the
// innermost kept (`x.sum(0)` of [M, N], `x.mean(1)` of [B, R, N]), shared by
// tcc-form-kernels (which groups a column reduction with the pointwise ops
// over its outputs) and convert-linalg-to-tile (which builds the kernel).
// The iteration space, in the memory order of the reduced operand, is seen
// as [B, R, N]: batch loops (parallel, outermost), reduced loops, then
// column loops (parallel, innermost, contiguous in memory), each group
// flattened. The output space is [B, N].
//
//===----------------------------------------------------------------------===//
#ifndef TCC_ANALYSIS_COLUMNSPACE_H
#define TCC_ANALYSIS_COLUMNSPACE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::tcc {

/// How an operand of a column reduction (or of its epilogue) is read.
enum class ColumnAccess {
  Full,    // every loop, in memory order: (b, r, n)
  Outputs, // the parallel loops: (b, n), one value per output
  Cols,    // the column loops only: (n), broadcast over b (and r)
};

struct ColumnReductionInfo {
  /// Loop dims outermost first, as the reduced operand is laid out.
  SmallVector<unsigned> order;
  unsigned numBatchLoops = 0, numReducedLoops = 0, numColLoops = 0;
  /// Extents of the flattened groups: the columns static, the batch and
  /// the reduced rows ShapedType::kDynamic when a loop of theirs is.
  int64_t batch = 1, reduced = 1, columns = 1;
  /// Per DPS input, how it is read.
  SmallVector<ColumnAccess> inputs;
  /// The result's shape ([B..., N...]).
  SmallVector<int64_t> outputShape;
};

/// `op` as a column reduction, or nullopt: static columns, one init (or an
/// arg reduction's two, tcc/Analysis/ArgReduction.h) read
/// through the parallel loops in memory order, at least one reduced and one
/// innermost parallel loop, the reduced loops contiguous, every input read
/// through a ColumnAccess map (the first input reading every loop sets the
/// memory order).
std::optional<ColumnReductionInfo>
classifyColumnReduction(linalg::GenericOp op);

/// How an all-parallel op over the output space [B..., N...] (of rank
/// `rank`, `numColLoops` of them the columns) reads an operand through
/// `map`: the identity (Outputs) or the column loops (Cols).
std::optional<ColumnAccess> classifyColumnEpilogueAccess(AffineMap map,
                                                         unsigned numColLoops);

/// Whether `op` is an elementwise op over the output space of a column
/// reduction (a pointwise consumer that can run in its kernel): all loops
/// parallel over `outputShape` (the reduction's, `numColLoops` of them the
/// columns), identity inits, every input read through a ColumnAccess map of
/// that space.
bool isColumnEpilogue(linalg::GenericOp op, ArrayRef<int64_t> outputShape,
                      unsigned numColLoops);

/// The widest element (bytes, at least 1) of `op`'s streamed operands (those
/// read through every loop, ColumnAccess::Full): what sets the vectors.
unsigned streamedElementBytes(linalg::GenericOp op,
                              const ColumnReductionInfo &info);

/// The programs of a column reduction's kernel before tcc-split-reduction
/// splits its rows: one per batch index and 512 bytes of columns (a 32-lane
/// warp of 16-byte vectors of `bytes`-byte elements).
inline int64_t unsplitColumnPrograms(int64_t batch, int64_t columns,
                                     unsigned bytes) {
  return batch * llvm::divideCeil(columns, 512 / bytes);
}

} // namespace mlir::tcc

#endif // TCC_ANALYSIS_COLUMNSPACE_H
