//===- Passes.td - tcc lowerings ---------------------------*- tablegen -*-===//
//
// Lowerings between levels, named convert-<src>-to-<dst>; patterns live in
// passes/lib/Conversion/<Src>To<Dst>/, split by op family.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_CONVERSION_PASSES_TD
#define TCC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // TCC_CONVERSION_PASSES_TD
