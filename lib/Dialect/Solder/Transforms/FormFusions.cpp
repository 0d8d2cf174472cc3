//===- FormFusions.cpp - Group ops into solder.fusion regions -------------===//
//
// Greedy, in program order. Every fusible op is assigned to a region; a
// region's ops become one solder.fusion, i.e. one kernel. A conv starts a
// region of its own (with the pointwise region computing its input as its
// prologue); a small GEMM (isRowConv) joins the rows region of its input, so
// that a chain of them (squeeze-excitation's two convs) is one kernel. Two
// rules keep the result executable as kernels:
//  * reduction barrier: an op that reads a reduction computed in region R
//    cannot join R (the reduction is complete only at the end of R's kernel),
//    unless R is a reduce-and-apply row (ReduceApplyRow: a warp reduces a
//    row and then rewrites it, so the reduction is complete within the
//    warp): softmax, LayerNorm over trailing dims and x - mean(x) on rows of
//    consecutive elements are then one kernel, and so is a pool of such a
//    row's values whose windows a warp holds whole (poolsRowWindows);
//  * acyclicity: an op cannot join R if it reads from a region (or an opaque
//    op) that depends on R.
//
//===----------------------------------------------------------------------===//

#include "solder/Dialect/Solder/Transforms/FusionUtils.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::solder {
#define GEN_PASS_DEF_SOLDERFORMFUSIONS
#include "solder/Dialect/Solder/Transforms/Passes.h.inc"
} // namespace mlir::solder

using namespace mlir;
using namespace mlir::solder;

namespace {
/// A group of ops under construction. Opaque ops get a region of their own
/// that is never materialized, so that dependencies through them are seen.
struct Region {
  FusionRole kind; // anchor (conv region), pointwise, reduction or opaque
  SmallVector<Operation *> ops;
  DenseSet<unsigned> directDependencies;
  /// Values computed by reductions in this region: the barrier.
  DenseSet<Value> reductions;
};

class RegionBuilder {
public:
  void run(func::FuncOp function) {
    for (Operation &op : function.getBody().front().without_terminator())
      assign(&op);
  }

  ArrayRef<Region> getRegions() const { return regions; }

private:
  void assign(Operation *op) {
    switch (getFusionRole(op)) {
    case FusionRole::constant:
      return; // cloned into the regions that use it
    case FusionRole::opaque:
      return join(op, startRegion(FusionRole::opaque));
    case FusionRole::anchor:
      if (std::optional<unsigned> prologue = getPrologueRegion(op))
        return join(op, *prologue);
      return join(op, startRegion(FusionRole::anchor));
    case FusionRole::rows:
      return join(op, getRowsRegion(op));
    case FusionRole::window:
      // Each output reads a window of the input: the input is complete
      // only after the kernel that computes it, unless that kernel is a
      // reduce-and-apply row whose warps hold whole windows of its values
      // (poolsRowWindows: LayerNorm over the last dim, then a pool).
      if (std::optional<unsigned> row = getRegionOf(op->getOperand(0));
          row && isReduceApplyRow(op, *row) && canJoin(op, *row))
        return join(op, *row);
      return join(op, startRegion(FusionRole::window));
    case FusionRole::pointwise:
    case FusionRole::reduction:
      for (unsigned candidate : getCandidates(op))
        if (canJoin(op, candidate))
          return join(op, candidate);
      return join(op, startRegion(getFusionRole(op)));
    }
  }

  /// A pure pointwise region producing the anchor's input and used by
  /// nothing else becomes the anchor's prologue.
  std::optional<unsigned> getPrologueRegion(Operation *anchor) {
    std::optional<unsigned> producer = getRegionOf(anchor->getOperand(0));
    if (!producer || regions[*producer].kind != FusionRole::pointwise ||
        !regions[*producer].reductions.empty())
      return std::nullopt;
    for (Operation *op : regions[*producer].ops)
      for (Operation *user : op->getUsers())
        if (user != anchor && regionOf.lookup(user) != *producer + 1)
          return std::nullopt;
    if (anchor->getOperand(1).getDefiningOp() &&
        getRegionOf(anchor->getOperand(1)) == producer)
      return std::nullopt; // the weight must not be computed in the prologue
    regions[*producer].kind = FusionRole::anchor;
    return producer;
  }

  /// The region a row conv joins: that of its input when it is a rows
  /// region, or a pointwise one without a reduction (which becomes one), and
  /// the conv fits (canJoin, weights from outside, shared memory); else a
  /// new one.
  unsigned getRowsRegion(Operation *conv) {
    std::optional<unsigned> producer = getRegionOf(conv->getOperand(0));
    if (producer && regions[*producer].reductions.empty() &&
        (regions[*producer].kind == FusionRole::rows ||
         regions[*producer].kind == FusionRole::pointwise) &&
        canJoin(conv, *producer) && fitsInShared(*producer, conv) &&
        llvm::none_of(conv->getOperands().drop_front(), [&](Value operand) {
          return getRegionOf(operand) == producer;
        })) {
      regions[*producer].kind = FusionRole::rows;
      return *producer;
    }
    return startRegion(FusionRole::rows);
  }

  /// Regions this op may join, latest first: for a reduction the region of
  /// its input; for a pointwise op those of its full-size operands and of
  /// the reductions it reads (a reduce-and-apply row).
  SmallVector<unsigned> getCandidates(Operation *op) {
    SmallVector<unsigned> candidates;
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    bool isReduction = getFusionRole(op) == FusionRole::reduction;
    for (Value operand : op->getOperands()) {
      if (isReduction && operand != op->getOperand(0))
        continue;
      if (!isReduction &&
          cast<RankedTensorType>(operand.getType()).getShape() != resultType.getShape() &&
          !(operand.getDefiningOp() && getReduceApplyRow(operand.getDefiningOp())))
        continue;
      std::optional<unsigned> region = getRegionOf(operand);
      if (region && regions[*region].kind != FusionRole::opaque &&
          !llvm::is_contained(candidates, *region))
        candidates.push_back(*region);
    }
    llvm::sort(candidates, std::greater<unsigned>());
    return candidates;
  }

  bool canJoin(Operation *op, unsigned target) {
    if (regions[target].kind == FusionRole::anchor && !isConvEpilogueOp(op))
      return false;
    if (regions[target].kind == FusionRole::rows) {
      // Every value of a rows region is a row in shared memory, which the
      // block reads at the element it computes.
      auto shape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
      for (Value operand : op->getOperands())
        if (getRegionOf(operand) == target && !isRowConv(op) &&
            cast<RankedTensorType>(operand.getType()).getShape() != shape)
          return false;
      if (getFusionRole(op) == FusionRole::reduction || !fitsInShared(target, op))
        return false;
    }
    // A reduce-and-apply row that pools its values takes only what keeps it
    // one (after the pool, pointwise ops on the windows' results).
    if (regions[target].kind != FusionRole::window &&
        llvm::any_of(regions[target].ops, llvm::IsaPred<PoolOp>) && !isReduceApplyRow(op, target))
      return false;
    // Without a conv, a kernel walks its region for one reduction (two over
    // one input, such as a mean beside a norm's statistics, take two walks),
    // or a reduce-and-apply row for each of its reductions in turn.
    if (getFusionRole(op) == FusionRole::reduction &&
        regions[target].kind != FusionRole::anchor && !regions[target].reductions.empty() &&
        !isReduceApplyRow(op, target))
      return false;
    for (Value operand : op->getOperands()) {
      std::optional<unsigned> region = getRegionOf(operand);
      if (!region)
        continue;
      if (*region == target) {
        if (regions[target].reductions.contains(operand) && !isReduceApplyRow(op, target))
          return false; // reduction barrier
        continue;
      }
      if (dependsOn(*region, target))
        return false; // would close a cycle
    }
    return true;
  }

  /// Whether region `target` (no conv, not a pool's) with `op` is one
  /// reduce-and-apply row: every reduction over the same trailing dims of
  /// the same shape, every other op pointwise within that shape or, after
  /// a pool of the row's values, on the pool's (fitsReduceApplyRow).
  bool isReduceApplyRow(Operation *op, unsigned target) {
    const Region &region = regions[target];
    if (region.kind == FusionRole::anchor || region.kind == FusionRole::rows ||
        region.kind == FusionRole::window || region.reductions.empty())
      return false;
    std::optional<ReduceApplyRow> row =
        getReduceApplyRow(region.reductions.begin()->getDefiningOp());
    SmallVector<Operation *> ops(region.ops);
    ops.push_back(op);
    return row && fitsReduceApplyRow(ops, *row);
  }

  /// Whether rows region `target` with `op` still fits a block's shared
  /// memory.
  bool fitsInShared(unsigned target, Operation *op) {
    SmallVector<Operation *> ops(regions[target].ops);
    ops.push_back(op);
    return getRowSharedFloats(ops) <= kMaxRowSharedFloats;
  }

  bool dependsOn(unsigned from, unsigned to) {
    SmallVector<unsigned> worklist = {from};
    DenseSet<unsigned> seen;
    while (!worklist.empty()) {
      unsigned region = worklist.pop_back_val();
      if (region == to)
        return true;
      if (!seen.insert(region).second)
        continue;
      llvm::append_range(worklist, regions[region].directDependencies);
    }
    return false;
  }

  unsigned startRegion(FusionRole kind) {
    regions.push_back(Region{kind, {}, {}, {}});
    return regions.size() - 1;
  }

  void join(Operation *op, unsigned target) {
    Region &region = regions[target];
    region.ops.push_back(op);
    regionOf[op] = target + 1;
    if (getFusionRole(op) == FusionRole::reduction)
      region.reductions.insert(op->getResult(0));
    for (Value operand : op->getOperands()) {
      std::optional<unsigned> producer = getRegionOf(operand);
      if (producer && *producer != target)
        region.directDependencies.insert(*producer);
    }
  }

  std::optional<unsigned> getRegionOf(Value value) {
    Operation *producer = value.getDefiningOp();
    if (!producer)
      return std::nullopt;
    unsigned id = regionOf.lookup(producer);
    return id ? std::optional<unsigned>(id - 1) : std::nullopt;
  }

  SmallVector<Region> regions;
  /// Region index + 1 of each assigned op (0: none).
  DenseMap<Operation *, unsigned> regionOf;
};

StringRef getKindName(FusionRole kind) {
  switch (kind) {
  case FusionRole::anchor:
    return "conv";
  case FusionRole::pointwise:
    return "pointwise";
  case FusionRole::reduction:
    return "reduction";
  case FusionRole::window:
    return "pool";
  case FusionRole::rows:
    return "rows";
  default:
    return "opaque";
  }
}

/// Writes the function's dataflow between fusions and opaque ops as DOT.
void writeDot(func::FuncOp function, raw_ostream &os) {
  os << "digraph \"" << function.getName() << "\" {\n"
     << "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  DenseMap<Operation *, std::string> nodeNames;
  auto nodeName = [&](Operation *op) -> std::string & {
    std::string &name = nodeNames[op];
    if (name.empty())
      name = "n" + std::to_string(nodeNames.size());
    return name;
  };
  for (BlockArgument argument : function.getArguments())
    os << "  arg" << argument.getArgNumber() << " [label=\"%arg"
       << argument.getArgNumber() << "\", shape=ellipse];\n";
  for (Operation &op : function.getBody().front()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    std::string label;
    if (auto fusion = dyn_cast<FusionOp>(op)) {
      label = fusion.getName().str() + "\\n";
      SmallVector<StringRef> names;
      for (Operation &inner : fusion.getBodyBlock().without_terminator())
        if (!isa<arith::ConstantOp>(inner))
          names.push_back(inner.getName().stripDialect());
      label += llvm::join(names, " -> ");
    } else {
      label = op.getName().getStringRef().str();
    }
    os << "  " << nodeName(&op) << " [label=\"" << label << "\""
       << (isa<FusionOp>(op) ? ", style=filled, fillcolor=lightblue" : "")
       << "];\n";
    for (Value operand : op.getOperands()) {
      std::string typeText;
      llvm::raw_string_ostream(typeText) << operand.getType();
      std::string from;
      if (auto argument = dyn_cast<BlockArgument>(operand))
        from = "arg" + std::to_string(argument.getArgNumber());
      else if (isa<arith::ConstantOp>(operand.getDefiningOp()))
        continue;
      else
        from = nodeName(operand.getDefiningOp());
      os << "  " << from << " -> " << nodeName(&op) << " [label=\"" << typeText
         << "\"];\n";
    }
  }
  os << "}\n";
}

struct SolderFormFusionsPass
    : solder::impl::SolderFormFusionsBase<SolderFormFusionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isDeclaration())
      return; // nothing to fuse
    RegionBuilder builder;
    builder.run(function);

    IRRewriter rewriter(&getContext());
    unsigned index = 0;
    for (const Region &region : builder.getRegions()) {
      if (region.kind == FusionRole::opaque)
        continue;
      SmallVector<Operation *> ops(region.ops);
      llvm::sort(ops, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      std::string name = (function.getName() + "_k" + Twine(index++) + "_" +
                          getKindName(region.kind))
                             .str();
      wrapInFusion(rewriter, ops, name);
    }
    // Regions took clones of the constants they use.
    for (auto constant : llvm::make_early_inc_range(
             function.getBody().front().getOps<arith::ConstantOp>()))
      if (constant->use_empty())
        rewriter.eraseOp(constant);
    // Each fusion sits where its last op was; restore def-before-use.
    if (!sortTopologically(&function.getBody().front())) {
      function.emitError("fusion regions form a cycle");
      return signalPassFailure();
    }
    if (!dotFile.empty())
      if (failed(emitDot(function)))
        return signalPassFailure();
  }

  LogicalResult emitDot(func::FuncOp function) {
    // Functions are processed in parallel: each needs a file of its own.
    std::string path = dotFile;
    size_t placeholder = path.find("{func}");
    if (placeholder != std::string::npos)
      path.replace(placeholder, 6, function.getName().str());
    else if (path != "-" &&
             llvm::range_size(function->getParentOfType<ModuleOp>()
                                  .getOps<func::FuncOp>()) > 1)
      return function.emitError("dot-file: the module has several functions; "
                                "put {func} in the file name");
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &error);
    if (!output)
      return function.emitError("cannot write ") << path << ": " << error;
    writeDot(function, output->os());
    output->keep();
    return success();
  }
};
} // namespace
