//===- ConvKernels.cpp - Reference conv and conv_transpose ----------------===//
//
// Direct loops over N-d convolutions. Shapes are padded to 3 spatial dims
// (size 1, kernel 1, stride 1, no padding) so one loop nest serves 1d to 3d.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::reference;

namespace {
/// A convolution's geometry with exactly 3 spatial dims.
struct ConvGeometry {
  int64_t batch, inChannels, outChannels, groups;
  int64_t in[3], out[3], kernel[3], stride[3], pad[3], dilation[3];

  ConvGeometry(const Tensor &input, ArrayRef<int64_t> outputShape,
               ArrayRef<int64_t> kernelShape, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> padding, ArrayRef<int64_t> dilations,
               int64_t numGroups)
      : batch(input.shape[0]), inChannels(input.shape[1]),
        outChannels(outputShape[1]), groups(numGroups) {
    int64_t numSpatialDims = input.getRank() - 2;
    int64_t skipped = 3 - numSpatialDims;
    for (int64_t i = 0; i < 3; ++i) {
      bool present = i >= skipped;
      int64_t j = i - skipped;
      in[i] = present ? input.shape[2 + j] : 1;
      out[i] = present ? outputShape[2 + j] : 1;
      kernel[i] = present ? kernelShape[j] : 1;
      stride[i] = present ? strides[j] : 1;
      pad[i] = present ? padding[j] : 0;
      dilation[i] = present ? dilations[j] : 1;
    }
  }
  int64_t inVolume() const { return in[0] * in[1] * in[2]; }
  int64_t outVolume() const { return out[0] * out[1] * out[2]; }
  int64_t kernelVolume() const { return kernel[0] * kernel[1] * kernel[2]; }

  /// Walks the kernel window anchored at `base`: for every tap k whose
  /// position base * stride - pad + k * dilation lies inside `extent`, calls
  /// visit(flat position in extent, flat tap). Conv gathers with it (base an
  /// output position, extent the input); conv_transpose scatters (base an
  /// input position, extent the output).
  template <class Visit>
  void forEachTap(const int64_t (&base)[3], const int64_t (&extent)[3],
                  Visit visit) const {
    for (int64_t kd = 0; kd < kernel[0]; ++kd) {
      int64_t d = base[0] * stride[0] - pad[0] + kd * dilation[0];
      if (d < 0 || d >= extent[0])
        continue;
      for (int64_t kh = 0; kh < kernel[1]; ++kh) {
        int64_t h = base[1] * stride[1] - pad[1] + kh * dilation[1];
        if (h < 0 || h >= extent[1])
          continue;
        for (int64_t kw = 0; kw < kernel[2]; ++kw) {
          int64_t w = base[2] * stride[2] - pad[2] + kw * dilation[2];
          if (w < 0 || w >= extent[2])
            continue;
          visit((d * extent[1] + h) * extent[2] + w,
                (kd * kernel[1] + kh) * kernel[2] + kw);
        }
      }
    }
  }
};
} // namespace

Tensor mlir::solder::reference::evalConv(ConvOp op, const Tensor &input,
                                         const Tensor &weight,
                                         const Tensor *bias) {
  Tensor output(op.getResult().getType().getShape());
  ConvGeometry g(input, output.shape, ArrayRef(weight.shape).drop_front(2),
                 op.getStrides(), op.getPadding(), op.getDilations(),
                 op.getGroups());
  int64_t inPerGroup = g.inChannels / g.groups;
  int64_t outPerGroup = g.outChannels / g.groups;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oc = 0; oc < g.outChannels; ++oc) {
      int64_t group = oc / outPerGroup;
      double *out = &output.data[(n * g.outChannels + oc) * g.outVolume()];
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            double sum = bias ? bias->data[oc] : 0.0;
            for (int64_t icg = 0; icg < inPerGroup; ++icg) {
              int64_t ic = group * inPerGroup + icg;
              const double *in =
                  &input.data[(n * g.inChannels + ic) * g.inVolume()];
              const double *w =
                  &weight.data[(oc * inPerGroup + icg) * g.kernelVolume()];
              g.forEachTap({od, oh, ow}, g.in, [&](int64_t at, int64_t tap) {
                sum += in[at] * w[tap];
              });
            }
            out[(od * g.out[1] + oh) * g.out[2] + ow] = sum;
          }
    }
  return output;
}

Tensor mlir::solder::reference::evalConvTranspose(ConvTransposeOp op,
                                                  const Tensor &input,
                                                  const Tensor &weight,
                                                  const Tensor *bias) {
  Tensor output(op.getResult().getType().getShape());
  ConvGeometry g(input, output.shape, ArrayRef(weight.shape).drop_front(2),
                 op.getStrides(), op.getPadding(), op.getDilations(),
                 op.getGroups());
  int64_t inPerGroup = g.inChannels / g.groups;
  int64_t outPerGroup = g.outChannels / g.groups;
  // Scatter form: every input element adds its weighted kernel to the output.
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t ic = 0; ic < g.inChannels; ++ic) {
      int64_t group = ic / inPerGroup;
      const double *in = &input.data[(n * g.inChannels + ic) * g.inVolume()];
      for (int64_t ocg = 0; ocg < outPerGroup; ++ocg) {
        int64_t oc = group * outPerGroup + ocg;
        double *out = &output.data[(n * g.outChannels + oc) * g.outVolume()];
        const double *w =
            &weight.data[(ic * outPerGroup + ocg) * g.kernelVolume()];
        for (int64_t id = 0; id < g.in[0]; ++id)
          for (int64_t ih = 0; ih < g.in[1]; ++ih)
            for (int64_t iw = 0; iw < g.in[2]; ++iw) {
              double x = in[(id * g.in[1] + ih) * g.in[2] + iw];
              g.forEachTap({id, ih, iw}, g.out, [&](int64_t at, int64_t tap) {
                out[at] += x * w[tap];
              });
            }
      }
    }
  if (bias)
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t oc = 0; oc < g.outChannels; ++oc)
        for (int64_t i = 0; i < g.outVolume(); ++i)
          output.data[(n * g.outChannels + oc) * g.outVolume() + i] +=
              bias->data[oc];
  return output;
}
