//===- conv/phases.h - conv_transpose's output phases (host, device) ------===//
//
// Plain constexpr C++ that the planner (lib/Analysis/ConvSchedule.cpp) and
// the device templates (conv/geometry.cuh's Phases) share: along one
// spatial dim, which output positions of a conv_transpose form a phase and
// which kernel taps it reduces over, and that phase as a conv of stride 1.
//
// conv_transpose in gather form: output o reads input (o + pad - k *
// dilation) / stride at the taps k where that division is exact, which
// depends on r = (o + pad) % stride alone. The outputs o = first + stride *
// j of residue r read, at taps k = firstTap + tapStep * u,
//   i = j + c0 - u * (tapStep * dilation / stride),
//   c0 = (first + pad - firstTap * dilation) / stride,
// which is a conv of stride 1 over the input with `tapCount` taps in
// reverse order, dilation tapStep * dilation / stride and padding
// (tapCount - 1) * that dilation - c0: a dense problem that a main loop for
// convs runs as it is.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_CONV_PHASES_H
#define SOLDER_CONV_PHASES_H

#ifdef __CUDACC__
#define SOLDER_HOST_DEVICE __host__ __device__
#else
#define SOLDER_HOST_DEVICE
#endif

namespace solder {

/// One dim of a phase: its first output position; its taps, `tapCount` of
/// them from `firstTap` by `tapStep`; and the conv of stride 1 it is, its
/// taps reversed: `convDilation` and `convPad` (negative where even the
/// phase's first output reads past the input's first positions: the phase
/// then reads the input from position -convPad on).
struct PhaseDim {
  int firstOutput, firstTap, tapStep, tapCount, convDilation, convPad;
};

/// The phase of residue `residue` (0 <= residue < stride) of a conv_transpose
/// dim. A stride of 1 is one phase: every output, every tap, the kernel
/// flipped with padding dilation * (kernel - 1) - pad.
constexpr SOLDER_HOST_DEVICE PhaseDim transposedPhaseDim(int residue, int stride, int kernel,
                                                         int pad, int dilation) {
  PhaseDim dim{((residue - pad) % stride + stride) % stride, -1, 1, 0, dilation, 0};
  // Taps k with k * dilation = residue (mod stride): every tapStep-th one
  // from the first.
  for (int k = 0; k < kernel; ++k)
    if (k * dilation % stride == residue) {
      if (dim.firstTap < 0)
        dim.firstTap = k;
      else if (dim.tapCount == 1)
        dim.tapStep = k - dim.firstTap;
      ++dim.tapCount;
    }
  if (dim.tapCount == 0)
    return dim;
  // tapStep * dilation is a multiple of the stride (both taps share the
  // residue); a single tap's dilation is moot.
  dim.convDilation = dim.tapCount > 1 ? dim.tapStep * dilation / stride : 1;
  const int c0 = (dim.firstOutput + pad - dim.firstTap * dilation) / stride;
  dim.convPad = (dim.tapCount - 1) * dim.convDilation - c0;
  return dim;
}

} // namespace solder

#endif // SOLDER_CONV_PHASES_H
