//===- OptionChecks.h - pass option validation ------------------*- C++ -*-===//
//
// Every tcc pass checks its options when it starts: a value outside what the
// pass supports is an error on the module naming the pass, the option, the
// allowed values and the value given (never a crash or a silent fallback).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_SUPPORT_OPTIONCHECKS_H
#define TCC_SUPPORT_OPTIONCHECKS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tcc {

/// `value` in [lo, hi] (and a power of two when `powerOfTwo`), else an error
/// on `op`: "<pass>: <option> must be ..., got <value>".
inline LogicalResult checkOptionRange(Operation *op, llvm::StringRef pass,
                                      llvm::StringRef option, int64_t value,
                                      int64_t lo, int64_t hi,
                                      bool powerOfTwo = false) {
  if (value >= lo && value <= hi &&
      (!powerOfTwo || llvm::isPowerOf2_64(static_cast<uint64_t>(value))))
    return success();
  return op->emitError() << pass << ": " << option << " must be "
                         << (powerOfTwo ? "a power of two " : "") << "from "
                         << lo << " to " << hi << ", got " << value;
}

/// `value` one of `allowed`, else an error on `op` listing them.
inline LogicalResult checkOptionChoice(Operation *op, llvm::StringRef pass,
                                       llvm::StringRef option,
                                       llvm::StringRef value,
                                       llvm::ArrayRef<llvm::StringRef> allowed) {
  if (llvm::is_contained(allowed, value))
    return success();
  InFlightDiagnostic diag = op->emitError()
                            << pass << ": " << option << " must be one of ";
  llvm::interleaveComma(allowed, diag);
  return diag << ", got '" << value << "'";
}

} // namespace mlir::tcc

#endif // TCC_SUPPORT_OPTIONCHECKS_H
