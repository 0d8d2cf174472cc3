//===- ValueRange.cpp - Bounds of tensor element values -------------------===//

#include "solder/Analysis/ValueRange.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/ADT/TypeSwitch.h"

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
  return TypeSwitch<Operation *, std::optional<ElementRange>>(producer)
      .Case<ReluOp, ExpOp, AbsOp, SoftplusOp>(
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
