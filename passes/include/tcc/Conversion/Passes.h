//===- Passes.h - tcc lowerings ---------------------------------*- C++ -*-===//
#ifndef TCC_CONVERSION_PASSES_H
#define TCC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tcc {
#define GEN_PASS_DECL
#include "tcc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tcc/Conversion/Passes.h.inc"
} // namespace mlir::tcc

#endif // TCC_CONVERSION_PASSES_H
