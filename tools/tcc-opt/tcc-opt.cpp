//===- tcc-opt.cpp - mlir-opt with tcc's dialects and passes --------------===//
//
// An mlir-opt with tcc's dialects and passes registered, plus one difference:
// an assertion or a fatal error inside MLIR/LLVM ends tcc-opt with an error
// message and exit status 1, not an abort. Upstream MLIR 22 asserts on some
// malformed inputs in its parser (docs/reliability.md lists those the fuzzer
// found: a dense array of `index`, a negative reassociation index, the
// parser's error recovery destroying ops that still have uses); mlir-opt
// aborts on them with a core dump and a stack trace. Nothing can be resumed
// after such a failure (the context is half-built), so the handlers print and
// exit at once. Signals (a segfault, `llvm_unreachable`) keep LLVM's stack
// trace: those are bugs with no message to give.
//
//===----------------------------------------------------------------------===//
#include <cassert>
#include <cstdlib>

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include "RegisterAll.h"

namespace {
// The input file, for the message (the command line's, once parsed).
std::string inputName = "<stdin>";

[[noreturn]] void stopOnInternalError(const llvm::Twine &what) {
  llvm::errs() << inputName
               << ": error: tcc-opt stopped on an internal error of MLIR/LLVM: "
               << what
               << "\nnote: the output is incomplete (an -o file is removed); a "
                  "malformed input can trigger this (an upstream bug), so check "
                  "the input around the construct named above\n";
  llvm::errs().flush();
  // What LLVM's own fatal-error path does: remove the files registered for
  // removal on a crash (the -o output file).
  llvm::sys::RunInterruptHandlers();
  std::_Exit(1);
}

void onFatalError(void *, const char *reason, bool) {
  stopOnInternalError(llvm::Twine("fatal error: ") + reason);
}
} // namespace

// Every `assert` of libMLIR.so and libLLVM.so calls glibc's __assert_fail
// through the PLT; the executable's definition comes first in symbol lookup.
extern "C" [[noreturn]] void __assert_fail(const char *assertion,
                                           const char *file, unsigned line,
                                           const char *function) noexcept {
  stopOnInternalError(llvm::Twine("assertion '") + assertion + "' failed in " +
                      function + " (" + file + ":" + llvm::Twine(line) + ")");
}

int main(int argc, char **argv) {
  // (MlirOptMain initializes LLVM: stack traces on signals.)
  llvm::install_fatal_error_handler(onFatalError, nullptr);
  mlir::registerAllPasses();
  mlir::tcc::registerTccPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::tcc::registerTccDialects(registry);

  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tcc optimizer driver: tcc + upstream MLIR\n", registry);
  inputName = input == "-" ? "<stdin>" : input;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
