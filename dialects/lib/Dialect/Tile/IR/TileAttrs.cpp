//===- TileAttrs.cpp - tile layout encodings ------------------------------===//
#include "tcc/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc::tile;

#include "tcc/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#include "tcc/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileAttrs.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

static unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

static InFlightDiagnostic &printList(InFlightDiagnostic &diag,
                                     ArrayRef<unsigned> values) {
  diag << "[";
  llvm::interleaveComma(values, diag);
  return diag << "]";
}

/// Every entry of `values` is positive.
static LogicalResult verifyPositive(EmitErrorFn emitError, StringRef attr,
                                    StringRef param,
                                    ArrayRef<unsigned> values) {
  if (llvm::is_contained(values, 0u)) {
    InFlightDiagnostic diag = emitError();
    diag << "#tile." << attr << ": " << param << " entries must be positive, got ";
    return printList(diag, values);
  }
  return success();
}

/// `order` is a permutation of [0, rank).
static LogicalResult verifyOrder(EmitErrorFn emitError, StringRef attr,
                                 ArrayRef<unsigned> order) {
  llvm::SmallVector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= order.size() || seen[d]) {
      InFlightDiagnostic diag = emitError();
      diag << "#tile." << attr << ": order ";
      printList(diag, order);
      return diag << " is not a permutation of [0, " << order.size() << ")";
    }
    seen[d] = true;
  }
  return success();
}

/// Warps of an accumulator layout: a 2-D grid of positive counts whose
/// product (the program's warp count) is a power of two.
static LogicalResult verifyWarps(EmitErrorFn emitError, StringRef attr,
                                 ArrayRef<unsigned> warpsPerCTA,
                                 std::optional<size_t> rank) {
  if (rank && warpsPerCTA.size() != *rank) {
    InFlightDiagnostic diag = emitError();
    diag << "#tile." << attr << ": warpsPerCTA must have rank " << *rank
         << ", got ";
    return printList(diag, warpsPerCTA);
  }
  if (failed(verifyPositive(emitError, attr, "warpsPerCTA", warpsPerCTA)))
    return failure();
  if (!llvm::isPowerOf2_32(product(warpsPerCTA))) {
    InFlightDiagnostic diag = emitError();
    diag << "#tile." << attr
         << ": number of warps (product of warpsPerCTA ";
    printList(diag, warpsPerCTA);
    return diag << ") must be a power of two";
  }
  return success();
}

static unsigned rankOf(Attribute layout) {
  return cast<LayoutEncodingAttr>(layout).getRank();
}

SmallVector<unsigned> mlir::tcc::tile::getWarpsPerCTA(Attribute layout) {
  return TypeSwitch<Attribute, SmallVector<unsigned>>(layout)
      .Case<BlockedEncodingAttr, NvidiaMmaEncodingAttr, AMDMfmaEncodingAttr>(
          [](auto attr) { return SmallVector<unsigned>(attr.getWarpsPerCTA()); })
      .Case([](DotOperandEncodingAttr attr) {
        return getWarpsPerCTA(attr.getParent());
      })
      .Case([](SliceEncodingAttr attr) {
        // Warps along the sliced dimension hold replicas.
        SmallVector<unsigned> warps = getWarpsPerCTA(attr.getParent());
        if (attr.getDim() < warps.size())
          warps.erase(warps.begin() + attr.getDim());
        return warps;
      })
      .Default([](Attribute) { return SmallVector<unsigned>(); });
}

LogicalResult mlir::tcc::tile::verifyLayoutRank(Attribute layout,
                                                ArrayRef<int64_t> shape,
                                                EmitErrorFn emitError) {
  unsigned rank = rankOf(layout);
  if (rank != shape.size())
    return emitError() << "rank-" << shape.size()
                       << " tile cannot carry layout " << layout
                       << " of rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

unsigned BlockedEncodingAttr::getRank() const { return getOrder().size(); }

BlockedDistribution mlir::tcc::tile::distributeBlocked(
    ArrayRef<int64_t> shape, ArrayRef<unsigned> sizePerThread,
    ArrayRef<unsigned> order, unsigned warpSize, unsigned numWarps,
    ArrayRef<unsigned> warpsPerCTA) {
  size_t rank = shape.size();
  // What is left of a dim after `per` elements of it per step (a power of
  // two, so that lanes and warps keep dividing the warp and the program).
  auto room = [&](unsigned d, int64_t per) {
    return int64_t(llvm::bit_floor(uint64_t(
        std::max<int64_t>(1, shape[d] / std::max<int64_t>(1, per)))));
  };
  auto spread = [&](unsigned total, auto perStep) {
    SmallVector<unsigned> counts(rank, 1);
    unsigned left = total;
    for (size_t i = 0; i < rank; ++i) {
      unsigned d = order[i];
      unsigned take = i + 1 == rank
                          ? left
                          : unsigned(std::min<int64_t>(left, room(d, perStep(d))));
      counts[d] = take;
      left /= take;
    }
    return counts;
  };
  SmallVector<unsigned> lanes =
      spread(warpSize, [&](unsigned d) { return int64_t(sizePerThread[d]); });
  auto perWarp = [&](unsigned d) {
    return int64_t(sizePerThread[d]) * lanes[d];
  };
  SmallVector<unsigned> warps;
  if (warpsPerCTA.size() == rank &&
      llvm::all_of(llvm::seq<unsigned>(0, rank), [&](unsigned d) {
        return perWarp(d) * warpsPerCTA[d] <= std::max<int64_t>(shape[d], perWarp(d));
      }))
    warps.assign(warpsPerCTA.begin(), warpsPerCTA.end());
  else
    warps = spread(numWarps, perWarp);
  return {lanes, warps};
}

BlockedEncodingAttr mlir::tcc::tile::getDistributedBlocked(
    MLIRContext *ctx, ArrayRef<int64_t> shape, ArrayRef<unsigned> sizePerThread,
    ArrayRef<unsigned> order, unsigned warpSize, unsigned numWarps,
    ArrayRef<unsigned> warpsPerCTA) {
  BlockedDistribution d = distributeBlocked(shape, sizePerThread, order,
                                            warpSize, numWarps, warpsPerCTA);
  return BlockedEncodingAttr::get(ctx, sizePerThread, d.threadsPerWarp,
                                  d.warpsPerCTA, order);
}

SmallVector<int64_t> mlir::tcc::tile::getCoverage(BlockedEncodingAttr layout) {
  SmallVector<int64_t> cover;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    cover.push_back(int64_t(layout.getSizePerThread()[d]) *
                    layout.getThreadsPerWarp()[d] * layout.getWarpsPerCTA()[d]);
  return cover;
}

LogicalResult
BlockedEncodingAttr::verify(EmitErrorFn emitError,
                            ArrayRef<unsigned> sizePerThread,
                            ArrayRef<unsigned> threadsPerWarp,
                            ArrayRef<unsigned> warpsPerCTA,
                            ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "#tile.blocked: rank must be at least 1";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return emitError() << "#tile.blocked: sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order must have the same rank, got "
                       << rank << ", " << threadsPerWarp.size() << ", "
                       << warpsPerCTA.size() << " and " << order.size();
  if (failed(verifyPositive(emitError, "blocked", "sizePerThread",
                            sizePerThread)) ||
      failed(verifyPositive(emitError, "blocked", "threadsPerWarp",
                            threadsPerWarp)) ||
      failed(verifyWarps(emitError, "blocked", warpsPerCTA, std::nullopt)) ||
      failed(verifyOrder(emitError, "blocked", order)))
    return failure();
  // The warp size is the target's: 32 on NVIDIA, 64 on AMD CDNA.
  unsigned warpSize = product(threadsPerWarp);
  if (warpSize != 32 && warpSize != 64) {
    InFlightDiagnostic diag = emitError();
    diag << "#tile.blocked: threadsPerWarp ";
    printList(diag, threadsPerWarp);
    return diag << " has " << warpSize
                << " threads; a warp has 32 (NVIDIA) or 64 (AMD CDNA)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.shared
//===----------------------------------------------------------------------===//

unsigned SharedEncodingAttr::getRank() const { return getOrder().size(); }

LogicalResult SharedEncodingAttr::verify(EmitErrorFn emitError, unsigned vec,
                                         unsigned perPhase, unsigned maxPhase,
                                         ArrayRef<unsigned> order) {
  for (auto [name, value] : {std::pair<StringRef, unsigned>{"vec", vec},
                             {"perPhase", perPhase},
                             {"maxPhase", maxPhase}})
    if (!llvm::isPowerOf2_32(value))
      return emitError() << "#tile.shared: " << name
                         << " must be a power of two, got " << value;
  if (order.empty())
    return emitError() << "#tile.shared: rank (order size) must be at least 1";
  return verifyOrder(emitError, "shared", order);
}

//===----------------------------------------------------------------------===//
// #tile.nvidia_mma
//===----------------------------------------------------------------------===//

unsigned NvidiaMmaEncodingAttr::getRank() const {
  return getWarpsPerCTA().size();
}

LogicalResult NvidiaMmaEncodingAttr::verify(EmitErrorFn emitError,
                                            unsigned version,
                                            ArrayRef<unsigned> warpsPerCTA,
                                            ArrayRef<unsigned> instrShape) {
  if (failed(verifyWarps(emitError, "nvidia_mma", warpsPerCTA, 2)))
    return failure();
  if (version == 2) {
    // mma.sync m16n8k{8,16,32}: the accumulator tile is always 16x8.
    if (instrShape != ArrayRef<unsigned>{16, 8}) {
      InFlightDiagnostic diag = emitError();
      diag << "#tile.nvidia_mma: version 2 (mma.sync) needs instrShape "
              "[16, 8], got ";
      return printList(diag, instrShape);
    }
    return success();
  }
  if (version == 3) {
    // wgmma m64nNkK: a warpgroup of 4 warps along M issues it; K is 256 bits
    // of operands (8 for tf32, 16 for f16/bf16, 32 for 8-bit types).
    if (instrShape.size() != 3 || instrShape[0] != 16 || instrShape[1] == 0 ||
        instrShape[1] % 8 != 0 || instrShape[1] > 256 ||
        !llvm::is_contained({8u, 16u, 32u}, instrShape[2])) {
      InFlightDiagnostic diag = emitError();
      diag << "#tile.nvidia_mma: version 3 (wgmma) needs instrShape "
              "[16, N, K] with N a multiple of 8 in [8, 256] and K in "
              "{8, 16, 32}, got ";
      return printList(diag, instrShape);
    }
    if (warpsPerCTA[0] % 4 != 0)
      return emitError() << "#tile.nvidia_mma: version 3 (wgmma) needs "
                            "warpsPerCTA[0] a multiple of 4 (a warpgroup), got "
                         << warpsPerCTA[0];
    return success();
  }
  return emitError() << "#tile.nvidia_mma: version must be 2 (mma.sync) or 3 "
                        "(wgmma), got "
                     << version;
}

//===----------------------------------------------------------------------===//
// #tile.amd_mfma
//===----------------------------------------------------------------------===//

unsigned AMDMfmaEncodingAttr::getRank() const {
  return getWarpsPerCTA().size();
}

LogicalResult AMDMfmaEncodingAttr::verify(EmitErrorFn emitError,
                                          unsigned version,
                                          ArrayRef<unsigned> warpsPerCTA,
                                          ArrayRef<unsigned> instrShape,
                                          bool isTransposed) {
  if (version != 2 && version != 3)
    return emitError() << "#tile.amd_mfma: version must be 2 (CDNA2, gfx90a) "
                          "or 3 (CDNA3, gfx942), got "
                       << version;
  if (failed(verifyWarps(emitError, "amd_mfma", warpsPerCTA, 2)))
    return failure();
  if (instrShape != ArrayRef<unsigned>{32, 32} &&
      instrShape != ArrayRef<unsigned>{16, 16}) {
    InFlightDiagnostic diag = emitError();
    diag << "#tile.amd_mfma: instrShape must be [32, 32] or [16, 16], got ";
    return printList(diag, instrShape);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.dot_operand
//===----------------------------------------------------------------------===//

unsigned DotOperandEncodingAttr::getRank() const {
  return rankOf(getParent());
}

LogicalResult DotOperandEncodingAttr::verify(EmitErrorFn emitError,
                                             unsigned opIdx, Attribute parent,
                                             unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "#tile.dot_operand: opIdx must be 0 (A) or 1 (B), got "
                       << opIdx;
  if (isa<BlockedEncodingAttr>(parent)) {
    if (kWidth != 0)
      return emitError() << "#tile.dot_operand: kWidth must be 0 for a "
                            "blocked (FMA) parent, got "
                         << kWidth;
    return success();
  }
  if (!isa<NvidiaMmaEncodingAttr, AMDMfmaEncodingAttr>(parent))
    return emitError() << "#tile.dot_operand: parent must be #tile.nvidia_mma, "
                          "#tile.amd_mfma or #tile.blocked, got "
                       << parent;
  if (!llvm::isPowerOf2_32(kWidth))
    return emitError() << "#tile.dot_operand: kWidth must be a positive power "
                          "of two for an MMA parent, got "
                       << kWidth;
  auto mma = dyn_cast<NvidiaMmaEncodingAttr>(parent);
  if (mma && mma.getVersion() == 3 && opIdx != 0)
    return emitError() << "#tile.dot_operand: wgmma (nvidia_mma version 3) "
                          "reads B from shared memory; only opIdx 0 may live "
                          "in registers";
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.slice
//===----------------------------------------------------------------------===//

unsigned SliceEncodingAttr::getRank() const { return rankOf(getParent()) - 1; }

LogicalResult SliceEncodingAttr::verify(EmitErrorFn emitError, unsigned dim,
                                        Attribute parent) {
  if (!isa<DistributedEncodingAttr>(parent))
    return emitError() << "#tile.slice: parent must be a distributed layout "
                          "(blocked, nvidia_mma, amd_mfma, dot_operand, "
                          "slice), got "
                       << parent;
  unsigned parentRank = rankOf(parent);
  if (parentRank < 2)
    return emitError() << "#tile.slice: parent must have rank >= 2, got rank "
                       << parentRank;
  if (dim >= parentRank)
    return emitError() << "#tile.slice: dim " << dim
                       << " is out of range for a parent of rank "
                       << parentRank;
  return success();
}

//===----------------------------------------------------------------------===//
// Registration and aliases
//===----------------------------------------------------------------------===//

namespace {
/// Prints layouts as `#blocked`, `#mma`, ... aliases, as Triton does: tile
/// types repeat them everywhere.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    StringRef name = TypeSwitch<Attribute, StringRef>(attr)
                         .Case([](BlockedEncodingAttr) { return "blocked"; })
                         .Case([](SharedEncodingAttr) { return "shared"; })
                         .Case([](NvidiaMmaEncodingAttr) { return "mma"; })
                         .Case([](AMDMfmaEncodingAttr) { return "mfma"; })
                         .Case([](DotOperandEncodingAttr) { return "dot_op"; })
                         .Case([](SliceEncodingAttr) { return "slice"; })
                         .Default([](Attribute) { return StringRef(); });
    if (name.empty())
      return AliasResult::NoAlias;
    os << name;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tcc/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addInterfaces<TileOpAsmInterface>();
}

//===----------------------------------------------------------------------===//
// #tile.target
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<MmaKind>>
mlir::tcc::tile::parseMmaKinds(AsmParser &parser) {
  SmallVector<MmaKind> kinds;
  auto parseKind = [&]() -> ParseResult {
    FailureOr<MmaKind> kind = FieldParser<MmaKind>::parse(parser);
    if (failed(kind))
      return failure();
    kinds.push_back(*kind);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseKind))
    return failure();
  return kinds;
}

void mlir::tcc::tile::printMmaKinds(AsmPrinter &printer,
                                    ArrayRef<MmaKind> kinds) {
  printer << "[";
  llvm::interleaveComma(kinds, printer, [&](MmaKind kind) {
    printer << stringifyMmaKind(kind);
  });
  printer << "]";
}

static bool isNvidiaMma(MmaKind kind) {
  return kind == MmaKind::mma_sync_m16n8k16 ||
         kind == MmaKind::wgmma_m64nNk16;
}

LogicalResult TargetAttr::verify(EmitErrorFn emitError, StringRef arch,
                                 Vendor vendor, unsigned warpSize,
                                 int64_t maxSharedBytes, BankModel banks,
                                 ArrayRef<MmaKind> mma, bool asyncCopy,
                                 MathLibrary math) {
  bool nvidia = vendor == Vendor::nvidia;
  StringRef vendorName = stringifyVendor(vendor);
  if (arch.empty())
    return emitError() << "#tile.target: arch must not be empty";
  unsigned vendorWarp = nvidia ? 32 : 64;
  if (warpSize != vendorWarp)
    return emitError() << "#tile.target: warp_size must be " << vendorWarp
                       << " for vendor = " << vendorName
                       << (nvidia ? "" : " (CDNA wave64)") << ", got "
                       << warpSize;
  if (maxSharedBytes <= 0)
    return emitError() << "#tile.target: max_shared_bytes must be positive, "
                          "got "
                       << maxSharedBytes;
  if ((banks == BankModel::nvidia) != nvidia)
    return emitError() << "#tile.target: banks = " << stringifyBankModel(banks)
                       << " is not the bank model of vendor = " << vendorName;
  for (auto [i, kind] : llvm::enumerate(mma)) {
    if (isNvidiaMma(kind) != nvidia)
      return emitError() << "#tile.target: mma kind "
                         << stringifyMmaKind(kind)
                         << " is not an instruction of vendor = "
                         << vendorName;
    if (llvm::is_contained(mma.take_front(i), kind))
      return emitError() << "#tile.target: mma kind " << stringifyMmaKind(kind)
                         << " is listed twice";
  }
  if (asyncCopy && !nvidia)
    return emitError() << "#tile.target: async_copy (cp.async) exists for "
                          "vendor = nvidia only";
  if (math == MathLibrary::libdevice && !nvidia)
    return emitError() << "#tile.target: math = libdevice is NVIDIA's device "
                          "library; vendor = "
                       << vendorName << " needs math = expanded";
  return success();
}

//===----------------------------------------------------------------------===//
// #tile.lowering_config
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
mlir::tcc::tile::parseBlockShape(AsmParser &parser) {
  SmallVector<int64_t> shape;
  auto parseSize = [&]() -> ParseResult {
    return parser.parseInteger(shape.emplace_back());
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseSize))
    return failure();
  return shape;
}

void mlir::tcc::tile::printBlockShape(AsmPrinter &printer,
                                      ArrayRef<int64_t> shape) {
  printer << "[";
  llvm::interleaveComma(shape, printer);
  printer << "]";
}

LogicalResult LoweringConfigAttr::verify(EmitErrorFn emitError,
                                         KernelForm form,
                                         ArrayRef<int64_t> block,
                                         unsigned numWarps,
                                         std::optional<unsigned> numStages,
                                         std::optional<MmaKind> mma,
                                         std::optional<RowWalk> walk,
                                         std::optional<ElementwiseView> view,
                                         std::optional<ConsumerSchedule> consumers,
                                         ArrayRef<int64_t> cluster,
                                         std::optional<unsigned> splitK) {
  StringRef name = stringifyKernelForm(form);
  bool matmul = form == KernelForm::matmul || form == KernelForm::fma_matmul;
  size_t rank = matmul ? 3 : 2;
  if (block.size() != rank) {
    InFlightDiagnostic diag = emitError();
    diag << "#tile.lowering_config: form = " << name << " needs a block of "
         << rank << " sizes (" << (matmul ? "[BM, BN, BK]" : "[BM, BN]")
         << "), got [";
    llvm::interleaveComma(block, diag);
    return diag << "]";
  }
  for (int64_t size : block)
    if (size <= 0 || !llvm::isPowerOf2_64(size)) {
      InFlightDiagnostic diag = emitError();
      diag << "#tile.lowering_config: block sizes must be positive powers of "
              "two, got [";
      llvm::interleaveComma(block, diag);
      return diag << "]";
    }
  // wgmma plans count a producer warpgroup besides 1 or 2 consumer ones.
  bool wgmma = mma && *mma == MmaKind::wgmma_m64nNk16;
  if (wgmma && numWarps != 8 && numWarps != 12)
    return emitError() << "#tile.lowering_config: mma = wgmma_m64nNk16 "
                          "needs num_warps 8 or 12 (a producer warpgroup and "
                          "1 or 2 consumer warpgroups), got "
                       << numWarps;
  if (!wgmma &&
      (numWarps == 0 || numWarps > 16 || !llvm::isPowerOf2_32(numWarps)))
    return emitError() << "#tile.lowering_config: num_warps must be a power "
                          "of two from 1 to 16, got "
                       << numWarps;
  bool attention = form == KernelForm::attention;
  if (numStages && !matmul && !attention)
    return emitError() << "#tile.lowering_config: num_stages is for the "
                          "matmul and attention forms, not form = "
                       << name;
  if (numStages && (*numStages < 1 || *numStages > 8))
    return emitError() << "#tile.lowering_config: num_stages must be from 1 "
                          "to 8, got "
                       << *numStages;
  if ((form == KernelForm::matmul || attention) && !mma)
    return emitError() << "#tile.lowering_config: form = " << name
                       << " needs its tensor-core instruction (mma = ...)";
  if (mma && form != KernelForm::matmul && !attention)
    return emitError() << "#tile.lowering_config: mma is for form = matmul "
                          "and form = attention, not form = "
                       << name;
  if (walk && form != KernelForm::row_program && form != KernelForm::softmax)
    return emitError() << "#tile.lowering_config: walk is for form = "
                          "row_program and form = softmax, not form = "
                       << name;
  if (walk == RowWalk::staged && form != KernelForm::softmax)
    return emitError() << "#tile.lowering_config: walk = staged is for form "
                          "= softmax, not form = "
                       << name;
  if (view && form != KernelForm::elementwise)
    return emitError() << "#tile.lowering_config: view is for form = "
                          "elementwise, not form = "
                       << name;
  if (view == ElementwiseView::flat_gather && block[0] != 1)
    return emitError() << "#tile.lowering_config: view = flat_gather streams "
                          "one row of all elements: its block must be [1, "
                          "BN], got ["
                       << block[0] << ", " << block[1] << "]";
  if (consumers && !wgmma)
    return emitError() << "#tile.lowering_config: consumers is for mma = "
                          "wgmma_m64nNk16 plans";
  if (consumers == ConsumerSchedule::pingpong && numWarps != 12)
    return emitError() << "#tile.lowering_config: consumers = pingpong needs "
                          "two consumer warpgroups (num_warps = 12), got "
                          "num_warps = "
                       << numWarps;
  if (!cluster.empty() && !wgmma)
    return emitError() << "#tile.lowering_config: cluster is for mma = "
                          "wgmma_m64nNk16 plans";
  if (!cluster.empty() &&
      (cluster.size() != 2 || !llvm::all_of(cluster, [](int64_t c) {
        return c == 1 || c == 2;
      })))
    return emitError() << "#tile.lowering_config: cluster must be [CM, CN] "
                          "with CM and CN 1 or 2";
  if (!cluster.empty() && consumers == ConsumerSchedule::pingpong &&
      cluster[0] * cluster[1] > 1)
    return emitError() << "#tile.lowering_config: a cluster of more than one "
                          "program runs the cooperative consumer schedule, "
                          "not consumers = pingpong";
  if (splitK && !wgmma)
    return emitError() << "#tile.lowering_config: split_k is for mma = "
                          "wgmma_m64nNk16 plans";
  if (splitK && (*splitK < 1 || *splitK > 16))
    return emitError() << "#tile.lowering_config: split_k must be from 1 to "
                          "16, got "
                       << *splitK;
  if (splitK && *splitK > 1 && consumers == ConsumerSchedule::pingpong)
    return emitError() << "#tile.lowering_config: split_k runs the "
                          "cooperative consumer schedule, not consumers = "
                          "pingpong";
  if (form == KernelForm::transpose && block[0] != block[1])
    return emitError() << "#tile.lowering_config: form = transpose needs a "
                          "square block ([T, T]), got ["
                       << block[0] << ", " << block[1] << "]";
  return success();
}
