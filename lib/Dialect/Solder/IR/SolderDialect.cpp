//===- SolderDialect.cpp - The solder dialect -----------------------------===//

#include "solder/Dialect/Solder/IR/SolderDialect.h"
#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::solder;

#include "solder/Dialect/Solder/IR/SolderOpsDialect.cpp.inc"

#include "solder/Dialect/Solder/IR/SolderEnums.cpp.inc"

/// The optional tail of #solder.implicit_gemm: `, input_grid = [...]`,
/// `, weight_grid = [...]`, `, pixels = across_samples` and `, k_splits =
/// S`, each where present, in that order. (Optional groups that each begin
/// with a comma would commit to the first one at any comma.)
static ParseResult parseImplicitGemmOptionals(AsmParser &parser,
                                              SmallVector<int64_t> &inputGrid,
                                              SmallVector<int64_t> &weightGrid,
                                              PixelTiling &pixels, int64_t &kSplits) {
  pixels = PixelTiling::per_sample;
  kSplits = 1;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "input_grid" || key == "weight_grid") {
      FailureOr<SmallVector<int64_t>> grid;
      if (parser.parseLSquare() ||
          failed(grid = FieldParser<SmallVector<int64_t>>::parse(parser)) ||
          parser.parseRSquare())
        return failure();
      (key == "input_grid" ? inputGrid : weightGrid) = std::move(*grid);
    } else if (key == "pixels") {
      FailureOr<PixelTiling> tiling = FieldParser<PixelTiling>::parse(parser);
      if (failed(tiling))
        return failure();
      pixels = *tiling;
    } else if (key == "k_splits") {
      if (parser.parseInteger(kSplits))
        return failure();
    } else {
      return parser.emitError(at, "expected input_grid, weight_grid, pixels or k_splits, got ")
             << key;
    }
  }
  return success();
}

static void printImplicitGemmOptionals(AsmPrinter &printer, ArrayRef<int64_t> inputGrid,
                                       ArrayRef<int64_t> weightGrid, PixelTiling pixels,
                                       int64_t kSplits) {
  if (!inputGrid.empty())
    printer << ", input_grid = [" << inputGrid << "]";
  if (!weightGrid.empty())
    printer << ", weight_grid = [" << weightGrid << "]";
  if (pixels != PixelTiling::per_sample)
    printer << ", pixels = " << stringifyPixelTiling(pixels);
  if (kSplits != 1)
    printer << ", k_splits = " << kSplits;
}

#define GET_ATTRDEF_CLASSES
#include "solder/Dialect/Solder/IR/SolderAttrs.cpp.inc"

void SolderDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "solder/Dialect/Solder/IR/SolderAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "solder/Dialect/Solder/IR/SolderOps.cpp.inc"
      >();
}

LogicalResult mlir::solder::verifyTensorSizes(Operation *op) {
  auto check = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return success();
    int64_t elements = 1;
    for (int64_t dim : tensor.getShape())
      if (llvm::MulOverflow(elements, dim, elements) || elements > kMaxTensorElements)
        return op->emitOpError("takes or yields ")
               << type << ": more than 2^40 elements, larger than any GPU";
    return success();
  };
  for (Type type : op->getOperandTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(check(type)))
      return failure();
  return success();
}
