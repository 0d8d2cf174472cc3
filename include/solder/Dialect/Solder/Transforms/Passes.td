//===- Passes.td - Solder's passes -------------------------*- tablegen -*-===//

#ifndef SOLDER_TRANSFORMS_PASSES
#define SOLDER_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def SolderDecompose : Pass<"solder-decompose", "func::FuncOp"> {
  let summary = "Split normalizations and softmax into reductions and pointwise ops";
  let description = [{
    Rewrites every normalization into a reduction (`solder.group_stats`) and a
    pointwise op (`solder.group_normalize`), so that fusion needs no special
    cases: group_norm with G groups, instance_norm as G = C, batch_norm as
    G = C with statistics across the batch, and layer_norm over all but the
    batch dim as G = 1 followed by its elementwise affine map; over fewer
    trailing dims, the mean and the variance of the centered values as two
    reductions over those dims (`solder.reduce mean`), then
    `(x - mean) * rsqrt(var + epsilon)` and the affine map. softmax becomes max, sub, exp,
    sum and div; log_softmax becomes `x - logsumexp(x)`. logsumexp stays a
    reduction kind: its one-pass stable form is what the fuser wants.

    Before:
    ```mlir
    %n = solder.group_norm %y weight = %w bias = %b num_groups = 8 epsilon = 1.0e-05
         : (tensor<2x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x4x4xf32>
    ```
    After:
    ```mlir
    %s = solder.group_stats %y num_groups = 8 epsilon = 1.0e-05
         : tensor<2x16x4x4xf32> -> tensor<2x8x2xf32>
    %n = solder.group_normalize %y, %s weight = %w bias = %b
         : (tensor<2x16x4x4xf32>, tensor<2x8x2xf32>, tensor<16xf32>, tensor<16xf32>)
           -> tensor<2x16x4x4xf32>
    ```
  }];
  let dependentDialects = ["mlir::solder::SolderDialect",
                           "mlir::arith::ArithDialect"];
}

def SolderSimplify : Pass<"solder-simplify", "func::FuncOp"> {
  let summary = "Algebra that removes work, each rewrite exact under its precondition";
  let description = [{
    * **Means through per-channel affine maps.** A `sum` or `mean` over spatial
      dims of `group_normalize(x)` equals the normalize applied to the mean of
      `x` over those dims (the map is affine per (sample, channel)), times the
      count for `sum`. Precondition: the reduction includes a spatial dim and
      is the normalize's only use. The Conv3d → GroupNorm → mean chain then
      needs only per-channel means and the group statistics of the conv
      output, never the output itself.
    * **Bounded inputs drop clamps.** `hardswish(z)` with `z` in [-3, 3] (after
      tanh, sigmoid, hardsigmoid, or a hardtanh/clamp within that range) is
      `z * (z + 3) / 6`; `hardsigmoid(z)` likewise is `(z + 3) / 6`.
    * The ops' folders: `relu(relu(x))`, `neg(neg(x))`, `abs(abs(x))`, `x + 0`,
      `x - 0`, `x * 1`, `x / 1` (when the constant does not broadcast `x`).

    Before:
    ```mlir
    %n = solder.group_normalize %y, %s weight = %w bias = %b : ...
    %m = solder.reduce mean %n dims = [1, 2, 3] : tensor<2x16x4x4xf32> -> tensor<2xf32>
    ```
    After:
    ```mlir
    %c = solder.reduce mean %y dims = [2, 3] keepdim : tensor<2x16x4x4xf32> -> tensor<2x16x1x1xf32>
    %n = solder.group_normalize %c, %s weight = %w bias = %b : ...
    %m = solder.reduce mean %n dims = [1, 2, 3] : tensor<2x16x1x1xf32> -> tensor<2xf32>
    ```
  }];
  let dependentDialects = ["mlir::solder::SolderDialect",
                           "mlir::arith::ArithDialect"];
}

def SolderFormFusions : Pass<"solder-form-fusions", "func::FuncOp"> {
  let summary = "Group ops into solder.fusion regions, one per future kernel";
  let description = [{
    Walks the ops in order and puts each into a region:

    * a `conv`/`conv_transpose` anchors a new region;
    * a pointwise op (unary, binary, `group_normalize`) joins the region of
      one of its full-size operands (the latest such region first), and a
      reduction (`reduce`, `group_stats`) joins the region of its input, as an
      epilogue; several reductions of one value share its region
      (multi-output). A conv region takes only reductions per channel
      (`group_stats`, `sum`/`mean` over all spatial dims): its kernel tiles
      the channels across thread blocks;
    * an op may not join a region that computes a reduction it reads (the
      statistics of a tensor are complete only after the whole tensor), nor a
      region that depends on one it reads from (that would be a cycle);
      otherwise it starts a region of its own;
    * ops outside the fusible set stay outside any region, unchanged.

    Each region becomes a `solder.fusion` that captures what it reads and
    yields only what is used outside it. Constants are cloned in. With
    `dot-file`, the fused graph is also written in Graphviz DOT.

    Before:
    ```mlir
    %y = solder.conv %x, %w, %b ...
    %r = solder.relu %y : tensor<...>
    %s = solder.group_stats %r ...
    %n = solder.group_normalize %r, %s ...
    ```
    After:
    ```mlir
    %0:2 = solder.fusion "f_conv_0" (%a = %x, %b = %w, %c = %b) : (...) -> (...) {
      %y = solder.conv %a, %b, %c ...
      %r = solder.relu %y : tensor<...>
      %s = solder.group_stats %r ...
      solder.yield %r, %s : ...
    }
    %1 = solder.fusion "f_pointwise_1" (%a = %0#0, %b = %0#1) : (...) -> (...) {
      %n = solder.group_normalize %a, %b ...
      solder.yield %n : ...
    }
    ```
  }];
  let options = [
    Option<"dotFile", "dot-file", "std::string", /*default=*/"\"\"",
           "write the fused graph in Graphviz DOT to this file ('-' for "
           "stdout; with several functions, {func} in the name becomes each "
           "function's name)">
  ];
  let dependentDialects = ["mlir::solder::SolderDialect"];
}

def SolderPlan : Pass<"solder-plan", "ModuleOp"> {
  let summary = "Choose each fusion's kernel and materialize or recompute shared values";
  let description = [{
    For each `solder.fusion`, sized for the GPU `arch`, its kernel's launch
    as typed attributes that the CUDA code generator only reads:
    `solder.schedule` is a `#solder.conv_schedule` for a conv (the main
    loop, tensor-core or FMA, its tile, warps, stages, tile scheduler,
    threads, shared memory and epilogue kind, from `getConvSchedule`, with
    the layout conversions and weight preparation it needs) or a
    `#solder.region_launch` otherwise (from `getRegionLaunch`: how the
    threads walk it, `elementwise`, `thread_per_output`, `warp_per_output`
    or `block_per_output` (a few long reductions in equal shares of several
    blocks), the `chunk` of items a thread loads before it uses
    them and, for `elementwise`, the `vector` width of an item: 4 where
    float4 loads and stores fit, else 1); `solder.finalize` is the
    `#solder.finalize_launch` of a conv region whose epilogue reduces; and
    `solder.estimate` is what the roofline cost model saw, for the report
    only: the bytes moved and FLOPs done (time = max(bytes / bandwidth,
    flops / rate); the GPU's numbers are options). For each full-size tensor that a conv region yields to a later
    region, the plan compares **materialize** (store it, read it back) with
    **recompute** (re-run the conv and its epilogue inside the consumer) and
    applies the cheaper one, or the one forced by `force`. With `report`,
    the plan is printed as a table, then each kernel's attributes.

    Before:
    ```mlir
    %0:2 = solder.fusion "f_conv_0" (...) { ... solder.yield %y, %s }
    %1 = solder.fusion "f_pointwise_1" (%a = %0#0, %b = %0#1, ...) { ... }
    ```
    After (recompute chosen):
    ```mlir
    %0 = solder.fusion "f_conv_0" (...) attributes {solder.estimate = #solder.estimate<...>,
        solder.finalize = #solder.finalize_launch<...>, solder.schedule = #solder.conv_schedule<...>}
        { ... solder.yield %s }
    %1 = solder.fusion "f_pointwise_1" (%x = %input, %w = %weight, %b = %0, ...)
        attributes {solder.estimate = ..., solder.schedule = #solder.conv_schedule<...>}
        { %y = solder.conv %x, %w ... }
    ```
  }];
  let options = [
    Option<"force", "force", "std::string", /*default=*/"\"auto\"",
           "auto (cost model), materialize or recompute">,
    Option<"report", "report", "bool", /*default=*/"false",
           "print the plan table to stdout">,
    Option<"bandwidthGBs", "bandwidth-gbs", "double", /*default=*/"4200.0",
           "memory bandwidth in GB/s (bytes read + written)">,
    Option<"fp32TFlops", "fp32-tflops", "double", /*default=*/"51.0",
           "fp32 FMA rate in TFLOP/s">,
    Option<"precision", "precision", "std::string", /*default=*/"\"ieee\"",
           "ieee (fp32 accuracy: 3xTF32 or FMA) or tf32 (one TF32 product)">,
    Option<"mainLoop", "mainloop", "std::string", /*default=*/"\"auto\"",
           "conv main loop: auto, tensorop (implicit GEMM on tensor cores), "
           "direct (direct conv on tensor cores), direct_fma or fma">,
    Option<"convTile", "conv-tile", "std::string", /*default=*/"\"auto\"",
           "tensor-core tile BMxBNxBK/WMxWN/STAGES instead of the measured "
           "table's (benchmarks)">,
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90\"",
           "GPU the kernels are planned for (its shared memory and registers "
           "an SM): sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100 or sm_120">
  ];
  let dependentDialects = ["mlir::solder::SolderDialect"];
}

#endif // SOLDER_TRANSFORMS_PASSES
