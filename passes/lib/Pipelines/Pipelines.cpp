//===- Pipelines.cpp - tcc's named pass pipelines -------------------------===//
#include "tcc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tcc;

void mlir::tcc::buildTensorToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTccToLinalg());
  pm.addPass(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createTccFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tcc::buildLinalgToTilePipeline(OpPassManager &pm,
                                          const LowerToTileOptions &options) {
  ConvertLinalgToTileOptions tileOptions;
  tileOptions.warpSize = options.warpSize;
  tileOptions.numWarps = options.numWarps;
  tileOptions.mfmaShape = options.mfmaShape;
  tileOptions.elementsPerProgram = options.elementsPerProgram;
  pm.addPass(createTccDecomposeSoftmax());
  pm.addPass(createTccSplitReduction());
  pm.addPass(createTccNormalizeMatmulOperands());
  pm.addPass(createTccFormKernels());
  pm.addPass(createConvertLinalgToTile(tileOptions));
  if (options.bankModel != "none") {
    TccSwizzleSharedMemoryOptions swizzleOptions;
    swizzleOptions.bankModel = options.bankModel;
    pm.addPass(createTccSwizzleSharedMemory(swizzleOptions));
  }
  // After the swizzle: the pipelined buffers keep the chosen layouts.
  TccPromoteSharedMemoryOptions promoteOptions;
  promoteOptions.numStages = options.numStages;
  pm.addPass(createTccPromoteSharedMemory(promoteOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::tcc::buildTileToGPUPipeline(OpPassManager &pm,
                                       const TileToGPUOptions &options) {
  ConvertTileToGPUOptions gpuOptions;
  gpuOptions.warpSize = options.warpSize;
  gpuOptions.expandMath = options.expandMath;
  gpuOptions.asyncCopy = options.asyncCopy;
  gpuOptions.maxSharedBytes = options.maxSharedBytes;
  pm.addPass(createConvertTileToGPU(gpuOptions));
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
      "(tcc-decompose-softmax, tcc-split-reduction, tcc-normalize-matmul-operands, tcc-form-kernels, convert-linalg-to-tile, tcc-swizzle-shared-memory, "
      "tcc-promote-shared-memory, canonicalize, cse)",
      buildLinalgToTilePipeline);
  PassPipelineRegistration<TileToGPUOptions>(
      "tcc-tile-to-gpu",
      "stage 'gpu': tile programs to gpu.module/gpu.func with per-thread "
      "vector code (convert-tile-to-gpu, tcc-lower-vector-ops, canonicalize, "
      "cse)",
      buildTileToGPUPipeline);
  PassPipelineRegistration<LowerToTileOptions>(
      "tcc-lower-to-tile",
      "tcc tensor programs (or linalg on tensors) to tile-dialect kernels: "
      "tcc-tensor-to-linalg then tcc-linalg-to-tile (convert-linalg-to-tile, "
      "tcc-swizzle-shared-memory, tcc-promote-shared-memory)",
      buildLowerToTilePipeline);
}
