//===- RegisterAll.h - tcc dialects and passes ------------------*- C++ -*-===//
//
// The one place that says what tcc adds to MLIR. tcc-opt calls these next to
// upstream's registerAll*; the Python extension calls them on the bindings'
// registry (upstream's dialects are already in libMLIRPythonCAPI.so).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_TOOLS_REGISTERALL_H
#define TCC_TOOLS_REGISTERALL_H

namespace mlir {
class DialectRegistry;
namespace tcc {
/// Inserts the tcc (tensor) and tile dialects, and the external models tcc
/// attaches to upstream dialects.
void registerTccDialects(DialectRegistry &registry);
/// Registers every tcc pass and pass pipeline with the global pass registry.
void registerTccPasses();
} // namespace tcc
} // namespace mlir

#endif // TCC_TOOLS_REGISTERALL_H
