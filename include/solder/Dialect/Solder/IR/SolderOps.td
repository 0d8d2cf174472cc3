//===- SolderOps.td - Ops of the solder dialect ------------*- tablegen -*-===//
//
// User-level ops: what an importer produces from a torch.nn.Module. Attribute
// names are part of the importer contract (DESIGN.md §2).
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_OPS
#define SOLDER_OPS

include "solder/Dialect/Solder/IR/SolderDialect.td"
include "solder/Dialect/Solder/IR/SolderAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

def Solder_ConvOp : Solder_Op<"conv", [Pure]> {
  let summary = "N-d convolution (torch.nn.Conv1d/2d/3d)";
  let description = [{
    Cross-correlation of `input` `(N, Cin, *in)` with `weight`
    `(Cout, Cin/groups, *kernel)`, plus `bias` `(Cout)` when given. The number
    of spatial dims (1 to 3) is the rank of `input` minus 2; `strides`,
    `padding` (`padding[i]` zeros before spatial dim i, and as many after it
    unless `padding_high` says otherwise) and `dilations` have one entry per
    spatial dim, as has `padding_high` where given (the zeros after each
    spatial dim: PyTorch's `padding='same'` with an even kernel puts the odd
    one there). The output size of each spatial dim is PyTorch's:

    ```
    out = floor((in + padding + padding_high - dilation * (kernel - 1) - 1) / stride) + 1
    ```

    Example (the conv of workload W1):

    ```mlir
    %y = solder.conv %x, %w, %b strides = [1, 1, 1] padding = [0, 0, 0]
           dilations = [1, 1, 1] groups = 1
         : (tensor<128x3x24x32x32xf32>, tensor<24x3x3x3x3xf32>, tensor<24xf32>)
           -> tensor<128x24x22x30x30xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$input, Solder_Tensor:$weight,
                       Optional<Solder_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$padding_high,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` `=` $strides `padding` `=` $padding
    (`padding_high` `=` $padding_high^)?
    `dilations` `=` $dilations `groups` `=` $groups attr-dict
    `:` functional-type(operands, results)
  }];
  let builders = [
    // Symmetric padding; infers the result type; the operands and
    // attributes must be valid.
    OpBuilder<(ins "Value":$input, "Value":$weight, "Value":$bias,
                   "ArrayRef<int64_t>":$strides, "ArrayRef<int64_t>":$padding,
                   "ArrayRef<int64_t>":$dilations, "int64_t":$groups)>
  ];
  let extraClassDeclaration = [{
    /// The result type PyTorch gives these operands and attributes, or a
    /// diagnostic through `emitError` (null: fail silently). `paddingHigh`
    /// empty: `padding` on both sides.
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType input, RankedTensorType weight,
        RankedTensorType bias, ArrayRef<int64_t> strides,
        ArrayRef<int64_t> padding, ArrayRef<int64_t> paddingHigh,
        ArrayRef<int64_t> dilations, int64_t groups,
        function_ref<InFlightDiagnostic()> emitError);
    int64_t getNumSpatialDims() { return getInput().getType().getRank() - 2; }
    /// The zeros after each spatial dim: `padding_high`, or `padding`.
    ArrayRef<int64_t> getPaddingAfter() {
      return getPaddingHigh() ? *getPaddingHigh() : getPadding();
    }
    /// Whether the conv pads nothing on either side.
    bool isUnpadded() {
      auto zero = [](int64_t pad) { return pad == 0; };
      return llvm::all_of(getPadding(), zero) && llvm::all_of(getPaddingAfter(), zero);
    }
  }];
  let hasVerifier = 1;
}

def Solder_ConvTransposeOp : Solder_Op<"conv_transpose", [Pure]> {
  let summary = "N-d transposed convolution (torch.nn.ConvTranspose1d/2d/3d)";
  let description = [{
    The gradient of `solder.conv` with respect to its input: `input`
    `(N, Cin, *in)`, `weight` `(Cin, Cout/groups, *kernel)`, optional `bias`
    `(Cout)`. `output_padding` adds to one side of each output spatial dim and
    must be smaller than the stride or the dilation of that dim. The output
    size of each spatial dim is PyTorch's:

    ```
    out = (in - 1) * stride - 2 * padding + dilation * (kernel - 1)
          + output_padding + 1
    ```

    Example (the transposed conv of workload W2, small variant):

    ```mlir
    %y = solder.conv_transpose %x, %w strides = [1, 1, 1] padding = [0, 0, 0]
           output_padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
         : (tensor<16x64x8x16x16xf32>, tensor<64x128x3x3x3xf32>)
           -> tensor<16x128x10x18x18xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$input, Solder_Tensor:$weight,
                       Optional<Solder_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$output_padding,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` `=` $strides `padding` `=` $padding
    `output_padding` `=` $output_padding `dilations` `=` $dilations
    `groups` `=` $groups attr-dict `:` functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "Value":$input, "Value":$weight, "Value":$bias,
                   "ArrayRef<int64_t>":$strides, "ArrayRef<int64_t>":$padding,
                   "ArrayRef<int64_t>":$output_padding,
                   "ArrayRef<int64_t>":$dilations, "int64_t":$groups)>
  ];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType input, RankedTensorType weight,
        RankedTensorType bias, ArrayRef<int64_t> strides,
        ArrayRef<int64_t> padding, ArrayRef<int64_t> outputPadding,
        ArrayRef<int64_t> dilations, int64_t groups,
        function_ref<InFlightDiagnostic()> emitError);
    int64_t getNumSpatialDims() { return getInput().getType().getRank() - 2; }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

// A normalization: result = (x - mean) * rsqrt(var + epsilon) * weight + bias,
// statistics over some axes of x, biased variance, optional affine parameters.
class Solder_NormOp<string mnemonic, dag extraAttrs, string attrFormat>
    : Solder_Op<mnemonic, [Pure, AttrSizedOperandSegments]> {
  let arguments = !con((ins Solder_Tensor:$input,
                            Optional<Solder_Tensor>:$weight,
                            Optional<Solder_Tensor>:$bias),
                       extraAttrs,
                       (ins F32Attr:$epsilon));
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = "$input (`weight` `=` $weight^)? (`bias` `=` $bias^)? "
      # attrFormat # " `epsilon` `=` $epsilon attr-dict "
      # "`:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Solder_GroupNormOp : Solder_NormOp<"group_norm",
    (ins I64Attr:$num_groups), "`num_groups` `=` $num_groups"> {
  let summary = "group normalization (torch.nn.GroupNorm)";
  let description = [{
    Splits the `C` channels of `input` `(N, C, *)` into `num_groups` groups of
    `C / num_groups` consecutive channels and normalizes each (sample, group)
    by its mean and biased variance:

    ```
    y[n, c, ...] = (x[n, c, ...] - mean[n, g]) / sqrt(var[n, g] + epsilon)
                   * weight[c] + bias[c]          with g = c / (C / num_groups)
    ```

    `weight` and `bias`, each `(C)`, are optional (a missing weight is 1, a
    missing bias 0).

    ```mlir
    %y = solder.group_norm %x weight = %gamma bias = %beta num_groups = 8
           epsilon = 1.000000e-05
         : (tensor<128x24x22x30x30xf32>, tensor<24xf32>, tensor<24xf32>)
           -> tensor<128x24x22x30x30xf32>
    ```
  }];
}

def Solder_BatchNormOp : Solder_NormOp<"batch_norm", (ins), ""> {
  let summary = "batch normalization with batch statistics (torch.nn.BatchNorm*d, training mode)";
  let description = [{
    Normalizes each channel of `input` `(N, C, *)` by the mean and biased
    variance over the batch and all spatial positions, as BatchNorm does in
    training mode (running statistics are not tracked). `weight` and `bias`
    are `(C)`. There must be more than one value per channel.

    ```mlir
    %y = solder.batch_norm %x weight = %w bias = %b epsilon = 1.000000e-05
         : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4x4xf32>
    ```
  }];
}

def Solder_InstanceNormOp : Solder_NormOp<"instance_norm", (ins), ""> {
  let summary = "instance normalization (torch.nn.InstanceNorm*d)";
  let description = [{
    Normalizes each (sample, channel) of `input` `(N, C, *spatial)` by the mean
    and biased variance over its spatial positions. `weight` and `bias` are
    `(C)`. There must be more than one spatial position.

    ```mlir
    %y = solder.instance_norm %x epsilon = 1.000000e-05
         : (tensor<8x16x4x4xf32>) -> tensor<8x16x4x4xf32>
    ```
  }];
}

def Solder_LayerNormOp : Solder_NormOp<"layer_norm",
    (ins DenseI64ArrayAttr:$normalized_shape),
    "`normalized_shape` `=` $normalized_shape"> {
  let summary = "layer normalization (torch.nn.LayerNorm)";
  let description = [{
    Normalizes `input` over its trailing dims, which must equal
    `normalized_shape`; `weight` and `bias` have shape `normalized_shape`.

    ```mlir
    %y = solder.layer_norm %x weight = %w bias = %b normalized_shape = [4, 4]
           epsilon = 1.000000e-05
         : (tensor<8x16x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x16x4x4xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Unary pointwise ops
//===----------------------------------------------------------------------===//

class Solder_UnaryOp<string mnemonic, string formula, dag extraAttrs = (ins),
                     list<Trait> traits = []>
    : Solder_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                       Elementwise], traits)> {
  let summary = "pointwise " # mnemonic # ": " # formula;
  let description = "Applies `" # formula # "` to every element of `x`, "
      # "as torch's `" # mnemonic # "` does.";
  let arguments = !con((ins Solder_Tensor:$x), extraAttrs);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Solder_ReluOp : Solder_UnaryOp<"relu", "max(x, 0)"> {
  let hasFolder = 1;
}
def Solder_TanhOp : Solder_UnaryOp<"tanh", "tanh(x)">;
def Solder_SigmoidOp : Solder_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def Solder_SiluOp : Solder_UnaryOp<"silu", "x * sigmoid(x)">;
def Solder_MishOp : Solder_UnaryOp<"mish", "x * tanh(softplus(x))">;
def Solder_HardswishOp : Solder_UnaryOp<"hardswish", "x * relu6(x + 3) / 6">;
def Solder_HardsigmoidOp : Solder_UnaryOp<"hardsigmoid", "relu6(x + 3) / 6">;
def Solder_ExpOp : Solder_UnaryOp<"exp", "exp(x)">;
def Solder_LogOp : Solder_UnaryOp<"log", "log(x)">;
def Solder_AbsOp : Solder_UnaryOp<"abs", "|x|"> {
  let hasFolder = 1;
}
def Solder_NegOp : Solder_UnaryOp<"neg", "-x"> {
  let hasFolder = 1;
}
def Solder_SqrtOp : Solder_UnaryOp<"sqrt", "sqrt(x)">;
def Solder_RsqrtOp : Solder_UnaryOp<"rsqrt", "1 / sqrt(x)">;

def Solder_LeakyReluOp : Solder_UnaryOp<"leaky_relu", "x >= 0 ? x : alpha * x",
    (ins DefaultValuedAttr<F32Attr, "0.01f">:$alpha)>;
def Solder_EluOp : Solder_UnaryOp<"elu", "x > 0 ? x : alpha * (exp(x) - 1)",
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;
def Solder_SoftplusOp : Solder_UnaryOp<"softplus",
    "beta * x > threshold ? x : log(1 + exp(beta * x)) / beta",
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$beta,
         DefaultValuedAttr<F32Attr, "20.0f">:$threshold)> {
  let hasVerifier = 1;
}
def Solder_GeluOp : Solder_UnaryOp<"gelu",
    "x * Phi(x), exact (erf) or with the tanh approximation",
    (ins DefaultValuedAttr<Solder_GeluApproximationAttr,
                           "GeluApproximation::none">:$approximate)>;
def Solder_HardtanhOp : Solder_UnaryOp<"hardtanh", "min(max(x, min), max)",
    (ins DefaultValuedAttr<F32Attr, "-1.0f">:$min,
         DefaultValuedAttr<F32Attr, "1.0f">:$max)> {
  let hasVerifier = 1;
}
def Solder_ClampOp : Solder_UnaryOp<"clamp",
    "min(max(x, min), max), a missing bound not applied",
    (ins OptionalAttr<F32Attr>:$min, OptionalAttr<F32Attr>:$max)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Binary pointwise ops
//===----------------------------------------------------------------------===//

class Solder_BinaryOp<string mnemonic, string formula>
    : Solder_Op<mnemonic, [Pure]> {
  let summary = "pointwise " # mnemonic # " with broadcasting: " # formula;
  let description = "Computes `" # formula # "` elementwise after broadcasting "
      # "`lhs` and `rhs` to a common shape the way PyTorch does: shapes are "
      # "aligned at their trailing dims and each pair of sizes must be equal or "
      # "contain a 1. A per-channel parameter is a `(C, 1, 1)` tensor, a scalar a "
      # "rank-0 tensor. When both operands and the result have one type, the "
      # "type is written once:\n\n```mlir\n"
      # "%s = solder." # mnemonic # " %a, %b : tensor<8x16x4x4xf32>\n"
      # "%t = solder." # mnemonic # " %a, %c : tensor<8x16x4x4xf32>, "
      # "tensor<16x1x1xf32> -> tensor<8x16x4x4xf32>\n```";
  let arguments = (ins Solder_Tensor:$lhs, Solder_Tensor:$rhs);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<BroadcastTypes>(type($lhs), type($rhs), type($result))
  }];
  let builders = [
    // Infers the broadcast result type; the operands must be compatible.
    OpBuilder<(ins "Value":$lhs, "Value":$rhs), [{
      build($_builder, $_state,
            inferBroadcastType(cast<RankedTensorType>(lhs.getType()),
                               cast<RankedTensorType>(rhs.getType()), nullptr)
                .value(),
            lhs, rhs);
    }]>
  ];
  let hasVerifier = 1;
}

def Solder_AddOp : Solder_BinaryOp<"add", "lhs + rhs"> {
  let hasFolder = 1;
}
def Solder_SubOp : Solder_BinaryOp<"sub", "lhs - rhs"> {
  let hasFolder = 1;
}
def Solder_MulOp : Solder_BinaryOp<"mul", "lhs * rhs"> {
  let hasFolder = 1;
}
def Solder_DivOp : Solder_BinaryOp<"div", "lhs / rhs"> {
  let hasFolder = 1;
}
def Solder_MaximumOp : Solder_BinaryOp<"maximum", "max(lhs, rhs), NaN if either is NaN">;
def Solder_MinimumOp : Solder_BinaryOp<"minimum", "min(lhs, rhs), NaN if either is NaN">;
def Solder_PowOp : Solder_BinaryOp<"pow", "lhs ^ rhs">;

//===----------------------------------------------------------------------===//
// Reductions, softmax, pooling
//===----------------------------------------------------------------------===//

def Solder_ReduceOp : Solder_Op<"reduce", [Pure]> {
  let summary = "reduction over some dims (torch.sum/mean/amax/amin/logsumexp/prod)";
  let description = [{
    Reduces `x` over `dims` (strictly increasing, each in `[0, rank)`) with
    `kind`: `sum`, `mean` (sum / count), `max`, `min`, `logsumexp` (computed
    stably: `m + log(sum(exp(x - m)))` with `m` the max) or `prod`. With
    `keepdim` the reduced dims stay as size 1, otherwise they are dropped.

    ```mlir
    %m = solder.reduce mean %x dims = [1, 2, 3, 4]
         : tensor<128x24x22x30x30xf32> -> tensor<128xf32>
    %l = solder.reduce logsumexp %s dims = [1] keepdim
         : tensor<128x64x126x126xf32> -> tensor<128x1x126x126xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$x, Solder_ReduceKindAttr:$kind,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keepdim);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $x `dims` `=` $dims (`keepdim` $keepdim^)? attr-dict
    `:` type($x) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "ReduceKind":$kind, "Value":$x, "ArrayRef<int64_t>":$dims,
                   "bool":$keepdim)>
  ];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType x, ArrayRef<int64_t> dims, bool keepdim,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
}

class Solder_SoftmaxLikeOp<string mnemonic, string formula>
    : Solder_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = mnemonic # " along one dim: " # formula;
  let description = "Computes `" # formula # "` along `dim` (in `[0, rank)`), "
      # "stably (the max along `dim` is subtracted first), as torch's `"
      # mnemonic # "` does.\n\n```mlir\n%p = solder." # mnemonic
      # " %x dim = 1 : tensor<8x16x4x4xf32>\n```";
  let arguments = (ins Solder_Tensor:$x, I64Attr:$dim);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = "$x `dim` `=` $dim attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Solder_SoftmaxOp : Solder_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Solder_LogSoftmaxOp
    : Solder_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

def Solder_PoolOp : Solder_Op<"pool", [Pure]> {
  let summary = "max or average pooling (torch.nn.MaxPool*d, AvgPool*d)";
  let description = [{
    Slides a `kernel` window over the spatial dims of `x` `(N, C, *spatial)`
    with `strides`, implicit `padding` on both sides (at most half the
    effective window) and, for `max`, `dilations` (`avg` needs all 1). The
    output size is PyTorch's, with `ceil_mode` rounding up as PyTorch does (a
    window that would start in the right padding is dropped). `avg` divides
    by the full window when `count_include_pad`, else by the number of
    in-bounds elements, and by `divisor_override` when it is given (`avg`
    only, positive). Padding never wins a `max`; a NaN in the window does.

    ```mlir
    %p = solder.pool max %x kernel = [2, 2] strides = [2, 2] padding = [0, 0]
           dilations = [1, 1] : tensor<8x16x8x8xf32> -> tensor<8x16x4x4xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$x, Solder_PoolKindAttr:$kind,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilations,
                       UnitAttr:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $x `kernel` `=` $kernel `strides` `=` $strides `padding` `=` $padding
    `dilations` `=` $dilations (`ceil_mode` $ceil_mode^)? attr-dict
    `:` type($x) `->` type($result)
  }];
  let extraClassDeclaration = [{
    static FailureOr<RankedTensorType> inferResultType(
        RankedTensorType x, PoolKind kind, ArrayRef<int64_t> kernel,
        ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
        ArrayRef<int64_t> dilations, bool ceilMode,
        function_ref<InFlightDiagnostic()> emitError);
  }];
  let hasVerifier = 1;
}

def Solder_AdaptivePoolOp : Solder_Op<"adaptive_pool", [Pure]> {
  let summary = "max or average pooling to an output size (torch.nn.AdaptiveAvgPool*d, AdaptiveMaxPool*d)";
  let description = [{
    Pools `x` `(N, C, *in)` to the result's spatial sizes `out` as PyTorch's
    adaptive pools do: output `i` of a spatial dim reads the input positions
    `[floor(i * in / out), ceil((i + 1) * in / out))`, windows that differ
    in size and may overlap where `out` does not divide `in` (where it
    does, the importer writes a `solder.pool`). `avg` divides by the
    window's size; a NaN in the window wins a `max`.

    ```mlir
    %p = solder.adaptive_pool avg %x : tensor<8x16x7x5xf32> -> tensor<8x16x3x2xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$x, Solder_PoolKindAttr:$kind);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $x attr-dict `:` type($x) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

def Solder_ReshapeOp : Solder_Op<"reshape", [Pure]> {
  let summary = "the same elements seen with another shape (torch view, reshape, flatten)";
  let description = [{
    `input`'s elements in row-major order, seen with the result's shape (the
    same element count and type). Solder's tensors are contiguous, so a
    reshape is no kernel and no copy: its result shares its input's storage.
    A reshape is never fused; its input is stored by the kernel that computes
    it, and the ops that read the result read that storage.

    ```mlir
    %v = solder.reshape %x : tensor<8x16x4x4xf32> -> tensor<8x4x64xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$input);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Internal ops: produced by the passes, never by importers
//===----------------------------------------------------------------------===//

def Solder_GroupStatsOp : Solder_Op<"group_stats", [Pure]> {
  let summary = "mean and 1/sqrt(var + epsilon) per (sample, group)";
  let description = [{
    The reduction half of a normalization (see `solder.decompose`). `input`
    `(N, C, *)` is split into `num_groups` groups of `C / num_groups`
    consecutive channels; for each (sample, group) the result holds the mean
    and the reciprocal standard deviation `1 / sqrt(var + epsilon)` (biased
    variance), in that order along its last dim: `(N, G, 2)`. With
    `across_batch` the statistics also reduce over the samples: `(1, G, 2)`.

    group_norm has G groups; instance_norm is G = C; batch_norm is G = C
    `across_batch`; layer_norm over all but the batch dim is G = 1.

    ```mlir
    %s = solder.group_stats %y num_groups = 8 epsilon = 1.0e-05
         : tensor<128x24x22x30x30xf32> -> tensor<128x8x2xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$input, I64Attr:$num_groups,
                       F32Attr:$epsilon, UnitAttr:$across_batch);
  let results = (outs Solder_Tensor:$stats);
  let assemblyFormat = [{
    $input `num_groups` `=` $num_groups `epsilon` `=` $epsilon
    (`across_batch` $across_batch^)? attr-dict `:` type($input) `->` type($stats)
  }];
  let builders = [
    OpBuilder<(ins "Value":$input, "int64_t":$num_groups, "APFloat":$epsilon,
                   "bool":$across_batch)>
  ];
  let hasVerifier = 1;
}

def Solder_GroupNormalizeOp
    : Solder_Op<"group_normalize", [Pure, AttrSizedOperandSegments]> {
  let summary = "pointwise half of a normalization: x * a[n, c] + b[n, c]";
  let description = [{
    Applies the statistics of `solder.group_stats` to `input` `(N, C, *)`:

    ```
    a[n, c] = rstd[n, g] * weight[c]      b[n, c] = bias[c] - mean[n, g] * a[n, c]
    y[n, c, ...] = x[n, c, ...] * a[n, c] + b[n, c]     with g = c / (C / G)
    ```

    `stats` is `(N, G, 2)` or, for statistics across the batch, `(1, G, 2)`;
    G is read from it. `weight` and `bias` are optional `(C)` tensors. The
    map is affine per (sample, channel), so it commutes with means over the
    spatial dims, which `solder.simplify` exploits; `input` may therefore have
    spatial dims of size 1.

    ```mlir
    %n = solder.group_normalize %y, %s weight = %w bias = %b
         : (tensor<128x24x22x30x30xf32>, tensor<128x8x2xf32>, tensor<24xf32>,
            tensor<24xf32>) -> tensor<128x24x22x30x30xf32>
    ```
  }];
  let arguments = (ins Solder_Tensor:$input, Solder_Tensor:$stats,
                       Optional<Solder_Tensor>:$weight,
                       Optional<Solder_Tensor>:$bias);
  let results = (outs Solder_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $stats (`weight` `=` $weight^)? (`bias` `=` $bias^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "Value":$input, "Value":$stats, "Value":$weight,
                   "Value":$bias), [{
      build($_builder, $_state, input.getType(), input, stats, weight, bias);
    }]>
  ];
  let extraClassDeclaration = [{
    int64_t getNumGroups() { return getStats().getType().getDimSize(1); }
  }];
  let hasVerifier = 1;
}

def Solder_FusionOp : Solder_Op<"fusion", [IsolatedFromAbove,
    RecursiveMemoryEffects, SingleBlock]> {
  let summary = "a group of ops that becomes one generated kernel";
  let description = [{
    Built by `solder.form-fusions`. The body is isolated from above: every
    value it reads from outside is an explicit capture, bound to a block
    argument, and everything it produces for the outside is yielded by
    `solder.yield`. A region may yield several values (a tensor and the
    partial statistics of it, say); a result that is not needed is never
    yielded. `name` names the kernel; `solder-plan` adds its launch as the
    attributes `solder.schedule` (`#solder.conv_schedule` or
    `#solder.region_launch`), `solder.finalize` and `solder.estimate`, and
    on a conv region `solder.channels_last` (an `array<i64>` of result
    numbers): those results are stored NDHWC, for readers that take them so
    (a tensor-core conv's input read as it is, a conv epilogue's op at its
    own element); and `solder.rounded_tf32` (a subset of those numbers):
    results stored rounded to TF32 as well, because every reader is a TF32
    Hopper conv whose tensor map reads them as they are. Where TF32 Hopper
    convs and other readers (a residual) both take a result channels-last,
    the plan yields the same value again as the region's last result, which
    the Hopper convs read rounded while the others read the first one exact.

    ```mlir
    %y, %s = solder.fusion "w1_conv" (%a = %x, %b = %w, %c = %bias)
        : (tensor<...>, tensor<...>, tensor<...>) -> (tensor<...>, tensor<...>) {
      %0 = solder.conv %a, %b, %c ...
      %1 = solder.group_stats %0 num_groups = 8 epsilon = 1.0e-05 ...
      solder.yield %0, %1 : tensor<...>, tensor<...>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$captures, StrAttr:$name);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    Block &getBodyBlock() { return getBody().front(); }
    /// The terminator (defined in FusionOps.cpp: YieldOp is declared later).
    YieldOp getYield();
  }];
}

def Solder_YieldOp : Solder_Op<"yield", [Pure, Terminator,
    HasParent<"FusionOp">]> {
  let summary = "the values a fusion region hands to the outside";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // SOLDER_OPS
