//===- ElementwiseKernel.cpp - A region of pointwise ops ------------------===//
//
// A region without a conv or a reduction (pointwise ops, maybe after a pool)
// becomes solder::runElementwise
// (runtime/device/solder/kernel/elementwise_kernel.cuh) over a generated
// Region functor: what one item computes (the region's ops at one element,
// or at a float4 of consecutive elements) and where its results go, on the
// plan's #solder.region_launch (chunk, vector width, threads, grid).
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

LogicalResult ProgramEmitter::emitElementwiseKernel(FusionOp fusion) {
  YieldOp yield = fusion.getYield();
  auto shapeType = cast<RankedTensorType>(yield.getValues()[0].getType());
  ArrayRef<int64_t> shape = shapeType.getShape();
  for (Value value : yield.getValues())
    if (cast<RankedTensorType>(value.getType()).getShape() != shape)
      return fusion.emitError("the CUDA code generator needs every result of "
                              "an elementwise region to have one shape");
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (cast<RankedTensorType>(op.getResult(0).getType()).getShape() != shape &&
        !isa<arith::ConstantOp>(op))
      return op.emitError("the CUDA code generator needs every op of an "
                          "elementwise region to have the region's shape");
  FailureOr<RegionLaunchAttr> planned = getPlannedRegionLaunch(fusion);
  if (failed(planned))
    return failure();
  // Blocks walk tiles of chunk x threads items (elements, or float4 vectors
  // of 4 consecutive elements).
  const int64_t total = shapeType.getNumElements();
  const int64_t chunk = planned->getChunk(), blocks = planned->getGrid()[0],
                width = planned->getVector(), threads = planned->getThreads();
  const int64_t items = total / width, tileItems = chunk * threads;
  std::string name = fusion.getName().str();
  std::string summary = "elementwise";
  for (Operation &op : fusion.getBodyBlock().without_terminator())
    if (!isa<arith::ConstantOp>(op))
      summary += " -> " + op.getName().stripDialect().str();
  if (width > 1)
    summary += " (float" + std::to_string(width) + ")";

  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  ElementEmitter element(fusion, captureNames, shape, getDoubleCaptures(fusion));
  bool narrow = fitsInt(total + blocks * tileItems * width);
  StringRef type = narrow ? "int" : "long", suffix = narrow ? "" : "L";
  std::string itemType = width > 1 ? "float" + std::to_string(width) : "float";
  StringRef item = width > 1 ? "v" : "e";
  unsigned numResults = yield.getNumOperands();

  // The Region functor: members, the walk's constants, an item's results.
  os << getPoolWindows(fusion) << "// " << name << "_region: what each " << (width > 1 ? "vector" : "element")
     << " of " << name << " computes.\n"
     << "struct " << name << "_region {\n"
     << getRegionMembers(fusion) << "  using Index = " << type << ";\n"
     << "  static constexpr Index kItems = " << items << suffix << ";\n"
     << "  static constexpr int kChunk = " << chunk << ", kThreads = " << threads << ";\n"
     << "  struct Item {\n";
  for (unsigned index = 0; index < numResults; ++index)
    os << "    " << itemType << " result" << index << ";\n";
  os << "  };\n\n"
     << "  __device__ Item compute(const " << type << " " << item << ") const {\n";
  auto emitBody = [&](StringRef indent) -> LogicalResult {
    for (Operation &op : fusion.getBodyBlock().without_terminator())
      if (failed(element.emit(&op, os, indent)))
        return failure();
    return success();
  };
  auto allDims = llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
  SmallVector<std::string> results;
  if (width == 1) {
    emitIndexDecomposition(os, "    ", shape, allDims, "e", narrow);
    if (failed(emitBody("    ")))
      return failure();
    for (Value value : yield.getValues())
      results.push_back(element.get(value));
  } else {
    // The dims before the tail are the vector's (its lanes share them); the
    // tail's dims are each lane's, from its position in the tail: tailBase
    // + lane.
    int64_t tailStart = *getVectorTailStart(fusion, shape);
    int64_t tail = product(shape.drop_front(tailStart));
    auto outerDims = ArrayRef(allDims).take_front(tailStart);
    auto tailDims = ArrayRef(allDims).drop_front(tailStart);
    emitIndexDecomposition(os, "    ", shape, outerDims,
                           llvm::formatv("(v / {0}{1})", tail / width, suffix).str(), narrow);
    os << "    const " << type << " tailBase = (v % " << tail / width << suffix << ") * "
       << width << ";\n";
    // Captures read per element and dense over the tail: one vector load at
    // the first lane's offset, then a lane at a time.
    for (BlockArgument argument : fusion.getBodyBlock().getArguments()) {
      if (!isReadPerElement(argument) || isBroadcastAlongTail(argument, shape, tailStart))
        continue; // the same element for every lane
      ArrayRef<int64_t> dims = cast<RankedTensorType>(argument.getType()).getShape();
      const std::string &capture = captureNames[argument.getArgNumber()];
      os << "    float " << capture << "_lanes[" << width << "];\n"
         << "    {\n";
      emitIndexDecomposition(os, "      ", shape, tailDims, "tailBase", narrow);
      os << "      const " << itemType << " loaded = *reinterpret_cast<const " << itemType
         << " *>(" << capture << " + " << element.getOffset(dims) << ");\n";
      for (int64_t lane = 0; lane < width; ++lane)
        os << "      " << capture << "_lanes[" << lane << "] = loaded." << "xyzw"[lane]
           << ";\n";
      os << "    }\n";
      element.bind(argument, capture + "_lanes[lane]");
    }
    // Pools whose lanes are consecutive outputs of one row: their windows
    // overlap, and poolWindows reads each input row they span once.
    if (shape.back() % width == 0)
      for (PoolOp pool : fusion.getBodyBlock().getOps<PoolOp>()) {
        std::string firstIndex;
        llvm::raw_string_ostream firstIndexStream(firstIndex);
        emitIndexDecomposition(firstIndexStream, "      ", shape, tailDims, "tailBase", narrow);
        if (failed(element.emitPoolLanes(pool, width, firstIndex, os, "    ")))
          return failure();
      }
    for (unsigned index = 0; index < numResults; ++index)
      os << "    float result" << index << "_lanes[" << width << "];\n";
    os << "#pragma unroll\n"
       << "    for (int lane = 0; lane < " << width << "; ++lane) {\n";
    emitIndexDecomposition(os, "      ", shape, tailDims, "(tailBase + lane)", narrow);
    if (failed(emitBody("      ")))
      return failure();
    for (auto [index, value] : llvm::enumerate(yield.getValues()))
      os << "      result" << index << "_lanes[lane] = " << element.get(value) << ";\n";
    os << "    }\n";
    for (unsigned index = 0; index < numResults; ++index) {
      std::string lanes;
      for (int64_t lane = 0; lane < width; ++lane)
        lanes += (lane ? ", result" : "result") + std::to_string(index) + "_lanes[" +
                 std::to_string(lane) + "]";
      results.push_back("make_" + itemType + "(" + lanes + ")");
    }
  }
  os << "    return {" << llvm::join(results, ", ") << "};\n"
     << "  }\n\n"
     << "  __device__ void store(const " << type << " " << item
     << ", const Item &results) const {\n";
  for (unsigned index = 0; index < numResults; ++index)
    if (width == 1)
      os << "    out" << index << "[e] = results.result" << index << ";\n";
    else
      os << "    reinterpret_cast<" << itemType << " *>(out" << index << ")[v] = results.result"
         << index << ";\n";
  os << "  }\n};\n\n";

  beginKernel(fusion, name, summary, {blocks, 1, 1}, {}, threads);
  os << "  solder::runElementwise(" << name << "_region" << getRegionInitializer(fusion)
     << ");\n}\n\n";
  return success();
}
