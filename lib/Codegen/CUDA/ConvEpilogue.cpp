//===- ConvEpilogue.cpp - A conv region's epilogue functor ----------------===//
//
// What a conv region does with each accumulator, as a functor the device
// templates call (epilogue/tile_visit.cuh, fragment_visit.cuh, moments.cuh):
// the bias, the region's pointwise ops (ElementEmitter), the stores of the
// conv-shaped tensors it yields, and its partial reductions per (sample,
// pixel tile, channel) into the partials' one layout
// (epilogue/partials.cuh), or, where the plan says register_moments, each
// tile's channel moments.
//
//===----------------------------------------------------------------------===//

#include "ProgramEmitter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::solder;

FailureOr<SmallVector<std::string>> ProgramEmitter::emitConvEpilogue(
    FusionOp fusion, Operation *anchor, ArrayRef<Operation *> pointwise,
    ArrayRef<EpilogueReduction> reductions, unsigned firstReductionBuffer, int64_t partialSamples,
    int64_t pixelTiles, ConvEpilogueKind epilogueKind, MainLoopKind mainLoop) {
  std::string name = fusion.getName().str();
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  ArrayRef<int64_t> outShape = outType.getShape();
  int64_t channels = outShape[1];
  int64_t volume = product(outShape.drop_front(2));

  // Its members are the kernel's parameters: captures, results, partials.
  SmallVector<RegionParameter> parameters = getRegionParameters(fusion);
  for (auto index : llvm::seq<size_t>(0, reductions.size())) {
    std::string buffer = "ws" + std::to_string(index + firstReductionBuffer);
    parameters.push_back({buffer, "float *__restrict__ " + buffer});
  }
  SmallVector<std::string> members = llvm::to_vector(llvm::map_range(
      parameters, [](const RegionParameter &parameter) { return parameter.name; }));

  std::string epilogueText;
  llvm::raw_string_ostream epilogue(epilogueText);
  // The partial reductions' one layout, for the epilogue that writes them and
  // the finalize kernel that reads them.
  if (!reductions.empty())
    epilogue << "using " << name << "_partials = solder::PartialLayout<" << partialSamples << ", "
             << pixelTiles << ", " << channels << ">;\n\n";
  epilogue << "// " << name << "_epilogue: what " << name
           << " does with each accumulator (conv output element).\n"
           << "struct " << name << "_epilogue {\n";
  for (const RegionParameter &parameter : parameters)
    epilogue << "  " << parameter.declaration << ";\n";
  YieldOp yield = fusion.getYield();
  auto isReduction = [&](Value value) {
    return isEpilogueReduction(reductions, value);
  };
  bool storesElements = !llvm::all_of(yield.getValues(), isReduction);
  // The plan's register_moments: the main loop hands the epilogue each
  // tile's channel moments instead of a tile to visit
  // (runtime/device/solder/epilogue/moments.cuh).
  bool convMoments = epilogueKind == ConvEpilogueKind::register_moments;
  bool shiftedMoments = epilogueKind != ConvEpilogueKind::element_welford;
  epilogue << "  // " << (storesElements ? "Stores conv-shaped tensors."
                                         : "Stores nothing per element: only "
                                           "partial reductions leave.")
           << "\n  static constexpr bool kStoresElements = "
           << (storesElements ? "true" : "false") << ";\n"
           << "  // "
           << (convMoments ? "Reduces the conv output alone: takes each tile's channel "
                             "moments from the main loop."
                           : "Visits each element of the main loop's tile.")
           << "\n  static constexpr bool kConvMoments = " << (convMoments ? "true" : "false")
           << ";\n";
  // Stores channels-last: the tile's visit walks channels fastest, so that
  // a warp's stores (and its reads of a channels-last residual) run along
  // the channels. An output of one pixel a sample (a GEMM, a conv to 1x1)
  // is channels-last however stored: on sm80's main loops a visit down the
  // tile's pixels (its samples) wrote 4 bytes of a 32-byte sector a lane
  // (KernelBench's GEMM chains ran 1-5% slower so on an H200). Not on the
  // Hopper loop: there the 8192^3 GEMM in 3xTF32 ran 11% slower visiting
  // channels fastest (9.5 -> 10.7 ms, no spills; not understood).
  bool onePixel = volume == 1 && mainLoop != MainLoopKind::implicit_gemm_wgmma;
  if (onePixel || llvm::any_of(fusion.getResults(),
                               [&](Value result) { return channelsLastStorage.contains(result); }))
    epilogue << (onePixel ? "  // One pixel a sample: visited channels fastest.\n"
                          : "  // Stores channels-last (NDHWC): visited channels fastest.\n")
             << "  static constexpr bool kChannelsLast = true;\n";

  SmallVector<std::string> captureNames = getCaptureNames(fusion);
  Value bias = anchor->getNumOperands() > 2 ? anchor->getOperand(2) : Value();
  std::string biasElement =
      bias ? captureNames[cast<BlockArgument>(bias).getArgNumber()] + "[i1]" : "";
  // A pixel tile's partials of channel i1 of sample i0 into the reductions'
  // buffers: Welford (count, mean, M2) from `welford`, sums from `sum`.
  auto emitPartialStores = [&](llvm::function_ref<std::string(unsigned)> welford,
                               llvm::function_ref<std::string(unsigned)> sum) {
    if (!reductions.empty())
      epilogue << "    const long slot = " << name << "_partials::slot(i0, pixelTile, i1);\n";
    for (auto [index, reduction] : llvm::enumerate(reductions)) {
      std::string buffer = "ws" + std::to_string(index + firstReductionBuffer);
      epilogue << "    " << name << "_partials::"
               << (reduction.welford ? "storeWelford(" : "storeSum(") << buffer << ", slot, "
               << (reduction.welford ? welford(index) : sum(index)) << ");\n";
    }
  };

  if (convMoments) {
    epilogue << "\n  __device__ float channelOffset([[maybe_unused]] const long i0, "
                "[[maybe_unused]] const long i1) const {\n"
             << "    return " << (bias ? biasElement + ";  // the conv's bias"
                                       : std::string("0.0f;  // no bias"))
             << "\n  }\n\n"
             << "  __device__ void storeMoments(const long i0, const long i1, const long "
                "pixelTile,\n"
             << "                               const solder::ConvMoments &moments) const "
                "{\n";
    emitPartialStores([](unsigned) { return std::string("moments.welford()"); },
                      [](unsigned) { return std::string("float(moments.total())"); });
    epilogue << "  }\n";
  } else {
    epilogue << "  struct Partials {\n";
    SmallVector<std::string> shuffles, merges;
    for (auto [index, reduction] : llvm::enumerate(reductions)) {
      epilogue << "    " << reduction.accumulator(shiftedMoments) << " r" << index
               << ";\n";
      shuffles.push_back("r" + std::to_string(index) + ".shuffleDown(offset, width)");
      merges.push_back("r" + std::to_string(index) + ".merge(other.r" +
                       std::to_string(index) + ");");
    }
    epilogue << "    __device__ Partials shuffleDown([[maybe_unused]] unsigned "
                "offset, [[maybe_unused]] int width) const {\n"
             << "      return {" << llvm::join(shuffles, ", ") << "};\n    }\n"
             << "    __device__ void merge([[maybe_unused]] const Partials "
                "&other) {"
             << (merges.empty() ? "" : " " + llvm::join(merges, " ")) << " }\n"
             << "  };\n\n";

    ElementEmitter element(fusion, captureNames, outShape, getDoubleCaptures(fusion));
    element.setChannelsLastCaptures(getChannelsLastCaptures(fusion));
    element.setSpatialIndex("pixel");
    element.bind(anchor->getResult(0), "conv");
    epilogue << "  __device__ void visit(const long i0, const long i1, const int "
                "pixel, const float acc,\n"
             << "                        [[maybe_unused]] Partials &partials) "
                "const {\n";
    emitIndexDecomposition(epilogue, "    ", outShape,
                           llvm::to_vector(llvm::seq<int64_t>(2, outType.getRank())),
                           "pixel", /*narrow=*/true);
    epilogue << "    const float conv = acc" << (bias ? " + " + biasElement : "") << ";  // "
             << anchor->getName() << "\n";
    for (Operation *op : pointwise)
      if (failed(element.emit(op, epilogue, "    ")))
        return failure();
    for (auto [index, value] : llvm::enumerate(yield.getValues())) {
      if (isReduction(value))
        continue;
      if (channelsLastStorage.contains(fusion.getResult(index)))
        epilogue << "    out" << index << "[(i0 * " << volume << "L + pixel) * " << channels
                 << "L + i1] = "
                 << (isRoundedTF32(fusion, index)
                         ? "solder::roundToTF32(" + element.get(value) +
                               ");  // channels-last, rounded to TF32 for its Hopper readers\n"
                         : element.get(value) + ";  // channels-last\n");
      else
        epilogue << "    out" << index << "[(i0 * " << channels << "L + i1) * " << volume
                 << "L + pixel] = " << element.get(value) << ";\n";
    }
    for (auto [index, reduction] : llvm::enumerate(reductions))
      epilogue << "    partials.r" << index << ".add("
               << element.get(reduction.op->getOperand(0)) << ");\n";
    epilogue << "  }\n\n"
             << "  __device__ void storePartials([[maybe_unused]] const long i0, "
                "[[maybe_unused]] const long i1,\n"
             << "                                [[maybe_unused]] const long "
                "pixelTile,\n"
             << "                                [[maybe_unused]] const Partials "
                "&partials) const {\n";
    emitPartialStores(
        [&](unsigned index) {
          return "partials.r" + std::to_string(index) +
                 (shiftedMoments ? ".welford()" : "");
        },
        [](unsigned index) { return "float(partials.r" + std::to_string(index) + ".sum)"; });
    epilogue << "  }\n";
  }
  epilogue << "};\n\n";
  os << epilogueText;
  return members;
}
