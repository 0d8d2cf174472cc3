//===- ConvPrologue.cpp - A conv region's prologue functor ----------------===//
//
// What a conv reads at each element of its input when its region computes
// that input (GroupNorm -> SiLU -> conv): the region's pointwise ops before
// the conv, as a functor of (n, c, pixel, x) that the kernel preparing the
// main loop's input applies to each element it loads (conv/layout.cuh:
// toChannelsLast for the tensor-core implicit GEMM, applyPrologue for the
// main loops that read PyTorch's layout). The main loop's zero padding is
// outside the tensor it writes, so a padded position reads 0, not f(0).
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Dialect/Solder/Transforms/FusionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::solder;

FailureOr<ProgramEmitter::ConvPrologue>
ProgramEmitter::emitConvPrologue(FusionOp fusion, Operation *anchor,
                                 ArrayRef<Operation *> ops) {
  std::string name = fusion.getName().str();
  auto inType = cast<RankedTensorType>(anchor->getOperand(0).getType());
  ArrayRef<int64_t> inShape = inType.getShape();
  ConvPrologue prologue;
  // The tensor the kernel loads element by element: the first capture of
  // the input's shape; the others (statistics, affine parameters, a second
  // full-size operand) are the functor's members, read where they broadcast.
  SmallVector<unsigned> captures;
  for (Operation *op : ops) {
    if (!isElementwise(op))
      return op->emitError("the CUDA code generator cannot compute '")
             << op->getName() << "' in a conv prologue (supported: pointwise ops)";
    for (Value operand : op->getOperands()) {
      auto argument = dyn_cast<BlockArgument>(operand);
      if (!argument || argument == prologue.source ||
          llvm::is_contained(captures, argument.getArgNumber()))
        continue;
      if (!prologue.source && argument.getType() == inType) {
        prologue.source = argument;
        continue;
      }
      captures.push_back(argument.getArgNumber());
    }
  }
  if (!prologue.source)
    return anchor->emitError("the CUDA code generator needs a conv prologue to read a "
                             "tensor shaped like the conv input");
  if (getElementType(fusion.getCaptures()[cast<BlockArgument>(prologue.source).getArgNumber()]) !=
      "float")
    return anchor->emitError("the CUDA code generator reads a conv prologue's input in "
                             "float; this one is stored in double");
  llvm::sort(captures);

  prologue.summary = joinOpNames(ops, " -> ");
  os << "// " << name << "_prologue: what " << name << "'s conv reads at input element\n"
     << "// (n, c, pixel) of value x: " << prologue.summary << ".\n"
     << "struct " << name << "_prologue {\n";
  SmallVector<std::string> members;
  for (unsigned index : captures) {
    os << "  " << getCaptureParameter(fusion, index) << ";\n";
    members.push_back("in" + std::to_string(index));
    prologue.parameters.push_back({getCaptureParameter(fusion, index),
                                   getCaptureArg(fusion, fusion.getBodyBlock().getArgument(index))});
  }
  os << "\n  __device__ float operator()(const long i0, const int c, const long pixel,\n"
     << "                              const float x) const {\n"
     << "    [[maybe_unused]] const long i1 = c;\n";
  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  ElementEmitter element(fusion, captureNames, inShape, getDoubleCaptures(fusion));
  element.bind(prologue.source, "x");
  bool narrow = fitsInt(product(inShape.drop_front(2)));
  emitIndexDecomposition(os, "    ", inShape,
                         llvm::to_vector(llvm::seq<int64_t>(2, inType.getRank())),
                         narrow ? "int(pixel)" : "pixel", narrow);
  for (Operation *op : ops)
    if (failed(element.emit(op, os, "    ")))
      return failure();
  os << "    return " << element.get(anchor->getOperand(0)) << ";\n"
     << "  }\n};\n\n";
  prologue.functor = name + "_prologue{" + llvm::join(members, ", ") + "}";
  return prologue;
}
