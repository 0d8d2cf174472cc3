//===- Decompose.cpp - Norms and softmax into reductions + pointwise ------===//

#include "solder/Dialect/Solder/Transforms/FusionUtils.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::solder {
#define GEN_PASS_DEF_SOLDERDECOMPOSE
#include "solder/Dialect/Solder/Transforms/Passes.h.inc"
} // namespace mlir::solder

using namespace mlir;
using namespace mlir::solder;

namespace {
/// stats = group_stats(x, G); y = group_normalize(x, stats, weight, bias).
Value buildGroupNorm(PatternRewriter &rewriter, Location loc, Value input,
                     Value weight, Value bias, int64_t numGroups,
                     APFloat epsilon, bool acrossBatch) {
  Value stats = GroupStatsOp::create(rewriter, loc, input, numGroups, epsilon,
                                     acrossBatch);
  return GroupNormalizeOp::create(rewriter, loc, input, stats, weight, bias);
}

struct DecomposeGroupNorm : OpRewritePattern<GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GroupNormOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildGroupNorm(rewriter, op.getLoc(), op.getInput(),
                                          op.getWeight(), op.getBias(),
                                          op.getNumGroups(), op.getEpsilon(),
                                          /*acrossBatch=*/false));
    return success();
  }
};

/// instance_norm (per sample) and batch_norm (across the batch) normalize
/// each channel on its own: one group per channel.
template <typename NormOpT, bool acrossBatch>
struct DecomposePerChannelNorm : OpRewritePattern<NormOpT> {
  using OpRewritePattern<NormOpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(NormOpT op,
                                PatternRewriter &rewriter) const override {
    int64_t channels = op.getInput().getType().getDimSize(1);
    rewriter.replaceOp(op, buildGroupNorm(rewriter, op.getLoc(), op.getInput(),
                                          op.getWeight(), op.getBias(),
                                          channels, op.getEpsilon(),
                                          acrossBatch));
    return success();
  }
};

/// A layer_norm over every dim but the batch is one group per sample; its
/// elementwise weight and bias follow as broadcast mul and add. Over fewer
/// trailing dims (LayerNorm(W) on an (N, C, D, H, W) conv output) it is two
/// reductions over those dims, the variance of the centered values:
///   d = x - mean(x), y = d * rsqrt(mean(d * d) + epsilon) * weight + bias.
struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getInput().getType();
    int64_t normalized = static_cast<int64_t>(op.getNormalizedShape().size());
    Location loc = op.getLoc();
    Value result;
    if (type.getRank() >= 2 && normalized == type.getRank() - 1) {
      result = buildGroupNorm(rewriter, loc, op.getInput(), Value(), Value(),
                              /*numGroups=*/1, op.getEpsilon(),
                              /*acrossBatch=*/false);
    } else {
      SmallVector<int64_t> dims = llvm::to_vector(
          llvm::seq<int64_t>(type.getRank() - normalized, type.getRank()));
      Value mean = ReduceOp::create(rewriter, loc, ReduceKind::mean,
                                    op.getInput(), dims, /*keepdim=*/true);
      Value centered = SubOp::create(rewriter, loc, op.getInput(), mean);
      Value squared = MulOp::create(rewriter, loc, centered, centered);
      Value variance = ReduceOp::create(rewriter, loc, ReduceKind::mean,
                                        squared, dims, /*keepdim=*/true);
      Value epsilon =
          createScalar(rewriter, loc, type.getElementType(),
                       op.getEpsilon().convertToDouble());
      Value rstd = RsqrtOp::create(
          rewriter, loc, AddOp::create(rewriter, loc, variance, epsilon));
      result = MulOp::create(rewriter, loc, centered, rstd);
    }
    if (op.getWeight())
      result = MulOp::create(rewriter, loc, result, op.getWeight());
    if (op.getBias())
      result = AddOp::create(rewriter, loc, result, op.getBias());
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax(x) = exp(x - max(x)) / sum(exp(x - max(x))), along `dim`.
struct DecomposeSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = static_cast<int64_t>(op.getDim());
    Value max = ReduceOp::create(rewriter, loc, ReduceKind::max, op.getX(),
                                 ArrayRef<int64_t>{dim}, /*keepdim=*/true);
    Value shifted = SubOp::create(rewriter, loc, op.getX(), max);
    Value exp = ExpOp::create(rewriter, loc, shifted);
    Value sum = ReduceOp::create(rewriter, loc, ReduceKind::sum, exp,
                                 ArrayRef<int64_t>{dim}, /*keepdim=*/true);
    rewriter.replaceOpWithNewOp<DivOp>(op, exp, sum);
    return success();
  }
};

/// log_softmax(x) = x - logsumexp(x), along `dim`.
struct DecomposeLogSoftmax : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Value lse = ReduceOp::create(rewriter, op.getLoc(), ReduceKind::logsumexp,
                                 op.getX(), ArrayRef<int64_t>{static_cast<int64_t>(op.getDim())},
                                 /*keepdim=*/true);
    rewriter.replaceOpWithNewOp<SubOp>(op, op.getX(), lse);
    return success();
  }
};

struct SolderDecomposePass
    : solder::impl::SolderDecomposeBase<SolderDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeGroupNorm,
                 DecomposePerChannelNorm<InstanceNormOp, /*acrossBatch=*/false>,
                 DecomposePerChannelNorm<BatchNormOp, /*acrossBatch=*/true>,
                 DecomposeLayerNorm, DecomposeSoftmax, DecomposeLogSoftmax>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
