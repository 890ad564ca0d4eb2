//===- RegisterPasses.cpp - register every tcc pass -----------------------===//
#include "tcc/Conversion/Passes.h"
#include "tcc/Pipelines/Pipelines.h"
#include "tcc/Strategy/Passes.h"
#include "tcc/Transforms/Passes.h"
#include "RegisterAll.h"

void mlir::tcc::registerTccPasses() {
  registerTccTransformsPasses();
  registerTccConversionPasses();
  registerTccStrategyPasses();
  registerTccPipelines();
}
