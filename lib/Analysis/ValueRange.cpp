//===- ValueRange.cpp - Bounds of tensor element values -------------------===//

#include "solder/Analysis/ValueRange.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::solder;

std::optional<ElementRange> mlir::solder::getElementRange(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return std::nullopt;
  return TypeSwitch<Operation *, std::optional<ElementRange>>(producer)
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
