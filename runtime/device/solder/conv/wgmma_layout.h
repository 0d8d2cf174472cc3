//===- conv/wgmma_layout.h - The Hopper main loop's sizes and tensor maps -===//
//
// Plain constexpr C++ that the planner (lib/Analysis/ConvSchedule.cpp), the
// code generator (which writes the tensor maps into the manifest, for the
// runtime to encode with cuTensorMapEncodeIm2col / Tiled) and the device
// template (conv/mainloop_implicit_gemm_wgmma.cuh) all include, so that
// the maps the runtime builds are the boxes the main loop waits for.
//
// The main loop reads a conv as the stride-s conv it is, a conv_transpose
// of stride 1 as the conv of its flipped kernel, and one of stride > 1 as
// its output phases (conv/phases.h), each a conv of stride 1 over the
// whole input with an im2col map of its own: its input NDHWC (channels
// padded to 4), its weights KTRSC, 32 channels (128 bytes, one 128-byte
// swizzle row) a step.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_WGMMA_LAYOUT_H
#define SOLDER_CONV_WGMMA_LAYOUT_H

#include "solder/conv/phases.h"
#include "solder/epilogue/accumulator_tile.h"

namespace solder {

/// Channels (TF32 values) of one K step: a 128-byte row.
constexpr int kWgmmaStepChannels = 32;
/// Rows one wgmma covers.
constexpr int kWgmmaRows = 64;
/// Warpgroups that compute (each BM / 2 rows: one or two wgmma row
/// blocks); one more loads.
constexpr int kWgmmaConsumerGroups = 2;
constexpr int kWgmmaThreads = 128 * (kWgmmaConsumerGroups + 1);
/// A stage: BM pixel rows and BN weight rows of 128 bytes, each once for
/// TF32 and twice for 3xTF32 (`parts`: its operands' big and small TF32
/// parts).
constexpr int wgmmaStageBytes(int bm, int bn, int parts) {
  return parts * (bm + bn) * kWgmmaStepChannels * 4;
}
/// The stages, or the accumulator tile that reuses them; then a full and
/// an empty barrier a stage; and 1024 bytes to align the stages to the
/// 128-byte swizzle's 1024-byte atoms.
constexpr int wgmmaSharedBytes(int bm, int bn, int stages, int parts) {
  const int mainLoop = stages * wgmmaStageBytes(bm, bn, parts);
  const int tile = accumulatorTileBytes(bm, bn);
  return 1024 + (mainLoop > tile ? mainLoop : tile) + 2 * stages * 8;
}

/// im2col encodes its corners and tap offsets in 16 bits shared by the
/// spatial dims: corners in [-limit, limit), offsets below
/// im2colOffsetLimit.
constexpr int im2colCornerLimit(int spatialDims) { return 1 << (16 / spatialDims - 1); }
constexpr int im2colOffsetLimit(int spatialDims) { return (1 << (16 / spatialDims)) - 1; }

/// A conv as the Hopper main loop runs it, spatial dims (D, H, W).
struct WgmmaConvForm {
  bool fits = false;
  /// 2: no depth (the 4-D im2col map); 3: NDHWC (5-D).
  int dims = 3;
  int batch = 0, channels = 0, outChannels = 0;
  int in[3] = {}, out[3] = {}, kernel[3] = {}, stride[3] = {}, dilation[3] = {};
  /// The zeros before each dim of the conv it runs: TMA's lower corner is
  /// its negation, and its upper corner the zeros after, less the
  /// kernel's reach.
  int padBefore[3] = {}, padAfter[3] = {};
  constexpr int taps() const { return kernel[0] * kernel[1] * kernel[2]; }
  constexpr int lowerCorner(int d) const { return -padBefore[d]; }
  constexpr int upperCorner(int d) const {
    return padAfter[d] - (kernel[d] - 1) * dilation[d];
  }
  constexpr int channelSteps() const {
    return (channels + kWgmmaStepChannels - 1) / kWgmmaStepChannels;
  }
};

namespace detail {
/// A form's sizes, and its spatial dims: 2 where the conv has no depth.
constexpr WgmmaConvForm wgmmaFormSizes(int batch, int paddedChannels, int outChannels,
                                       const int *in, const int *out, const int *kernel,
                                       const int *pad) {
  WgmmaConvForm form;
  form.batch = batch;
  form.channels = paddedChannels;
  form.outChannels = outChannels;
  form.dims = in[0] == 1 && out[0] == 1 && kernel[0] == 1 && pad[0] == 0 ? 2 : 3;
  for (int d = 0; d < 3; ++d) {
    form.in[d] = in[d];
    form.out[d] = out[d];
  }
  return form;
}

/// Completes a form whose kernel, stride, dilation and zeros before each
/// dim are set: the zeros after each dim, and whether im2col encodes its
/// corners, tap offsets (16 bits shared by the spatial dims) and strides.
constexpr bool wgmmaFormEncodes(WgmmaConvForm &form) {
  for (int d = 0; d < 3; ++d)
    // The last output position's window ends where the zeros after end
    // (negative: it stops short of the input's last positions).
    form.padAfter[d] = (form.out[d] - 1) * form.stride[d] +
                       (form.kernel[d] - 1) * form.dilation[d] - form.padBefore[d] -
                       (form.in[d] - 1);
  const int spatial = form.dims;
  const int cornerLimit = im2colCornerLimit(spatial), offsetLimit = im2colOffsetLimit(spatial);
  bool encodes = true;
  for (int d = 3 - spatial; d < 3; ++d) {
    const int lower = form.lowerCorner(d), upper = form.upperCorner(d);
    encodes = encodes && lower >= -cornerLimit && lower < cornerLimit && upper >= -cornerLimit &&
              upper < cornerLimit && (form.kernel[d] - 1) * form.dilation[d] < offsetLimit &&
              form.stride[d] <= 8;
  }
  return encodes;
}
} // namespace detail

/// The form of a conv (or conv_transpose) of `groups` groups whose input
/// NDHWC holds `paddedChannels` a pixel; fits = false where the main loop
/// cannot run it: a grouped conv, a conv_transpose of stride > 1 (its
/// phases: wgmmaPhaseForm), and corners or tap offsets past what im2col
/// encodes.
constexpr WgmmaConvForm wgmmaConvForm(bool transposed, int groups, int batch, int paddedChannels,
                                      int outChannels, const int *in, const int *out,
                                      const int *kernel, const int *stride, const int *pad,
                                      const int *dilation) {
  WgmmaConvForm form =
      detail::wgmmaFormSizes(batch, paddedChannels, outChannels, in, out, kernel, pad);
  bool fits = groups == 1;
  for (int d = 0; d < 3; ++d) {
    form.kernel[d] = kernel[d];
    form.dilation[d] = dilation[d];
    if (transposed) {
      // Stride 1: the conv of the flipped kernel, padded by its reach less
      // the transpose's padding on both sides (the output's extent says
      // how many positions it has).
      fits = fits && stride[d] == 1;
      form.stride[d] = 1;
      form.padBefore[d] = dilation[d] * (kernel[d] - 1) - pad[d];
    } else {
      form.stride[d] = stride[d];
      form.padBefore[d] = pad[d];
    }
  }
  form.fits = detail::wgmmaFormEncodes(form) && fits;
  return form;
}

/// The tensor maps of a Hopper conv (WgmmaTensorMaps), each a CUtensorMap
/// of 128 bytes at 128 x its index: the input's and the weights' (their
/// big TF32 parts for 3xTF32), then for 3xTF32 their small parts.
enum WgmmaMap : int { kWgmmaInputMap, kWgmmaWeightMap, kWgmmaInputSmallMap, kWgmmaWeightSmallMap };
constexpr int kTensorMapBytes = 128;
constexpr int wgmmaMapOffset(WgmmaMap map) { return kTensorMapBytes * map; }
/// A phased conv_transpose's input map of phase `phase` (`part` 1: its
/// small TF32 part) among `phases` (WgmmaPhaseTensorMaps): phase 0's where
/// a conv's input maps are, the other phases' after the four, big parts
/// first.
constexpr int wgmmaPhaseInputMapOffset(int phase, int part, int phases) {
  return phase == 0 ? wgmmaMapOffset(part ? kWgmmaInputSmallMap : kWgmmaInputMap)
                    : kTensorMapBytes * (4 + part * (phases - 1) + phase - 1);
}

/// A tensor map as cuTensorMapEncodeIm2col or cuTensorMapEncodeTiled takes
/// it, fp32 elements in the 128-byte swizzle, dims innermost first: the
/// runtime encodes it over a workspace buffer.
struct TensorMapSpec {
  bool im2col = false;
  int rank = 0;
  long long dims[5] = {}, byteStrides[4] = {};
  /// Tiled: the box. Im2col: channels a pixel (box[0]) and pixels (box[1]).
  int box[5] = {};
  int elementStrides[5] = {};
  /// Im2col: the corners of each spatial dim, W first.
  int lowerCorner[3] = {}, upperCorner[3] = {};
  /// The entries of box and of each corner that are used.
  constexpr int boxDims() const { return im2col ? 2 : rank; }
  constexpr int cornerDims() const { return im2col ? rank - 2 : 0; }
};

/// Output phase `phase` of a conv_transpose of stride > 1 and `groups`
/// groups as the Hopper main loop runs it: the conv of stride 1 over the
/// whole input that the phase is (conv/phases.h; its taps reversed, as
/// weightsToKtrsc writes the phase's weight block), over ceil(out / stride)
/// positions a dim (Phases' extents: positions past the output are
/// computed and dropped). fits = false for a grouped conv_transpose, a
/// phase with no tap, or corners past what im2col encodes.
constexpr WgmmaConvForm wgmmaPhaseForm(int groups, int batch, int paddedChannels, int outChannels,
                                       const int *in, const int *out, const int *kernel,
                                       const int *stride, const int *pad, const int *dilation,
                                       int phase) {
  WgmmaConvForm form =
      detail::wgmmaFormSizes(batch, paddedChannels, outChannels, in, out, kernel, pad);
  bool fits = groups == 1;
  const int residues[3] = {phase / (stride[1] * stride[2]), phase / stride[2] % stride[1],
                           phase % stride[2]};
  for (int d = 0; d < 3; ++d) {
    const PhaseDim dim = transposedPhaseDim(residues[d], stride[d], kernel[d], pad[d], dilation[d]);
    fits = fits && dim.tapCount > 0;
    form.out[d] = (out[d] + stride[d] - 1) / stride[d];
    form.kernel[d] = dim.tapCount;
    form.stride[d] = 1;
    form.dilation[d] = dim.convDilation;
    form.padBefore[d] = dim.convPad;
  }
  form.fits = detail::wgmmaFormEncodes(form) && fits;
  return form;
}

/// Whether the Hopper main loop runs a conv_transpose's `count` output
/// phases: each fits and has as many taps as the first (their weight
/// blocks are then rows of one tiled map).
constexpr bool wgmmaPhasesFit(const WgmmaConvForm *phases, int count) {
  for (int phase = 0; phase < count; ++phase)
    if (!phases[phase].fits || phases[phase].taps() != phases[0].taps())
      return false;
  return count > 0;
}

/// The input's im2col map: NDHWC (NHWC without depth), BM pixels of 32
/// channels a box.
constexpr TensorMapSpec wgmmaInputMap(const WgmmaConvForm &form, int bm) {
  TensorMapSpec map;
  map.im2col = true;
  map.rank = form.dims + 2;
  long long extent[5] = {form.channels, form.in[2], form.in[1], form.in[0], form.batch};
  int stride[5] = {1, form.stride[2], form.stride[1], form.stride[0], 1};
  int mode = 0;
  long long bytes = 4;
  for (int i = 0; i < 5; ++i) {
    if (form.dims == 2 && i == 3)
      continue; // no depth
    map.dims[mode] = extent[i];
    map.elementStrides[mode] = stride[i];
    if (mode > 0)
      map.byteStrides[mode - 1] = bytes;
    bytes *= extent[i];
    ++mode;
  }
  for (int i = 0; i < form.dims; ++i) {
    map.lowerCorner[i] = form.lowerCorner(2 - i);
    map.upperCorner[i] = form.upperCorner(2 - i);
  }
  map.box[0] = kWgmmaStepChannels;
  map.box[1] = bm;
  return map;
}

/// The weights' tiled map: KTRSC as rows of taps x channels, BN rows of 32
/// a box. A phased conv_transpose's (`phases` > 1, every phase's form of as
/// many taps): its phases' KTRSC blocks one after another, phase p's output
/// channels rows p x K on (a box of BN rows past K reads the next phase's
/// weights into columns the epilogue drops).
constexpr TensorMapSpec wgmmaWeightMap(const WgmmaConvForm &form, int bn, int phases = 1) {
  TensorMapSpec map;
  map.rank = 2;
  map.dims[0] = (long long)form.taps() * form.channels;
  map.dims[1] = (long long)phases * form.outChannels;
  map.byteStrides[0] = map.dims[0] * 4;
  map.box[0] = kWgmmaStepChannels;
  map.box[1] = bn;
  map.elementStrides[0] = map.elementStrides[1] = 1;
  return map;
}

} // namespace solder

#endif // SOLDER_CONV_WGMMA_LAYOUT_H
