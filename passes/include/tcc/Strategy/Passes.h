//===- Passes.h - tcc strategy selection ------------------------*- C++ -*-===//
#ifndef TCC_STRATEGY_PASSES_H
#define TCC_STRATEGY_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tcc {
#define GEN_PASS_DECL
#include "tcc/Strategy/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tcc/Strategy/Passes.h.inc"
} // namespace mlir::tcc

#endif // TCC_STRATEGY_PASSES_H
