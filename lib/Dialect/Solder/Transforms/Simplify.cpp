//===- Simplify.cpp - Algebra that removes work ---------------------------===//
//
// Each rewrite is exact (up to floating-point rounding) under the
// precondition it checks, and proven on the reference interpreter by
// test/Transforms/simplify*.mlir.
//
//===----------------------------------------------------------------------===//

#include "solder/Analysis/ValueRange.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::solder {
#define GEN_PASS_DEF_SOLDERSIMPLIFY
#include "solder/Dialect/Solder/Transforms/Passes.h.inc"
} // namespace mlir::solder

using namespace mlir;
using namespace mlir::solder;

namespace {
/// reduce_{sum|mean, D}(group_normalize(x, s, w, b))
///   = reduce_{same, D}(group_normalize(mean_{D ∩ spatial, keepdim}(x), s, w, b))
///     [* count(D ∩ spatial) for sum]
/// because group_normalize is affine per (sample, channel) and so commutes
/// with a mean over spatial dims. The outer reduce still runs over all of D:
/// over the spatial dims, now of size 1, it is the identity, and it keeps the
/// result shape.
struct ReduceThroughGroupNormalize : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKind() != ReduceKind::sum && op.getKind() != ReduceKind::mean)
      return rewriter.notifyMatchFailure(op, "not a linear reduction");
    auto normalize = op.getX().getDefiningOp<GroupNormalizeOp>();
    if (!normalize)
      return rewriter.notifyMatchFailure(op, "input is not group_normalize");
    if (!normalize->hasOneUse())
      return rewriter.notifyMatchFailure(
          op, "the normalized tensor is used elsewhere: nothing saved");
    RankedTensorType inputType = normalize.getInput().getType();
    SmallVector<int64_t> spatialDims;
    int64_t count = 1;
    for (int64_t dim : op.getDims())
      if (dim >= 2 && inputType.getDimSize(dim) != 1) {
        spatialDims.push_back(dim);
        count *= inputType.getDimSize(dim);
      }
    if (spatialDims.empty())
      return rewriter.notifyMatchFailure(op, "reduces no spatial dim");

    Location loc = op.getLoc();
    Value means = ReduceOp::create(rewriter, loc, ReduceKind::mean,
                                   normalize.getInput(), spatialDims,
                                   /*keepdim=*/true);
    Value normalized = GroupNormalizeOp::create(
        rewriter, loc, means, normalize.getStats(), normalize.getWeight(),
        normalize.getBias());
    Value result = ReduceOp::create(rewriter, loc, op.getKind(), normalized,
                                    op.getDims(), op.getKeepdim());
    if (op.getKind() == ReduceKind::sum)
      result = MulOp::create(
          rewriter, loc, result,
          createScalar(rewriter, loc, inputType.getElementType(),
                       static_cast<double>(count)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// On [-3, 3], relu6(z + 3) = z + 3: hardswish(z) = z * (z + 3) / 6 and
/// hardsigmoid(z) = (z + 3) / 6.
template <typename OpT>
struct DropBoundedClamp : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    std::optional<ElementRange> range = getElementRange(op.getX());
    if (!range || !range->isWithin(-3.0, 3.0))
      return rewriter.notifyMatchFailure(op, "input not known to be in [-3, 3]");
    Location loc = op.getLoc();
    Type elementType = op.getX().getType().getElementType();
    Value z = op.getX();
    Value shifted =
        AddOp::create(rewriter, loc, z, createScalar(rewriter, loc, elementType, 3.0));
    Value numerator = std::is_same_v<OpT, HardswishOp>
                          ? MulOp::create(rewriter, loc, z, shifted).getResult()
                          : shifted;
    rewriter.replaceOpWithNewOp<DivOp>(
        op, numerator, createScalar(rewriter, loc, elementType, 6.0));
    return success();
  }
};

struct SolderSimplifyPass : solder::impl::SolderSimplifyBase<SolderSimplifyPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<ReduceThroughGroupNormalize, DropBoundedClamp<HardswishOp>,
                 DropBoundedClamp<HardsigmoidOp>>(context);
    // The greedy driver also applies every op's folder.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
