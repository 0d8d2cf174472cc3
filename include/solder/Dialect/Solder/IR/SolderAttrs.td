//===- SolderAttrs.td - Attributes of the solder dialect --------*- tablegen -*-===//

#ifndef SOLDER_ATTRS
#define SOLDER_ATTRS

include "solder/Dialect/Solder/IR/SolderDialect.td"
include "mlir/IR/EnumAttr.td"

class Solder_EnumAttr<EnumAttrInfo enumInfo, string name>
    : EnumAttr<Solder_Dialect, enumInfo, name> {
  // `#solder.reduce_kind<sum>` on its own; ops print a bare keyword through
  // custom<EnumKeyword>: `solder.reduce sum %x ...`.
  let assemblyFormat = "`<` $value `>`";
}

def Solder_ReduceKind : I32EnumAttr<"ReduceKind", "kind of a reduction", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"logsumexp", 4>,
    I32EnumAttrCase<"prod", 5>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}
def Solder_ReduceKindAttr : Solder_EnumAttr<Solder_ReduceKind, "reduce_kind">;

def Solder_PoolKind : I32EnumAttr<"PoolKind", "kind of a pooling window", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}
def Solder_PoolKindAttr : Solder_EnumAttr<Solder_PoolKind, "pool_kind">;

def Solder_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation of GELU, as torch.nn.GELU's `approximate`", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}
def Solder_GeluApproximationAttr
    : Solder_EnumAttr<Solder_GeluApproximation, "gelu_approximation">;

//===----------------------------------------------------------------------===//
// The kernel plan: typed attributes that solder-plan sets on each
// solder.fusion (`solder.schedule`, `solder.finalize`, `solder.estimate`)
// and the CUDA code generator only reads.
//===----------------------------------------------------------------------===//

def Solder_MainLoopKind : I32EnumAttr<"MainLoopKind", "main loop of a conv kernel", [
    I32EnumAttrCase<"implicit_gemm_fma", 0>,
    I32EnumAttrCase<"implicit_gemm_tensorop", 1>,
    I32EnumAttrCase<"direct_fma", 2>,
    I32EnumAttrCase<"direct_tensorop", 3>,
    I32EnumAttrCase<"depthwise", 4>,
    I32EnumAttrCase<"implicit_gemm_wgmma", 5>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_TensorMath : I32EnumAttr<"TensorMath", "arithmetic of a conv's products", [
    I32EnumAttrCase<"fma_f32", 0>,
    I32EnumAttrCase<"tf32", 1>,
    I32EnumAttrCase<"tf32x3", 2>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_DirectAccumulation : I32EnumAttr<"DirectAccumulation",
    "how the direct conv on tensor cores accumulates its products", [
    I32EnumAttrCase<"plain", 0>,
    I32EnumAttrCase<"step_sums", 1>,
    I32EnumAttrCase<"centered", 2>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_TileSchedulerKind : I32EnumAttr<"TileSchedulerKind",
    "how a conv kernel's blocks take its tiles", [
    I32EnumAttrCase<"grid", 0>,
    I32EnumAttrCase<"persistent", 1>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_PixelTiling : I32EnumAttr<"PixelTiling",
    "what the pixel tiles of an implicit GEMM run over", [
    I32EnumAttrCase<"per_sample", 0>,
    I32EnumAttrCase<"across_samples", 1>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_PixelTilingParameter : EnumParameter<Solder_PixelTiling> {
  let defaultValue = "::mlir::solder::PixelTiling::per_sample";
}

def Solder_ConvEpilogueKind : I32EnumAttr<"ConvEpilogueKind",
    "how a conv epilogue reads the main loop's accumulators", [
    I32EnumAttrCase<"element_welford", 0>,
    I32EnumAttrCase<"tile_shifted_moments", 1>,
    I32EnumAttrCase<"register_moments", 2>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_RegionWalk : I32EnumAttr<"RegionWalk",
    "how the threads of a region without a conv walk it", [
    I32EnumAttrCase<"elementwise", 0>,
    I32EnumAttrCase<"thread_per_output", 1>,
    I32EnumAttrCase<"block_per_output", 2>,
    I32EnumAttrCase<"warp_per_output", 3>,
    I32EnumAttrCase<"block_per_row", 4>,
    I32EnumAttrCase<"warp_per_row", 5>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_KernelKind : I32EnumAttr<"KernelKind", "what a fusion region's kernel computes", [
    I32EnumAttrCase<"conv", 0>,
    I32EnumAttrCase<"conv_transpose", 1>,
    I32EnumAttrCase<"pointwise", 2>,
    I32EnumAttrCase<"reduction", 3>,
    I32EnumAttrCase<"rows", 4>]> {
  let cppNamespace = "::mlir::solder";
  let genSpecializedAttr = 0;
}

def Solder_ImplicitGemmTileAttr : Solder_Attr<"ImplicitGemmTile", "implicit_gemm"> {
  let summary = "CUTLASS's multistage implicit GEMM on tensor cores";
  let description = [{
    A block computes `tile` = [BM output pixels, BN output channels, BK
    reduction elements a step], each warp a [WM, WN] `warp` tile, with
    `stages` cp.async stages. It reads the input channels-last (NDHWC, its
    channels zero-padded to `padded_channels`) and the weights as KTRSC,
    converted on each call by two kernels launched on `input_grid` and
    `weight_grid`; an operand in that layout already (rows of one pixel a
    sample without a prologue, a 1x1 conv's weights, no channel padded) has
    no grid, and the main loop reads it as it is. A tile's pixels lie in one
    sample (`per_sample`, not printed); `pixels = across_samples` runs a conv with one input and one
    output pixel a sample and a 1x1 kernel (a Linear, the convs of
    squeeze-excitation) as the GEMM it is, BM samples a tile, or on the
    Hopper main loop (implicit_gemm_wgmma) any conv whose epilogue reduces
    nothing per sample (statistics across the batch it may) with its
    samples' pixels as one row, a tile running on from one
    sample into the next; the conv's `tiles` are then (tiles of that row,
    channel tiles, 1). `k_splits = S` (the Hopper main loop only; 1, not
    printed, by default) splits each tile's K steps into S shares, a block
    each (split-K): the tiles' third dim is then S times the samples, and
    the last block of a tile to finish adds the S shares in a fixed order
    and runs the epilogue.

    ```mlir
    #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4,
        padded_channels = 64, input_grid = [1800, 1, 16], weight_grid = [432, 1, 1]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile,
                        ArrayRefParameter<"int64_t">:$warp, "int64_t":$stages,
                        "int64_t":$paddedChannels,
                        OptionalArrayRefParameter<"int64_t">:$inputGrid,
                        OptionalArrayRefParameter<"int64_t">:$weightGrid,
                        Solder_PixelTilingParameter:$pixels,
                        DefaultValuedParameter<"int64_t", "1">:$kSplits);
  let assemblyFormat = [{
    `<` `tile` `=` `[` $tile `]` `,` `warp` `=` `[` $warp `]` `,` `stages` `=` $stages `,`
    `padded_channels` `=` $paddedChannels
    ``custom<ImplicitGemmOptionals>($inputGrid, $weightGrid, $pixels, $kSplits) `>`
  }];
  let genVerifyDecl = 1;
}

def Solder_FmaTileAttr : Solder_Attr<"FmaTile", "fma_tile"> {
  let summary = "the implicit-GEMM fallback on fp32 FMAs";
  let description = [{
    A block of 256 threads computes `tile` = [BM output pixels, BN output
    channels of one group, BK reduction elements a step] from PyTorch's
    layouts, a thread (BM / 16) x (BN / 16) outputs.

    ```mlir
    #solder.fma_tile<[128, 64, 16]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile);
  let assemblyFormat = "`<` `[` $tile `]` `>`";
  let genVerifyDecl = 1;
}

def Solder_DirectFmaTileAttr : Solder_Attr<"DirectFmaTile", "direct_fma_tile"> {
  let summary = "the direct conv on fp32 FMAs";
  let description = [{
    A thread computes one output pixel for all of the tile's channels,
    walking its input window once: `tile` = [pixels, channels] a block, from
    PyTorch's layouts.

    ```mlir
    #solder.direct_fma_tile<[128, 24]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile);
  let assemblyFormat = "`<` `[` $tile `]` `>`";
  let genVerifyDecl = 1;
}

def Solder_DepthwiseTileAttr : Solder_Attr<"DepthwiseTile", "depthwise_tile"> {
  let summary = "the depthwise conv on fp32 FMAs";
  let description = [{
    A block of 128 threads computes `rows` x `columns` output positions of
    one output plane for `channels` output channels from each channel's
    input window, staged in shared memory; a thread computes `thread_rows`
    outputs down a column at a time, the channel's taps in registers. From
    PyTorch's layouts.

    ```mlir
    #solder.depthwise_tile<rows = 7, columns = 56, thread_rows = 7, channels = 8>
    ```
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$columns, "int64_t":$threadRows,
                        "int64_t":$channels);
  let assemblyFormat = [{
    `<` `rows` `=` $rows `,` `columns` `=` $columns `,` `thread_rows` `=` $threadRows `,`
    `channels` `=` $channels `>`
  }];
  let genVerifyDecl = 1;
}

def Solder_DirectTileAttr : Solder_Attr<"DirectTile", "direct_tile"> {
  let summary = "the direct conv on tensor cores";
  let description = [{
    A block of `warps` warps computes `rows` whole output rows (BM pixels,
    `tile`[0], padded to 32) for BN = `tile`[1] channels over the whole
    reduction, padded to 8 (`tile`[2]), from an input window in shared
    memory. `accumulation` is `plain`, `step_sums` (3xTF32: each reduction
    step's products summed apart, for a cancelling sum downstream) or
    `centered` (one TF32 product on the input less a shift per sample and
    channel, given back exactly). A prepare kernel of `prepare_threads`
    threads on `prepare_grid` writes
    `prepared_bytes` of weight fragments (and, centered, tap sums and
    shifts) on each call.

    ```mlir
    #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4,
        accumulation = step_sums, prepared_bytes = 16896, prepare_threads = 1056,
        prepare_grid = [5, 1, 1]>
    ```
  }];
  let parameters = (ins "int64_t":$rows, ArrayRefParameter<"int64_t">:$tile,
                        "int64_t":$warps,
                        EnumParameter<Solder_DirectAccumulation>:$accumulation,
                        "int64_t":$preparedBytes, "int64_t":$prepareThreads,
                        ArrayRefParameter<"int64_t">:$prepareGrid);
  let assemblyFormat = [{
    `<` `rows` `=` $rows `,` `tile` `=` `[` $tile `]` `,` `warps` `=` $warps `,`
    `accumulation` `=` $accumulation `,` `prepared_bytes` `=` $preparedBytes `,`
    `prepare_threads` `=` $prepareThreads `,` `prepare_grid` `=` `[` $prepareGrid `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Solder_ConvScheduleAttr : Solder_Attr<"ConvSchedule", "conv_schedule"> {
  let summary = "the schedule of a conv region's kernel";
  let description = [{
    Set by solder-plan on a `solder.fusion` holding a conv (as
    `solder.schedule`); the CUDA code generator launches exactly this.
    `main_loop` and `math` name the main loop and its arithmetic, and
    `config` is that main loop's own tile attribute
    (`#solder.implicit_gemm`, `#solder.fma_tile`, `#solder.direct_fma_tile`,
    `#solder.direct_tile`, `#solder.depthwise_tile`). `tiles` counts the kernel's tiles: (pixel tiles
    of one sample, channel tiles x groups, samples); the `grid` scheduler
    launches a block a tile on that grid, `persistent` launches blocks that
    take tiles in turn, as many as the GPU holds. `min_blocks_per_sm` bounds the kernel's registers so
    that many blocks fit an SM (0: no bound). `epilogue` says how the fused
    epilogue reads the accumulators: each element with per-element Welford
    partials (`element_welford`, the FMA fallback), each element of the
    tile with shifted moments (`tile_shifted_moments`), or each tile's
    channel moments straight from the main loop's registers
    (`register_moments`). `reason` says why this main loop (the report
    and the kernel's comment print it). `prologue_grid` is set where the
    region computes the conv's input (a prologue) and the main loop reads
    PyTorch's layout (every main loop but the tensor-core implicit GEMM,
    whose input conversion applies it): the grid, of 256 threads a block,
    of the kernel that writes the input as the main loop reads it.

    ```mlir
    #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<...>,
        scheduler = persistent, tiles = [110, 1, 128], threads = 128, shared_bytes = 54304,
        min_blocks_per_sm = 4, epilogue = register_moments, reason = "...">
    ```
  }];
  let parameters = (ins EnumParameter<Solder_MainLoopKind>:$mainLoop,
                        EnumParameter<Solder_TensorMath>:$math,
                        "::mlir::Attribute":$config,
                        EnumParameter<Solder_TileSchedulerKind>:$scheduler,
                        ArrayRefParameter<"int64_t">:$grid,
                        "int64_t":$threads, "int64_t":$sharedBytes,
                        "int64_t":$minBlocksPerSM,
                        EnumParameter<Solder_ConvEpilogueKind>:$epilogue,
                        StringRefParameter<>:$reason,
                        OptionalArrayRefParameter<"int64_t">:$prologueGrid);
  let assemblyFormat = [{
    `<` $mainLoop `,` $math `,` $config `,` `scheduler` `=` $scheduler `,`
    `tiles` `=` `[` $grid `]` `,`
    `threads` `=` $threads `,` `shared_bytes` `=` $sharedBytes `,`
    `min_blocks_per_sm` `=` $minBlocksPerSM `,` `epilogue` `=` $epilogue `,`
    `reason` `=` $reason (`,` `prologue_grid` `=` `[` $prologueGrid^ `]`)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The grid the kernel is launched on: `grid`, or for the persistent
    /// scheduler every tile in one dimension (the runtime shrinks it to the
    /// blocks the GPU holds at once).
    std::array<int64_t, 3> getLaunchGrid() const;
  }];
}

def Solder_RegionLaunchAttr : Solder_Attr<"RegionLaunch", "region_launch"> {
  let summary = "the launch of a region without a conv";
  let description = [{
    Set by solder-plan on a `solder.fusion` without a conv (as
    `solder.schedule`). `walk` is `elementwise` (blocks walk tiles of
    `chunk` x `threads` items, an item `vector` consecutive elements),
    `thread_per_output` (a thread reduces one output, `chunk` elements at a
    time), `warp_per_output` (a warp reduces one output whose elements are
    contiguous, `chunk` loads a lane in flight, its lanes combined by
    shuffles in a fixed order; `threads` / 32 outputs a block) or
    `block_per_output` (a block reduces one output through a fixed-order
    tree; where `grid` is S times the outputs, S blocks an output, each an
    equal share of its elements, the last to finish merging the S partials
    in share order) or `block_per_row` (a rows region: a block computes one row of the
    batch through the region's small GEMMs and pointwise ops, the row's
    values in shared memory, each GEMM output a dot product of a weight row
    and the row), or `warp_per_row` (a reduce-and-apply row: a segment of
    a warp's lanes, 4 to 32 of them, walks one row of consecutive elements
    once per reduction, in program order, then once more to store; `chunk`
    elements a lane in flight).

    ```mlir
    #solder.region_launch<thread_per_output, chunk = 8, vector = 1, threads = 256, grid = [63, 1, 1]>
    ```
  }];
  let parameters = (ins EnumParameter<Solder_RegionWalk>:$walk, "int64_t":$chunk,
                        "int64_t":$vector, "int64_t":$threads,
                        ArrayRefParameter<"int64_t">:$grid);
  let assemblyFormat = [{
    `<` $walk `,` `chunk` `=` $chunk `,` `vector` `=` $vector `,` `threads` `=` $threads `,`
    `grid` `=` `[` $grid `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Solder_FinalizeLaunchAttr : Solder_Attr<"FinalizeLaunch", "finalize_launch"> {
  let summary = "the kernel that combines a conv region's partial reductions";
  let description = [{
    Set by solder-plan on a `solder.fusion` whose conv epilogue reduces (as
    `solder.finalize`): the launch of its `_finalize` kernel, and the
    region's results it stores in double (`f64_results`, by result number:
    a channel mean and group statistics whose difference a later
    group_normalize takes, which float would round to half an ulp of the
    data's mean).

    ```mlir
    #solder.finalize_launch<threads = 128, grid = [128, 1, 1], f64_results = array<i64: 0, 1>>
    ```
  }];
  let parameters = (ins "int64_t":$threads, ArrayRefParameter<"int64_t">:$grid,
                        "::mlir::DenseI64ArrayAttr":$f64Results);
  let assemblyFormat = [{
    `<` `threads` `=` $threads `,` `grid` `=` `[` $grid `]` `,` `f64_results` `=` $f64Results `>`
  }];
  let genVerifyDecl = 1;
}

def Solder_EstimateAttr : Solder_Attr<"Estimate", "estimate"> {
  let summary = "the plan's roofline estimate of a kernel (for the report only)";
  let description = [{
    What solder-plan's cost model saw: the kernel's kind, the bytes it moves
    (with a conv's operand conversions), its FLOPs and the estimated time (ns).
    Code generation never reads it.

    ```mlir
    #solder.estimate<conv, bytes = 587400000, flops = 19250000000, ns = 583300>
    ```
  }];
  let parameters = (ins EnumParameter<Solder_KernelKind>:$kind, "int64_t":$bytes,
                        "int64_t":$flops, "int64_t":$nanoseconds);
  let assemblyFormat = [{
    `<` $kind `,` `bytes` `=` $bytes `,` `flops` `=` $flops `,` `ns` `=` $nanoseconds `>`
  }];
}

#endif // SOLDER_ATTRS
