//===- ValueRange.h - Bounds of tensor element values -----------*- C++ -*-===//
//
// A local, conservative range analysis: the interval every element of a
// value lies in, known from the op that produced it (tanh in [-1, 1],
// sigmoid in [0, 1], relu in [0, inf], a clamp's bounds, a pool its
// input's, ...), through fusion regions' captures and results. Used by rewrites whose
// precondition is a bound, such as dropping hardswish's clamp.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_VALUERANGE_H
#define SOLDER_ANALYSIS_VALUERANGE_H

#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::solder {

/// A closed interval [low, high]; NaN may still occur where the input is NaN.
struct ElementRange {
  double low, high;
  bool isWithin(double lower, double upper) const {
    return low >= lower && high <= upper;
  }
};

/// The range of every element of `value`, if its producer bounds it.
std::optional<ElementRange> getElementRange(Value value);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_VALUERANGE_H
