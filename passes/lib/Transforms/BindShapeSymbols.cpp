//===- BindShapeSymbols.cpp - tcc-bind-shape-symbols pass -----------------===//
//
// Names every dynamic size of a program (after tcc-form-kernels) by the
// program-argument size it equals, so that the host computes each kernel's
// grid, each temporary's buffer and each result's shape from the arguments'
// shapes, and checks that sizes the program needs equal are equal.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "tcc/Dialect/Tcc/IR/TccDialect.h"
#include "tcc/Dialect/Tcc/IR/TccOps.h"
#include "tcc/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCBINDSHAPESYMBOLS
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

constexpr StringLiteral kShapeSymbolsAttr = "tcc.shape_symbols";
constexpr StringLiteral kSizeRelationsAttr = "tcc.size_relations";

bool isDynamicTensor(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && !ranked.hasStaticShape();
}

/// A size as the product of classes and a constant (the rows of x viewed
/// as (B * S, D) are x's dims 0 and 1).
struct Product {
  SmallVector<unsigned> factors;
  int64_t constant = 1;
};

/// Union-find over the dims of a function's tensor values: (value, dim) is
/// one element; a class holds dims the program requires equal, and the
/// products of other classes it equals.
class DimClasses {
public:
  unsigned element(Value value, unsigned dim) {
    auto key = std::make_pair(value.getAsOpaquePointer(), dim);
    auto [it, inserted] = ids.try_emplace(key, parent.size());
    if (inserted) {
      parent.push_back(parent.size());
      int64_t size = cast<RankedTensorType>(value.getType()).getDimSize(dim);
      staticSize.push_back(ShapedType::isDynamic(size) ? std::nullopt
                                                       : std::optional(size));
      products.emplace_back();
    }
    return it->second;
  }
  unsigned find(unsigned x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  /// Joins two classes; false when they hold different static sizes.
  bool unite(unsigned x, unsigned y) {
    x = find(x);
    y = find(y);
    if (x == y)
      return true;
    if (staticSize[x] && staticSize[y] && *staticSize[x] != *staticSize[y])
      return false;
    if (!staticSize[x])
      staticSize[x] = staticSize[y];
    parent[y] = x;
    llvm::append_range(products[x], products[y]);
    products[y].clear();
    return true;
  }
  std::optional<int64_t> sizeOf(unsigned x) { return staticSize[find(x)]; }
  /// Class `x` has static size `size` (it had none, or that one).
  void pin(unsigned x, int64_t size) { staticSize[find(x)] = size; }
  /// Records that class `x` equals `product`.
  void addProduct(unsigned x, Product product) {
    products[find(x)].push_back(std::move(product));
  }
  /// The products class root `x` equals (factors not yet found).
  ArrayRef<Product> productsOf(unsigned root) { return products[root]; }
  unsigned size() const { return parent.size(); }

private:
  DenseMap<std::pair<const void *, unsigned>, unsigned> ids;
  SmallVector<unsigned> parent;
  SmallVector<std::optional<int64_t>> staticSize;
  SmallVector<SmallVector<Product>> products;
};

/// The classes of one function: its ops' constraints, with `launches`
/// resolved through the classes of the kernels they call.
class FunctionDims {
public:
  explicit FunctionDims(func::FuncOp func) : func(func) {}

  /// Every arguments' and results' dims, in order (args, then results).
  SmallVector<SmallVector<unsigned>> signature() {
    SmallVector<SmallVector<unsigned>> sig;
    for (Value arg : func.getArguments())
      sig.push_back(dimsOf(arg));
    for (Value result : returned())
      sig.push_back(dimsOf(result));
    return sig;
  }

  SmallVector<unsigned> dimsOf(Value value) {
    SmallVector<unsigned> dims;
    if (auto type = dyn_cast<RankedTensorType>(value.getType()))
      for (unsigned d = 0; d < type.getRank(); ++d)
        dims.push_back(classes.element(value, d));
    return dims;
  }

  ValueRange returned() {
    return cast<func::ReturnOp>(func.getBody().front().getTerminator())
        .getOperands();
  }

  LogicalResult
  collect(llvm::function_ref<FunctionDims *(tcc::LaunchOp)> callee) {
    for (Operation &op : func.getBody().front())
      if (failed(visit(&op, callee)))
        return failure();
    return success();
  }

  DimClasses classes;
  bool failedToCollect = false; // its own diagnostic is out

private:
  LogicalResult unite(Operation *op, unsigned x, unsigned y) {
    if (classes.unite(x, y))
      return success();
    return op->emitOpError("needs sizes ")
           << *classes.sizeOf(x) << " and " << *classes.sizeOf(y)
           << " to be equal";
  }
  LogicalResult uniteAll(Operation *op, Value a, Value b) {
    for (auto [x, y] : llvm::zip_equal(dimsOf(a), dimsOf(b)))
      if (failed(unite(op, x, y)))
        return failure();
    return success();
  }

  /// Class `x` equals `product`: one factor is the class itself, none a
  /// static size, more a product the names are derived by.
  LogicalResult relate(Operation *op, unsigned x, Product product) {
    if (product.constant == 1 && product.factors.size() == 1)
      return unite(op, x, product.factors.front());
    if (product.factors.empty()) {
      std::optional<int64_t> size = classes.sizeOf(x);
      if (size && *size != product.constant)
        return op->emitOpError("needs sizes ")
               << *size << " and " << product.constant << " to be equal";
      classes.pin(x, product.constant);
      return success();
    }
    classes.addProduct(x, std::move(product));
    return success();
  }

  /// The product of dims an index value computes (`tensor.dim`, constants,
  /// `arith.muli`, an `affine.apply` of products), or nullopt.
  std::optional<Product> productOf(Value size, unsigned depth = 0) {
    if (depth > 32)
      return std::nullopt;
    Product p;
    if (std::optional<int64_t> c = getConstantIntValue(size)) {
      p.constant = *c;
      return p;
    }
    auto mul = [](std::optional<Product> a, std::optional<Product> b)
        -> std::optional<Product> {
      if (!a || !b)
        return std::nullopt;
      a->constant *= b->constant;
      llvm::append_range(a->factors, b->factors);
      return a;
    };
    Operation *def = size.getDefiningOp();
    if (auto dimOp = dyn_cast_or_null<tensor::DimOp>(def)) {
      std::optional<int64_t> index = dimOp.getConstantIndex();
      auto type = cast<RankedTensorType>(dimOp.getSource().getType());
      if (!index || *index < 0 || *index >= type.getRank())
        return std::nullopt;
      if (!type.isDynamicDim(*index))
        p.constant = type.getDimSize(*index);
      else
        p.factors.push_back(classes.element(dimOp.getSource(), *index));
      return p;
    }
    if (auto muli = dyn_cast_or_null<arith::MulIOp>(def))
      return mul(productOf(muli.getLhs(), depth + 1),
                 productOf(muli.getRhs(), depth + 1));
    auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def);
    if (!apply)
      return std::nullopt;
    AffineMap map = apply.getAffineMap();
    std::function<std::optional<Product>(AffineExpr)> eval =
        [&](AffineExpr expr) -> std::optional<Product> {
      if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
        Product q;
        q.constant = c.getValue();
        return q;
      }
      if (auto d = dyn_cast<AffineDimExpr>(expr))
        return productOf(apply.getMapOperands()[d.getPosition()], depth + 1);
      if (auto sym = dyn_cast<AffineSymbolExpr>(expr))
        return productOf(
            apply.getMapOperands()[map.getNumDims() + sym.getPosition()],
            depth + 1);
      auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
      if (!bin || bin.getKind() != AffineExprKind::Mul)
        return std::nullopt;
      return mul(eval(bin.getLHS()), eval(bin.getRHS()));
    };
    return eval(map.getResult(0));
  }

  /// A reshape's dims: each collapsed dim is the product of its group's
  /// dims (the same dim when the group's other dims are 1).
  LogicalResult reshape(Operation *op, Value collapsed, Value expanded,
                        ArrayRef<ReassociationIndices> groups) {
    auto expandedType = cast<RankedTensorType>(expanded.getType());
    for (auto [g, group] : llvm::enumerate(groups)) {
      Product product;
      for (int64_t d : group) {
        if (expandedType.isDynamicDim(d))
          product.factors.push_back(classes.element(expanded, d));
        else
          product.constant *= expandedType.getDimSize(d);
      }
      if (failed(relate(op, classes.element(collapsed, g), product)))
        return failure();
    }
    return success();
  }

  LogicalResult visit(Operation *op,
                      llvm::function_ref<FunctionDims *(tcc::LaunchOp)> callee) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureTensorSemantics())
        return success();
      // Dims read over one loop are one size.
      DenseMap<unsigned, unsigned> loops;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
        for (auto [r, expr] : llvm::enumerate(map.getResults())) {
          auto dim = dyn_cast<AffineDimExpr>(expr);
          if (!dim)
            continue;
          unsigned element = classes.element(operand.get(), r);
          auto [it, inserted] = loops.try_emplace(dim.getPosition(), element);
          if (!inserted && failed(unite(op, it->second, element)))
            return failure();
        }
      }
      for (auto [result, init] :
           llvm::zip_equal(op->getResults(), linalgOp.getDpsInits()))
        if (failed(uniteAll(op, result, init)))
          return failure();
      return success();
    }
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      if (failed(uniteAll(op, softmax.getInput(), softmax.getOutput())))
        return failure();
      return uniteAll(op, softmax.getResult()[0], softmax.getOutput());
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      auto type = empty.getType();
      for (unsigned d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        Value size = empty.getDynamicSize(d);
        if (auto dimOp = size.getDefiningOp<tensor::DimOp>()) {
          std::optional<int64_t> index = dimOp.getConstantIndex();
          int64_t rank = dimOp.getSource().getType().getRank();
          if (index && (*index < 0 || *index >= rank))
            return dimOp.emitOpError()
                   << "index " << *index << " is out of range for a rank-"
                   << rank << " tensor";
        }
        std::optional<Product> product = productOf(size);
        if (!product)
          return op->emitOpError()
                 << "has dynamic size #" << d
                 << " that is no product of the arguments' sizes (tensor.dim, "
                    "constants, arith.muli, affine.apply); tcc computes buffer "
                    "sizes from the arguments' sizes only";
        if (failed(relate(op, classes.element(empty.getResult(), d),
                          *product)))
          return failure();
      }
      return success();
    }
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      return reshape(op, collapse.getResult(), collapse.getSrc(),
                     collapse.getReassociationIndices());
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      // Its dynamic sizes are given (output_shape): products of dims too.
      for (auto [d, size] : llvm::enumerate(expand.getMixedOutputShape()))
        if (auto value = dyn_cast<Value>(size))
          if (std::optional<Product> product = productOf(value))
            if (failed(relate(op, classes.element(expand.getResult(), d),
                              *product)))
              return failure();
      return reshape(op, expand.getSrc(), expand.getResult(),
                     expand.getReassociationIndices());
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op))
      return uniteAll(op, cast.getSource(), cast.getResult());
    if (auto launch = dyn_cast<tcc::LaunchOp>(op)) {
      FunctionDims *kernel = callee(launch);
      if (!kernel)
        return op->emitOpError("calls no kernel function");
      if (kernel->failedToCollect)
        return failure();
      // Dims the kernel relates are related here.
      SmallVector<SmallVector<unsigned>> inner = kernel->signature();
      SmallVector<Value> outer(launch.getInputs());
      llvm::append_range(outer, launch.getResults());
      DenseMap<unsigned, unsigned> seen; // kernel class -> element here
      for (auto [innerDims, value] : llvm::zip_equal(inner, outer)) {
        for (auto [d, innerDim] : llvm::enumerate(innerDims)) {
          unsigned element = classes.element(value, d);
          unsigned root = kernel->classes.find(innerDim);
          auto [it, inserted] = seen.try_emplace(root, element);
          if (!inserted && failed(unite(op, it->second, element)))
            return failure();
          if (std::optional<int64_t> size = kernel->classes.sizeOf(root))
            if (classes.sizeOf(element) != size)
              return op->emitOpError("needs a dynamic size to be ") << *size;
        }
      }
      // Products the kernel found among its arguments' dims hold here.
      for (auto [root, element] : seen)
        for (const Product &inner : kernel->classes.productsOf(root)) {
          Product outer{{}, inner.constant};
          for (unsigned factor : inner.factors) {
            auto it = seen.find(kernel->classes.find(factor));
            if (it == seen.end())
              break;
            outer.factors.push_back(it->second);
          }
          if (outer.factors.size() == inner.factors.size() &&
              failed(relate(op, element, outer)))
            return failure();
        }
      return success();
    }
    if (isa<tensor::DimOp, func::ReturnOp>(op) ||
        (llvm::none_of(op->getOperandTypes(), isDynamicTensor) &&
         llvm::none_of(op->getResultTypes(), isDynamicTensor)))
      return success();
    return op->emitOpError("has dynamic shapes that tcc cannot relate to the "
                           "program arguments' sizes");
  }

  func::FuncOp func;
};

/// The attribute of `dims`: each dim's static size or its symbol.
Attribute symbolsOf(Builder &b, DimClasses &classes,
                    ArrayRef<SmallVector<unsigned>> values,
                    DenseMap<unsigned, std::string> &names) {
  SmallVector<Attribute> entries;
  for (ArrayRef<unsigned> dims : values) {
    SmallVector<Attribute> entry;
    for (unsigned d : dims) {
      if (std::optional<int64_t> size = classes.sizeOf(d)) {
        entry.push_back(b.getI64IntegerAttr(*size));
        continue;
      }
      auto it = names.find(classes.find(d));
      entry.push_back(b.getStringAttr(it == names.end() ? "?" : it->second));
    }
    entries.push_back(b.getArrayAttr(entry));
  }
  return b.getArrayAttr(entries);
}

/// `tcc.loop_sizes` on each linalg op (and softmax) of `func` with a
/// dynamic loop: each loop's static size or symbol, `sizeOf` giving the
/// entry of a dim's class in `dims`.
void annotateLoops(func::FuncOp func, FunctionDims &dims,
                   llvm::function_ref<Attribute(unsigned)> sizeOf) {
  Builder b(func.getContext());
  func.walk([&](Operation *op) {
    SmallVector<Attribute> loops;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureTensorSemantics())
        return;
      loops.assign(linalgOp.getNumLoops(), Attribute());
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
        for (auto [r, expr] : llvm::enumerate(map.getResults()))
          if (auto dim = dyn_cast<AffineDimExpr>(expr))
            if (!loops[dim.getPosition()])
              loops[dim.getPosition()] =
                  sizeOf(dims.classes.element(operand.get(), r));
      }
    } else if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      for (unsigned d :
           dims.dimsOf(softmax.getInput()))
        loops.push_back(sizeOf(d));
    } else {
      return;
    }
    if (llvm::all_of(loops, [](Attribute a) {
          return a && isa<IntegerAttr>(a);
        }))
      return;
    for (Attribute &a : loops)
      if (!a)
        a = b.getStringAttr("?");
    op->setAttr("tcc.loop_sizes", b.getArrayAttr(loops));
  });
}

struct TccBindShapeSymbolsPass
    : public tcc::impl::TccBindShapeSymbolsBase<TccBindShapeSymbolsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> programs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func->hasAttr("tcc.kernel") && !func.isExternal())
        programs.push_back(func);
    for (func::FuncOp program : programs)
      if (failed(bind(program, symbols)))
        return signalPassFailure();
  }

  LogicalResult bind(func::FuncOp program, SymbolTable &symbols) {
    // Only programs with a dynamic size anywhere (their kernels' types
    // follow the host's) are named.
    bool dynamic = false;
    program.walk([&](Operation *op) {
      dynamic |= llvm::any_of(op->getResultTypes(), isDynamicTensor);
    });
    dynamic |= llvm::any_of(program.getArgumentTypes(), isDynamicTensor);
    if (!dynamic)
      return success();

    std::map<std::string, std::unique_ptr<FunctionDims>> kernels;
    auto callee = [&](tcc::LaunchOp launch) -> FunctionDims * {
      auto kernel = symbols.lookup<func::FuncOp>(
          launch.getCallee().getRootReference());
      if (!kernel || kernel.isExternal())
        return nullptr;
      std::string name = kernel.getSymName().str();
      auto it = kernels.find(name);
      if (it != kernels.end())
        return it->second.get();
      auto dims = std::make_unique<FunctionDims>(kernel);
      dims->failedToCollect =
          failed(dims->collect([](tcc::LaunchOp) { return nullptr; }));
      return (kernels[name] = std::move(dims)).get();
    };
    FunctionDims host(program);
    if (failed(host.collect(callee)))
      return failure();

    // Symbols in order of first appearance among the arguments' dims: the
    // program's own names where it gives them (tcc.arg_symbols, the
    // frontend's size symbols), else s0, s1, ...
    DenseMap<unsigned, std::string> names;
    llvm::StringSet<> used;
    auto given = program->getAttrOfType<ArrayAttr>("tcc.arg_symbols");
    for (auto [i, arg] : llvm::enumerate(program.getArguments()))
      for (auto [axis, d] : llvm::enumerate(host.dimsOf(arg))) {
        unsigned root = host.classes.find(d);
        if (host.classes.sizeOf(d) || names.count(root))
          continue;
        std::string name;
        if (given && i < given.size())
          if (auto dims = dyn_cast<ArrayAttr>(given[i]))
            if (axis < dims.size())
              if (auto s = dyn_cast<StringAttr>(dims[axis]))
                name = s.getValue().str();
        // A name the program gives to dims the ops do not tie is still one
        // size (the program says so): those classes share the symbol, and
        // the runtime checks them equal. Generated names avoid given ones.
        if (name.empty())
          for (unsigned k = names.size(); name.empty() || used.contains(name); ++k)
            name = "s" + std::to_string(k);
        used.insert(name);
        names[root] = name;
      }
    // Classes no argument names that are products of named ones (the rows
    // of x viewed as (B * S, D)) are named by them: `B_S`, defined on the
    // program as `["B_S", "B * S"]` in tcc.size_relations, which the host
    // evaluates after binding the arguments' sizes. A product of a named
    // class becomes a check (`["M", "B * S"]`); a named class with one
    // factor left unnamed defines it by division (`["s1", "M // 4"]`).
    Builder b(program.getContext());
    SmallVector<Attribute> relations;
    auto nameOf = [&](unsigned root) -> std::optional<std::string> {
      if (std::optional<int64_t> size = host.classes.sizeOf(root))
        return std::to_string(*size);
      auto it = names.find(root);
      if (it == names.end())
        return std::nullopt;
      return it->second;
    };
    auto fresh = [&](std::string base) {
      if (base.empty() || !(std::isalpha(base[0]) || base[0] == '_'))
        base = "s" + base;
      std::string name = base;
      for (unsigned k = 2; used.contains(name); ++k)
        name = base + "_" + std::to_string(k);
      used.insert(name);
      return name;
    };
    auto relation = [&](Attribute lhs, const std::string &expr) {
      Attribute entry = b.getArrayAttr({lhs, b.getStringAttr(expr)});
      if (!llvm::is_contained(relations, entry))
        relations.push_back(entry);
    };
    DenseSet<std::pair<unsigned, unsigned>> related; // (root, product index)
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned x = 0; x < host.classes.size(); ++x) {
        if (host.classes.find(x) != x)
          continue;
        for (auto [i, product] :
             llvm::enumerate(host.classes.productsOf(x))) {
          if (related.contains({x, i}))
            continue;
          SmallVector<std::string> factorNames;
          SmallVector<unsigned> missing;
          int64_t constant = product.constant;
          for (unsigned factor : product.factors) {
            unsigned root = host.classes.find(factor);
            if (std::optional<int64_t> size = host.classes.sizeOf(root))
              constant *= *size;
            else if (std::optional<std::string> name = nameOf(root))
              factorNames.push_back(*name);
            else
              missing.push_back(root);
          }
          std::string expr = llvm::join(factorNames, " * ");
          if (constant != 1 || expr.empty())
            expr += (expr.empty() ? "" : " * ") + std::to_string(constant);
          std::optional<std::string> lhs = nameOf(x);
          if (missing.empty()) {
            if (!lhs) {
              std::string name = fresh(
                  llvm::join(factorNames, "_") +
                  (constant != 1 ? "_" + std::to_string(constant) : ""));
              names[x] = name;
              relation(b.getStringAttr(name), expr);
            } else if (std::optional<int64_t> size = host.classes.sizeOf(x)) {
              relation(b.getI64IntegerAttr(*size), expr);
            } else {
              relation(b.getStringAttr(*lhs), expr);
            }
          } else if (lhs && missing.size() == 1) {
            std::string name = fresh("s" + std::to_string(names.size()));
            names[missing.front()] = name;
            bool single = !StringRef(expr).contains(' ');
            relation(b.getStringAttr(name),
                     expr == "1" ? *lhs
                     : single    ? *lhs + " // " + expr
                                 : *lhs + " // (" + expr + ")");
            changed = true;
            continue; // the product is checked once all are named
          } else {
            continue;
          }
          related.insert({x, i});
          changed = true;
        }
      }
    }
    auto unnamed = [&](Value value) -> bool {
      for (unsigned d : host.dimsOf(value))
        if (!host.classes.sizeOf(d) && !names.count(host.classes.find(d)))
          return true;
      return false;
    };
    // Every value the host allocates must have a size the arguments give.
    for (Value result : host.returned())
      if (unnamed(result))
        return program.emitOpError()
               << "returns a value whose dynamic size equals no argument's "
                  "size; tcc allocates results from the arguments' sizes";
    WalkResult walk = program.walk([&](tcc::LaunchOp launch) {
      for (Value value : launch->getOperands())
        if (unnamed(value)) {
          launch.emitOpError()
              << "reads a value whose dynamic size equals no argument's size "
                 "(a reshape's product?); tcc sizes a kernel's arguments "
                 "from the program arguments' sizes";
          return WalkResult::interrupt();
        }
      for (Value result : launch.getResults())
        if (unnamed(result)) {
          launch.emitOpError()
              << "yields a value whose dynamic size equals no argument's "
                 "size; tcc allocates buffers from the arguments' sizes";
          return WalkResult::interrupt();
        }
      SmallVector<SmallVector<unsigned>> sides;
      for (Value input : launch.getInputs())
        sides.push_back(host.dimsOf(input));
      for (Value result : launch.getResults())
        sides.push_back(host.dimsOf(result));
      Attribute kernelSymbols = symbolsOf(b, host.classes, sides, names);
      if (auto kernel = symbols.lookup<func::FuncOp>(
              launch.getCallee().getRootReference())) {
        kernel->setAttr(kShapeSymbolsAttr, kernelSymbols);
        // The kernel's classes in the host's symbols, through its
        // arguments and results.
        FunctionDims *inner = kernels[kernel.getSymName().str()].get();
        DenseMap<unsigned, Attribute> entry;
        auto flat = cast<ArrayAttr>(kernelSymbols);
        for (auto [innerDims, outer] :
             llvm::zip_equal(inner->signature(), flat.getValue()))
          for (auto [d, a] : llvm::zip_equal(
                   innerDims, cast<ArrayAttr>(outer).getValue()))
            entry.try_emplace(inner->classes.find(d), a);
        annotateLoops(kernel, *inner, [&](unsigned d) {
          if (std::optional<int64_t> size = inner->classes.sizeOf(d))
            return Attribute(b.getI64IntegerAttr(*size));
          return entry.lookup(inner->classes.find(d));
        });
      }
      SmallVector<SmallVector<unsigned>> results;
      for (Value result : launch.getResults())
        results.push_back(host.dimsOf(result));
      launch->setAttr(kShapeSymbolsAttr,
                      symbolsOf(b, host.classes, results, names));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    // The host's views: the runtime shapes them.
    WalkResult views = program.walk([&](Operation *op) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op) ||
          !isDynamicTensor(op->getResult(0).getType()))
        return WalkResult::advance();
      if (unnamed(op->getResult(0))) {
        op->emitOpError()
            << "has a dynamic size that is no product of the arguments' "
               "sizes; tcc shapes a view from the arguments' sizes";
        return WalkResult::interrupt();
      }
      op->setAttr(kShapeSymbolsAttr,
                  symbolsOf(b, host.classes, {host.dimsOf(op->getResult(0))},
                            names));
      return WalkResult::advance();
    });
    if (views.wasInterrupted())
      return failure();
    program->setAttr(kShapeSymbolsAttr,
                     symbolsOf(b, host.classes, host.signature(), names));
    if (!relations.empty())
      program->setAttr(kSizeRelationsAttr, b.getArrayAttr(relations));
    if (!program->hasAttr("tcc.host"))
      annotateLoops(program, host, [&](unsigned d) -> Attribute {
        if (std::optional<int64_t> size = host.classes.sizeOf(d))
          return b.getI64IntegerAttr(*size);
        auto it = names.find(host.classes.find(d));
        return it == names.end() ? Attribute() : b.getStringAttr(it->second);
      });
    return success();
  }
};

} // namespace
