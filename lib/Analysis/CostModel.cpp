//===- CostModel.cpp - Bytes, FLOPs and roofline time of fusions ----------===//

#include "solder/Analysis/CostModel.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::solder;

static double getNumElements(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  return type ? static_cast<double>(type.getNumElements()) : 1.0;
}

double mlir::solder::getTensorBytes(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type)
    return 0.0;
  return getNumElements(value) * type.getElementTypeBitWidth() / 8.0;
}

/// Products of the kernel's spatial dims.
static double getKernelVolume(RankedTensorType weight) {
  double volume = 1.0;
  for (int64_t dim : weight.getShape().drop_front(2))
    volume *= dim;
  return volume;
}

double mlir::solder::getOpFlops(Operation *op) {
  return TypeSwitch<Operation *, double>(op)
      .Case([](ConvOp conv) {
        // One multiply-add per output element, input channel of its group
        // and kernel tap.
        RankedTensorType weight = conv.getWeight().getType();
        return 2.0 * getNumElements(conv.getResult()) * weight.getDimSize(1) *
               getKernelVolume(weight);
      })
      .Case([](ConvTransposeOp conv) {
        RankedTensorType weight = conv.getWeight().getType();
        return 2.0 * getNumElements(conv.getInput()) * weight.getDimSize(1) *
               getKernelVolume(weight);
      })
      .Case([](GroupStatsOp stats) {
        return 4.0 * getNumElements(stats.getInput()); // Welford update
      })
      .Case([](GroupNormalizeOp normalize) {
        return 2.0 * getNumElements(normalize.getResult());
      })
      .Case([](ReduceOp reduce) {
        double perElement = reduce.getKind() == ReduceKind::logsumexp ? 4.0 : 1.0;
        return perElement * getNumElements(reduce.getX());
      })
      .Case<TanhOp, SigmoidOp, SiluOp, MishOp, GeluOp, ExpOp, LogOp, EluOp,
            SoftplusOp, PowOp, SqrtOp, RsqrtOp>([](Operation *op) {
        return 8.0 * getNumElements(op->getResult(0));
      })
      .Default([](Operation *op) {
        return op->getNumResults() ? getNumElements(op->getResult(0)) : 0.0;
      });
}
