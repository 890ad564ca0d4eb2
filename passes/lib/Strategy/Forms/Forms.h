//===- Forms.h - the kernel forms tcc-select-strategy asks ------*- C++ -*-===//
//
// Private to passes/lib/Strategy. One file per form: a matcher (does this
// form build the kernel made of these ops, and which op is its root?) and
// the heuristics that pick its #tile.lowering_config. The builders are in
// passes/lib/Conversion/LinalgToTile and only read the config.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_STRATEGY_FORMS_FORMS_H
#define TCC_STRATEGY_FORMS_FORMS_H

#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"

#include <optional>
#include <string>

namespace mlir::tcc::strategy {

/// What the heuristics read: the module's target and the options of
/// tcc-select-strategy (defaults in Strategy/Passes.td).
struct StrategyOptions {
  tile::TargetAttr target;
  unsigned numWarps = 4;
  int64_t elementsPerProgram = 2048;
  int64_t numStages = 3;
  std::string mfmaShape = "auto";
  int64_t maxSoftmaxColumns = 16384;
  int64_t dynamicExtent = kPlanningExtent; // what a dynamic extent is planned as
};

/// One kernel form. `match` returns the kernel's root op when this form
/// builds the kernel whose ops (collectKernelOps, in order) are `ops`, or
/// null; `configure` picks the root's plan (from the root and, for the
/// forms of several ops, all of `ops`), or fails with a diagnostic.
struct KernelFormInfo {
  tile::KernelForm form;
  Operation *(*match)(ArrayRef<Operation *> ops,
                      const StrategyOptions &options);
  FailureOr<tile::LoweringConfigAttr> (*configure)(
      Operation *root, ArrayRef<Operation *> ops,
      const StrategyOptions &options);
};

extern const KernelFormInfo kSoftmaxForm;
extern const KernelFormInfo kElementwiseForm;
extern const KernelFormInfo kMatmulForm;
extern const KernelFormInfo kFmaMatmulForm;
extern const KernelFormInfo kRowReductionForm;
extern const KernelFormInfo kTransposeForm;
extern const KernelFormInfo kColumnReductionForm;
extern const KernelFormInfo kRowProgramForm;
extern const KernelFormInfo kAttentionForm;

/// The plan of a row program over [m, n] rows whose widest element is
/// `elementBytes` wide and narrowest float read `readBytes` wide
/// (RowProgram.cpp), as `form`: whole rows in registers while they fit (the
/// row rounded up to a power of two at most `max-softmax-columns`), else
/// `walk = looped` over chunks of up to 8 warps; 64 bytes of the rows per
/// thread (16 x f32, 32 x f16).
FailureOr<tile::LoweringConfigAttr>
configureRows(Operation *root, tile::KernelForm form, int64_t m, int64_t n,
              unsigned elementBytes, unsigned readBytes,
              const StrategyOptions &options);

/// The root of a kernel made of one generic `isRoot` accepts, optionally
/// followed by an all-parallel generic (its elementwise epilogue).
Operation *matchRootWithEpilogue(ArrayRef<Operation *> ops,
                                 function_ref<bool(linalg::GenericOp)> isRoot);

/// The block of an [m, n] iteration space (n contiguous, the widest element
/// `elementBytes` wide) on `numWarps` warps, shared by the elementwise, row
/// reduction and softmax forms: BN the row rounded up to a power of two,
/// capped at `maxBlockN` (default: two rounds of the widest vectors across
/// the program's lanes); BM `elementsPerProgram / BN` rounded up (at most
/// m rounded up), at least the rows the layout covers.
BlockSchedule chooseRowBlock(int64_t m, int64_t n, unsigned elementBytes,
                             unsigned numWarps, unsigned warpSize,
                             int64_t elementsPerProgram,
                             std::optional<int64_t> maxBlockN = {});

/// The config, or a diagnostic on `root` when it is invalid (e.g. an
/// out-of-range option).
FailureOr<tile::LoweringConfigAttr>
makeConfig(Operation *root, tile::KernelForm form, ArrayRef<int64_t> block,
           unsigned numWarps, std::optional<unsigned> numStages = {},
           std::optional<tile::MmaKind> mma = {},
           std::optional<tile::RowWalk> walk = {},
           std::optional<tile::ElementwiseView> view = {},
           std::optional<tile::ConsumerSchedule> consumers = {},
           ArrayRef<int64_t> cluster = {},
           std::optional<unsigned> splitK = {});

} // namespace mlir::tcc::strategy

#endif // TCC_STRATEGY_FORMS_FORMS_H
