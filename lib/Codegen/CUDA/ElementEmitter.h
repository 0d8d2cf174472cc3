//===- ElementEmitter.h - Pointwise ops as CUDA expressions -----*- C++ -*-===//
//
// Prints the pointwise ops of a fusion body as one `const float` per op,
// evaluated at one element of an iteration space whose index variables are
// named i0, i1, ... (row-major over `iterationShape`). Captures are loaded
// with their broadcast; group_normalize reads its statistics per (n, group),
// a pool a window of its input through solder::poolWindow (or a vector's
// lanes' windows at once through solder::poolWindows).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_LIB_CODEGEN_CUDA_ELEMENTEMITTER_H
#define SOLDER_LIB_CODEGEN_CUDA_ELEMENTEMITTER_H

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::solder {

/// A float literal that reads back exactly: 1.00000001e-05f, CUDART_INF_F.
std::string formatFloat(double value);

/// `values` joined by `separator`: "3x3" with "x", "1, 3" with ", ".
std::string joinIntegers(ArrayRef<int64_t> values, StringRef separator);

/// A per-spatial-dim array of 1 to 3 entries as a 3-D C++ initializer, the
/// missing leading dims `fill`: {1, 3, 3} for a 2-D kernel of 3x3.
std::string formatSpatial3(ArrayRef<int64_t> values, int64_t fill);

class ElementEmitter {
public:
  /// `captureNames[i]` is the kernel parameter holding capture i, a
  /// `const double *` where `doubleCaptures[i]` (see
  /// the plan's f64_results, from findCancellingStatistics in
  /// lib/Analysis/ConvEpilogue.cpp), else `const float *`.
  ElementEmitter(FusionOp fusion, ArrayRef<std::string> captureNames,
                 ArrayRef<int64_t> iterationShape, SmallVector<bool> doubleCaptures)
      : fusion(fusion), captureNames(captureNames),
        iterationShape(iterationShape), doubleCaptures(std::move(doubleCaptures)) {}

  /// The captures stored channels-last (NDHWC), read at the same element
  /// of the iteration shape (a conv epilogue's residual).
  void setChannelsLastCaptures(SmallVector<bool> channelsLast) {
    channelsLastCaptures = std::move(channelsLast);
  }

  /// The spatial dims' flattened index at the current element (a conv
  /// epilogue's `pixel`): a capture with every spatial dim of the
  /// iteration shape reads at it, not at an index rebuilt from i2, i3, ...
  /// (which the compiler cannot fold back: a division by each dim an
  /// element).
  void setSpatialIndex(std::string expression) { spatialIndex = std::move(expression); }

  /// Numbers this emitter's values on from `other`'s, so that a nested
  /// scope of another iteration shape declares no name of the outer one.
  void continueNumbering(const ElementEmitter &other) { nextId = other.nextId; }

  /// Binds `value` to an expression (e.g. the conv accumulator).
  void bind(Value value, std::string expression) {
    names[value] = std::move(expression);
  }

  /// The expression of `value` at the current element.
  std::string get(Value value);

  /// Prints `op` (pointwise) as `const float vN = ...;` at `indent`.
  LogicalResult emit(Operation *op, raw_ostream &os, StringRef indent);

  /// Prints `pool`'s windows at `lanes` consecutive outputs along the last
  /// dim (a vectorized region's lanes, the first's last index a multiple of
  /// `lanes`) into `float vN_lanes[lanes]`, and binds the pool to
  /// `vN_lanes[lane]`: the lanes' overlapping windows read each input row
  /// once (solder::poolWindows). `firstIndex` declares i0, i1, ... of the
  /// first lane.
  LogicalResult emitPoolLanes(PoolOp pool, int64_t lanes, StringRef firstIndex,
                              raw_ostream &os, StringRef indent);

  /// Prints `const float <name>_scale, <name>_shift` of `normalize` at
  /// (i0, i1): x * scale + shift is its result.
  LogicalResult emitCoefficients(GroupNormalizeOp normalize, raw_ostream &os,
                                 StringRef indent, StringRef name);

  /// `normalize` reads (scale, shift) from the float2 table `table` at
  /// `index` (an expression of i0, i1) instead of computing them per
  /// element.
  void useCoefficientTable(GroupNormalizeOp normalize, std::string table,
                           std::string index) {
    coefficientTables[normalize] = {std::move(table), std::move(index)};
  }

  /// Whether `normalize` reads its input and statistics in double: it then
  /// takes (x - mean) in double, not x * scale + shift in float.
  bool isCentered(GroupNormalizeOp normalize) const;
  /// Whether `value` is computed in double: a centered group_normalize read
  /// only by a sum or mean, whose terms can cancel to far less than each
  /// (W1: GroupNorm then mean), so it stays double into the accumulator.
  bool isDouble(Value value) const;

  /// The offset of element (i0, i1, ...) in a dense tensor of `shape`
  /// broadcast to the iteration shape.
  std::string getOffset(ArrayRef<int64_t> shape) const;

private:
  /// A pool's arguments to solder::poolWindow: its input, the plane (n, c)
  /// and the output's spatial coordinates as 3-D.
  FailureOr<std::string> getPoolArguments(Operation *pool) const;

  /// Whether a tensor of `shape` reads its spatial dims at spatialIndex:
  /// one is set, and `shape` has the iteration shape's rank and spatial
  /// dims (more than one: one is i2 itself).
  bool hasSpatialIndex(ArrayRef<int64_t> shape) const {
    return !spatialIndex.empty() && shape.size() == iterationShape.size() &&
           shape.size() > 3 && shape.drop_front(2) == iterationShape.drop_front(2);
  }

  FusionOp fusion;
  ArrayRef<std::string> captureNames;
  ArrayRef<int64_t> iterationShape;
  DenseMap<Value, std::string> names;
  DenseMap<Operation *, std::pair<std::string, std::string>> coefficientTables;
  SmallVector<bool> doubleCaptures;
  SmallVector<bool> channelsLastCaptures;
  std::string spatialIndex;
  unsigned nextId = 0;
};

/// Whether the element emitter can print `op`.
bool isElementwise(Operation *op);

/// The Window structs (runtime/device/solder/pool.cuh) of `fusion`'s pools,
/// to print before its Region functor.
std::string getPoolWindows(FusionOp fusion);

/// The name of `pool`'s Window struct (a solder.pool or solder.adaptive_pool):
/// <fusion>_window<k>, k its place among its region's pools.
std::string getWindowName(Operation *pool);

/// "max 3x3, stride 2, padding 1": a pool's window as its comment says it.
std::string describeWindow(PoolOp pool);
/// "avg to 3x2": an adaptive pool as its comment says it.
std::string describeWindow(AdaptivePoolOp pool);

} // namespace mlir::solder

#endif // SOLDER_LIB_CODEGEN_CUDA_ELEMENTEMITTER_H
