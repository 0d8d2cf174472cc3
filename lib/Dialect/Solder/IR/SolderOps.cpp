//===- SolderOps.cpp - Op definitions and custom assembly -----------------===//
//
// Holds the ODS-generated op definitions and the custom assembly directives
// they use. Verifiers and builders live beside their op family (ConvOps.cpp,
// NormOps.cpp, ...) to keep translation units small.
//
//===----------------------------------------------------------------------===//

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::solder;

/// Binary op types: `T` when lhs, rhs and result share the type T, otherwise
/// `L, R -> Res`.
static ParseResult parseBroadcastTypes(OpAsmParser &parser, Type &lhs,
                                       Type &rhs, Type &result) {
  if (parser.parseType(lhs))
    return failure();
  if (failed(parser.parseOptionalComma())) {
    rhs = result = lhs;
    return success();
  }
  return failure(parser.parseType(rhs) || parser.parseArrow() ||
                 parser.parseType(result));
}

static void printBroadcastTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                                Type rhs, Type result) {
  if (lhs == rhs && rhs == result) {
    printer << lhs;
    return;
  }
  printer << lhs << ", " << rhs << " -> " << result;
}

/// An enum attribute as a bare keyword, e.g. the `sum` of `solder.reduce sum`.
template <typename EnumAttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using EnumT = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc, "unknown ")
           << EnumAttrT::getMnemonic() << " '" << keyword << "'";
  attr = EnumAttrT::get(parser.getContext(), *value);
  return success();
}

template <typename EnumAttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *,
                             EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

#define GET_OP_CLASSES
#include "solder/Dialect/Solder/IR/SolderOps.cpp.inc"
