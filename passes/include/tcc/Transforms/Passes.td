//===- Passes.td - tcc same-level rewrites -----------------*- tablegen -*-===//
//
// Rewrites that stay within a level: scheduling, shared-memory promotion,
// swizzling, MMA mapping, ... One pass per file in passes/lib/Transforms/.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_TRANSFORMS_PASSES_TD
#define TCC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // TCC_TRANSFORMS_PASSES_TD
