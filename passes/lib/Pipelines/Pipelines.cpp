//===- Pipelines.cpp - tcc's named pass pipelines -------------------------===//
#include "tcc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Strategy/Passes.h"
#include "tcc/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tcc;

void mlir::tcc::buildTensorToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTccToLinalg());
  pm.addPass(createLinalgGeneralizeNamedOpsPass());
  // A dynamic size read off an op's result (tensor.dim) is read off the
  // argument it follows from: the op then has its consumer as its only use,
  // and fuses.
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createTccFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// tcc-set-target{arch=target} when a target is named.
static void addSetTarget(OpPassManager &pm, StringRef target) {
  if (target.empty())
    return;
  TccSetTargetOptions options;
  options.arch = target.str();
  pm.addPass(createTccSetTarget(options));
}

void mlir::tcc::buildLinalgToTilePipeline(OpPassManager &pm,
                                          const LowerToTileOptions &options) {
  addSetTarget(pm, options.target);
  // Whole programs: a multi-head attention's score ops on its flat scores,
  // softmax over outer dims as reductions, broadcasts no
  // reduction form reads materialized (before the split, which then sees
  // inputs read whole, and after it, for the reductions it makes), long
  // reductions split, matmul operands normalized, then kernel formation (one tcc.kernel
  // function per kernel, a tcc.host function of their launches).
  pm.addPass(createTccFlattenAttentionScores());
  pm.addPass(createTccDecomposeSoftmax());
  pm.addPass(createTccMaterializeBroadcasts());
  pm.addPass(createTccSplitReduction());
  pm.addPass(createTccNormalizeMatmulOperands());
  pm.addPass(createTccMaterializeBroadcasts());
  // Dynamic sizes read off the program's arguments (tensor.dim of an op's
  // result becomes tensor.dim of the argument it follows from), so that a
  // kernel reads its sizes off its own arguments.
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createTccFormKernels());
  pm.addPass(createTccBindShapeSymbols());
  // The plan of each kernel (its lowering_config); the options are the
  // defaults the forms' heuristics start from.
  TccSelectStrategyOptions strategyOptions;
  strategyOptions.numWarps = options.numWarps;
  strategyOptions.mfmaShape = options.mfmaShape;
  strategyOptions.elementsPerProgram = options.elementsPerProgram;
  strategyOptions.numStages = options.numStages;
  strategyOptions.plans = options.plans;
  strategyOptions.dynamicExtent = options.dynamicExtent;
  pm.addPass(createTccSelectStrategy(strategyOptions));
  pm.addPass(createConvertLinalgToTile());
  pm.addPass(createTccAccelerateMatmul());
  pm.addPass(createTccCoalesce());
  if (options.swizzle)
    pm.addPass(createTccSwizzleSharedMemory());
  // After the swizzle: the pipelined buffers keep the chosen layouts. The
  // stage count is each kernel's config's; num-stages is for tile programs
  // given as source without one.
  TccPromoteSharedMemoryOptions promoteOptions;
  promoteOptions.numStages = options.numStages;
  pm.addPass(createTccPromoteSharedMemory(promoteOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tcc::buildTileToGPUPipeline(OpPassManager &pm,
                                       const TileToGPUOptions &options) {
  addSetTarget(pm, options.target);
  pm.addPass(createConvertTileToGPU());
  pm.addPass(createTccLowerVectorOps());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tcc::buildLowerToTilePipeline(OpPassManager &pm,
                                         const LowerToTileOptions &options) {
  buildTensorToLinalgPipeline(pm);
  buildLinalgToTilePipeline(pm, options);
}

void mlir::tcc::registerTccPipelines() {
  PassPipelineRegistration<>(
      "tcc-tensor-to-linalg",
      "stage 'linalg': tcc ops to linalg on tensors, generalized and fused "
      "(convert-tcc-to-linalg, linalg-generalize-named-ops, "
      "tcc-fuse-elementwise, canonicalize, cse)",
      buildTensorToLinalgPipeline);
  PassPipelineRegistration<LowerToTileOptions>(
      "tcc-linalg-to-tile",
      "stage 'tile': fused linalg kernels to scheduled tile programs "
      "(tcc-set-target with target=, tcc-decompose-softmax, "
      "tcc-materialize-broadcasts, tcc-split-reduction, tcc-normalize-matmul-operands, "
      "tcc-materialize-broadcasts, tcc-form-kernels, tcc-select-strategy, "
      "convert-linalg-to-tile, tcc-accelerate-matmul, tcc-coalesce, "
      "tcc-swizzle-shared-memory, tcc-promote-shared-memory, canonicalize, "
      "cse)",
      buildLinalgToTilePipeline);
  PassPipelineRegistration<TileToGPUOptions>(
      "tcc-tile-to-gpu",
      "stage 'gpu': tile programs to gpu.module/gpu.func with per-thread "
      "vector code (tcc-set-target with target=, convert-tile-to-gpu, "
      "tcc-lower-vector-ops, canonicalize, cse)",
      buildTileToGPUPipeline);
  PassPipelineRegistration<LowerToTileOptions>(
      "tcc-lower-to-tile",
      "tcc tensor programs (or linalg on tensors) to tile-dialect kernels: "
      "tcc-tensor-to-linalg then tcc-linalg-to-tile (tcc-form-kernels, "
      "tcc-select-strategy, convert-linalg-to-tile, tcc-accelerate-matmul, "
      "tcc-coalesce, tcc-swizzle-shared-memory, tcc-promote-shared-memory)",
      buildLowerToTilePipeline);
}
