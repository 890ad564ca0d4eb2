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

struct LowerToTileOptions : public PassPipelineOptions<LowerToTileOptions> {
  PassOptions::Option<unsigned> warpSize{
      *this, "warp-size",
      llvm::cl::desc("threads per warp (32 NVIDIA, 64 AMD CDNA)"),
      llvm::cl::init(32)};
  PassOptions::Option<unsigned> numWarps{
      *this, "num-warps",
      llvm::cl::desc("warps per program of elementwise/reduction kernels"),
      llvm::cl::init(4)};
  PassOptions::Option<std::string> mfmaShape{
      *this, "mfma-shape",
      llvm::cl::desc("AMD GEMM MFMA instruction: auto, 16 or 32 "
                     "(convert-linalg-to-tile)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> elementsPerProgram{
      *this, "elements-per-program",
      llvm::cl::desc("target block size (elements) of one program"),
      llvm::cl::init(2048)};
  PassOptions::Option<std::string> bankModel{
      *this, "bank-model",
      llvm::cl::desc("shared-memory bank model for the swizzle: nvidia, amd, "
                     "or none (no swizzle, for measurements)"),
      llvm::cl::init("nvidia")};
  PassOptions::Option<int64_t> numStages{
      *this, "num-stages",
      llvm::cl::desc("slots of each pipelined shared-memory operand buffer "
                     "(tcc-promote-shared-memory; 1: synchronous staging)"),
      llvm::cl::init(3)};
};

struct TileToGPUOptions : public PassPipelineOptions<TileToGPUOptions> {
  PassOptions::Option<unsigned> warpSize{
      *this, "warp-size",
      llvm::cl::desc("threads per warp (32 NVIDIA, 64 AMD CDNA)"),
      llvm::cl::init(32)};
  PassOptions::Option<bool> expandMath{
      *this, "expand-math",
      llvm::cl::desc("expand math functions into instructions (targets whose "
                     "device math library is not linked: AMD); NVIDIA links "
                     "libdevice, whose fast exp/tanh beat the expansions"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> asyncCopy{
      *this, "async-copy",
      llvm::cl::desc("lower tile.async_copy to cp.async (NVIDIA sm_80+); "
                     "otherwise to loads and shared stores (AMD)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> maxSharedBytes{
      *this, "max-shared-bytes",
      llvm::cl::desc("workgroup memory one kernel may use (dynamic shared "
                     "memory over 48 KiB)"),
      llvm::cl::init(232448)};
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
