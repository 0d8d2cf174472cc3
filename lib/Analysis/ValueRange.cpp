//===- ValueRange.cpp - Bounds of tensor element values -------------------===//

#include "solder/Analysis/ValueRange.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::solder;

std::optional<ElementRange> mlir::solder::getElementRange(Value value) {
  // Inside a fusion region, a capture is the value it binds; a region's
  // result is what its body yields.
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto fusion = dyn_cast<FusionOp>(argument.getOwner()->getParentOp());
    if (!fusion)
      return std::nullopt;
    return getElementRange(fusion.getCaptures()[argument.getArgNumber()]);
  }
  Operation *producer = value.getDefiningOp();
  if (auto fusion = dyn_cast<FusionOp>(producer))
    return getElementRange(
        fusion.getYield().getValues()[cast<OpResult>(value).getResultNumber()]);
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  // A pool's values are its input's: a max of them, or an average of them
  // and (counting the padding) zeros. A divisor_override can be smaller than
  // the window: no bound then.
  if (isa<PoolOp, AdaptivePoolOp>(producer)) {
    std::optional<ElementRange> input = getElementRange(producer->getOperand(0));
    auto pool = dyn_cast<PoolOp>(producer);
    if (!input || !pool || pool.getKind() == PoolKind::max)
      return input;
    if (pool.getDivisorOverride())
      return std::nullopt;
    return ElementRange{std::min(input->low, 0.0), std::max(input->high, 0.0)};
  }
  return TypeSwitch<Operation *, std::optional<ElementRange>>(producer)
      .Case<ReluOp, ExpOp, AbsOp>(
          [&](Operation *) { return ElementRange{0.0, kInfinity}; })
      .Case([](TanhOp) { return ElementRange{-1.0, 1.0}; })
      .Case<SigmoidOp, HardsigmoidOp>(
          [](Operation *) { return ElementRange{0.0, 1.0}; })
      .Case([](HardtanhOp op) {
        return ElementRange{op.getMin().convertToDouble(),
                            op.getMax().convertToDouble()};
      })
      .Case([](ClampOp op) -> std::optional<ElementRange> {
        if (!op.getMin() || !op.getMax())
          return std::nullopt;
        return ElementRange{op.getMin()->convertToDouble(),
                            op.getMax()->convertToDouble()};
      })
      .Default([](Operation *) { return std::nullopt; });
}
