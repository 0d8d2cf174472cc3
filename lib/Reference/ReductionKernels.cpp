//===- ReductionKernels.cpp - Reference reduce, softmax and pool ----------===//

#include "Kernels.h"

#include <cmath>

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::reference;

/// For every element of `shape`, the offset of the output element it reduces
/// into when `dims` are reduced (keepdim or not: same row-major order).
static std::vector<int64_t> getReducedOffsets(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> dims) {
  int64_t rank = shape.size();
  SmallVector<int64_t> keptShape(shape);
  for (int64_t dim : dims)
    keptShape[dim] = 1;
  SmallVector<int64_t> keptStrides = getStrides(keptShape);
  for (int64_t dim : dims)
    keptStrides[dim] = 0;
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  std::vector<int64_t> offsets(count);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * keptStrides[d];
    offsets[i] = offset;
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
      index[d] = 0;
  }
  return offsets;
}

/// max that lets NaN through, as torch.amax does.
static double maxNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
}
static double minNaN(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
}

/// logsumexp of the elements of `x` reducing into each output, computed as
/// torch.logsumexp does: max subtracted first, an infinite max replaced by 0.
static Tensor logSumExp(const Tensor &x, const std::vector<int64_t> &offsets,
                        ArrayRef<int64_t> resultShape) {
  Tensor maxima(resultShape, -INFINITY), sums(resultShape, 0.0);
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
    maxima.data[offsets[i]] = maxNaN(maxima.data[offsets[i]], x.data[i]);
  for (double &m : maxima.data)
    if (std::isinf(m))
      m = 0.0;
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
    sums.data[offsets[i]] += std::exp(x.data[i] - maxima.data[offsets[i]]);
  for (int64_t i = 0, e = sums.getNumElements(); i < e; ++i)
    sums.data[i] = std::log(sums.data[i]) + maxima.data[i];
  return sums;
}

Tensor mlir::solder::reference::evalReduce(ReduceOp op, const Tensor &x) {
  ArrayRef<int64_t> resultShape = op.getResult().getType().getShape();
  std::vector<int64_t> offsets = getReducedOffsets(x.shape, op.getDims());
  ReduceKind kind = op.getKind();
  if (kind == ReduceKind::logsumexp)
    return logSumExp(x, offsets, resultShape);

  double initial = 0.0;
  if (kind == ReduceKind::max)
    initial = -INFINITY;
  else if (kind == ReduceKind::min)
    initial = INFINITY;
  else if (kind == ReduceKind::prod)
    initial = 1.0;
  Tensor result(resultShape, initial);
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
    double &out = result.data[offsets[i]];
    switch (kind) {
    case ReduceKind::sum:
    case ReduceKind::mean:
      out += x.data[i];
      break;
    case ReduceKind::max:
      out = maxNaN(out, x.data[i]);
      break;
    case ReduceKind::min:
      out = minNaN(out, x.data[i]);
      break;
    case ReduceKind::prod:
      out *= x.data[i];
      break;
    case ReduceKind::logsumexp:
      llvm_unreachable("handled above");
    }
  }
  if (kind == ReduceKind::mean) {
    double count = static_cast<double>(x.getNumElements()) /
                   static_cast<double>(result.getNumElements());
    for (double &value : result.data)
      value /= count;
  }
  return result;
}

Tensor mlir::solder::reference::evalSoftmax(const Tensor &x, int64_t dim,
                                            bool log) {
  // As torch computes it: subtract the raw max (an infinite max makes the
  // row NaN, unlike logsumexp, which treats it as 0).
  SmallVector<int64_t> keptShape(x.shape);
  keptShape[dim] = 1;
  std::vector<int64_t> offsets = getReducedOffsets(x.shape, {dim});
  Tensor maxima(keptShape, -INFINITY), sums(keptShape, 0.0);
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
    maxima.data[offsets[i]] = maxNaN(maxima.data[offsets[i]], x.data[i]);
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
    sums.data[offsets[i]] += std::exp(x.data[i] - maxima.data[offsets[i]]);
  Tensor result(x.shape);
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
    double shifted = x.data[i] - maxima.data[offsets[i]];
    result.data[i] = log ? shifted - std::log(sums.data[offsets[i]])
                         : std::exp(shifted) / sums.data[offsets[i]];
  }
  return result;
}

namespace {
/// What pool and adaptive_pool walk: (N * C) planes of `x` pooled into those
/// of `result`, one output position at a time.
struct PooledPlanes {
  int64_t numSpatialDims, planes, inVolume, outVolume;
  ArrayRef<int64_t> inShape, outShape;
  SmallVector<int64_t> inStrides;

  PooledPlanes(const Tensor &x, const Tensor &result)
      : numSpatialDims(x.getRank() - 2), planes(x.shape[0] * x.shape[1]),
        inVolume(x.getNumElements() / planes), outVolume(result.getNumElements() / planes),
        inShape(ArrayRef(x.shape).drop_front(2)),
        outShape(ArrayRef(result.shape).drop_front(2)), inStrides(getStrides(inShape)) {}
};
} // namespace

Tensor mlir::solder::reference::evalPool(PoolOp op, const Tensor &x) {
  Tensor result(op.getResult().getType().getShape());
  auto [numSpatialDims, planes, inVolume, outVolume, inShape, outShape, inStrides] =
      PooledPlanes(x, result);
  ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                    padding = op.getPadding(), dilations = op.getDilations();
  bool isMax = op.getKind() == PoolKind::max;

  SmallVector<int64_t> outIndex(numSpatialDims, 0);
  for (int64_t o = 0; o < outVolume; ++o) {
    // The window's extent per dim: [start, end) in padded coordinates
    // clipped to input + padding (PyTorch's divisor), then to the input.
    SmallVector<int64_t> start(numSpatialDims), end(numSpatialDims);
    int64_t paddedWindow = 1;
    for (int64_t d = 0; d < numSpatialDims; ++d) {
      start[d] = outIndex[d] * strides[d] - padding[d];
      int64_t stop = std::min(start[d] + (kernel[d] - 1) * dilations[d] + 1,
                              inShape[d] + padding[d]);
      paddedWindow *= isMax ? 1 : (stop - start[d]);
      end[d] = stop;
    }
    for (int64_t plane = 0; plane < planes; ++plane) {
      const double *in = &x.data[plane * inVolume];
      double accumulator = isMax ? -INFINITY : 0.0;
      int64_t valid = 0;
      SmallVector<int64_t> k(numSpatialDims, 0);
      while (true) {
        bool inside = true;
        int64_t offset = 0;
        for (int64_t d = 0; d < numSpatialDims; ++d) {
          int64_t i = start[d] + k[d] * dilations[d];
          if (i < 0 || i >= inShape[d] || i >= end[d])
            inside = false;
          offset += i * inStrides[d];
        }
        if (inside) {
          double value = in[offset];
          accumulator = isMax ? maxNaN(accumulator, value) : accumulator + value;
          ++valid;
        }
        int64_t d = numSpatialDims - 1;
        while (d >= 0 && ++k[d] == kernel[d])
          k[d--] = 0;
        if (d < 0)
          break;
      }
      if (!isMax)
        accumulator /= op.getDivisorOverride()
                           ? static_cast<double>(*op.getDivisorOverride())
                       : op.getCountIncludePad() ? paddedWindow
                                                 : valid;
      result.data[plane * outVolume + o] = accumulator;
    }
    for (int64_t d = numSpatialDims - 1; d >= 0 && ++outIndex[d] == outShape[d];
         --d)
      outIndex[d] = 0;
  }
  return result;
}

Tensor mlir::solder::reference::evalAdaptivePool(AdaptivePoolOp op, const Tensor &x) {
  Tensor result(op.getResult().getType().getShape());
  auto [numSpatialDims, planes, inVolume, outVolume, inShape, outShape, inStrides] =
      PooledPlanes(x, result);
  bool isMax = op.getKind() == PoolKind::max;

  SmallVector<int64_t> outIndex(numSpatialDims, 0);
  for (int64_t o = 0; o < outVolume; ++o) {
    // PyTorch's window: [floor(i * in / out), ceil((i + 1) * in / out)).
    SmallVector<int64_t> start(numSpatialDims), end(numSpatialDims);
    int64_t window = 1;
    for (int64_t d = 0; d < numSpatialDims; ++d) {
      start[d] = outIndex[d] * inShape[d] / outShape[d];
      end[d] = llvm::divideCeil((outIndex[d] + 1) * inShape[d], outShape[d]);
      window *= end[d] - start[d];
    }
    for (int64_t plane = 0; plane < planes; ++plane) {
      const double *in = &x.data[plane * inVolume];
      double accumulator = isMax ? -INFINITY : 0.0;
      SmallVector<int64_t> i(start);
      while (true) {
        int64_t offset = 0;
        for (int64_t d = 0; d < numSpatialDims; ++d)
          offset += i[d] * inStrides[d];
        accumulator = isMax ? maxNaN(accumulator, in[offset]) : accumulator + in[offset];
        int64_t d = numSpatialDims - 1;
        while (d >= 0 && ++i[d] == end[d])
          i[d] = start[d], --d;
        if (d < 0)
          break;
      }
      result.data[plane * outVolume + o] = isMax ? accumulator : accumulator / window;
    }
    for (int64_t d = numSpatialDims - 1; d >= 0 && ++outIndex[d] == outShape[d]; --d)
      outIndex[d] = 0;
  }
  return result;
}
