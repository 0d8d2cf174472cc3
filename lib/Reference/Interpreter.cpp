//===- Interpreter.cpp - CPU reference interpreter of solder IR -----------===//

#include "Kernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/InterleavedRange.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::solder;
using namespace mlir::solder::reference;

Tensor::Tensor(ArrayRef<int64_t> shape, double fill) : shape(shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  data.assign(count, fill);
}

SmallVector<int64_t> mlir::solder::reference::getStrides(
    ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

namespace {
class Interpreter {
public:
  explicit Interpreter(Precision precision) : precision(precision) {}

  /// Runs `block` with its arguments bound to `arguments`; returns the
  /// operands of its terminator.
  FailureOr<SmallVector<Tensor>> runBlock(Block &block,
                                          ArrayRef<Tensor> arguments);

private:
  FailureOr<SmallVector<Tensor>> evaluate(Operation *op);
  const Tensor *lookupOptional(Value value) {
    return value ? &values.at(value) : nullptr;
  }

  Precision precision;
  DenseMap<Value, Tensor> values;
};
} // namespace

FailureOr<SmallVector<Tensor>>
Interpreter::runBlock(Block &block, ArrayRef<Tensor> arguments) {
  for (auto [argument, tensor] : llvm::zip(block.getArguments(), arguments))
    values[argument] = tensor;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      SmallVector<Tensor> results;
      for (Value operand : op.getOperands())
        results.push_back(values.at(operand));
      return results;
    }
    FailureOr<SmallVector<Tensor>> results = evaluate(&op);
    if (failed(results))
      return failure();
    for (auto [result, tensor] : llvm::zip(op.getResults(), *results)) {
      if (precision == Precision::f32)
        for (double &value : tensor.data)
          value = static_cast<float>(value);
      values[result] = std::move(tensor);
    }
  }
  return block.getParentOp()->emitError("block without terminator");
}

FailureOr<SmallVector<Tensor>> Interpreter::evaluate(Operation *op) {
  auto get = [&](Value value) -> const Tensor & { return values.at(value); };
  auto single = [](FailureOr<Tensor> tensor) -> FailureOr<SmallVector<Tensor>> {
    if (failed(tensor))
      return failure();
    return SmallVector<Tensor>{std::move(*tensor)};
  };

  return TypeSwitch<Operation *, FailureOr<SmallVector<Tensor>>>(op)
      .Case([&](ConvOp conv) {
        return single(evalConv(conv, get(conv.getInput()),
                               get(conv.getWeight()),
                               lookupOptional(conv.getBias())));
      })
      .Case([&](ConvTransposeOp conv) {
        return single(evalConvTranspose(conv, get(conv.getInput()),
                                        get(conv.getWeight()),
                                        lookupOptional(conv.getBias())));
      })
      .Case([&](GroupNormOp norm) {
        const Tensor &input = get(norm.getInput());
        Tensor stats =
            evalGroupStats(input, norm.getNumGroups(),
                           norm.getEpsilon().convertToDouble(), false);
        return single(evalGroupNormalize(input, stats,
                                         lookupOptional(norm.getWeight()),
                                         lookupOptional(norm.getBias())));
      })
      .Case<InstanceNormOp, BatchNormOp>([&](auto norm) {
        // One group per channel, across the batch for batch_norm.
        const Tensor &input = get(norm.getInput());
        Tensor stats = evalGroupStats(input, input.shape[1],
                                      norm.getEpsilon().convertToDouble(),
                                      isa<BatchNormOp>(norm.getOperation()));
        return single(evalGroupNormalize(input, stats,
                                         lookupOptional(norm.getWeight()),
                                         lookupOptional(norm.getBias())));
      })
      .Case([&](LayerNormOp norm) {
        return single(evalLayerNorm(norm, get(norm.getInput()),
                                    lookupOptional(norm.getWeight()),
                                    lookupOptional(norm.getBias())));
      })
      .Case([&](GroupStatsOp stats) {
        return single(evalGroupStats(get(stats.getInput()),
                                     stats.getNumGroups(),
                                     stats.getEpsilon().convertToDouble(),
                                     stats.getAcrossBatch()));
      })
      .Case([&](GroupNormalizeOp normalize) {
        return single(evalGroupNormalize(
            get(normalize.getInput()), get(normalize.getStats()),
            lookupOptional(normalize.getWeight()),
            lookupOptional(normalize.getBias())));
      })
      .Case([&](ReduceOp reduce) {
        return single(evalReduce(reduce, get(reduce.getX())));
      })
      .Case([&](SoftmaxOp softmax) {
        return single(evalSoftmax(get(softmax.getX()), softmax.getDim(),
                                  /*log=*/false));
      })
      .Case([&](LogSoftmaxOp softmax) {
        return single(evalSoftmax(get(softmax.getX()), softmax.getDim(),
                                  /*log=*/true));
      })
      .Case([&](PoolOp pool) { return single(evalPool(pool, get(pool.getX()))); })
      .Case([&](AdaptivePoolOp pool) {
        return single(evalAdaptivePool(pool, get(pool.getX())));
      })
      .Case([&](ReshapeOp reshape) {
        Tensor tensor = get(reshape.getInput());
        tensor.shape.assign(reshape.getType().getShape().begin(),
                            reshape.getType().getShape().end());
        return single(std::move(tensor));
      })
      .Case([&](FusionOp fusion) -> FailureOr<SmallVector<Tensor>> {
        SmallVector<Tensor> captures;
        for (Value capture : fusion.getCaptures())
          captures.push_back(get(capture));
        Interpreter nested(precision);
        return nested.runBlock(fusion.getBodyBlock(), captures);
      })
      .Case([&](arith::ConstantOp constant) -> FailureOr<SmallVector<Tensor>> {
        auto elements = dyn_cast<DenseFPElementsAttr>(constant.getValue());
        if (!elements)
          return constant.emitError(
              "the reference interpreter supports only dense floating-point "
              "tensor constants");
        Tensor tensor(cast<ShapedType>(elements.getType()).getShape());
        for (auto [index, value] : llvm::enumerate(elements.getValues<APFloat>()))
          tensor.data[index] = value.convertToDouble();
        return SmallVector<Tensor>{std::move(tensor)};
      })
      .Default([&](Operation *other) -> FailureOr<SmallVector<Tensor>> {
        if (other->getNumOperands() == 1 && other->getNumResults() == 1) {
          FailureOr<Tensor> result = evalUnary(other, get(other->getOperand(0)));
          if (succeeded(result))
            return single(std::move(result));
        }
        if (other->getNumOperands() == 2 && other->getNumResults() == 1) {
          auto resultType =
              cast<RankedTensorType>(other->getResult(0).getType());
          FailureOr<Tensor> result =
              evalBinary(other, get(other->getOperand(0)),
                         get(other->getOperand(1)), resultType.getShape());
          if (succeeded(result))
            return single(std::move(result));
        }
        return other->emitError("the reference interpreter does not support '")
               << other->getName() << "'";
      });
}

FailureOr<SmallVector<Tensor>>
mlir::solder::reference::runFunction(func::FuncOp function,
                                     ArrayRef<Tensor> inputs,
                                     Precision precision) {
  FunctionType type = function.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return function.emitError("expected ")
           << type.getNumInputs() << " inputs, got " << inputs.size();
  for (auto [index, input, inputType] :
       llvm::enumerate(inputs, type.getInputs())) {
    auto tensorType = dyn_cast<RankedTensorType>(inputType);
    if (!tensorType || tensorType.getShape() != ArrayRef(input.shape))
      return function.emitError("input #")
             << index << " has shape (" << llvm::interleaved(input.shape)
             << ") but the function takes " << inputType;
  }
  Interpreter interpreter(precision);
  return interpreter.runBlock(function.getBody().front(), inputs);
}

SmallVector<Tensor>
mlir::solder::reference::makeRandomInputs(func::FuncOp function, uint64_t seed,
                                          double low, double high) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  SmallVector<Tensor> inputs;
  for (Type type : function.getFunctionType().getInputs()) {
    Tensor tensor(cast<ShapedType>(type).getShape());
    for (double &value : tensor.data)
      value = static_cast<float>(distribution(generator));
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}
