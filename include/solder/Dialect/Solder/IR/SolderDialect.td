//===- SolderDialect.td - The solder dialect ---------------*- tablegen -*-===//
//
// Tensor-level ops with value semantics and PyTorch's layouts and semantics.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_DIALECT
#define SOLDER_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Solder_Dialect : Dialect {
  let name = "solder";
  let cppNamespace = "::mlir::solder";
  let summary = "Tensor ops of conv/norm/pointwise/reduction chains, fused into CUDA kernels";
  let description = [{
    The `solder` dialect models chains of convolution, normalization, pointwise
    and reduction ops the way PyTorch defines them, so that an importer can map
    `torch.nn` modules onto it one to one and the compiler can fuse the chain
    into a few generated CUDA kernels.

    * Values are statically shaped, ranked tensors of floating-point elements
      (f32 first; f16, bf16 and f64 are accepted by the verifiers).
    * Layouts are PyTorch's: activations are `(N, C, *spatial)` with 1 to 3
      spatial dims; a convolution weight is `(Cout, Cin/groups, *kernel)`, a
      transposed convolution weight `(Cin, Cout/groups, *kernel)`.
    * Semantics are exactly PyTorch's: biased variance in normalizations, the
      epsilon inside the square root, exact GELU by default, a numerically
      stable logsumexp, mean = sum / count, NaN propagates.

    Every op verifies its operand shapes and attributes and checks its result
    type against the type it infers; builders that take no result type infer it.

    A function argument may carry `solder.parameter` (a unit attribute): the
    caller passes the same contents call after call (a module's weights), so
    what the bundle computes from such arguments alone (the conv weights in
    the main loop's layout or TF32 fragments) is prepared once and again
    only when they change, not on every call.

    A function argument or result may carry `solder.channels_last` (a unit
    attribute on a tensor of rank 3 or more): the caller stores it with the
    channels last, `(N, *spatial, C)` in memory (PyTorch's channels_last
    memory format), its type still `(N, C, *spatial)`. On the importer's IR
    it is the caller's layout; the plan keeps it where every reader takes
    the tensor so (or the producer stores it so) and drops it elsewhere, and
    a bundle's manifest gives each input's and output's layout from what
    remains.
  }];
  let useDefaultAttributePrinterParser = 1;
  // solder.schedule, solder.finalize, solder.estimate, solder.channels_last:
  // the plan's attributes.
  let hasOperationAttrVerify = 1;
  // solder.parameter and solder.channels_last on a function argument,
  // solder.channels_last on a function result.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kScheduleAttrName = "solder.schedule";
    static constexpr ::llvm::StringLiteral kFinalizeAttrName = "solder.finalize";
    static constexpr ::llvm::StringLiteral kEstimateAttrName = "solder.estimate";
    /// On a conv region: the results it stores channels-last (NDHWC), by
    /// result number, for readers that take them so. On a function
    /// argument or result (a unit attribute): the caller's tensor is
    /// stored channels-last.
    static constexpr ::llvm::StringLiteral kChannelsLastAttrName = "solder.channels_last";
    /// On a conv region: those of its channels-last results it stores
    /// rounded to TF32, by result number: every reader is a TF32 Hopper
    /// conv, which reads them through its tensor map as they are (the
    /// rounding its own input conversion would have done).
    static constexpr ::llvm::StringLiteral kRoundedTF32AttrName = "solder.rounded_tf32";
    /// On a function argument: a parameter, the same contents call after
    /// call (its preparations run once).
    static constexpr ::llvm::StringLiteral kParameterAttrName = "solder.parameter";
    /// The most shares a conv tile's K steps split into (k_splits).
    static constexpr int64_t kMaxKSplits = 8;
  }];
}

// Every tensor a solder op takes or yields has at most 2^40 elements
// (verifyTensorSizes), so no element count or byte size overflows.
def Solder_TensorSizeLimit : NativeOpTrait<"TensorSizeLimit"> {
  let cppNamespace = "::mlir::solder";
}

class Solder_Op<string mnemonic, list<Trait> traits = []>
    : Op<Solder_Dialect, mnemonic, !listconcat(traits, [Solder_TensorSizeLimit])>;

class Solder_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Solder_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// Every tensor the dialect handles: static shape, floating-point elements.
def Solder_Tensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;

#endif // SOLDER_DIALECT
