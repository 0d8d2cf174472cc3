//===- NormKernels.cpp - Reference normalizations -------------------------===//
//
// Every norm is group statistics + an affine map per (sample, channel), the
// same split solder.decompose makes, so the interpreter checks that split
// against the norms computed directly in layer_norm below and against PyTorch.
// Statistics are two-pass (mean, then centered sum of squares) in double.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::reference;

/// Elements per (sample, channel).
static int64_t getChannelVolume(const Tensor &x) {
  int64_t volume = 1;
  for (int64_t dim : ArrayRef(x.shape).drop_front(2))
    volume *= dim;
  return volume;
}

Tensor mlir::solder::reference::evalGroupStats(const Tensor &input,
                                               int64_t numGroups,
                                               double epsilon,
                                               bool acrossBatch) {
  int64_t batch = input.shape[0], channels = input.shape[1];
  int64_t volume = getChannelVolume(input);
  int64_t channelsPerGroup = channels / numGroups;
  int64_t statBatch = acrossBatch ? 1 : batch;
  Tensor stats({statBatch, numGroups, 2});
  // The elements of group g of sample n are one contiguous run.
  int64_t run = channelsPerGroup * volume;
  for (int64_t s = 0; s < statBatch; ++s)
    for (int64_t g = 0; g < numGroups; ++g) {
      int64_t first = acrossBatch ? 0 : s, last = acrossBatch ? batch : s + 1;
      double count = static_cast<double>((last - first) * run);
      double sum = 0.0;
      for (int64_t n = first; n < last; ++n) {
        const double *x = &input.data[(n * channels + g * channelsPerGroup) *
                                      volume];
        for (int64_t i = 0; i < run; ++i)
          sum += x[i];
      }
      double mean = sum / count;
      double squares = 0.0;
      for (int64_t n = first; n < last; ++n) {
        const double *x = &input.data[(n * channels + g * channelsPerGroup) *
                                      volume];
        for (int64_t i = 0; i < run; ++i)
          squares += (x[i] - mean) * (x[i] - mean);
      }
      stats.data[(s * numGroups + g) * 2] = mean;
      stats.data[(s * numGroups + g) * 2 + 1] =
          1.0 / std::sqrt(squares / count + epsilon);
    }
  return stats;
}

Tensor mlir::solder::reference::evalGroupNormalize(const Tensor &input,
                                                   const Tensor &stats,
                                                   const Tensor *weight,
                                                   const Tensor *bias) {
  int64_t batch = input.shape[0], channels = input.shape[1];
  int64_t volume = getChannelVolume(input);
  int64_t numGroups = stats.shape[1];
  int64_t channelsPerGroup = channels / numGroups;
  bool acrossBatch = stats.shape[0] == 1;
  Tensor output(input.shape);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      const double *stat =
          &stats.data[((acrossBatch ? 0 : n) * numGroups +
                       c / channelsPerGroup) *
                      2];
      double scale = stat[1] * (weight ? weight->data[c] : 1.0);
      double shift = (bias ? bias->data[c] : 0.0) - stat[0] * scale;
      int64_t offset = (n * channels + c) * volume;
      for (int64_t i = 0; i < volume; ++i)
        output.data[offset + i] = input.data[offset + i] * scale + shift;
    }
  return output;
}

Tensor mlir::solder::reference::evalLayerNorm(LayerNormOp op,
                                              const Tensor &input,
                                              const Tensor *weight,
                                              const Tensor *bias) {
  int64_t normalized = 1;
  for (int64_t dim : op.getNormalizedShape())
    normalized *= dim;
  int64_t rows = input.getNumElements() / normalized;
  double epsilon = op.getEpsilon().convertToDouble();
  Tensor output(input.shape);
  for (int64_t r = 0; r < rows; ++r) {
    const double *x = &input.data[r * normalized];
    double mean = 0.0, squares = 0.0;
    for (int64_t i = 0; i < normalized; ++i)
      mean += x[i];
    mean /= normalized;
    for (int64_t i = 0; i < normalized; ++i)
      squares += (x[i] - mean) * (x[i] - mean);
    double rstd = 1.0 / std::sqrt(squares / normalized + epsilon);
    for (int64_t i = 0; i < normalized; ++i)
      output.data[r * normalized + i] =
          (x[i] - mean) * rstd * (weight ? weight->data[i] : 1.0) +
          (bias ? bias->data[i] : 0.0);
  }
  return output;
}
