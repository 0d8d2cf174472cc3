//===- FusionOps.cpp - solder.fusion: assembly and verifier ---------------===//
//
//   %r:2 = solder.fusion "name" (%a = %x, %b = %w) : (T0, T1) -> (R0, R1)
//       attributes {...} {
//     ...
//     solder.yield %u, %v : R0, R1
//   }
//
//===----------------------------------------------------------------------===//

#include "solder/Dialect/Solder/IR/SolderOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::solder;

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseAttribute(name, getNameAttrName(result.name),
                            result.attributes) ||
      parser.parseLParen())
    return failure();

  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<OpAsmParser::UnresolvedOperand> captures;
  if (failed(parser.parseOptionalRParen())) {
    do {
      OpAsmParser::Argument argument;
      OpAsmParser::UnresolvedOperand capture;
      if (parser.parseArgument(argument) || parser.parseEqual() ||
          parser.parseOperand(capture))
        return failure();
      arguments.push_back(argument);
      captures.push_back(capture);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  }

  SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType type;
  if (parser.parseColonType(type))
    return failure();
  if (type.getNumInputs() != captures.size())
    return parser.emitError(typeLoc, "expected ")
           << captures.size() << " capture types, got " << type.getNumInputs();
  for (auto [argument, argumentType] : llvm::zip(arguments, type.getInputs()))
    argument.type = argumentType;
  if (parser.resolveOperands(captures, type.getInputs(), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());

  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), arguments);
}

void FusionOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printAttributeWithoutType(getNameAttr());
  printer << " (";
  llvm::interleaveComma(
      llvm::zip(getBodyBlock().getArguments(), getCaptures()), printer,
      [&](auto pair) {
        printer << std::get<0>(pair) << " = " << std::get<1>(pair);
      });
  printer << ") : ";
  printer.printFunctionalType(getCaptures().getTypes(), getResultTypes());
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                           {getNameAttrName()});
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult FusionOp::verify() {
  Block &body = getBodyBlock();
  if (body.getNumArguments() != getCaptures().size())
    return emitOpError("has ")
           << getCaptures().size() << " captures but its body takes "
           << body.getNumArguments() << " arguments";
  for (auto [index, capture, argument] :
       llvm::enumerate(getCaptures(), body.getArguments()))
    if (capture.getType() != argument.getType())
      return emitOpError("capture #")
             << index << " has type " << capture.getType()
             << " but its body argument has type " << argument.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end in solder.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ")
           << yield.getValues().getTypes() << " but its results are "
           << getResultTypes();
  return success();
}
