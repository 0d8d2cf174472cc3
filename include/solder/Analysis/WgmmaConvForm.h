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

namespace mlir::solder {

/// The conv or conv_transpose `anchor` as the Hopper main loop would run it
/// (conv/wgmma_layout.h): `fits` says whether it can; the code generator
/// builds the tensor maps from it. `samplesAsPixels`: the GEMM-shaped conv
/// as SamplesAsPixels<G> runs it, its samples the pixels of one sample.
::solder::WgmmaConvForm getWgmmaConvForm(Operation *anchor, bool samplesAsPixels);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_WGMMACONVFORM_H
