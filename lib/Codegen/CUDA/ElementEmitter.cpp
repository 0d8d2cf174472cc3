//===- ElementEmitter.cpp - Pointwise ops as CUDA expressions -------------===//

#include "ElementEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::solder;

std::string mlir::solder::formatFloat(double value) {
  if (std::isnan(value))
    return "CUDART_NAN_F";
  if (std::isinf(value))
    return value > 0 ? "CUDART_INF_F" : "(-CUDART_INF_F)";
  // Nine significant digits round-trip every float.
  std::string text = llvm::formatv("{0:e8}", static_cast<float>(value)).str();
  return text + "f";
}

std::string mlir::solder::joinIntegers(ArrayRef<int64_t> values, StringRef separator) {
  return llvm::join(llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
                    separator);
}

std::string mlir::solder::formatSpatial3(ArrayRef<int64_t> values, int64_t fill) {
  SmallVector<int64_t> three(3 - values.size(), fill);
  llvm::append_range(three, values);
  return "{" + joinIntegers(three, ", ") + "}";
}

bool mlir::solder::isElementwise(Operation *op) {
  return isa<arith::ConstantOp, GroupNormalizeOp, AddOp, SubOp, MulOp, DivOp,
             MaximumOp, MinimumOp, PowOp>(op) ||
         (isa<SolderDialect>(op->getDialect()) &&
          op->hasTrait<OpTrait::Elementwise>());
}

std::string ElementEmitter::getOffset(ArrayRef<int64_t> shape) const {
  int64_t rank = iterationShape.size();
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  std::string expression;
  int64_t stride = 1;
  int64_t last = static_cast<int64_t>(shape.size()) - 1;
  if (hasSpatialIndex(shape)) {
    expression = spatialIndex;
    stride = ShapedType::getNumElements(shape.drop_front(2));
    last = 1;
  }
  for (int64_t d = last; d >= 0; --d) {
    if (shape[d] != 1) {
      std::string term = "i" + std::to_string(d + offset);
      if (stride != 1)
        term += " * " + std::to_string(stride) + "L";
      expression = expression.empty() ? term : term + " + " + expression;
    }
    stride *= shape[d];
  }
  return expression.empty() ? "0" : expression;
}

std::string ElementEmitter::get(Value value) {
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto type = cast<RankedTensorType>(value.getType());
    unsigned number = argument.getArgNumber();
    if (number < channelsLastCaptures.size() && channelsLastCaptures[number]) {
      // NDHWC: ((i0 * volume + spatial) * channels + i1), the plan's reader
      // at its own element (the capture has the iteration shape).
      ArrayRef<int64_t> shape = type.getShape();
      std::string spatial = shape.size() > 2 ? "i2" : "0";
      if (hasSpatialIndex(shape))
        spatial = spatialIndex;
      else
        for (size_t dim = 3; dim < shape.size(); ++dim)
          spatial = "(" + spatial + " * " + std::to_string(shape[dim]) + " + i" +
                    std::to_string(dim) + ")";
      return captureNames[number] + "[(i0 * " + std::to_string(ShapedType::getNumElements(shape.drop_front(2))) +
             "L + " + spatial + ") * " + std::to_string(shape[1]) + "L + i1]";
    }
    return captureNames[number] + "[" + getOffset(type.getShape()) + "]";
  }
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    if (auto elements = dyn_cast<DenseFPElementsAttr>(constant.getValue()))
      if (elements.isSplat())
        return formatFloat(elements.getSplatValue<APFloat>().convertToDouble());
  return "/*unbound value*/";
}

/// `x / divisor` for a splat constant divisor: a multiply by the rounded
/// reciprocal (within 1.5 ulp of the division, exact for powers of two). A
/// true fp32 division is a dozen instructions: in W3's tail (hardswish's
/// / 6 for each of 130 M elements) it took 0.15 of 0.36 ms.
static std::optional<std::string> divideByConstant(const std::string &x,
                                                   Value divisor) {
  auto constant = divisor.getDefiningOp<arith::ConstantOp>();
  auto elements =
      constant ? dyn_cast<DenseFPElementsAttr>(constant.getValue()) : nullptr;
  if (!elements || !elements.isSplat())
    return std::nullopt;
  double value = elements.getSplatValue<APFloat>().convertToDouble();
  float reciprocal = 1.0f / static_cast<float>(value);
  if (!std::isnormal(reciprocal))
    return std::nullopt; // zero, infinities, NaN, subnormals: the division
  return x + " * " + formatFloat(reciprocal);
}

/// clamp that lets NaN through (fminf/fmaxf would drop it).
static std::string clampNaN(const std::string &x, double low, double high) {
  return "solder::clampNaN(" + x + ", " + formatFloat(low) + ", " +
         formatFloat(high) + ")";
}

bool ElementEmitter::isCentered(GroupNormalizeOp normalize) const {
  auto isDoubleCapture = [&](Value value) {
    auto argument = dyn_cast<BlockArgument>(value);
    return argument && argument.getArgNumber() < doubleCaptures.size() &&
           doubleCaptures[argument.getArgNumber()];
  };
  return isDoubleCapture(normalize.getInput()) && isDoubleCapture(normalize.getStats());
}

bool ElementEmitter::isDouble(Value value) const {
  auto normalize = value.getDefiningOp<GroupNormalizeOp>();
  if (!normalize || !isCentered(normalize) || !value.hasOneUse())
    return false;
  auto reduce = dyn_cast<ReduceOp>(*value.user_begin());
  return reduce &&
         (reduce.getKind() == ReduceKind::sum || reduce.getKind() == ReduceKind::mean);
}

namespace {
/// The capture parameters group_normalize reads and where its (n, group)
/// statistics sit: stats[index] is the mean, stats[index + 1] the rstd.
struct NormalizeOperands {
  std::string stats, weight, bias, index;
};
} // namespace

static FailureOr<NormalizeOperands>
getNormalizeOperands(GroupNormalizeOp normalize, ArrayRef<std::string> captureNames) {
  // Statistics and affine parameters come from outside the region
  // (reduction barrier).
  auto pointer = [&](Value value) -> std::string {
    auto argument = dyn_cast_or_null<BlockArgument>(value);
    return argument ? captureNames[argument.getArgNumber()] : "";
  };
  NormalizeOperands operands{pointer(normalize.getStats()),
                             pointer(normalize.getWeight()),
                             pointer(normalize.getBias()), ""};
  if (operands.stats.empty() || (normalize.getWeight() && operands.weight.empty()) ||
      (normalize.getBias() && operands.bias.empty()))
    return normalize.emitError("the CUDA code generator needs the statistics, "
                               "weight and bias of group_normalize to be captures");
  int64_t channels = normalize.getInput().getType().getDimSize(1);
  int64_t groups = normalize.getNumGroups();
  bool acrossBatch = normalize.getStats().getType().getDimSize(0) == 1;
  operands.index = llvm::formatv("({0} * {1} + i1 / {2}) * 2", acrossBatch ? "0" : "i0",
                                 groups, channels / groups)
                       .str();
  return operands;
}

LogicalResult ElementEmitter::emitCoefficients(GroupNormalizeOp normalize,
                                               raw_ostream &os, StringRef indent,
                                               StringRef name) {
  // a = rstd * weight[c], b = bias[c] - mean * a, with the statistics of
  // sample n (or of the whole batch) and group g = c / (C / G).
  FailureOr<NormalizeOperands> operands = getNormalizeOperands(normalize, captureNames);
  if (failed(operands))
    return failure();
  const auto &[stats, weight, bias, index] = *operands;
  os << indent << "const float " << name << "_scale = " << stats << "[" << index
     << " + 1]" << (weight.empty() ? "" : " * " + weight + "[i1]") << ";\n";
  os << indent << "const float " << name << "_shift = "
     << (bias.empty() ? "" : bias + "[i1] ") << "- " << stats << "[" << index
     << "] * " << name << "_scale;\n";
  return success();
}

std::string mlir::solder::getWindowName(Operation *pool) {
  auto fusion = pool->getParentOfType<FusionOp>();
  unsigned index = 0;
  for (Operation &op : fusion.getBodyBlock()) {
    if (&op == pool)
      break;
    index += isa<PoolOp, AdaptivePoolOp>(op);
  }
  return (fusion.getName() + "_window" + Twine(index)).str();
}

std::string mlir::solder::describeWindow(AdaptivePoolOp pool) {
  return stringifyPoolKind(pool.getKind()).str() + " to " +
         joinIntegers(pool.getType().getShape().drop_front(2), "x");
}

std::string mlir::solder::describeWindow(PoolOp pool) {
  auto dims = [](ArrayRef<int64_t> values) { return joinIntegers(values, "x"); };
  std::string text = stringifyPoolKind(pool.getKind()).str() + " " + dims(pool.getKernel()) +
                     ", stride " + dims(pool.getStrides());
  if (llvm::any_of(pool.getPadding(), [](int64_t p) { return p != 0; }))
    text += ", padding " + dims(pool.getPadding());
  if (llvm::any_of(pool.getDilations(), [](int64_t d) { return d != 1; }))
    text += ", dilation " + dims(pool.getDilations());
  if (pool.getCeilMode())
    text += ", ceil_mode";
  return text;
}

std::string mlir::solder::getPoolWindows(FusionOp fusion) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto pool : fusion.getBodyBlock().getOps<AdaptivePoolOp>()) {
    ArrayRef<int64_t> input = pool.getX().getType().getShape().drop_front(2);
    os << "// " << fusion.getName() << "'s pool: " << describeWindow(pool) << " from "
       << joinIntegers(input, "x") << " (PyTorch's adaptive windows).\n"
       << "struct " << getWindowName(pool) << " {\n"
       << "  static constexpr solder::PoolKind kKind = solder::PoolKind::"
       << stringifyPoolKind(pool.getKind()) << ";\n"
       << "  static constexpr int kIn[3] = " << formatSpatial3(input, 1)
       << ", kOut[3] = " << formatSpatial3(pool.getType().getShape().drop_front(2), 1)
       << ";\n};\n\n";
  }
  for (auto pool : fusion.getBodyBlock().getOps<PoolOp>()) {
    // 1-D and 2-D pools as 3-D ones with leading dims of size 1.
    ArrayRef<int64_t> input = pool.getX().getType().getShape().drop_front(2);
    std::optional<int64_t> divisor = pool.getDivisorOverride();
    os << "// " << fusion.getName() << "'s pool: " << describeWindow(pool) << " over "
       << joinIntegers(input, "x") << ".\n"
       << "struct " << getWindowName(pool) << " {\n"
       << "  static constexpr solder::PoolKind kKind = solder::PoolKind::"
       << stringifyPoolKind(pool.getKind()) << ";\n"
       << "  static constexpr int kIn[3] = " << formatSpatial3(input, 1)
       << ", kKernel[3] = " << formatSpatial3(pool.getKernel(), 1) << ",\n"
       << "                       kStride[3] = " << formatSpatial3(pool.getStrides(), 1)
       << ", kPadding[3] = " << formatSpatial3(pool.getPadding(), 0)
       << ", kDilation[3] = " << formatSpatial3(pool.getDilations(), 1) << ";\n"
       << "  static constexpr bool kCountIncludePad = "
       << (pool.getCountIncludePad() ? "true" : "false") << ";\n"
       << "  static constexpr int kDivisor = " << divisor.value_or(0)
       << ";  // divisor_override, 0: none\n"
       << "};\n\n";
  }
  return text;
}

FailureOr<std::string> ElementEmitter::getPoolArguments(Operation *pool) const {
  auto input = dyn_cast<BlockArgument>(pool->getOperand(0));
  if (!input || iterationShape != cast<RankedTensorType>(pool->getResult(0).getType()).getShape())
    return pool->emitError("the CUDA code generator needs a pool to read its "
                           "input from an earlier kernel, at the region's shape");
  // The plane (n, c), then the output's spatial coordinates, as 3-D.
  int64_t spatial = iterationShape.size() - 2;
  SmallVector<std::string> coordinates(3 - spatial, "0");
  for (int64_t d = 0; d < spatial; ++d)
    coordinates.push_back("i" + std::to_string(d + 2));
  return captureNames[input.getArgNumber()] + ", i0 * " + std::to_string(iterationShape[1]) +
         "L + i1, " + llvm::join(coordinates, ", ");
}

LogicalResult ElementEmitter::emitPoolLanes(PoolOp pool, int64_t lanes, StringRef firstIndex,
                                            raw_ostream &os, StringRef indent) {
  FailureOr<std::string> arguments = getPoolArguments(pool);
  if (failed(arguments))
    return failure();
  std::string name = "v" + std::to_string(nextId++) + "_lanes";
  os << indent << "float " << name << "[" << lanes << "];\n"
     << indent << "{\n"
     << firstIndex << indent << "  solder::poolWindows<" << getWindowName(pool) << ", " << lanes
     << ">(" << *arguments << ", " << name << ");  // solder.pool " << describeWindow(pool)
     << "\n"
     << indent << "}\n";
  bind(pool.getResult(), name + "[lane]");
  return success();
}

LogicalResult ElementEmitter::emit(Operation *op, raw_ostream &os,
                                   StringRef indent) {
  if (isa<arith::ConstantOp>(op))
    return success(); // printed inline as literals
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };
  std::string name = "v" + std::to_string(nextId++);

  if (isa<PoolOp, AdaptivePoolOp>(op)) {
    if (names.contains(op->getResult(0)))
      return success(); // a vector's lanes at once (emitPoolLanes)
    FailureOr<std::string> arguments = getPoolArguments(op);
    if (failed(arguments))
      return failure();
    auto adaptive = dyn_cast<AdaptivePoolOp>(op);
    os << indent << "const float " << name << " = solder::"
       << (adaptive ? "adaptivePoolWindow<" : "poolWindow<") << getWindowName(op) << ">("
       << *arguments << ");  // solder."
       << (adaptive ? "adaptive_pool " + describeWindow(adaptive)
                    : "pool " + describeWindow(cast<PoolOp>(op)))
       << "\n";
    bind(op->getResult(0), name);
    return success();
  }

  if (auto normalize = dyn_cast<GroupNormalizeOp>(op)) {
    auto table = coefficientTables.find(op);
    if (isCentered(normalize)) {
      // Input and mean near the same large value cancel: subtract them in
      // double, where they were computed.
      FailureOr<NormalizeOperands> operands = getNormalizeOperands(normalize, captureNames);
      if (failed(operands))
        return failure();
      const auto &[stats, weight, bias, index] = *operands;
      bool keepDouble = isDouble(normalize.getResult());
      os << indent << (keepDouble ? "const double " : "const float ") << name
         << (keepDouble ? " = (" : " = float((") << operand(0) << " - " << stats << "["
         << index << "]) * " << stats << "[" << index << " + 1]"
         << (weight.empty() ? "" : " * " + weight + "[i1]")
         << (bias.empty() ? "" : " + " + bias + "[i1]")
         << (keepDouble ? ";  // solder.group_normalize, centered in double, kept double\n"
                        : ");  // solder.group_normalize, centered in double\n");
    } else if (table != coefficientTables.end()) {
      os << indent << "const float2 " << name << "_coefficients = "
         << table->second.first << "[" << table->second.second << "];\n"
         << indent << "const float " << name << " = " << operand(0) << " * "
         << name << "_coefficients.x + " << name
         << "_coefficients.y;  // solder.group_normalize\n";
    } else {
      if (failed(emitCoefficients(normalize, os, indent, name)))
        return failure();
      os << indent << "const float " << name << " = " << operand(0) << " * "
         << name << "_scale + " << name << "_shift;  // solder.group_normalize\n";
    }
    bind(op->getResult(0), name);
    return success();
  }

  std::string x = op->getNumOperands() ? operand(0) : "";
  std::optional<std::string> expression =
      TypeSwitch<Operation *, std::optional<std::string>>(op)
          .Case([&](ReluOp) { return "(" + x + " < 0.0f ? 0.0f : " + x + ")"; })
          .Case([&](TanhOp) { return "tanhf(" + x + ")"; })
          .Case([&](SigmoidOp) { return "1.0f / (1.0f + expf(-" + x + "))"; })
          .Case([&](SiluOp) { return x + " / (1.0f + expf(-" + x + "))"; })
          .Case([&](MishOp) {
            return x + " * tanhf(log1pf(expf(" + x + ")))";
          })
          .Case([&](HardswishOp) {
            return x + " * " + clampNaN(x + " + 3.0f", 0.0, 6.0) + " * " +
                   formatFloat(1.0f / 6.0f);
          })
          .Case([&](HardsigmoidOp) {
            return clampNaN(x + " + 3.0f", 0.0, 6.0) + " * " +
                   formatFloat(1.0f / 6.0f);
          })
          .Case([&](ExpOp) { return "expf(" + x + ")"; })
          .Case([&](LogOp) { return "logf(" + x + ")"; })
          .Case([&](AbsOp) { return "fabsf(" + x + ")"; })
          .Case([&](NegOp) { return "-" + x; })
          .Case([&](SqrtOp) { return "sqrtf(" + x + ")"; })
          .Case([&](RsqrtOp) { return "rsqrtf(" + x + ")"; })
          .Case([&](LeakyReluOp op) {
            return "(" + x + " > 0.0f ? " + x + " : " + x + " * " +
                   formatFloat(op.getAlpha().convertToDouble()) + ")";
          })
          .Case([&](EluOp op) {
            return "(" + x + " > 0.0f ? " + x + " : " +
                   formatFloat(op.getAlpha().convertToDouble()) + " * expm1f(" +
                   x + "))";
          })
          .Case([&](SoftplusOp op) {
            std::string beta = formatFloat(op.getBeta().convertToDouble());
            return "(" + x + " * " + beta + " > " +
                   formatFloat(op.getThreshold().convertToDouble()) + " ? " +
                   x + " : log1pf(expf(" + x + " * " + beta + ")) / " + beta +
                   ")";
          })
          .Case([&](GeluOp op) {
            if (op.getApproximate() == GeluApproximation::tanh)
              return "0.5f * " + x + " * (1.0f + tanhf(0.7978845608f * (" + x +
                     " + 0.044715f * " + x + " * " + x + " * " + x + ")))";
            return "0.5f * " + x + " * (1.0f + erff(" + x +
                   " * 0.7071067812f))";
          })
          .Case([&](HardtanhOp op) {
            return clampNaN(x, op.getMin().convertToDouble(),
                            op.getMax().convertToDouble());
          })
          .Case([&](ClampOp op) {
            return clampNaN(x,
                            op.getMin() ? op.getMin()->convertToDouble() : -INFINITY,
                            op.getMax() ? op.getMax()->convertToDouble() : INFINITY);
          })
          .Case([&](AddOp) { return x + " + " + operand(1); })
          .Case([&](SubOp) { return x + " - " + operand(1); })
          .Case([&](MulOp) { return x + " * " + operand(1); })
          .Case([&](DivOp) {
            return divideByConstant(x, op->getOperand(1))
                .value_or(x + " / " + operand(1));
          })
          .Case([&](PowOp) { return "powf(" + x + ", " + operand(1) + ")"; })
          .Case([&](MaximumOp) {
            return "solder::maximumNaN(" + x + ", " + operand(1) + ")";
          })
          .Case([&](MinimumOp) {
            return "solder::minimumNaN(" + x + ", " + operand(1) + ")";
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!expression)
    return op->emitError("the CUDA code generator cannot print '")
           << op->getName() << "' as a pointwise expression";
  os << indent << "const float " << name << " = " << *expression << ";  // "
     << op->getName() << "\n";
  bind(op->getResult(0), name);
  return success();
}
