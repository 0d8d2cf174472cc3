//===- FusionUtils.cpp - Building and reshaping solder.fusion ops ---------===//

#include "solder/Dialect/Solder/Transforms/FusionUtils.h"

#include "solder/Analysis/RegionLaunch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::solder;

FusionRole mlir::solder::getFusionRole(Operation *op) {
  if (isRowConv(op))
    return FusionRole::rows;
  if (isa<ConvOp, ConvTransposeOp>(op))
    return FusionRole::anchor;
  if (isa<ReduceOp, GroupStatsOp>(op))
    return FusionRole::reduction;
  if (isa<PoolOp, AdaptivePoolOp>(op))
    return FusionRole::window;
  if (isa<arith::ConstantOp>(op))
    return FusionRole::constant;
  if (isa<GroupNormalizeOp, AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp,
          PowOp>(op) ||
      (op->getDialect() && isa<SolderDialect>(op->getDialect()) &&
       op->hasTrait<OpTrait::Elementwise>()))
    return FusionRole::pointwise;
  return FusionRole::opaque;
}

bool mlir::solder::isRowConv(Operation *op) {
  auto conv = dyn_cast<ConvOp>(op);
  if (!conv || conv.getGroups() != 1)
    return false;
  RankedTensorType input = conv.getInput().getType(), weight = conv.getWeight().getType();
  auto isOne = [](int64_t extent) { return extent == 1; };
  if (input.getRank() < 3 || !llvm::all_of(input.getShape().drop_front(2), isOne) ||
      !llvm::all_of(weight.getShape().drop_front(2), isOne) ||
      !conv.isUnpadded())
    return false;
  int64_t rows = input.getDimSize(0), in = weight.getDimSize(1), out = weight.getDimSize(0);
  return in <= kMaxRowWidth && out <= kMaxRowWidth && rows * in * out <= kMaxRowTraffic;
}

bool mlir::solder::isRowRegion(FusionOp fusion) {
  return !fusion.getBodyBlock().getOps<ConvOp>().empty() &&
         llvm::all_of(fusion.getBodyBlock().without_terminator(), [](Operation &op) {
           FusionRole role = getFusionRole(&op);
           return role == FusionRole::rows || role == FusionRole::pointwise ||
                  role == FusionRole::constant;
         });
}

int64_t mlir::solder::getRowSharedFloats(ArrayRef<Operation *> ops) {
  auto width = [](Value value) { return cast<RankedTensorType>(value.getType()).getDimSize(1); };
  int64_t floats = 0;
  for (Operation *op : ops) {
    if (isa<arith::ConstantOp>(op))
      continue;
    floats += width(op->getResult(0));
    Operation *producer = op->getOperand(0).getDefiningOp();
    if (isa<ConvOp>(op) && !llvm::is_contained(ops, producer))
      floats += width(op->getOperand(0));
  }
  return floats;
}

int64_t ReduceApplyRow::getLength() const {
  return ShapedType::getNumElements(ArrayRef(shape).drop_front(firstReducedDim));
}

int64_t ReduceApplyRow::getRows() const {
  return ShapedType::getNumElements(ArrayRef(shape).take_front(firstReducedDim));
}

std::optional<ReduceApplyRow> mlir::solder::getReduceApplyRow(Operation *op) {
  auto reduce = dyn_cast<ReduceOp>(op);
  if (!reduce || !reduce.getKeepdim() || reduce.getDims().empty())
    return std::nullopt;
  RankedTensorType type = reduce.getX().getType();
  int64_t rank = type.getRank(), first = rank - reduce.getDims().size();
  if (!llvm::equal(reduce.getDims(), llvm::seq<int64_t>(first, rank)))
    return std::nullopt;
  ReduceApplyRow row{llvm::to_vector(type.getShape()), first};
  if (row.getLength() > kMaxReduceApplyLength || row.getRows() == 0)
    return std::nullopt;
  return row;
}

bool mlir::solder::poolsRowWindows(PoolOp pool, const ReduceApplyRow &row) {
  ArrayRef<int64_t> shape = pool.getX().getType().getShape();
  const int64_t rank = static_cast<int64_t>(shape.size()), spatial = rank - 2;
  if (spatial < 1 || shape != ArrayRef(row.shape) || row.firstReducedDim != rank - 1 ||
      pool.getCeilMode())
    return false;
  int64_t windowRows = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    const int64_t kernel = pool.getKernel()[d];
    if (pool.getStrides()[d] != kernel || pool.getPadding()[d] != 0 ||
        pool.getDilations()[d] != 1 || shape[2 + d] % kernel != 0)
      return false;
    if (d < spatial - 1)
      windowRows *= kernel;
  }
  const int64_t lanes = getReduceApplyLanes(row.getRows(), row.getLength());
  const int64_t columns = pool.getKernel().back();
  // A lane keeps a window of the warp: at most 32 windows a warp, so no
  // more walk steps (elements a lane) than a window has elements.
  return columns * windowRows > 1 && row.getLength() % lanes == 0 && lanes % columns == 0 &&
         (32 / lanes) % windowRows == 0 && row.getLength() / lanes <= columns * windowRows;
}

bool mlir::solder::fitsReduceApplyRow(ArrayRef<Operation *> ops, const ReduceApplyRow &row) {
  PoolOp pool;
  for (Operation *op : ops) {
    if (getFusionRole(op) != FusionRole::window)
      continue;
    auto candidate = dyn_cast<PoolOp>(op);
    if (pool || !candidate || !poolsRowWindows(candidate, row))
      return false;
    pool = candidate;
  }
  std::optional<DenseSet<Value>> pooled = getPooledValues(ops, pool);
  if (!pooled)
    return false;
  auto broadcastsToRow = [&](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return tensor.getRank() == static_cast<int64_t>(row.shape.size()) &&
           llvm::all_of(llvm::zip(tensor.getShape(), row.shape), [](auto pair) {
             return std::get<0>(pair) == std::get<1>(pair) || std::get<0>(pair) == 1;
           });
  };
  return llvm::all_of(ops, [&](Operation *op) {
    switch (getFusionRole(op)) {
    case FusionRole::constant:
      return true;
    case FusionRole::pointwise:
      return pooled->contains(op->getResult(0)) || broadcastsToRow(op->getResult(0).getType());
    case FusionRole::reduction:
      return getReduceApplyRow(op) == row;
    case FusionRole::window:
      return true; // the pool, above
    default:
      return false;
    }
  });
}

std::optional<DenseSet<Value>> mlir::solder::getPooledValues(ArrayRef<Operation *> ops,
                                                             PoolOp pool) {
  llvm::SmallPtrSet<Operation *, 8> inOps(ops.begin(), ops.end());
  DenseSet<Value> pooled;
  if (pool)
    pooled.insert(pool.getResult());
  for (Operation *op : ops) {
    if (op == pool.getOperation() || getFusionRole(op) == FusionRole::constant)
      continue;
    bool readsPool = llvm::any_of(op->getOperands(), [&](Value v) { return pooled.contains(v); });
    bool poolType = pool && op->getResult(0).getType() == pool.getType();
    if (readsPool != poolType)
      return std::nullopt;
    if (!readsPool)
      continue;
    if (getFusionRole(op) != FusionRole::pointwise || llvm::any_of(op->getOperands(), [&](Value v) {
          Operation *producer = v.getDefiningOp();
          return !pooled.contains(v) && producer && inOps.contains(producer) &&
                 !isa<arith::ConstantOp>(producer);
        }))
      return std::nullopt;
    pooled.insert(op->getResult(0));
  }
  return pooled;
}

std::optional<ReduceApplyRow> mlir::solder::getReduceApplyRow(FusionOp fusion) {
  SmallVector<Operation *> ops;
  bool readsBack = false, pools = false;
  int reductions = 0;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    ops.push_back(&op);
    pools |= isa<PoolOp>(op);
    if (isa<ReduceOp>(op)) {
      ++reductions;
      readsBack |= llvm::any_of(op.getUsers(), [](Operation *user) { return !isa<YieldOp>(user); });
    }
  }
  // Sibling reductions of one row that nothing reads back (a sum and a max
  // of exp(x)) joined as a row too: the kernel walks the row for each; and
  // a reduction beside a pool of the row's values (FormFusions let it join
  // as a row), whatever reads it.
  if (reductions == 0 || (!readsBack && reductions < 2 && !pools))
    return std::nullopt;
  auto first = llvm::find_if(ops, llvm::IsaPred<ReduceOp>);
  std::optional<ReduceApplyRow> row = getReduceApplyRow(*first);
  if (!row || !fitsReduceApplyRow(ops, *row))
    return std::nullopt;
  return row;
}

bool mlir::solder::isConvEpilogueOp(Operation *op) {
  FusionRole role = getFusionRole(op);
  if (role == FusionRole::pointwise || role == FusionRole::constant)
    return true;
  // Statistics of a tensor with one pixel a sample (a GEMM's rows) would
  // leave the epilogue one partial per element, three times the tensor's
  // bytes; a reduction kernel reads the tensor once instead.
  if (isa<GroupStatsOp, ReduceOp>(op)) {
    auto type = cast<RankedTensorType>(op->getOperand(0).getType());
    if (type.getRank() > 2 && ShapedType::getNumElements(type.getShape().drop_front(2)) == 1)
      return false;
  }
  if (isa<GroupStatsOp>(op))
    return true;
  auto reduce = dyn_cast<ReduceOp>(op);
  if (!reduce)
    return false;
  int64_t rank = reduce.getX().getType().getRank();
  return (reduce.getKind() == ReduceKind::sum ||
          reduce.getKind() == ReduceKind::mean) &&
         reduce.getDims() ==
             ArrayRef(llvm::to_vector(llvm::seq<int64_t>(2, rank)));
}

SmallVector<Operation *>
mlir::solder::getProducingSlice(ArrayRef<Value> values,
                                function_ref<bool(Operation *)> isBoundary) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist(values);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    if (!op || (isBoundary && isBoundary(op)) || !slice.insert(op))
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  SmallVector<Operation *> ops(slice.begin(), slice.end());
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

SmallVector<Operation *> mlir::solder::getConvPrologue(Operation *anchor) {
  if (!isa<FusionOp>(anchor->getParentOp()))
    return {};
  return getProducingSlice(anchor->getOperand(0));
}

std::string mlir::solder::joinOpNames(ArrayRef<Operation *> ops, StringRef separator) {
  std::string text;
  for (Operation *op : ops)
    if (!isa<arith::ConstantOp>(op))
      text += (text.empty() ? "" : separator.str()) + op->getName().stripDialect().str();
  return text;
}

FusionOp mlir::solder::wrapInFusion(RewriterBase &rewriter,
                                    ArrayRef<Operation *> ops, StringRef name) {
  llvm::SmallPtrSet<Operation *, 16> inRegion(ops.begin(), ops.end());
  llvm::SetVector<Value> captures;
  llvm::SetVector<Operation *> constants;
  SmallVector<Value> outputs;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && inRegion.contains(producer))
        continue;
      if (producer && isa<arith::ConstantOp>(producer))
        constants.insert(producer);
      else
        captures.insert(operand);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inRegion.contains(user);
          }))
        outputs.push_back(result);
  }

  Location loc = rewriter.getFusedLoc(llvm::map_to_vector(
      ops, [](Operation *op) { return op->getLoc(); }));
  rewriter.setInsertionPoint(ops.back());
  auto fusion = FusionOp::create(
      rewriter, loc, TypeRange(ValueRange(outputs)), captures.getArrayRef(),
      rewriter.getStringAttr(name));
  Block *body = rewriter.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (Value capture : captures)
    mapping.map(capture, body->addArgument(capture.getType(), capture.getLoc()));
  rewriter.setInsertionPointToStart(body);
  for (Operation *constant : constants)
    rewriter.clone(*constant, mapping);
  for (Operation *op : ops)
    rewriter.clone(*op, mapping);
  YieldOp::create(rewriter, loc,
                  llvm::map_to_vector(outputs, [&](Value output) {
                    return mapping.lookup(output);
                  }));

  for (auto [output, result] : llvm::zip(outputs, fusion.getResults()))
    rewriter.replaceUsesWithIf(output, result, [&](OpOperand &use) {
      return !inRegion.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(ops))
    rewriter.eraseOp(op);
  return fusion;
}

void mlir::solder::eraseDeadOps(RewriterBase &rewriter, FusionOp fusion) {
  Block &body = fusion.getBodyBlock();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (op.use_empty() && isMemoryEffectFree(&op))
      rewriter.eraseOp(&op);
  }
}

/// A fusion in place of `fusion` with its body, that yields `yielded`
/// (values of that body); `fusion` is left without a body, for the caller
/// to rewire its uses and erase.
static FusionOp moveBodyToNewYield(RewriterBase &rewriter, FusionOp fusion,
                                   ArrayRef<Value> yielded) {
  YieldOp yield = fusion.getYield();
  rewriter.setInsertionPoint(fusion);
  auto replacement = FusionOp::create(rewriter, fusion.getLoc(), ValueRange(yielded).getTypes(),
                                      fusion.getCaptures(), fusion.getNameAttr());
  replacement->setDiscardableAttrs(fusion->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(fusion.getBody(), replacement.getBody(),
                              replacement.getBody().end());
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<YieldOp>(yield, yielded);
  return replacement;
}

FusionOp mlir::solder::dropFusionResults(RewriterBase &rewriter,
                                         FusionOp fusion, ArrayRef<bool> keep) {
  SmallVector<Value> keptValues;
  for (auto [index, value] : llvm::enumerate(fusion.getYield().getValues()))
    if (keep[index])
      keptValues.push_back(value);
  FusionOp replacement = moveBodyToNewYield(rewriter, fusion, keptValues);

  unsigned next = 0;
  for (auto [index, result] : llvm::enumerate(fusion.getResults())) {
    if (!keep[index]) {
      assert(result.use_empty() && "dropping a result that is still used");
      continue;
    }
    rewriter.replaceAllUsesWith(result, replacement.getResult(next++));
  }
  rewriter.eraseOp(fusion);
  eraseDeadOps(rewriter, replacement);
  return replacement;
}

FusionOp mlir::solder::duplicateFusionResult(RewriterBase &rewriter, FusionOp fusion,
                                             unsigned index, ArrayRef<OpOperand *> moved) {
  SmallVector<Value> values = llvm::to_vector(fusion.getYield().getValues());
  values.push_back(values[index]);
  FusionOp replacement = moveBodyToNewYield(rewriter, fusion, values);
  Value copy = replacement.getResults().back();
  for (OpOperand *use : moved)
    rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(copy); });
  rewriter.replaceOp(fusion, replacement.getResults().drop_back());
  return replacement;
}

Value mlir::solder::createScalar(OpBuilder &builder, Location loc, Type elementType,
                                 double value) {
  auto type = RankedTensorType::get({}, elementType);
  return arith::ConstantOp::create(
      builder, loc, type,
      DenseElementsAttr::get(type, builder.getFloatAttr(elementType, value).getValue()));
}
