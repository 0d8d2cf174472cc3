//===- CostModel.h - Bytes, FLOPs and roofline time of fusions --*- C++ -*-===//
//
// The plan's cost model. A kernel moves the bytes of what it reads from
// outside (captures) and what it writes (results), once each, and does the
// FLOPs of its ops; its time is the roofline max(bytes / bandwidth,
// flops / rate). The two rates are parameters (measured on the target GPU).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_COSTMODEL_H
#define SOLDER_ANALYSIS_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace mlir::solder {

struct GpuRates {
  double bytesPerSecond = 4200e9; // copy bandwidth, read + write
  double flopsPerSecond = 51e12;  // fp32 FMA (2 FLOPs each)
};

struct KernelCost {
  double bytes = 0.0;
  double flops = 0.0;
  double getSeconds(const GpuRates &rates) const {
    return std::max(bytes / rates.bytesPerSecond,
                    flops / rates.flopsPerSecond);
  }
  KernelCost &operator+=(const KernelCost &other) {
    bytes += other.bytes;
    flops += other.flops;
    return *this;
  }
};

/// Bytes of a tensor value.
double getTensorBytes(Value value);

/// FLOPs of one op (a multiply-add counts 2; a transcendental a few).
double getOpFlops(Operation *op);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_COSTMODEL_H
