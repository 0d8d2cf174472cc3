//===- WgmmaConvForm.h - A conv as the Hopper main loop runs it -*- C++ -*-===//
//
// Apart from ConvSchedule.h: it brings in the device templates' plain
// header (namespace ::solder), which only the planner's and the code
// generator's conv files include.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_WGMMACONVFORM_H
#define SOLDER_ANALYSIS_WGMMACONVFORM_H

#include "mlir/IR/Operation.h"
#include "solder/conv/wgmma_layout.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::solder {

/// The conv or conv_transpose `anchor` as the Hopper main loop would run it
/// (conv/wgmma_layout.h): `fits` says whether it can; the code generator
/// builds the tensor maps from it. `samplesAsPixels`: the GEMM-shaped conv
/// as SamplesAsPixels<G> runs it, its samples the pixels of one sample.
::solder::WgmmaConvForm getWgmmaConvForm(Operation *anchor, bool samplesAsPixels);

/// The output phases of conv_transpose `anchor` of stride > 1 as the Hopper
/// main loop would run them (wgmmaPhaseForm), phase after phase; none for
/// a conv or a stride of 1.
llvm::SmallVector<::solder::WgmmaConvForm> getWgmmaPhaseForms(Operation *anchor);

/// Whether the Hopper main loop runs `anchor`: its form fits, or (a
/// conv_transpose of stride > 1, one group) every output phase's does,
/// each with as many taps.
bool runsOnWgmma(Operation *anchor, bool samplesAsPixels);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_WGMMACONVFORM_H
