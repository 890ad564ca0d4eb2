//===- Sizes.h - products of static-or-dynamic sizes ------------*- C++ -*-===//
#ifndef TCC_SUPPORT_SIZES_H
#define TCC_SUPPORT_SIZES_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/ArrayRef.h"

namespace mlir::tcc {

/// The product of `sizes`, ShapedType::kDynamic when one of them is.
inline int64_t productOrDynamic(ArrayRef<int64_t> sizes) {
  int64_t product = 1;
  for (int64_t size : sizes) {
    if (ShapedType::isDynamic(size))
      return ShapedType::kDynamic;
    product *= size;
  }
  return product;
}

} // namespace mlir::tcc

#endif // TCC_SUPPORT_SIZES_H
