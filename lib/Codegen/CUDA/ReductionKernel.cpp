//===- ReductionKernel.cpp - A pointwise chain into one reduction ---------===//
//
// A region without a conv whose pointwise chain feeds one reduction (a
// solder.reduce over some dims, or group_stats) becomes
// solder::reduceThreadPerOutput, reduceWarpPerOutput or reduceBlockPerOutput
// (runtime/device/solder/kernel/reduction_kernel.cuh), as the plan's
// #solder.region_launch walks it, over a generated Region functor: the
// output's indices, the chain at one reduced element, the accumulator and
// where the result goes; for a thread per output, also group_normalize's
// (scale, shift) tables that its prologue fills once a block.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "solder/Analysis/RegionLaunch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::solder;

void ProgramEmitter::emitCoefficientTables(FusionOp fusion, ElementEmitter &element,
                                           ArrayRef<int64_t> keptDims, ArrayRef<int64_t> shape,
                                           int64_t outputs, int64_t threads, bool narrow,
                                           std::string &storageFields, std::string &prologue,
                                           bool &firstSample) {
  // A thread per output keeps the batch index of its output: a block's
  // outputs span at most two samples when a sample has 256 outputs or more.
  int64_t perSample = outputs / shape[0];
  bool batchKept = !keptDims.empty() && keptDims.front() == 0;
  if (!batchKept || perSample < threads)
    return;
  StringRef type = narrow ? "int" : "long", suffix = narrow ? "" : "L";
  llvm::raw_string_ostream fields(storageFields), body(prologue);
  // Tables take at most 16 KB of static shared memory together; a
  // group_normalize past that, or whose statistics, weight or bias are not
  // captures (emitCoefficients refuses those), computes per element.
  constexpr int64_t kTableBytes = 16 * 1024;
  int64_t tableBytes = 0;
  unsigned index = 0;
  for (Operation &op : fusion.getBodyBlock().without_terminator()) {
    auto normalize = dyn_cast<GroupNormalizeOp>(op);
    if (!normalize || !isAbsentOrCapture(normalize.getStats()) ||
        !isAbsentOrCapture(normalize.getWeight()) || !isAbsentOrCapture(normalize.getBias()) ||
        element.isCentered(normalize))
      continue;
    int64_t channels = normalize.getInput().getType().getDimSize(1);
    bool acrossBatch = normalize.getStats().getType().getDimSize(0) == 1;
    int64_t samples = acrossBatch ? 1 : 2;
    if (tableBytes + samples * channels * 8 > kTableBytes)
      continue;
    tableBytes += samples * channels * 8;
    std::string table = "normalize" + std::to_string(index++) + "_coefficients";
    if (!acrossBatch && !firstSample) {
      body << "    const " << type << " firstSample = firstOutput / " << perSample << ";\n";
      firstSample = true;
    }
    fields << "    float2 " << table << "[" << samples * channels << "];\n";
    body << "    solder::fillTable<" << samples * channels << ", " << threads << ">(shared."
         << table << ", [&](const int t) {\n";
    if (acrossBatch)
      body << "      [[maybe_unused]] const " << type << " i0 = 0;\n";
    else
      body << "      [[maybe_unused]] const " << type << " i0 = min(firstSample + t / "
           << channels << ", " << shape[0] - 1 << suffix << ");\n";
    body << "      const " << type << " i1 = t % " << channels << ";\n";
    (void)element.emitCoefficients(normalize, body, "      ", "c"); // captures: succeeds
    body << "      return make_float2(c_scale, c_shift);\n"
         << "    });\n";
    element.useCoefficientTable(
        normalize, "shared." + table,
        acrossBatch ? "i1" : "(i0 - firstSample) * " + std::to_string(channels) + " + i1");
  }
}

StringRef mlir::solder::getReduceAccumulator(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::sum: return "SumAccumulator";
  case ReduceKind::mean: return "MeanAccumulator";
  case ReduceKind::max: return "MaxAccumulator";
  case ReduceKind::min: return "MinAccumulator";
  case ReduceKind::prod: return "ProdAccumulator";
  case ReduceKind::logsumexp: return "LogSumExpAccumulator";
  }
  llvm_unreachable("every ReduceKind has an accumulator");
}

LogicalResult ProgramEmitter::emitReductionKernel(FusionOp fusion, Operation *reduction) {
  auto inType = cast<RankedTensorType>(reduction->getOperand(0).getType());
  ArrayRef<int64_t> shape = inType.getShape();
  // Besides its reduction, the region may yield values of the reduced
  // tensor's shape (softmax's exponentials, a pool that its statistics
  // read): each reduced element is visited once, so element() stores them
  // where it computes them.
  YieldOp yield = fusion.getYield();
  std::optional<unsigned> reductionResult;
  SmallVector<std::pair<unsigned, Value>> elementResults;
  for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
    if (value == reduction->getResult(0) && !reductionResult) {
      reductionResult = index;
      continue;
    }
    auto type = cast<RankedTensorType>(value.getType());
    if (!value.getDefiningOp() || value.getDefiningOp() == reduction ||
        type.getShape() != shape)
      return fusion.emitError("the CUDA code generator needs a reduction region to yield "
                              "its reduction and values of the reduced tensor's shape (")
             << inType << "), not " << type;
    elementResults.push_back({unsigned(index), value});
  }
  if (!reductionResult)
    return fusion.emitError("the CUDA code generator needs a reduction region to yield "
                            "its reduction");
  // element() runs before the reduction is done: nothing in it may read it.
  for (Operation *user : reduction->getResult(0).getUsers())
    if (user != yield.getOperation())
      return user->emitError("the CUDA code generator needs a reduction region whose ops "
                             "do not read its reduction");
  std::string reductionOut = "out" + std::to_string(*reductionResult);
  auto stats = dyn_cast<GroupStatsOp>(reduction);
  auto reduce = dyn_cast<ReduceOp>(reduction);
  FailureOr<RegionLaunchAttr> planned = getPlannedRegionLaunch(fusion);
  if (failed(planned))
    return failure();
  const RegionExtent extent = getRegionExtent(fusion);
  const int64_t outputs = extent.outputs, length = extent.length;
  const int64_t threads = planned->getThreads(), chunk = planned->getChunk();
  const RegionWalk walk = planned->getWalk();
  bool threadPerOutput = walk == RegionWalk::thread_per_output;
  // A block per output whose grid holds S blocks an output: each an equal
  // share of its elements (RegionLaunch's split reductions).
  const int64_t splits = walk == RegionWalk::block_per_output ? planned->getGrid()[0] / outputs : 1;
  if (walk == RegionWalk::block_per_output &&
      (planned->getGrid()[0] % outputs != 0 || length % splits != 0))
    return fusion.emitError("the CUDA code generator splits a block-per-output reduction of ")
           << outputs << " outputs of " << length
           << " elements into equal shares: its grid must be a multiple of the outputs whose "
              "quotient divides the elements, got "
           << planned->getGrid()[0] << " blocks";
  SmallVector<int64_t> keptDims, reducedDims;
  if (reduce)
    for (int64_t d = 0; d < inType.getRank(); ++d)
      (llvm::is_contained(reduce.getDims(), d) ? reducedDims : keptDims).push_back(d);
  // A float count is exact up to 2^24: statistics over more elements per
  // group (BatchNorm over a large batch x volume) keep count, mean and M2
  // in double.
  std::string accumulator = length >= (int64_t(1) << 24) ? "WelfordDouble" : "Welford";
  if (reduce)
    accumulator = getReduceAccumulator(reduce.getKind()).str();
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (&op != reduction && !isElementwise(&op) && !isa<PoolOp, AdaptivePoolOp>(op))
      return op.emitError("the CUDA code generator needs a reduction region to "
                          "hold pools, pointwise ops and one reduction, not '")
             << op.getName() << "'";

  std::string name = fusion.getName().str();
  std::string summary = "reduction";
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (!isa<arith::ConstantOp>(op))
      summary += " -> " + op.getName().stripDialect().str();
  summary += threadPerOutput                       ? " (one thread per output)"
             : walk == RegionWalk::warp_per_output ? " (one warp per output)"
             : splits > 1 ? " (" + std::to_string(splits) + " blocks per output)"
                          : " (one block per output)";
  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  ElementEmitter element(fusion, captureNames, shape, getDoubleCaptures(fusion));
  // 32-bit indices where they fit (not for statistics, whose indexing is in
  // 64 bits).
  bool narrowOutputs = !stats && fitsInt(outputs + threads);
  bool narrowLength = !stats && fitsInt(length + chunk * threads);
  StringRef outputType = narrowOutputs ? "int" : "long";
  StringRef lengthType = narrowLength ? "int" : "long";

  // The block's first output (the template's firstOutput): unsigned where
  // the outputs fit 32 bits.
  StringRef firstOutputType = narrowOutputs ? "unsigned" : "long";
  std::string storageFields, prologue;
  bool firstSample = false;
  if (threadPerOutput && reduce)
    emitCoefficientTables(fusion, element, keptDims, shape, outputs, threads, narrowOutputs,
                          storageFields, prologue, firstSample);

  os << getPoolWindows(fusion)
     << "// " << name << "_region: what " << name << " reduces for each output.\n"
     << "struct " << name << "_region {\n"
     << getRegionMembers(fusion) << "  using OutputIndex = " << outputType << ";\n"
     << "  using LengthIndex = " << lengthType << ";\n"
     << "  static constexpr OutputIndex kOutputs = " << outputs << (narrowOutputs ? "" : "L")
     << ";\n"
     << "  static constexpr LengthIndex kLength = " << length << (narrowLength ? "" : "L")
     << ";\n"
     << "  static constexpr int kChunk = " << chunk
     << ", kThreads = " << threads << ";\n"
     << "  using Accumulator = solder::" << accumulator << ";\n"
     << "  using Element = "
     << (element.isDouble(reduction->getOperand(0)) ? "double" : "float") << ";\n";
  if (storageFields.empty()) {
    os << "  struct SharedStorage {};\n";
  } else {
    os << "  // group_normalize's (scale, shift) for each channel of the block's\n"
       << "  // samples, computed once instead of at every element.\n"
       << "  struct SharedStorage {\n"
       << storageFields << "  };\n"
       << "  __device__ void prologue(SharedStorage &shared,\n"
       << "                           [[maybe_unused]] const " << firstOutputType
       << " firstOutput) const {\n"
       << prologue << "  }\n";
  }

  // The output's indices, once per output.
  os << "  struct Output {\n    OutputIndex o;\n";
  for (int64_t dim : keptDims)
    os << "    " << outputType << " i" << dim << ";\n";
  if (firstSample)
    os << "    " << outputType << " firstSample;\n";
  os << "  };\n"
     << "  __device__ Output output(const " << outputType << " o, [[maybe_unused]] const "
     << firstOutputType << " firstOutput) const {\n";
  emitIndexDecomposition(os, "    ", shape, keptDims, "o", narrowOutputs);
  SmallVector<std::string> outputFields = {"o"};
  for (int64_t dim : keptDims)
    outputFields.push_back("i" + std::to_string(dim));
  if (firstSample) {
    os << "    const " << outputType << " firstSample = firstOutput / " << outputs / shape[0]
       << ";\n";
    outputFields.push_back("firstSample");
  }
  os << "    return {" << llvm::join(outputFields, ", ") << "};\n  }\n\n";

  // The chain at reduced element r of the output. r is never negative:
  // told so, the compiler divides it by the dims' constants without a
  // signed division's fix-ups, and folds the decomposition of a group's
  // consecutive elements back into r (the VAE block's statistics: their
  // loop of 8 elements 194 -> 123 PTX lines).
  os << "  __device__ Element element(const Output &at, const " << lengthType
     << " r, [[maybe_unused]] const SharedStorage &shared) const {\n"
     << "    __builtin_assume(r >= 0);\n";
  if (stats) {
    os << "    const long o = at.o;\n";
  } else {
    for (int64_t dim : keptDims)
      os << "    [[maybe_unused]] const " << outputType << " i" << dim << " = at.i" << dim
         << ";\n";
    if (firstSample)
      os << "    const " << outputType << " firstSample = at.firstSample;\n";
  }
  if (stats) {
    // o = (n, g) or g; r runs over the group's channels and spatial dims
    // (and the batch when across_batch). A batch of one indexes without i0.
    int64_t numGroups = stats.getNumGroups();
    int64_t perGroup = shape[1] / numGroups;
    int64_t volume = product(shape.drop_front(2));
    if (stats.getAcrossBatch())
      os << "    [[maybe_unused]] const long i0 = r / " << perGroup * volume << "L;\n";
    else
      os << "    [[maybe_unused]] const long i0 = o / " << numGroups << "L;\n";
    os << "    const long i1 = (o % " << numGroups << "L) * " << perGroup << "L + (r / "
       << volume << "L) % " << perGroup << "L;\n";
    emitIndexDecomposition(os, "    ", shape,
                           llvm::to_vector(llvm::seq<int64_t>(2, shape.size())),
                           "(r % " + std::to_string(volume) + "L)");
  } else {
    emitIndexDecomposition(os, "    ", shape, reducedDims, "r", narrowLength);
  }
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (&op != reduction && failed(element.emit(&op, os, "    ")))
      return failure();
  for (auto [index, value] : elementResults)
    os << "    out" << index << "[" << element.getOffset(shape) << "] = " << element.get(value)
       << ";\n";
  os << "    return " << element.get(reduction->getOperand(0)) << ";\n  }\n\n";

  os << "  __device__ void store(const " << outputType << " o, const Accumulator &acc) const {\n";
  if (stats)
    os << "    " << reductionOut << "[o * 2] = acc.mean;\n    " << reductionOut
       << "[o * 2 + 1] = acc.rstd(" << formatFloat(stats.getEpsilon().convertToDouble())
       << ");\n";
  else
    os << "    " << reductionOut << "[o] = acc.result(" << length << ".0f);\n";
  os << "  }\n};\n\n";

  std::string splitWorkspace;
  if (splits > 1) {
    os << llvm::formatv("// {0}_shares: each block's accumulator of its share of an output's\n"
                        "// elements; {0}_arrivals: an output's blocks that have stored theirs.\n"
                        "__device__ float4 {0}_shares[{1} * "
                        "solder::SplitReductionWorkspace::kVectors];\n"
                        "__device__ unsigned {0}_arrivals[{2}];\n\n",
                        name, outputs * splits, outputs);
    splitWorkspace =
        llvm::formatv(", solder::SplitReductionWorkspace{{{0}_shares, {0}_arrivals}", name).str();
  }
  beginKernel(fusion, name, summary, {planned->getGrid()[0], 1, 1}, {}, threads);
  os << "  solder::"
     << (threadPerOutput                       ? "reduceThreadPerOutput("
         : walk == RegionWalk::warp_per_output ? "reduceWarpPerOutput("
         : splits > 1 ? "reduceBlockPerOutput<" + std::to_string(splits) + ">("
                      : "reduceBlockPerOutput(")
     << name << "_region" << getRegionInitializer(fusion) << splitWorkspace << ");\n}\n\n";
  return success();
}
