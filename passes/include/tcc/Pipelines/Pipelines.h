//===- Pipelines.h - tcc's named pass pipelines -----------------*- C++ -*-===//
//
// The compiler's stages as named pipelines, so `tcc-opt` and the Python
// driver run the very same pass lists.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_PIPELINES_PIPELINES_H
#define TCC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tcc {

/// `target=`: runs tcc-set-target{arch=...} first; empty: the module must
/// carry its tile.target already.
struct LowerToTileOptions : public PassPipelineOptions<LowerToTileOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("target architecture (tcc-set-target): sm_80, sm_86, "
                     "sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950; empty: "
                     "the module's tile.target"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> numWarps{
      *this, "num-warps",
      llvm::cl::desc("warps per program (tcc-select-strategy's default)"),
      llvm::cl::init(4)};
  PassOptions::Option<std::string> mfmaShape{
      *this, "mfma-shape",
      llvm::cl::desc("AMD GEMM MFMA instruction: auto, 16 or 32 "
                     "(tcc-select-strategy)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> elementsPerProgram{
      *this, "elements-per-program",
      llvm::cl::desc("target block size (elements) of one elementwise or "
                     "row-reduction program (tcc-select-strategy)"),
      llvm::cl::init(2048)};
  PassOptions::Option<bool> swizzle{
      *this, "swizzle",
      llvm::cl::desc("swizzle shared-memory operand tiles for the target's "
                     "banks (tcc-swizzle-shared-memory); false only to "
                     "measure bank conflicts"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> numStages{
      *this, "num-stages",
      llvm::cl::desc("slots of each pipelined shared-memory operand buffer "
                     "(tcc-select-strategy's GEMM configs; "
                     "tcc-promote-shared-memory for kernels without a "
                     "config; 1: synchronous staging)"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> dynamicExtent{
      *this, "dynamic-extent",
      llvm::cl::desc("the size a dynamic extent is planned for "
                     "(tcc-select-strategy)"),
      llvm::cl::init(16384)};
  PassOptions::Option<std::string> plans{
      *this, "plans",
      llvm::cl::desc("kernels' plans chosen elsewhere (tcc-select-strategy "
                     "plans: KERNEL=#tile.lowering_config<...> entries "
                     "separated by ';')"),
      llvm::cl::init("")};
};

/// `target=`: as for LowerToTileOptions.
struct TileToGPUOptions : public PassPipelineOptions<TileToGPUOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("target architecture (tcc-set-target); empty: the "
                     "module's tile.target"),
      llvm::cl::init("")};
};

/// Stage "linalg": tcc ops -> linalg on tensors, generalized and fused.
void buildTensorToLinalgPipeline(OpPassManager &pm);
/// Stage "tile": fused linalg kernels -> scheduled tile programs.
void buildLinalgToTilePipeline(OpPassManager &pm,
                               const LowerToTileOptions &options);
/// Stage "gpu": tile programs -> gpu.module / gpu.func on per-thread vectors.
void buildTileToGPUPipeline(OpPassManager &pm, const TileToGPUOptions &options);
/// Both stages: tcc (or linalg on tensors) -> tile programs.
void buildLowerToTilePipeline(OpPassManager &pm,
                              const LowerToTileOptions &options);

void registerTccPipelines();

} // namespace mlir::tcc

#endif // TCC_PIPELINES_PIPELINES_H
