//===- RowsKernel.cpp - Small GEMMs and pointwise ops, a block a row ------===//
//
// A rows region (isRowRegion: squeeze-excitation's conv -> act -> conv ->
// sigmoid, a classifier head) becomes solder::runRows
// (runtime/device/solder/kernel/rows_kernel.cuh) over a generated Region
// functor whose computeRow is the chain in program order: each conv a
// solder::linearRow into a row of shared memory, each run of pointwise ops
// on one shape a loop over the row's channels, a barrier between them.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Analysis/RegionLaunch.h"
#include "solder/Dialect/Solder/Transforms/FusionUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::solder;

namespace {
int64_t getWidth(Value value) {
  return cast<RankedTensorType>(value.getType()).getDimSize(1);
}
} // namespace

LogicalResult ProgramEmitter::emitRowsKernel(FusionOp fusion) {
  FailureOr<RegionLaunchAttr> planned = getPlannedRegionLaunch(fusion);
  if (failed(planned))
    return failure();
  if (planned->getWalk() != RegionWalk::block_per_row)
    return fusion.emitError("the CUDA code generator runs a region of small GEMMs a block "
                            "per row; the plan gives it ")
           << *planned;
  Block &body = fusion.getBodyBlock();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    if (!isa<arith::ConstantOp>(op))
      ops.push_back(&op);
  const int64_t rows = cast<RankedTensorType>(ops.front()->getResult(0).getType()).getDimSize(0);
  for (Operation *op : ops) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (type.getDimSize(0) != rows ||
        !llvm::all_of(type.getShape().drop_front(2), [](int64_t d) { return d == 1; }))
      return op->emitError("the CUDA code generator needs every value of a region of small "
                           "GEMMs to be one row of ")
             << rows << " (a sample's channels), got " << type;
  }
  const int64_t threads = planned->getThreads();
  const std::string name = fusion.getName().str();
  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  SmallVector<bool> doubleCaptures = getDoubleCaptures(fusion);

  // Which results each value is yielded as.
  DenseMap<Value, SmallVector<unsigned>> yieldedAs;
  for (auto [index, value] : llvm::enumerate(fusion.getYield().getValues()))
    yieldedAs[value].push_back(index);

  // A shared row per conv result, per value a later op reads, per capture
  // a conv reads.
  std::string storage, code;
  llvm::raw_string_ostream fields(storage), row(code);
  DenseMap<Value, std::string> rowOf;
  auto addRow = [&](Value value, std::string field, StringRef what) {
    fields << "    float " << field << "[" << getWidth(value) << "]; // " << what << "\n";
    rowOf[value] = "shared." + field;
  };
  auto storeResults = [&](Value value, StringRef expression, StringRef indent) {
    for (unsigned index : yieldedAs.lookup(value))
      row << indent << "out" << index << "[i0 * " << getWidth(value) << " + i1] = " << expression
         << ";\n";
  };

  // Pointwise ops wait here until a conv, or an op of another shape, needs
  // them computed: one loop over the row a run.
  SmallVector<Operation *> pending;
  // Whether an op after the pending run reads `value` (one in the run reads
  // its local).
  auto isUsedLater = [&](Value value) {
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      return !isa<YieldOp>(user) && !llvm::is_contained(pending, user);
    });
  };
  auto flushPointwise = [&]() -> LogicalResult {
    if (pending.empty())
      return success();
    ArrayRef<int64_t> shape = cast<RankedTensorType>(pending.front()->getResult(0).getType()).getShape();
    ElementEmitter element(fusion, captureNames, shape, doubleCaptures);
    for (auto &[value, row] : rowOf)
      element.bind(value, row + "[i1]");
    row << "    // " << joinOpNames(pending, " -> ") << "\n"
       << "    for (int i1 = threadIdx.x; i1 < " << shape[1] << "; i1 += kThreads) {\n";
    for (size_t dim = 2; dim < shape.size(); ++dim)
      row << "      [[maybe_unused]] const int i" << dim << " = 0;\n";
    for (Operation *op : pending)
      if (failed(element.emit(op, row, "      ")))
        return failure();
    for (Operation *op : pending) {
      Value result = op->getResult(0);
      std::string expression = element.get(result);
      if (isUsedLater(result)) {
        std::string field = "row" + std::to_string(rowOf.size());
        addRow(result, field, op->getName().stripDialect());
        row << "      shared." << field << "[i1] = " << expression << ";\n";
      }
      storeResults(result, expression, "      ");
    }
    row << "    }\n    __syncthreads();\n";
    pending.clear();
    return success();
  };

  SmallVector<std::string> steps;
  for (Operation *op : ops) {
    auto conv = dyn_cast<ConvOp>(op);
    if (!conv) {
      if (!pending.empty() &&
          op->getResult(0).getType() != pending.front()->getResult(0).getType() &&
          failed(flushPointwise()))
        return failure();
      for (Value operand : op->getOperands())
        if (rowOf.count(operand) &&
            cast<RankedTensorType>(operand.getType()).getShape() !=
                cast<RankedTensorType>(op->getResult(0).getType()).getShape())
          return op->emitError("the CUDA code generator needs a region of small GEMMs to read "
                               "its own values at the element it computes");
      pending.push_back(op);
      steps.push_back(op->getName().stripDialect().str());
      continue;
    }
    if (failed(flushPointwise()))
      return failure();
    if (!isAbsentOrCapture(conv.getWeight()) || !isAbsentOrCapture(conv.getBias()))
      return conv.emitError("the CUDA code generator needs the weights and bias of a small "
                            "GEMM to be inputs of its region");
    const int64_t inputs = getWidth(conv.getInput()), outputs = getWidth(conv.getResult());
    Value input = conv.getInput();
    if (!rowOf.count(input)) {
      // A capture (N, C, 1, ...): the row is C consecutive floats.
      const std::string &capture = captureNames[cast<BlockArgument>(input).getArgNumber()];
      std::string field = capture + "_row";
      addRow(input, field, "a conv's input");
      row << "    for (int i1 = threadIdx.x; i1 < " << inputs << "; i1 += kThreads)\n"
         << "      shared." << field << "[i1] = " << capture << "[i0 * " << inputs
         << " + i1];\n"
         << "    __syncthreads();\n";
    }
    std::string field = "row" + std::to_string(rowOf.size());
    addRow(conv.getResult(), field, "conv");
    auto captureOf = [&](Value value) {
      return value ? captureNames[cast<BlockArgument>(value).getArgNumber()]
                   : std::string("nullptr");
    };
    row << "    // conv " << inputs << " -> " << outputs << (conv.getBias() ? " + bias" : "")
       << "\n"
       << "    solder::linearRow<" << inputs << ", " << outputs << ", kThreads>("
       << rowOf[input] << ", " << captureOf(conv.getWeight()) << ", "
       << captureOf(conv.getBias()) << ", shared." << field << ");\n"
       << "    __syncthreads();\n";
    if (yieldedAs.count(conv.getResult())) {
      row << "    for (int i1 = threadIdx.x; i1 < " << outputs << "; i1 += kThreads) {\n";
      storeResults(conv.getResult(), "shared." + field + "[i1]", "      ");
      row << "    }\n";
    }
    steps.push_back(llvm::formatv("conv ({0} -> {1})", inputs, outputs).str());
  }
  if (failed(flushPointwise()))
    return failure();

  row.flush();
  fields.flush();
  os << "// " << name << "_region: a row (sample) of " << name
           << ", every value of the row in shared memory.\n"
           << "struct " << name << "_region {\n"
           << getRegionMembers(fusion) << "  static constexpr int kRows = " << rows
           << ", kThreads = " << threads << ";\n"
           << "  struct SharedStorage {\n"
           << storage << "  };\n\n"
           << "  __device__ void computeRow(const int i0, SharedStorage &shared) const {\n"
           << code << "  }\n};\n\n";
  beginKernel(fusion, name, "a block per row: " + llvm::join(steps, " -> "),
              {planned->getGrid()[0], 1, 1}, {}, threads);
  os << "  solder::runRows(" << name << "_region" << getRegionInitializer(fusion)
           << ");\n}\n\n";
  return success();
}
