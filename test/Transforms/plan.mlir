// solder-plan after decompose + simplify + cse + form-fusions.

// The cost model (force=auto) on the full-size workloads, a grouped conv and a
// memory-bound 1x1 conv chain.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan)' | FileCheck %s --check-prefix=AUTO
// The report: a table per function on stdout, then the decisions.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{report=true})' -o /dev/null | FileCheck %s --check-prefix=REPORT --strict-whitespace
// With a much slower memory the W2 plan flips to recompute.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{report=true bandwidth-gbs=100})' | FileCheck %s --check-prefix=SLOWMEM --strict-whitespace
// Forced decisions, on small shapes; a forced recompute that cannot be done
// is reported as a remark and the tensor materialized.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute})' | FileCheck %s --check-prefix=RECOMPUTE
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=materialize})' | FileCheck %s --check-prefix=MATERIALIZE
// solder-plan alone on already fused IR.
// RUN: solder-opt %s --solder-plan=force=recompute | FileCheck %s --check-prefix=ALONE
// precision=tf32 takes the one-product TF32 implicit GEMM and its tiles, and
// the direct conv's one product for W3 (a logsumexp follows) and for W1,
// whose mean could cancel one product's rounding of the input's offset: its
// input enters centered; forcing mainloop=direct in tf32 gives one product
// (its weights in shared memory without the small parts); mainloop=fma
// forces the fallback; mainloop=tensorop puts W1 on implicit GEMM, its 3
// channels padded to 4; mainloop=direct_fma puts it on the direct conv's FMAs.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=tf32})' | FileCheck %s --check-prefix=TF32
// TF32-LABEL: func.func @w1(
// TF32: solder.fusion "w1_k0_conv" {{.*}}solder.schedule = #solder.conv_schedule<direct_tensorop, tf32, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = centered, prepared_bytes = 10560, prepare_threads = 12288, prepare_grid = [48, 1, 1]>, scheduler = persistent, tiles = [110, 1, 128], threads = 128, shared_bytes = 37616, min_blocks_per_sm = 6, epilogue = register_moments, reason = "3 input channels: a reduction of 81, whole; one TF32 product; input centered (a sum downstream cancels its offset); persistent blocks (each copies its next tile's input during the current one)">}
// TF32-LABEL: func.func @w2(
// TF32: solder.fusion "w2_k0_conv" {{.*}}solder.schedule = #solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [615, 1, 16], threads = 128, shared_bytes = 49152,
// TF32-LABEL: func.func @w3(
// One product: registers bounded for the 3 blocks of 66560 B an SM's shared memory holds.
// TF32: solder.fusion "w3_k0_conv" {{.*}}solder.schedule = #solder.conv_schedule<direct_tensorop, tf32, #solder.direct_tile<rows = 2, tile = [256, 64, 72], warps = 8, accumulation = plain, prepared_bytes = 18432, prepare_threads = 2304, prepare_grid = [9, 1, 1]>, scheduler = grid, tiles = [63, 1, 128], threads = 256, shared_bytes = 66560, min_blocks_per_sm = 3, epilogue = tile_shifted_moments, reason = "8 input channels: a reduction of 72, whole; one TF32 product">}
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=tf32 mainloop=direct})' | FileCheck %s --check-prefix=TF32DIRECT
// TF32DIRECT-LABEL: func.func @w1(
// TF32DIRECT: solder.fusion "w1_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, #solder.direct_tile<{{.*}}accumulation = centered, prepared_bytes = 10560, {{.*}}scheduler = persistent, {{.*}}shared_bytes = 37616, {{.*}}reason = "forced; persistent blocks (each copies its next tile's input during the current one)">}
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{mainloop=fma})' | FileCheck %s --check-prefix=FMA
// A block per output keeps up to 8 loads a thread in flight where its
// reduction fills them: 1568 elements a GroupNorm statistic (6 per thread
// of 256), 6272 a sample's sum (8); W1's tail above keeps 1.
// RUN: solder-opt %solder_src/test/gpu/cases/groupnorm_silu_sum_no_conv.mlir --solder-pipeline | FileCheck %s --check-prefix=CHUNKED
// CHUNKED: "groupnorm_silu_sum_no_conv_k0_reduction"{{.*}}#solder.region_launch<block_per_output, chunk = 6, vector = 1, threads = 256, grid = [24, 1, 1]>
// CHUNKED: "groupnorm_silu_sum_no_conv_k1_pointwise"{{.*}}#solder.region_launch<block_per_output, chunk = 8, vector = 1, threads = 256, grid = [6, 1, 1]>
// Few outputs of long reductions: each output's elements in equal shares, a
// block each (64 statistics of 131072 elements: 16 shares of 8192, 4 chunks
// of 8 a thread of 256), 1024 blocks; the 6 sums above (6272 elements) stay
// a block each.
// RUN: solder-opt %solder_src/test/gpu/cases/groupnorm_split_stats_silu.mlir --solder-pipeline | FileCheck %s --check-prefix=SPLIT
// SPLIT: "groupnorm_split_stats_silu_k0_reduction"{{.*}}#solder.region_launch<block_per_output, chunk = 8, vector = 1, threads = 256, grid = [1024, 1, 1]>
// A conv with one pixel a sample and a 1x1 kernel (how the importer writes
// Linear) is a GEMM, whose tiles span the samples (2100 rows: 33 tiles of
// 64), its input copied a row at a time (2100 x 96 / 4 elements a thread).
// Its GroupNorm statistics are a reduction kernel of their own, not partials
// of its epilogue (one per element). LayerNorm's statistics over 2100 rows of
// 94 features take a warp a row, 8 rows a block.
// RUN: solder-opt %solder_src/test/gpu/cases/gemm_layernorm_mlp_groupnorm_residual.mlir --solder-pipeline | FileCheck %s --check-prefix=GEMM
// GEMM: "gemm_layernorm_mlp_groupnorm_residual_k0_reduction"{{.*}}#solder.region_launch<warp_per_output, chunk = 2, vector = 1, threads = 256, grid = [263, 1, 1]>
// GEMM: "gemm_layernorm_mlp_groupnorm_residual_k1_conv"
// A GEMM whose grid would leave most of the 132 SMs idle (66 CTAs of 64 x
// 128, 17 of 128 x 64) runs on 64 x 64 tiles.
// GEMM-SAME: #solder.implicit_gemm<tile = [64, 64, 32], warp = [32, 32], stages = 3, padded_channels = 96, input_grid = [197, 1, 1], weight_grid = [60, 1, 1], pixels = across_samples>, scheduler = grid, tiles = [33, 3, 1]
// GEMM-SAME: reason = "tensor cores; a GEMM (one pixel a sample, tiles of BM samples); 64 x 64 tiles: 99 CTAs for 132 SMs"
// GEMM: "gemm_layernorm_mlp_groupnorm_residual_k2_reduction"
// GEMM: solder.group_stats {{.*}} num_groups = 4
// A 1x1 conv's weights with no channel padded are KTRSC already: no
// weight_grid, the main loop reads them as they are.
// GEMM: "gemm_layernorm_mlp_groupnorm_residual_k3_conv"{{.*}}#solder.implicit_gemm<tile = [64, 64, 32], warp = [32, 32], stages = 3, padded_channels = 160, input_grid = [329, 1, 1], pixels = across_samples>, scheduler = grid, tiles = [33, 1, 1]
// FMA-LABEL: func.func @w2(
// FMA: solder.fusion "w2_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 64, 16]>, scheduler = grid, tiles = [308, 2, 16], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "forced">}
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=tf32 mainloop=tensorop})' | FileCheck %s --check-prefix=TENSOROP
// TENSOROP-LABEL: func.func @w1(
// TENSOROP: solder.fusion "w1_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_tensorop, tf32, #solder.implicit_gemm<tile = [128, 32, 16], warp = [32, 32], stages = 4, padded_channels = 4, input_grid = [384, 1, 128], weight_grid = [11, 1, 1]>, scheduler = grid, tiles = [155, 1, 128], threads = 128, shared_bytes = 40960, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "forced">}
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{mainloop=direct_fma})' | FileCheck %s --check-prefix=DIRECTFMA
// DIRECTFMA-LABEL: func.func @w1(
// DIRECTFMA: solder.fusion "w1_k0_conv" {{.*}}#solder.conv_schedule<direct_fma, fma_f32, #solder.direct_fma_tile<[128, 24]>, scheduler = grid, tiles = [155, 1, 128], threads = 128, shared_bytes = 12672, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "forced">}
// DIRECTFMA-LABEL: func.func @w2(
// DIRECTFMA: solder.fusion "w2_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "the direct conv on FMAs cannot run it">}
// A forced direct conv that cannot run a conv says why.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{mainloop=direct})' | FileCheck %s --check-prefix=DIRECT
// DIRECT-LABEL: func.func @w1(
// DIRECT: solder.fusion "w1_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<{{.*}}accumulation = step_sums, {{.*}}reason = "forced; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// DIRECT-LABEL: func.func @w2(
// DIRECT: solder.fusion "w2_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "the direct conv cannot run it: conv_transpose">}
// DIRECT-LABEL: func.func @grouped_conv(
// DIRECT: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "the direct conv cannot run it: groups > 1">}
// RUN: not solder-opt %s --solder-plan=precision=fp16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPRECISION
// BADPRECISION: error: solder-plan: precision must be ieee or tf32, got 'fp16'
// RUN: not solder-opt %s --solder-plan=mainloop=wgmma -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMAINLOOP
// BADMAINLOOP: error: solder-plan: mainloop must be auto, tensorop, direct, direct_fma or fma, got 'wgmma'
// RUN: not solder-opt %s --solder-plan=conv-tile=48x64x16/16x32/3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADTILE
// BADTILE: error: solder-plan: conv-tile must be auto or BMxBNxBK/WMxWN/STAGES with 16-row x 8-column warps tiling the block, BM a multiple of 32, BK a multiple of 16, 2 to 8 stages and at most 8 warps, got '48x64x16/16x32/3'
// A bad option value is an error.
// The target's shared memory sizes the plan: an sm_86 SM gives its blocks
// 100 KB, not sm_90's 228 KB, so W1's persistent tiles (37616 B, 2 blocks an
// SM there) lose to one tile a block (22912 B, 4 blocks), and W3's tf32
// registers are bounded for the one block that fits.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=tf32 arch=sm_86})' | FileCheck %s --check-prefix=SM86
// SM86-LABEL: func.func @w1(
// SM86: solder.fusion "w1_k0_conv" {{.*}}scheduler = grid, tiles = [110, 1, 128], threads = 128, shared_bytes = 22912, min_blocks_per_sm = 4,
// SM86-LABEL: func.func @w3(
// SM86: solder.fusion "w3_k0_conv" {{.*}}scheduler = persistent, tiles = [63, 1, 128], threads = 256, shared_bytes = 101376, min_blocks_per_sm = 1,
// sm_90a: W2's conv_transpose in tf32 on the Hopper main loop (wgmma fed by
// TMA: a producer and two consumer warpgroups, both operands converted for
// its tensor maps), in ieee its 3xTF32 form (128 x 128 tiles, each operand's big
// and small TF32 parts in a stage); W1 and W3 keep the direct conv.
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=tf32 arch=sm_90a})' | FileCheck %s --check-prefix=SM90A
// SM90A-LABEL: func.func @w1(
// The direct conv multiplies on wgmma there: W1's 36 accumulators a thread
// keep the one-product bound of 80 registers (6 blocks an SM), W3's 64 run
// unbounded (bounded, they spilled).
// SM90A: solder.fusion "w1_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, {{.*}}min_blocks_per_sm = 6, {{.*}}reason = "3 input channels: a reduction of 81, whole; one TF32 product; input centered (a sum downstream cancels its offset); on wgmma (sm_90a: a warpgroup's products of one B in shared memory); persistent blocks
// SM90A-LABEL: func.func @w2(
// SM90A: solder.fusion "w2_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [256, 128, 32], warp = [128, 128], stages = 4, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [154, 1, 16], threads = 384, shared_bytes = 197696, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "tensor cores: wgmma fed by TMA (sm_90a), 4 stages, about 326 TFLOP/s against 149 for sm80's mma.sync"
// SM90A-LABEL: func.func @w3(
// SM90A: solder.fusion "w3_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, {{.*}}scheduler = grid, {{.*}}min_blocks_per_sm = 0, {{.*}}; on wgmma (sm_90a
// A conv_transpose of stride 2, kernel 4 and 64 channels: its 4 output
// phases (2 x 2 taps, 8 K steps of 32 channels each) on the Hopper loop,
// phase after phase; the 9 phases of one tap (a K step each) stay on sm80's.
// SM90A-LABEL: func.func @convtranspose_phases(
// SM90A: #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [256, 128, 32], {{.*}}tiles = [64, 1, 4], threads = 384, {{.*}}reason = "tensor cores; 4 output phases, each a conv of stride 1 over its taps: wgmma fed by TMA (sm_90a)
// SM90A: #solder.conv_schedule<implicit_gemm_tensorop, tf32, {{.*}}reason = "tensor cores; 9 output phases, each a conv of stride 1 over its taps">
// SM90A-LABEL: func.func @matmul_as_conv_transpose(
// SM90A: #solder.conv_schedule<implicit_gemm_tensorop, tf32, {{.*}}pixels = across_samples>, scheduler = grid, tiles = [1, 1, 1]
// SM90A-LABEL: func.func @gemm_rows(
// SM90A: solder.fusion "gemm_rows_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], warp = [64, 256], stages = 4, padded_channels = 1024, input_grid = [16384, 1, 1], weight_grid = [4096, 1, 1], pixels = across_samples>, scheduler = grid, tiles = [128, 4, 1], threads = 384, shared_bytes = 197696, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "tensor cores; a GEMM (one pixel a sample, tiles of BM samples): wgmma fed by TMA (sm_90a), 4 stages, about 336 TFLOP/s against 197 for sm80's mma.sync"
// A grid under the SMs takes the way that finishes first: ResNet-50's
// layer4 3x3 conv at batch 32 held 49 pixels a tile of 128 rows (one
// sample's) in 64 CTAs of 128 x 256; its epilogue reduces nothing, so its
// tiles run across the samples (13 of 128 rows) and its 144 K steps split
// 5 ways: 130 CTAs.
// SM90A-LABEL: func.func @layer4_conv(
// SM90A: #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], {{.*}}weight_grid = [9216, 1, 1], pixels = across_samples, k_splits = 5>, scheduler = grid, tiles = [13, 2, 5], {{.*}}reason = "tensor cores: wgmma fed by TMA (sm_90a), 4 stages, about 336 TFLOP/s against 197 for sm80's mma.sync; tiles across samples (49 pixels a sample: 13 x 128 rows hold 94% pixels, one sample's a tile 38%); K split 5 ways: 28-29 steps a share, 130 CTAs for 132 SMs (26 unsplit)"
// Tiles across samples where a long reduction (72 K steps) pays its MMAs
// for every row: the 3x3 256 -> 256 conv at 56x56, 3136 pixels a sample,
// is 1568 CTAs of 128 full rows (12 waves) instead of 1600, the last of
// each sample's 25 half empty (13 waves). A short one (2 K steps, bound by
// its copies and epilogue) keeps a sample a tile at the same size.
// SM90A-LABEL: func.func @long_reduction_across(
// SM90A: #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], {{.*}}pixels = across_samples>, scheduler = grid, tiles = [1568, 1, 1], {{.*}}; tiles across samples (3136 pixels a sample: 1568 x 128 rows hold 100% pixels, one sample's a tile 98%)"
// SM90A-LABEL: func.func @short_reduction_per_sample(
// SM90A-NOT: pixels = across_samples
// SM90A: #solder.conv_schedule<implicit_gemm_wgmma, tf32, {{.*}}tiles = [25, 1, 64],
// A training BatchNorm's statistics span the batch: the layer4 conv's tiles
// run across the samples as without them, split 5 ways, and the partial
// statistics are a tile's: the finalize merges 13 a channel (32 threads;
// 32 samples' would be 416, 64 threads).
// SM90A-LABEL: func.func @layer4_conv_batch_norm(
// SM90A: solder.fusion "layer4_conv_batch_norm_k0_conv" {{.*}}solder.finalize = #solder.finalize_launch<threads = 32, grid = [512, 1, 1], {{.*}}#solder.implicit_gemm<tile = [128, 256, 32], {{.*}}pixels = across_samples, k_splits = 5>, scheduler = grid, tiles = [13, 2, 5],
// SM90A: solder.group_stats {{.*}} across_batch
// An epilogue that reduces (GroupNorm's statistics, a sample's each) keeps
// a sample a tile, and splits the K steps alone: UNet's 1280-channel 3x3
// conv at 16x16, batch 4, is 40 CTAs of 128 x 256 unsplit.
// SM90A-LABEL: func.func @split_conv_group_norm(
// SM90A-NOT: pixels = across_samples
// SM90A: #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 256, 32], {{.*}}weight_grid = [57600, 1, 1], k_splits = 3>, scheduler = grid, tiles = [2, 5, 12], {{.*}}reason = "tensor cores: wgmma fed by TMA (sm_90a), 4 stages, about 336 TFLOP/s against 197 for sm80's mma.sync; K split 3 ways: 120 steps a share, 120 CTAs for 132 SMs (40 unsplit)"
// A conv result that only TF32 Hopper convs read is stored channels-last
// and rounded to TF32 by its producer, and the reader's tensor map reads it
// as it is (no input_grid: no conversion); in ieee the reader's 3xTF32
// takes its conversion's two parts, and the producer stores NCDHW.
// SM90A-LABEL: func.func @bottleneck_edge(
// SM90A: solder.fusion "bottleneck_edge_k0_conv" {{.*}}solder.channels_last = array<i64: 0>, {{.*}}solder.rounded_tf32 = array<i64: 0>, {{.*}}input_grid = [49, 1, 32], weight_grid = [16, 1, 1]>
// TF32's 128 x 64 tiles run two CTAs an SM on half the stages (rates.json).
// SM90A: solder.fusion "bottleneck_edge_k1_conv" {{.*}}#solder.implicit_gemm<tile = [128, 64, 32], warp = [64, 64], stages = 4, padded_channels = 64, weight_grid = [144, 1, 1]>, scheduler = grid, {{.*}}shared_bytes = 99392, min_blocks_per_sm = 2, {{.*}}reason = "tensor cores: wgmma fed by TMA (sm_90a), 4 stages, 2 CTAs an SM, about 196 TFLOP/s
// At batch 8 only tiles whose rate beats sm80's are weighed: 128 x 64
// fills most SMs but at 196 TFLOP/s against sm80's 197; 128 x 128 across
// the samples, split 8 ways.
// SM90A-LABEL: func.func @layer4_conv_batch8(
// SM90A: #solder.conv_schedule<implicit_gemm_wgmma, tf32, #solder.implicit_gemm<tile = [128, 128, 32], {{.*}}pixels = across_samples, k_splits = 8>, scheduler = grid, tiles = [4, 4, 8],
// A result that a Hopper conv reads and its epilogue adds (a residual)
// stays NCDHW: the residual must not see it rounded.
// SM90A-LABEL: func.func @residual_edge(
// SM90A-NOT: solder.rounded_tf32
// SM90A: solder.fusion "residual_edge_k1_conv" {{.*}}input_grid = [49, 1, 32], weight_grid = [144, 1, 1]>
// A result that a Hopper conv reads as its input and another region adds
// as its residual (a ResNet block's output) is stored twice, both
// channels-last: #1 rounded for the Hopper conv, which reads it as it is
// (no input_grid), #0 exact for the residual.
// SM90A-LABEL: func.func @block_output(
// SM90A: %[[BLOCK:[0-9]+]]:2 = solder.fusion "block_output_k0_conv" {{.*}}solder.channels_last = array<i64: 0, 1>, {{.*}}solder.rounded_tf32 = array<i64: 1>,
// SM90A: solder.fusion "block_output_k1_conv" (%{{.*}} = %[[BLOCK]]#1, {{.*}}padded_channels = 64, weight_grid = [16, 1, 1]>
// SM90A: solder.fusion "block_output_k2_conv" ({{.*}}, %{{.*}} = %[[BLOCK]]#0)
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=tf32 arch=sm_90a report=true})' -o /dev/null | FileCheck %s --check-prefix=SM90AREPORT
// SM90AREPORT: block_output_k0_conv: {{.*}}; stores results #0, #1 channels-last (NDHWC); rounds #1 to TF32 for the Hopper convs that read it; #1 is #0 again, for the Hopper convs (#0 stays exact for its other readers)
// RUN: solder-opt %s --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{precision=ieee arch=sm_90a})' | FileCheck %s --check-prefix=SM90AIEEE
// SM90AIEEE-LABEL: func.func @w2(
// SM90AIEEE: solder.fusion "w2_k0_conv" {{.*}}#solder.conv_schedule<implicit_gemm_wgmma, tf32x3, #solder.implicit_gemm<tile = [128, 128, 32], warp = [64, 128], stages = 3, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [308, 1, 16], threads = 384, shared_bytes = 197680, min_blocks_per_sm = 1, epilogue = tile_shifted_moments, reason = "tensor cores: wgmma fed by TMA (sm_90a), 3xTF32, 3 stages, about 131 TFLOP/s against 66 for sm80's mma.sync"
// SM90AIEEE-LABEL: func.func @gemm_rows(
// SM90AIEEE: #solder.conv_schedule<implicit_gemm_wgmma, tf32x3, #solder.implicit_gemm<tile = [128, 128, 32], {{.*}}pixels = across_samples>, scheduler = grid, tiles = [128, 8, 1]
// ResNet's 7x7 stride-2 stem: two rows of 112 with 64 channels a tile take
// 131 KB in 3xTF32, past the direct conv's 100 KB; 32 channels a tile fit.
// SM90AIEEE-LABEL: func.func @resnet_stem(
// SM90AIEEE: #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 2, tile = [224, 32, 152], {{.*}}tiles = [56, 2, 32], threads = 256, shared_bytes = 91936,
// Five channels and the same window: 16 channels of two rows still take
// 119 KB, one row of 16 channels 100896 B.
// SM90AIEEE-LABEL: func.func @stem_five_channels(
// SM90AIEEE: #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 1, tile = [128, 16, 248], {{.*}}tiles = [112, 4, 8], threads = 128, shared_bytes = 100896,
// SM90AIEEE-LABEL: func.func @bottleneck_edge(
// SM90AIEEE-NOT: solder.rounded_tf32
// SM90AIEEE: solder.fusion "bottleneck_edge_k1_conv" {{.*}}#solder.implicit_gemm<tile = [128, 64, 32], warp = [64, 64], stages = 4, padded_channels = 64, input_grid = [49, 1, 32], weight_grid = [144, 1, 1]>, {{.*}}min_blocks_per_sm = 1, {{.*}}reason = "tensor cores: wgmma fed by TMA (sm_90a), 3xTF32, 4 stages, about
// In ieee (3xTF32 reads its conversion's two parts) a block output is
// stored once, NCDHW.
// SM90AIEEE-LABEL: func.func @block_output(
// SM90AIEEE: %{{[0-9]+}} = solder.fusion "block_output_k0_conv"
// SM90AIEEE-NOT: solder.rounded_tf32
// SM90AIEEE: solder.fusion "block_output_k1_conv" {{.*}}input_grid = [49, 1, 32]
// RUN: not solder-opt %s --solder-plan=arch=sm_75 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADARCH
// BADARCH: error: solder-plan: arch must be one of sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_120, got 'sm_75'
// RUN: not solder-opt %s --solder-plan=force=banana -o /dev/null 2>&1 | FileCheck %s --check-prefix=BANANA
// BANANA: error: solder-plan: force must be auto, materialize or recompute, got 'banana'

// Numerical proof (pipelines spelled without the builtin.module anchor: see
// interp-check-pipeline.mlir): every decision on the small workloads, and
// solder-plan alone on the pre-fused function.
// RUN: solder-interp %s --function=w3_spatial_mean --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=1 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_spatial_mean --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=materialize}' --seed=2 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_spatial_mean --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan' --seed=3 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=4 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=materialize}' --seed=5 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=6 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=materialize}' --seed=7 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan' --seed=8 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=returned_conv_tensor --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=9 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=conv_chain_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=10 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=conv_chain_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan' --seed=11 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_spatial_mean --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=12 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w2_small --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan{force=recompute}' --seed=13 --input-low=1000 --input-high=1001 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_prefused --check-pipeline='solder-plan{force=recompute}' --seed=14 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=w3_prefused --check-pipeline='solder-plan{force=materialize}' --seed=15 | FileCheck %s --check-prefix=NUM
// RUN: solder-interp %s --function=squeeze_excitation_rows --check-pipeline='func.func(solder-decompose,solder-simplify,cse,solder-form-fusions),solder-plan' --seed=16 | FileCheck %s --check-prefix=NUM
// NUM: {{^}}PASS

//===----------------------------------------------------------------------===//
// Full-size workloads (never interpreted)
//===----------------------------------------------------------------------===//

// W1: 3 input channels, a reduction of 81: the direct conv on 3xTF32 tensor
// cores, tiles of 6 whole output rows (180 pixels, no rows past the output:
// 5 tiles per plane x 22 planes), all 24 channels, 88 reduction elements (81
// padded to 8), 4 warps of 48 pixels; one grid z per sample. No layout
// conversion. The tail is a reduction, one block per output sample. No
// full-size tensor is shared: no decision.
// AUTO-LABEL: func.func @w1(
// AUTO: solder.fusion "w1_k0_conv" {{.*}} -> (tensor<128x8x2xf32>, tensor<128x24x1x1x1xf32>) attributes {solder.estimate = #solder.estimate<conv, bytes = 37801760, flops = 10157875200, ns = 245365>, solder.finalize = #solder.finalize_launch<threads = 64, grid = [1024, 1, 1], f64_results = [0, 1]>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [192, 24, 88], warps = 4, accumulation = step_sums, prepared_bytes = 16896, prepare_threads = 1056, prepare_grid = [5, 1, 1]>, scheduler = persistent, tiles = [110, 1, 128], threads = 128, shared_bytes = 54304, min_blocks_per_sm = 4, epilogue = register_moments, reason = "3 input channels: a reduction of 81, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// AUTO: solder.fusion "w1_k1_pointwise" {{.*}} -> tensor<128xf32> attributes {solder.estimate = #solder.estimate<reduction, bytes = 21184, flops = 9216, ns = 5>, solder.schedule = #solder.region_launch<block_per_output, chunk = 1, vector = 1, threads = 256, grid = [128, 1, 1]>}
func.func @w1(%x: tensor<128x3x24x32x32xf32>, %conv_weight: tensor<24x3x3x3x3xf32>,
              %conv_bias: tensor<24xf32>, %norm_weight: tensor<24xf32>,
              %norm_bias: tensor<24xf32>) -> tensor<128xf32> {
  %y = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1, 1]
         padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : (tensor<128x3x24x32x32xf32>, tensor<24x3x3x3x3xf32>, tensor<24xf32>)
         -> tensor<128x24x22x30x30xf32>
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 8 epsilon = 1.0e-05
       : (tensor<128x24x22x30x30xf32>, tensor<24xf32>, tensor<24xf32>)
         -> tensor<128x24x22x30x30xf32>
  %out = solder.reduce mean %n dims = [1, 2, 3, 4]
       : tensor<128x24x22x30x30xf32> -> tensor<128xf32>
  return %out : tensor<128xf32>
}

// W2: the transposed conv (stride 1: a conv with the kernel flipped) on 3xTF32
// tensor cores, 34^3 = 39304 pixels per sample in 615 tiles of 64, 128
// channels in one tile, 4 warps, 4 stages; its input converted to NDHWC and
// its weights to KTRSC (270 MB counted in bytes). The normalize is pointwise
// (1024 elements per block). Materialize wins by a wide margin (recompute
// redoes the 232 GFLOP).
// AUTO-LABEL: func.func @w2(
// AUTO: %[[K0:.*]]:2 = solder.fusion "w2_k0_conv" {{.*}} -> (tensor<16x128x34x34x34xf32>, tensor<16x8x2xf32>) attributes {solder.estimate = #solder.estimate<conv_transpose, bytes = 727286784, flops = 232330706944, ns = 3541681>, solder.finalize = #solder.finalize_launch<threads = 1024, grid = [128, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [615, 1, 16], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "tensor cores">}
// AUTO: solder.fusion "w2_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}}) {{.*}} attributes {solder.estimate = #solder.estimate<pointwise, bytes = 643958784, flops = 160989184, ns = 153324>, solder.schedule = #solder.region_launch<elementwise, chunk = 2, vector = 4, threads = 256, grid = [39304, 1, 1]>}
// AUTO-NOT: solder.conv_transpose
// AUTO: return
func.func @w2(%x: tensor<16x64x32x32x32xf32>, %conv_weight: tensor<64x128x3x3x3xf32>,
              %norm_weight: tensor<128xf32>, %norm_bias: tensor<128xf32>)
    -> tensor<16x128x34x34x34xf32> {
  %y = solder.conv_transpose %x, %conv_weight strides = [1, 1, 1]
         padding = [0, 0, 0] output_padding = [0, 0, 0] dilations = [1, 1, 1]
         groups = 1
       : (tensor<16x64x32x32x32xf32>, tensor<64x128x3x3x3xf32>) -> tensor<16x128x34x34x34xf32>
  %r = solder.relu %y : tensor<16x128x34x34x34xf32>
  %out = solder.group_norm %r weight = %norm_weight bias = %norm_bias
           num_groups = 8 epsilon = 1.0e-05
       : (tensor<16x128x34x34x34xf32>, tensor<128xf32>, tensor<128xf32>)
         -> tensor<16x128x34x34x34xf32>
  return %out : tensor<16x128x34x34x34xf32>
}

// W3: 8 input channels, a reduction of 72: the direct conv on 3xTF32 tensor
// cores, 63 tiles of 2 output rows (252 pixels) per sample, 64 channels in
// one tile, 8 warps of 32 pixels, no layout conversion; the tail is a reduction with one
// block per logsumexp output. The tail reduces across
// channels, which a conv epilogue cannot: recompute is impossible, whatever
// its cost; the conv tensor stays a result.
// AUTO-LABEL: func.func @w3(
// AUTO: %[[K0:.*]]:2 = solder.fusion "w3_k0_conv" {{.*}} -> (tensor<128x64x126x126xf32>, tensor<128x16x2xf32>) attributes {solder.estimate = #solder.estimate<conv, bytes = 587424000, flops = 19248316416, ns = 464946>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [2048, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 2, tile = [256, 64, 72], warps = 8, accumulation = plain, prepared_bytes = 36864, prepare_threads = 2304, prepare_grid = [9, 1, 1]>, scheduler = grid, tiles = [63, 1, 128], threads = 256, shared_bytes = 70144, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "8 input channels: a reduction of 72, whole">}
// AUTO: solder.fusion "w3_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}}) {{.*}} attributes {solder.estimate = #solder.estimate<reduction, bytes = 528370176, flops = 2341011458, ns = 125802>, solder.schedule = #solder.region_launch<thread_per_output, chunk = 8, vector = 1, threads = 256, grid = [7938, 1, 1]>}
// AUTO-NOT: solder.conv
// AUTO: return
func.func @w3(%x: tensor<128x8x128x128xf32>, %conv_weight: tensor<64x8x3x3xf32>,
              %conv_bias: tensor<64xf32>, %norm_weight: tensor<64xf32>,
              %norm_bias: tensor<64xf32>) -> tensor<128x1x126x126xf32> {
  %y = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1]
         padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<128x8x128x128xf32>, tensor<64x8x3x3xf32>, tensor<64xf32>)
         -> tensor<128x64x126x126xf32>
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 16 epsilon = 1.0e-05
       : (tensor<128x64x126x126xf32>, tensor<64xf32>, tensor<64xf32>)
         -> tensor<128x64x126x126xf32>
  %t = solder.tanh %n : tensor<128x64x126x126xf32>
  %z = solder.hardswish %t : tensor<128x64x126x126xf32>
  %s = solder.add %y, %z : tensor<128x64x126x126xf32>
  %out = solder.reduce logsumexp %s dims = [1] keepdim
       : tensor<128x64x126x126xf32> -> tensor<128x1x126x126xf32>
  return %out : tensor<128x1x126x126xf32>
}

// groups = 2 of 4 -> 8 channels: the FMA main loop (3xTF32 tiles would be
// three quarters zeros), 8 channels per group in a tile of 16, the groups'
// tiles along grid y.
// AUTO-LABEL: func.func @grouped_conv(
// AUTO: solder.fusion "grouped_conv_k0_conv" {{.*}} attributes {solder.estimate = #solder.estimate<conv, bytes = 363776, flops = 4608000, ns = 461>, solder.schedule = #solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [8, 2, 4], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "fewer than 8 input channels a group (3xTF32 measured slower than FMA)">}
func.func @grouped_conv(%x: tensor<4x8x32x32xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<4x16x30x30xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 2
       : (tensor<4x8x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<4x16x30x30xf32>
  %r = solder.silu %y : tensor<4x16x30x30xf32>
  return %r : tensor<4x16x30x30xf32>
}

// A memory-bound chain of 1x1 convs: recompute would look cheaper, but the
// consumer is a conv kernel of its own, so the tensor is materialized (this
// used to crash: the emptied producer was planned with no ops).
// AUTO-LABEL: func.func @pointwise_convs(
// AUTO-NEXT: %[[K0:.*]] = solder.fusion "pointwise_convs_k0_conv" {{.*}} -> tensor<8x4x256x256xf32> attributes {solder.estimate = #solder.estimate<conv, bytes = 16777856, flops = 16777216, ns = 3995>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 1, tile = [256, 8, 8], warps = 8, accumulation = plain, prepared_bytes = 512, prepare_threads = 32, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [256, 1, 8], threads = 256, shared_bytes = 14112, min_blocks_per_sm = 2, epilogue = tile_shifted_moments, reason = "4 input channels: a reduction of 4, whole; persistent blocks (each copies its next tile's input during the current one)">}
// AUTO-NEXT:   solder.conv
// AUTO-NEXT:   solder.yield
// AUTO-NEXT: }
// AUTO-NEXT: %[[K1:.*]] = solder.fusion "pointwise_convs_k1_conv" (%{{.*}} = %[[K0]], {{.*}} attributes {solder.estimate = #solder.estimate<conv, bytes = 16777856, flops = 16777216, ns = 3995>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 1, tile = [256, 8, 8], warps = 8, accumulation = plain, prepared_bytes = 512, prepare_threads = 32, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [256, 1, 8], threads = 256, shared_bytes = 14112, min_blocks_per_sm = 2, epilogue = tile_shifted_moments, reason = "4 input channels: a reduction of 4, whole; persistent blocks (each copies its next tile's input during the current one)">}
// AUTO-NEXT:   solder.conv
// AUTO-NEXT:   solder.yield
// AUTO-NEXT: }
// AUTO-NEXT: return %[[K1]]
func.func @pointwise_convs(%x: tensor<8x4x256x256xf32>, %w1: tensor<4x4x1x1xf32>, %w2: tensor<4x4x1x1xf32>) -> tensor<8x4x256x256xf32> {
  %y = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x4x256x256xf32>, tensor<4x4x1x1xf32>) -> tensor<8x4x256x256xf32>
  %z = solder.conv %y, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x4x256x256xf32>, tensor<4x4x1x1xf32>) -> tensor<8x4x256x256xf32>
  return %z : tensor<8x4x256x256xf32>
}

// REPORT-LABEL: Solder plan for @w1 (sm_90, precision ieee; roofline: 4200 GB/s, 51.0 TFLOP/s fp32, conv main loops at their measured rates)
// REPORT-NEXT: {{^  kernel +kind +main loop +ops +MB moved +GFLOP +est. us$}}
// REPORT-NEXT: {{^  w1_k0_conv +conv +direct_3xtf32 192x24x88 6 rows conv, group_stats, reduce +37.8 +10.16 +245.4$}}
// REPORT-NEXT: {{^  w1_k1_pointwise +reduction +- +group_normalize, reduce +0.0 +0.00 +0.0$}}
// REPORT-NEXT: {{^  total: 2 kernels, est. 245.4 us$}}
// REPORT-NEXT: {{^  w1_k0_conv: direct_3xtf32 \(3 input channels: a reduction of 81, whole; each step's products summed apart \(a sum downstream cancels the tensor cores' truncation bias\); persistent blocks \(each copies its next tile's input during the current one\)\); tiles 110x1x128, 128 threads, 54304 B shared \(registers bounded for 4 blocks an SM\); weights -> split TF32 fragments: 0.02 MB$}}
// REPORT-NOT: shared w1
// REPORT-LABEL: Solder plan for @w2 (sm_90, precision ieee;
// REPORT-NEXT: {{^  kernel +kind +main loop +ops +MB moved +GFLOP +est. us$}}
// REPORT-NEXT: {{^  w2_k0_conv +conv_transpose tensorop_3xtf32 64x128x16 s4 conv_transpose, relu, group_stats +727.3 +232.33 +3541.7$}}
// REPORT-NEXT: {{^  w2_k1_pointwise +pointwise +- +group_normalize +644.0 +0.16 +153.3$}}
// REPORT-NEXT: {{^  total: 2 kernels, est. 3695.0 us$}}
// REPORT-NEXT: {{^  w2_k0_conv: tensorop_3xtf32 \(tensor cores\); grid 615x1x16, 128 threads, 49152 B shared; layout conversions \(input NCDHW -> NDHWC with 64 channels, weights -> KTRSC\): 270.2 MB$}}
// REPORT-NEXT: {{^  shared w2_k0_conv#0 tensor<16x128x34x34x34xf32> \(322.0 MB\) -> w2_k1_pointwise: materialize \(cost model; materialize 3695.0 us, recompute 7080.9 us\)$}}
// REPORT-LABEL: Solder plan for @w3 (sm_90, precision ieee;
// REPORT-NEXT: {{^  kernel +kind +main loop +ops +MB moved +GFLOP +est. us$}}
// REPORT-NEXT: {{^  w3_k0_conv +conv +direct_3xtf32 256x64x72 2 rows conv, group_stats +587.4 +19.25 +464.9$}}
// REPORT-NEXT: {{^  w3_k1_pointwise +reduction +- +group_normalize, tanh, add, mul, div, add, reduce +528.4 +2.34 +125.8$}}
// REPORT-NEXT: {{^  total: 2 kernels, est. 590.7 us$}}
// REPORT-NEXT: {{^  w3_k0_conv: direct_3xtf32 \(8 input channels: a reduction of 72, whole\); grid 63x1x128, 256 threads, 70144 B shared; weights -> split TF32 fragments: 0.06 MB$}}
// REPORT-NEXT: {{^  shared w3_k0_conv#0 tensor<128x64x126x126xf32> \(520.2 MB\) -> w3_k1_pointwise: materialize \(recompute impossible: .*reduces across channels.*; materialize 590.7 us, recompute 973.9 us\)$}}
// REPORT-LABEL: Solder plan for @grouped_conv
// REPORT-NEXT: {{^  kernel +kind +main loop +ops}}
// REPORT-NEXT: {{^  grouped_conv_k0_conv +conv +fma 128x16x16 conv, silu +0.4 +0.00 +0.5$}}
// REPORT-NEXT: {{^  total: 1 kernel, est. 0.5 us$}}
// REPORT-NEXT: {{^  grouped_conv_k0_conv: fma \(fewer than 8 input channels a group \(3xTF32 measured slower than FMA\)\); grid 8x2x4, 256 threads, 0 B shared$}}
// REPORT-NOT: shared grouped
// REPORT-LABEL: Solder plan for @pointwise_convs
// REPORT: {{^  shared pointwise_convs_k0_conv#0 tensor<8x4x256x256xf32> \(8.4 MB\) -> pointwise_convs_k1_conv: materialize \(recompute impossible: pointwise_convs_k1_conv has a conv of its own; }}
// Already fused by hand: its fusions (named by hand) are planned as they are;
// at this size both plans cost well under 0.1 us, and the direct conv's
// measured rate makes recomputing it the cheaper by a hair.
// REPORT-LABEL: Solder plan for @w3_prefused
// REPORT-NEXT: {{^  kernel +kind +main loop +ops}}
// REPORT-NEXT: {{^  conv_stats +conv +direct_3xtf32 64x8x32 6 rows conv, group_stats }}
// REPORT-NEXT: {{^  tail +conv +direct_3xtf32 64x8x32 6 rows conv, group_normalize, tanh, add, mul, div, add, reduce }}
// REPORT-NEXT: {{^  total: 2 kernels}}
// REPORT-NEXT: {{^  conv_stats: direct_3xtf32}}
// REPORT-NEXT: {{^  tail: direct_3xtf32}}
// REPORT-NEXT: {{^  shared conv_stats#0 tensor<2x8x6x6xf32> \(0.0 MB\) -> tail: recompute \(cost model; materialize 0.0 us, recompute 0.0 us\)$}}

// SLOWMEM-LABEL: Solder plan for @w2 (sm_90, precision ieee; roofline: 100 GB/s, 51.0 TFLOP/s fp32, conv main loops at their measured rates)
// SLOWMEM-NEXT: {{^  kernel +kind +main loop +ops}}
// SLOWMEM-NEXT: {{^  w2_k0_conv +conv_transpose tensorop_3xtf32 64x128x16 s4 conv_transpose, relu, group_stats +405.3 +232.33 +4053.1$}}
// SLOWMEM-NEXT: {{^  w2_k1_pointwise +conv_transpose tensorop_3xtf32 64x128x16 s4 conv_transpose, relu, group_normalize +727.3 +232.17 +7272.9$}}
// SLOWMEM-NEXT: {{^  total: 2 kernels, est. 11326.0 us$}}
// SLOWMEM-NEXT: {{^  w2_k0_conv: tensorop_3xtf32}}
// SLOWMEM-NEXT: {{^  w2_k1_pointwise: tensorop_3xtf32}}
// SLOWMEM-NEXT: {{^  shared w2_k0_conv#0 tensor<16x128x34x34x34xf32> \(322.0 MB\) -> w2_k1_pointwise: recompute \(cost model; materialize 13712.5 us, recompute 8623.9 us\)$}}
// SLOWMEM-LABEL: func.func @w2(
// SLOWMEM-NEXT: %[[K0:.*]] = solder.fusion "w2_k0_conv" {{.*}} -> tensor<16x8x2xf32> attributes {solder.estimate = #solder.estimate<conv_transpose, bytes = 405308416, flops = 232330706944, ns = 4053084>, solder.finalize = #solder.finalize_launch<threads = 1024, grid = [128, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, #solder.implicit_gemm<tile = [64, 128, 16], warp = [32, 64], stages = 4, padded_channels = 64, input_grid = [512, 1, 16], weight_grid = [864, 1, 1]>, scheduler = grid, tiles = [615, 1, 16], threads = 128, shared_bytes = 49152, min_blocks_per_sm = 0, epilogue = tile_shifted_moments, reason = "tensor cores">}
// SLOWMEM: solder.fusion "w2_k1_pointwise" {{.*}} #solder.estimate<conv_transpose,
// SLOWMEM-NEXT: solder.conv_transpose

//===----------------------------------------------------------------------===//
// Small workloads: forced decisions, numerically checked
//===----------------------------------------------------------------------===//

// W3 with a per-channel tail (a spatial mean instead of the logsumexp over
// channels), so that a conv epilogue can run it. force=recompute: the producer
// keeps the conv (its statistics need it) but no longer yields the conv
// tensor; the consumer captures x, w and b, re-runs the conv first and reads
// it where it read the capture (the normalize and the residual add).
// RECOMPUTE-LABEL: func.func @w3_spatial_mean(
// RECOMPUTE-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf32>, %[[CW:[a-z0-9]+]]: tensor<8x3x3x3xf32>, %[[CB:[a-z0-9]+]]: tensor<8xf32>, %[[NW:[a-z0-9]+]]: tensor<8xf32>, %[[NB:[a-z0-9]+]]: tensor<8xf32>)
// RECOMPUTE-NEXT: %[[K0:.*]] = solder.fusion "w3_spatial_mean_k0_conv" (%[[A0:.*]] = %[[X]], %[[A1:.*]] = %[[CW]], %[[A2:.*]] = %[[CB]]) : ({{.*}}) -> tensor<2x4x2xf32> attributes {solder.estimate = #solder.estimate<conv, bytes = 5408, flops = 33408, ns = 1>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [8, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [64, 8, 32], warps = 4, accumulation = step_sums, prepared_bytes = 2048, prepare_threads = 128, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [1, 1, 2], threads = 128, shared_bytes = 6208, min_blocks_per_sm = 4, epilogue = register_moments, reason = "3 input channels: a reduction of 27, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// RECOMPUTE-NEXT:   %[[Y:.*]] = solder.conv %[[A0]], %[[A1]], %[[A2]]
// RECOMPUTE-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]]
// RECOMPUTE-NEXT:   solder.yield %[[S]] : tensor<2x4x2xf32>
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: %[[K1:.*]] = solder.fusion "w3_spatial_mean_k1_pointwise" (%[[B0:.*]] = %[[K0]], %[[B1:.*]] = %[[NW]], %[[B2:.*]] = %[[NB]], %[[B3:.*]] = %[[X]], %[[B4:.*]] = %[[CW]], %[[B5:.*]] = %[[CB]]) : (tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8xf32> attributes {solder.estimate = #solder.estimate<conv, bytes = 5536, flops = 39746, ns = 1>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [1, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [64, 8, 32], warps = 4, accumulation = step_sums, prepared_bytes = 2048, prepare_threads = 128, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [1, 1, 2], threads = 128, shared_bytes = 6208, min_blocks_per_sm = 4, epilogue = tile_shifted_moments, reason = "3 input channels: a reduction of 27, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// RECOMPUTE-NEXT:   %[[Y2:.*]] = solder.conv %[[B3]], %[[B4]], %[[B5]] {{.*}} -> tensor<2x8x6x6xf32>
// RECOMPUTE-NEXT:   arith.constant
// RECOMPUTE-NEXT:   arith.constant
// RECOMPUTE-NEXT:   %[[N:.*]] = solder.group_normalize %[[Y2]], %[[B0]] weight = %[[B1]] bias = %[[B2]]
// RECOMPUTE-NEXT:   solder.tanh %[[N]]
// RECOMPUTE-NEXT:   solder.add
// RECOMPUTE-NEXT:   solder.mul
// RECOMPUTE-NEXT:   %[[Z:.*]] = solder.div
// RECOMPUTE-NEXT:   %[[RES:.*]] = solder.add %[[Y2]], %[[Z]]
// RECOMPUTE-NEXT:   %[[M:.*]] = solder.reduce mean %[[RES]] dims = [2, 3]
// RECOMPUTE-NEXT:   solder.yield %[[M]]
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: return %[[K1]]
// force=materialize: the conv tensor stays a result and is read back.
// MATERIALIZE-LABEL: func.func @w3_spatial_mean(
// MATERIALIZE-NEXT: %[[K0:.*]]:2 = solder.fusion "w3_spatial_mean_k0_conv" ({{.*}}) : ({{.*}}) -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>) attributes {solder.estimate = #solder.estimate<conv, bytes = 7712, flops = 33408, ns = 2>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [8, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [64, 8, 32], warps = 4, accumulation = step_sums, prepared_bytes = 2048, prepare_threads = 128, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [1, 1, 2], threads = 128, shared_bytes = 6208, min_blocks_per_sm = 4, epilogue = tile_shifted_moments, reason = "3 input channels: a reduction of 27, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// MATERIALIZE-NEXT:   %[[Y:.*]] = solder.conv
// MATERIALIZE-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]]
// MATERIALIZE-NEXT:   solder.yield %[[Y]], %[[S]]
// MATERIALIZE-NEXT: }
// MATERIALIZE-NEXT: %[[K1:.*]] = solder.fusion "w3_spatial_mean_k1_pointwise" (%[[B0:.*]] = %[[K0]]#0, %[[B1:.*]] = %[[K0]]#1, {{.*}}) : ({{.*}}) -> tensor<2x8xf32> attributes {solder.estimate = #solder.estimate<reduction, bytes = 2496, flops = 8642, ns = 1>, solder.schedule = #solder.region_launch<block_per_output, chunk = 1, vector = 1, threads = 256, grid = [16, 1, 1]>}
// MATERIALIZE-NOT: solder.conv
// MATERIALIZE: solder.add %[[B0]],
// MATERIALIZE: return %[[K1]]
func.func @w3_spatial_mean(%x: tensor<2x3x8x8xf32>, %cw: tensor<8x3x3x3xf32>, %cb: tensor<8xf32>,
                           %nw: tensor<8xf32>, %nb: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = solder.conv %x, %cw, %cb strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %n = solder.group_norm %y weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %t = solder.tanh %n : tensor<2x8x6x6xf32>
  %z = solder.hardswish %t : tensor<2x8x6x6xf32>
  %s = solder.add %y, %z : tensor<2x8x6x6xf32>
  %out = solder.reduce mean %s dims = [2, 3] : tensor<2x8x6x6xf32> -> tensor<2x8xf32>
  return %out : tensor<2x8xf32>
}

// W3 itself: the logsumexp over channels cannot run in a conv epilogue, so even
// a forced recompute materializes, with a remark.
// REMARK: remark: solder-plan: cannot recompute w3_small_k0_conv#0: w3_small_k1_pointwise runs 'solder.reduce', which a conv epilogue cannot (it reduces across channels or reads windows)
// RECOMPUTE-LABEL: func.func @w3_small(
// RECOMPUTE-NEXT: %[[K0:.*]]:2 = solder.fusion "w3_small_k0_conv" {{.*}} -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>)
// RECOMPUTE: solder.fusion "w3_small_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}}) {{.*}} #solder.estimate<reduction,
// RECOMPUTE-NOT: solder.conv
// RECOMPUTE: solder.reduce logsumexp
// RECOMPUTE: return
func.func @w3_small(%x: tensor<2x3x8x8xf32>, %cw: tensor<8x3x3x3xf32>, %cb: tensor<8xf32>,
                    %nw: tensor<8xf32>, %nb: tensor<8xf32>) -> tensor<2x1x6x6xf32> {
  %y = solder.conv %x, %cw, %cb strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %n = solder.group_norm %y weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x6x6xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
  %t = solder.tanh %n : tensor<2x8x6x6xf32>
  %z = solder.hardswish %t : tensor<2x8x6x6xf32>
  %s = solder.add %y, %z : tensor<2x8x6x6xf32>
  %out = solder.reduce logsumexp %s dims = [1] keepdim : tensor<2x8x6x6xf32> -> tensor<2x1x6x6xf32>
  return %out : tensor<2x1x6x6xf32>
}

// W2: the recomputed slice is the transposed conv and the relu.
// RECOMPUTE-LABEL: func.func @w2_small(
// RECOMPUTE-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x3x3x3xf32>, %[[CW:[a-z0-9]+]]: tensor<4x8x3x3x3xf32>, %[[NW:[a-z0-9]+]]: tensor<8xf32>, %[[NB:[a-z0-9]+]]: tensor<8xf32>)
// RECOMPUTE-NEXT: %[[K0:.*]] = solder.fusion "w2_small_k0_conv" ({{.*}}) : ({{.*}}) -> tensor<2x4x2xf32> attributes {solder.estimate = #solder.estimate<conv_transpose, bytes = 4384, flops = 103312, ns = 10>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [8, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 2], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "fewer than 8 input channels (3xTF32 measured slower than FMA)">}
// RECOMPUTE-NEXT:   solder.conv_transpose
// RECOMPUTE-NEXT:   solder.relu
// RECOMPUTE-NEXT:   %[[S:.*]] = solder.group_stats
// RECOMPUTE-NEXT:   solder.yield %[[S]] : tensor<2x4x2xf32>
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: %[[K1:.*]] = solder.fusion "w2_small_k1_pointwise" (%[[B0:.*]] = %[[K0]], %[[B1:.*]] = %[[NW]], %[[B2:.*]] = %[[NB]], %[[B3:.*]] = %[[X]], %[[B4:.*]] = %[[CW]]) : ({{.*}}) -> tensor<2x8x5x5x5xf32> attributes {solder.estimate = #solder.estimate<conv_transpose, bytes = 12448, flops = 99312, ns = 10>, solder.schedule = #solder.conv_schedule<implicit_gemm_fma, fma_f32, #solder.fma_tile<[128, 16, 16]>, scheduler = grid, tiles = [1, 1, 2], threads = 256, shared_bytes = 0, min_blocks_per_sm = 0, epilogue = element_welford, reason = "fewer than 8 input channels (3xTF32 measured slower than FMA)">}
// RECOMPUTE-NEXT:   %[[Y:.*]] = solder.conv_transpose %[[B3]], %[[B4]]
// RECOMPUTE-NEXT:   %[[R:.*]] = solder.relu %[[Y]]
// RECOMPUTE-NEXT:   %[[N:.*]] = solder.group_normalize %[[R]], %[[B0]] weight = %[[B1]] bias = %[[B2]]
// RECOMPUTE-NEXT:   solder.yield %[[N]]
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: return %[[K1]]
// MATERIALIZE-LABEL: func.func @w2_small(
// MATERIALIZE-NEXT: %[[K0:.*]]:2 = solder.fusion "w2_small_k0_conv" {{.*}} -> (tensor<2x8x5x5x5xf32>, tensor<2x4x2xf32>)
// MATERIALIZE: %[[K1:.*]] = solder.fusion "w2_small_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1, {{.*}}) {{.*}} #solder.estimate<pointwise,
// MATERIALIZE-NEXT: solder.group_normalize
// MATERIALIZE-NEXT: solder.yield
func.func @w2_small(%x: tensor<2x4x3x3x3xf32>, %cw: tensor<4x8x3x3x3xf32>, %nw: tensor<8xf32>,
                    %nb: tensor<8xf32>) -> tensor<2x8x5x5x5xf32> {
  %y = solder.conv_transpose %x, %cw strides = [1, 1, 1] padding = [0, 0, 0] output_padding = [0, 0, 0]
         dilations = [1, 1, 1] groups = 1
       : (tensor<2x4x3x3x3xf32>, tensor<4x8x3x3x3xf32>) -> tensor<2x8x5x5x5xf32>
  %r = solder.relu %y : tensor<2x8x5x5x5xf32>
  %out = solder.group_norm %r weight = %nw bias = %nb num_groups = 4 epsilon = 1.0e-05
       : (tensor<2x8x5x5x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x5x5x5xf32>
  return %out : tensor<2x8x5x5x5xf32>
}

// A 3x3 conv chain: the consumer is a conv kernel; no recompute even when
// forced (remark), both kernels planned, nothing left empty.
// REMARK: remark: solder-plan: cannot recompute conv_chain_small_k0_conv#0: conv_chain_small_k1_conv has a conv of its own
// RECOMPUTE-LABEL: func.func @conv_chain_small(
// RECOMPUTE-NEXT: %[[K0:.*]] = solder.fusion "conv_chain_small_k0_conv" {{.*}} -> tensor<1x4x5x5xf32> attributes {{.*}}
// RECOMPUTE-NEXT:   solder.conv
// RECOMPUTE-NEXT:   solder.relu
// RECOMPUTE-NEXT:   solder.yield
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: %[[K1:.*]] = solder.fusion "conv_chain_small_k1_conv" (%{{.*}} = %[[K0]], {{.*}}) {{.*}} attributes {{.*}}
// RECOMPUTE-NEXT:   solder.conv
// RECOMPUTE-NEXT:   solder.yield
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: return %[[K1]]
func.func @conv_chain_small(%x: tensor<1x2x7x7xf32>, %w1: tensor<4x2x3x3xf32>, %w2: tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %y = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x7x7xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x5x5xf32>
  %r = solder.relu %y : tensor<1x4x5x5xf32>
  %z = solder.conv %r, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %z : tensor<1x4x3x3xf32>
}

// Negative: a conv tensor that is also returned is never recomputed, even when
// forced (it must be stored anyway); no decision, no remark.
// REMARK-NOT: returned_conv_tensor
// RECOMPUTE-LABEL: func.func @returned_conv_tensor(
// RECOMPUTE-NEXT: %[[K0:.*]]:2 = solder.fusion "returned_conv_tensor_k0_conv" {{.*}} -> (tensor<1x4x3x3xf32>, tensor<1x2x2xf32>)
// RECOMPUTE-NEXT:   %[[Y:.*]] = solder.conv
// RECOMPUTE-NEXT:   %[[S:.*]] = solder.group_stats %[[Y]]
// RECOMPUTE-NEXT:   solder.yield %[[Y]], %[[S]]
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: %[[K1:.*]] = solder.fusion "returned_conv_tensor_k1_pointwise" ({{.*}} = %[[K0]]#0, {{.*}} = %[[K0]]#1)
// RECOMPUTE-NEXT:   solder.group_normalize
// RECOMPUTE-NEXT:   solder.yield
// RECOMPUTE-NEXT: }
// RECOMPUTE-NEXT: return %[[K1]], %[[K0]]#0
func.func @returned_conv_tensor(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>)
    -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %n = solder.group_norm %y num_groups = 2 epsilon = 1.0e-05 : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %n, %y : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>
}

// W3 (with a per-channel tail) already fused, for solder-plan alone. The
// consumer already captures the conv bias (for no reason but this test):
// recompute must reuse that capture instead of adding a second one.
// ALONE-LABEL: func.func @w3_prefused(
// ALONE-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf32>, %[[CW:[a-z0-9]+]]: tensor<8x3x3x3xf32>, %[[CB:[a-z0-9]+]]: tensor<8xf32>, %[[NW:[a-z0-9]+]]: tensor<8xf32>, %[[NB:[a-z0-9]+]]: tensor<8xf32>)
// ALONE-NEXT: %[[K0:.*]] = solder.fusion "conv_stats" (%{{.*}} = %[[X]], %{{.*}} = %[[CW]], %{{.*}} = %[[CB]]) : ({{.*}}) -> tensor<2x4x2xf32> attributes {solder.estimate = #solder.estimate<conv, bytes = 5408, flops = 33408, ns = 1>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [8, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [64, 8, 32], warps = 4, accumulation = step_sums, prepared_bytes = 2048, prepare_threads = 128, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [1, 1, 2], threads = 128, shared_bytes = 6208, min_blocks_per_sm = 4, epilogue = register_moments, reason = "3 input channels: a reduction of 27, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// ALONE-NEXT:   solder.conv
// ALONE-NEXT:   solder.group_stats
// ALONE-NEXT:   solder.yield
// ALONE-NEXT: }
// ALONE-NEXT: %[[K1:.*]] = solder.fusion "tail" (%[[B0:.*]] = %[[K0]], %[[B1:.*]] = %[[NW]], %[[B2:.*]] = %[[NB]], %[[B3:.*]] = %[[CB]], %[[B4:.*]] = %[[X]], %[[B5:.*]] = %[[CW]]) : (tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8xf32> attributes {solder.estimate = #solder.estimate<conv, bytes = 5536, flops = 39746, ns = 1>, solder.finalize = #solder.finalize_launch<threads = 32, grid = [1, 1, 1], f64_results = []>, solder.schedule = #solder.conv_schedule<direct_tensorop, tf32x3, #solder.direct_tile<rows = 6, tile = [64, 8, 32], warps = 4, accumulation = step_sums, prepared_bytes = 2048, prepare_threads = 128, prepare_grid = [1, 1, 1]>, scheduler = persistent, tiles = [1, 1, 2], threads = 128, shared_bytes = 6208, min_blocks_per_sm = 4, epilogue = tile_shifted_moments, reason = "3 input channels: a reduction of 27, whole; each step's products summed apart (a sum downstream cancels the tensor cores' truncation bias); persistent blocks (each copies its next tile's input during the current one)">}
// ALONE-NEXT:   %[[Y:.*]] = solder.conv %[[B4]], %[[B5]], %[[B3]]
// ALONE-NEXT:   arith.constant
// ALONE-NEXT:   arith.constant
// ALONE-NEXT:   %[[N:.*]] = solder.group_normalize %[[Y]], %[[B0]] weight = %[[B1]] bias = %[[B2]]
// ALONE:        solder.add %[[Y]],
// ALONE:        return %[[K1]]
func.func @w3_prefused(%x: tensor<2x3x8x8xf32>, %cw: tensor<8x3x3x3xf32>, %cb: tensor<8xf32>,
                       %nw: tensor<8xf32>, %nb: tensor<8xf32>) -> tensor<2x8xf32> {
  %0:2 = solder.fusion "conv_stats" (%a = %x, %b = %cw, %c = %cb)
      : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>) {
    %y = solder.conv %a, %b, %c strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
         : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
    %s = solder.group_stats %y num_groups = 4 epsilon = 1.0e-05 : tensor<2x8x6x6xf32> -> tensor<2x4x2xf32>
    solder.yield %y, %s : tensor<2x8x6x6xf32>, tensor<2x4x2xf32>
  }
  %1 = solder.fusion "tail" (%y = %0#0, %s = %0#1, %w = %nw, %b = %nb, %unused = %cb)
      : (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32> {
    %three = arith.constant dense<3.0> : tensor<f32>
    %six = arith.constant dense<6.0> : tensor<f32>
    %n = solder.group_normalize %y, %s weight = %w bias = %b
         : (tensor<2x8x6x6xf32>, tensor<2x4x2xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x6x6xf32>
    %t = solder.tanh %n : tensor<2x8x6x6xf32>
    %t3 = solder.add %t, %three : tensor<2x8x6x6xf32>, tensor<f32> -> tensor<2x8x6x6xf32>
    %tm = solder.mul %t, %t3 : tensor<2x8x6x6xf32>
    %z = solder.div %tm, %six : tensor<2x8x6x6xf32>, tensor<f32> -> tensor<2x8x6x6xf32>
    %r = solder.add %y, %z : tensor<2x8x6x6xf32>
    %m = solder.reduce mean %r dims = [2, 3] : tensor<2x8x6x6xf32> -> tensor<2x8xf32>
    solder.yield %m : tensor<2x8xf32>
  }
  return %1 : tensor<2x8xf32>
}

// Squeeze-excitation with a GEMM too large to run a row at a time
// (2 x 2048 x 2048 past isRowConv's traffic): the scale (1x1 conv ->
// sigmoid on (N, C, 1, 1)) is multiplied into the full-size tensor; its
// consumer runs the mul on a larger shape than the conv's output, so the
// conv is not recomputed there.
// RECOMPUTE-LABEL: func.func @squeeze_excitation_scale(
// RECOMPUTE: solder.fusion "squeeze_excitation_scale_k1_conv"
// RECOMPUTE: solder.sigmoid
// RECOMPUTE: solder.fusion "squeeze_excitation_scale_k2_pointwise"
// RECOMPUTE-NOT: solder.conv
// RECOMPUTE: solder.mul
// REMARK: remark: solder-plan: cannot recompute squeeze_excitation_scale_k1_conv#0: squeeze_excitation_scale_k2_pointwise runs 'solder.mul' on a tensor of another shape than the conv's output
func.func @squeeze_excitation_scale(%x: tensor<2x2048x6x6xf32>, %w: tensor<2048x2048x1x1xf32>)
    -> tensor<2x2048x6x6xf32> {
  %m = solder.reduce mean %x dims = [2, 3] keepdim : tensor<2x2048x6x6xf32> -> tensor<2x2048x1x1xf32>
  %f = solder.conv %m, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x2048x1x1xf32>, tensor<2048x2048x1x1xf32>) -> tensor<2x2048x1x1xf32>
  %s = solder.sigmoid %f : tensor<2x2048x1x1xf32>
  %r = solder.mul %x, %s : tensor<2x2048x6x6xf32>, tensor<2x2048x1x1xf32> -> tensor<2x2048x6x6xf32>
  return %r : tensor<2x2048x6x6xf32>
}

// Squeeze-excitation's two small GEMMs and the ops between them are one
// rows region (a block per sample), never recomputed in the consumer that
// applies the scale; the report says how it runs.
// AUTO-LABEL: func.func @squeeze_excitation_rows(
// AUTO: solder.fusion "squeeze_excitation_rows_k1_rows"
// AUTO-SAME: solder.estimate = #solder.estimate<rows,
// AUTO-SAME: solder.schedule = #solder.region_launch<block_per_row, chunk = 1, vector = 1, threads = 256, grid = [2, 1, 1]>
// AUTO-NEXT: solder.conv
// AUTO-NEXT: solder.relu
// AUTO-NEXT: solder.conv
// AUTO-NEXT: solder.sigmoid
// AUTO-NEXT: solder.yield
// AUTO: solder.fusion "squeeze_excitation_rows_k2_pointwise"
// AUTO-NOT: solder.conv
// AUTO: return
// REPORT-LABEL: Solder plan for @squeeze_excitation_rows
// REPORT: {{^  squeeze_excitation_rows_k1_rows +rows +fma rows +conv, relu, conv, sigmoid }}
// REPORT: {{^  squeeze_excitation_rows_k1_rows: a block per row \(2 rows, 256 threads\): each output of a small GEMM a dot product of a weight row and the row, the row's values in shared memory$}}
// REMARK-NOT: squeeze_excitation_rows
func.func @squeeze_excitation_rows(%x: tensor<2x8x6x6xf32>, %w1: tensor<4x8x1x1xf32>,
    %b1: tensor<4xf32>, %w2: tensor<8x4x1x1xf32>) -> tensor<2x8x6x6xf32> {
  %m = solder.reduce mean %x dims = [2, 3] keepdim : tensor<2x8x6x6xf32> -> tensor<2x8x1x1xf32>
  %f1 = solder.conv %m, %w1, %b1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x8x1x1xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<2x4x1x1xf32>
  %a = solder.relu %f1 : tensor<2x4x1x1xf32>
  %f2 = solder.conv %a, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<2x4x1x1xf32>, tensor<8x4x1x1xf32>) -> tensor<2x8x1x1xf32>
  %s = solder.sigmoid %f2 : tensor<2x8x1x1xf32>
  %r = solder.mul %x, %s : tensor<2x8x6x6xf32>, tensor<2x8x1x1xf32> -> tensor<2x8x6x6xf32>
  return %r : tensor<2x8x6x6xf32>
}

// A small GEMM after a pointwise region that reduces (form-fusions.mlir's
// rows_after_reduction) is planned as a rows region of its own; it once
// joined that region, which the plan then could not launch.
// RUN: sed -n '/^func.func @rows_after_reduction(/,/^}/p' %solder_src/test/Transforms/form-fusions.mlir > %t.rows-after-reduction.mlir
// RUN: solder-opt %t.rows-after-reduction.mlir --solder-pipeline | FileCheck %s --check-prefix=ROWSRED
// ROWSRED: solder.fusion "rows_after_reduction_k0_pointwise"{{.*}}#solder.region_launch<block_per_output,
// ROWSRED: solder.fusion "rows_after_reduction_k1_rows"{{.*}}#solder.region_launch<block_per_row,

// A pool of a conv's output runs in a kernel of its own, and the report says
// why it is not in the conv's epilogue.
// REPORT-LABEL: Solder plan for @pool_after_conv
// REPORT: {{^  pool_after_conv_k1_pool: the max pool of pool_after_conv_k0_conv's output runs in a kernel of its own \(pools in a conv's epilogue are not generated yet\)$}}
func.func @pool_after_conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>)
    -> tensor<2x4x4x4xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %r = solder.relu %y : tensor<2x4x8x8xf32>
  %p = solder.pool max %r kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1]
       : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
  return %p : tensor<2x4x4x4xf32>
}

// A strided conv_transpose runs on tensor cores as its output phases, each
// a conv of stride 1 over its taps: KernelBench's ConvTranspose2d(64 -> 128,
// kernel 4, stride 2, padding 1) is 4 phases of 64 x 64 positions, 64 tiles
// of 64 each; kernel 3 with stride 3, dilation 2 and padding 1 has phases
// of one tap, one reading the input from position 1 on (a negative
// padding). Where a phase has no tap (stride 2 with dilation 2), or reads
// no input at all, the FMA fallback runs it and says why.
// AUTO-LABEL: func.func @convtranspose_phases(
// AUTO: #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, {{.*}}tiles = [256, 1, 4]{{.*}}reason = "tensor cores; 4 output phases, each a conv of stride 1 over its taps">
// Its 16 output channels take the 64 x 16 tile of two warps (two tiles a
// phase of 81 positions).
// AUTO: #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, #solder.implicit_gemm<tile = [64, 16, 16], warp = [32, 16], stages = 4, {{.*}}tiles = [18, 1, 2], threads = 64, {{.*}}reason = "tensor cores; 9 output phases, each a conv of stride 1 over its taps">
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "conv_transpose with an output phase that no kernel tap reaches">
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "conv_transpose padding beyond the input">
// A stride of 1 with padding past dilation * (kernel - 1) (one phase whose
// input would need an offset), and 32 phases (their CUTLASS parameters would
// crowd the constant bank), stay on the FMA fallback too.
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "conv_transpose padding beyond the kernel">
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "conv_transpose with 32 output phases (more than 16)">
func.func @convtranspose_phases(%x: tensor<4x64x64x64xf32>, %w: tensor<64x128x4x4xf32>,
    %x2: tensor<2x16x9x9xf32>, %w2: tensor<16x16x3x3xf32>, %w3: tensor<16x16x3x3xf32>,
    %x4: tensor<2x16x1x1xf32>, %w4: tensor<16x16x2x2xf32>, %w5: tensor<16x16x3x3xf32>,
    %x6: tensor<2x16x3x3xf32>, %w6: tensor<16x16x8x4xf32>)
    -> (tensor<4x128x128x128xf32>, tensor<2x16x27x27xf32>, tensor<2x16x21x21xf32>,
        tensor<2x16x1x1xf32>, tensor<2x16x5x5xf32>, tensor<2x16x24x12xf32>) {
  %y = solder.conv_transpose %x, %w strides = [2, 2] padding = [1, 1]
         output_padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<4x64x64x64xf32>, tensor<64x128x4x4xf32>) -> tensor<4x128x128x128xf32>
  %r = solder.relu %y : tensor<4x128x128x128xf32>
  %y2 = solder.conv_transpose %x2, %w2 strides = [3, 3] padding = [1, 1]
          output_padding = [0, 0] dilations = [2, 2] groups = 1
        : (tensor<2x16x9x9xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x27x27xf32>
  %r2 = solder.relu %y2 : tensor<2x16x27x27xf32>
  %y3 = solder.conv_transpose %x2, %w3 strides = [2, 2] padding = [0, 0]
          output_padding = [0, 0] dilations = [2, 2] groups = 1
        : (tensor<2x16x9x9xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x21x21xf32>
  %r3 = solder.relu %y3 : tensor<2x16x21x21xf32>
  %y4 = solder.conv_transpose %x4, %w4 strides = [2, 2] padding = [1, 1]
          output_padding = [1, 1] dilations = [1, 1] groups = 1
        : (tensor<2x16x1x1xf32>, tensor<16x16x2x2xf32>) -> tensor<2x16x1x1xf32>
  %r4 = solder.relu %y4 : tensor<2x16x1x1xf32>
  %y5 = solder.conv_transpose %x2, %w5 strides = [1, 1] padding = [3, 3]
          output_padding = [0, 0] dilations = [1, 1] groups = 1
        : (tensor<2x16x9x9xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x5x5xf32>
  %r5 = solder.relu %y5 : tensor<2x16x5x5xf32>
  %y6 = solder.conv_transpose %x6, %w6 strides = [8, 4] padding = [0, 0]
          output_padding = [0, 0] dilations = [1, 1] groups = 1
        : (tensor<2x16x3x3xf32>, tensor<16x16x8x4xf32>) -> tensor<2x16x24x12xf32>
  %r6 = solder.relu %y6 : tensor<2x16x24x12xf32>
  return %r, %r2, %r3, %r4, %r5, %r6 : tensor<4x128x128x128xf32>, tensor<2x16x27x27xf32>,
      tensor<2x16x21x21xf32>, tensor<2x16x1x1xf32>, tensor<2x16x5x5xf32>,
      tensor<2x16x24x12xf32>
}

// A depthwise conv (one input channel a group, here a multiplier of 2) runs
// on its own main loop: tiles of 8 rows x 56 columns (a row whole) of 8
// channels, within 48 KB of shared memory; a grouped conv with more
// channels a group (4) stays on the FMA fallback.
// AUTO-LABEL: func.func @depthwise_direct(
// AUTO: #solder.conv_schedule<depthwise, fma_f32, #solder.depthwise_tile<rows = 8, columns = 56, thread_rows = 8, channels = 8>, scheduler = grid, tiles = [7, 24, 32], threads = 128, shared_bytes = 44192{{.*}}reason = "one input channel a group: each output channel reduces over its channel's taps alone">
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "fewer than 8 input channels a group (3xTF32 measured slower than FMA)">
func.func @depthwise_direct(%x: tensor<32x96x56x56xf32>, %w: tensor<192x1x7x7xf32>,
    %w2: tensor<96x4x3x3xf32>) -> (tensor<32x192x56x56xf32>, tensor<32x96x56x56xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [3, 3] dilations = [1, 1] groups = 96
       : (tensor<32x96x56x56xf32>, tensor<192x1x7x7xf32>) -> tensor<32x192x56x56xf32>
  %r = solder.relu %y : tensor<32x192x56x56xf32>
  %g = solder.conv %x, %w2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 24
       : (tensor<32x96x56x56xf32>, tensor<96x4x3x3xf32>) -> tensor<32x96x56x56xf32>
  %s = solder.relu %g : tensor<32x96x56x56xf32>
  return %r, %s : tensor<32x192x56x56xf32>, tensor<32x96x56x56xf32>
}

// A depthwise conv whose column of window values (a dilation of 80 along
// H) and taps would not fit a thread's registers stays on the FMA fallback,
// saying why.
// AUTO-LABEL: func.func @depthwise_tall_dilation(
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "a depthwise conv its main loop cannot run: a column of 161 window values and 9 taps > 160 registers a thread">
func.func @depthwise_tall_dilation(%x: tensor<1x4x170x8xf32>, %w: tensor<4x1x3x3xf32>)
    -> tensor<1x4x10x6xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [80, 1] groups = 4
       : (tensor<1x4x170x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x10x6xf32>
  %r = solder.relu %y : tensor<1x4x10x6xf32>
  return %r : tensor<1x4x10x6xf32>
}

// Grouped convs with enough channels a group run on tensor cores group by
// group: the channel tiles of each group along grid y (2 groups x one
// 64-wide tile for 48 channels; a conv_transpose's 4 output phases x 2
// groups of 24 channels in 32-wide tiles), the weights' KTRSC rows of a
// group's channels. Groups of 4 -> 4 channels stay on FMAs: in ieee below
// 8 channels a group, in tf32 because such tiles would be mostly zeros. A
// group of 6 input channels would start off a 16-byte boundary.
// AUTO-LABEL: func.func @grouped_tensorop(
// AUTO: #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, #solder.implicit_gemm<tile = [128, 64, 16], warp = [64, 32], stages = 4, padded_channels = 64, input_grid = [2, 1, 2], weight_grid = [108, 1, 1]>, scheduler = grid, tiles = [1, 2, 2], {{.*}}reason = "tensor cores; 2 groups of 32 -> 48 channels, each a GEMM of its own">
// AUTO: #solder.conv_schedule<implicit_gemm_tensorop, tf32x3, #solder.implicit_gemm<tile = [128, 32, 16], {{.*}}weight_grid = [48, 1, 1]>, scheduler = grid, tiles = [4, 2, 2], {{.*}}reason = "tensor cores; 2 groups of 16 -> 24 channels, each a GEMM of its own; 4 output phases, each a conv of stride 1 over its taps">
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}tiles = [1, 16, 2], {{.*}}reason = "fewer than 8 input channels a group (3xTF32 measured slower than FMA)">
// AUTO: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "groups > 1 with 6 input channels a group (not a multiple of 4)">
// TF32-LABEL: func.func @grouped_tensorop(
// TF32: #solder.conv_schedule<implicit_gemm_tensorop, tf32, {{.*}}tiles = [1, 2, 2]
// TF32: #solder.conv_schedule<implicit_gemm_tensorop, tf32, {{.*}}tiles = [4, 2, 2]
// TF32: #solder.conv_schedule<implicit_gemm_fma, {{.*}}reason = "groups of 4 -> 4 channels: tensor-core tiles 32 channels wide and 16 deep would run at about 1 TFLOP/s">
func.func @grouped_tensorop(%x: tensor<2x64x9x11xf32>, %w: tensor<96x32x3x3xf32>,
    %xt: tensor<2x32x7x7xf32>, %wt: tensor<32x24x4x4xf32>, %w4: tensor<64x4x3x3xf32>,
    %x6: tensor<2x12x9x11xf32>, %w6: tensor<32x6x3x3xf32>)
    -> (tensor<2x96x9x11xf32>, tensor<2x48x14x14xf32>, tensor<2x64x9x11xf32>,
        tensor<2x32x9x11xf32>) {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 2
       : (tensor<2x64x9x11xf32>, tensor<96x32x3x3xf32>) -> tensor<2x96x9x11xf32>
  %r = solder.relu %y : tensor<2x96x9x11xf32>
  %t = solder.conv_transpose %xt, %wt strides = [2, 2] padding = [1, 1] output_padding = [0, 0]
       dilations = [1, 1] groups = 2
       : (tensor<2x32x7x7xf32>, tensor<32x24x4x4xf32>) -> tensor<2x48x14x14xf32>
  %s = solder.sigmoid %t : tensor<2x48x14x14xf32>
  %g = solder.conv %x, %w4 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 16
       : (tensor<2x64x9x11xf32>, tensor<64x4x3x3xf32>) -> tensor<2x64x9x11xf32>
  %q = solder.relu %g : tensor<2x64x9x11xf32>
  %h = solder.conv %x6, %w6 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 2
       : (tensor<2x12x9x11xf32>, tensor<32x6x3x3xf32>) -> tensor<2x32x9x11xf32>
  %p = solder.relu %h : tensor<2x32x9x11xf32>
  return %r, %s, %q, %p : tensor<2x96x9x11xf32>, tensor<2x48x14x14xf32>, tensor<2x64x9x11xf32>,
      tensor<2x32x9x11xf32>
}

// A matmul by a caller's (C, K) tensor: a 1x1 conv_transpose of stride 1
// over one pixel a sample, a GEMM whose tiles run over the samples (the
// weights converted to the conv's KTRSC); with a stride of 2 or output
// padding it is no GEMM.
// AUTO-LABEL: func.func @matmul_as_conv_transpose(
// AUTO: solder.fusion "matmul_as_conv_transpose_k0_conv" {{.*}}#solder.implicit_gemm<tile = [128, 32, 16], {{.*}}weight_grid = [4, 1, 1], pixels = across_samples>, scheduler = grid, tiles = [1, 1, 1]
// AUTO: solder.fusion "matmul_as_conv_transpose_k1_conv" {{.*}}scheduler = grid, tiles = [2, 1, 96]
// A GEMM of 16 CTAs keeps its 64 x 128 tile where 64 x 64's 32-deep K
// steps would not be whole (72 channels).
// AUTO: solder.fusion "matmul_as_conv_transpose_k2_conv" {{.*}}#solder.implicit_gemm<tile = [64, 128, 16], {{.*}}pixels = across_samples>, scheduler = grid, tiles = [8, 2, 1]
func.func @matmul_as_conv_transpose(%x: tensor<96x40x1xf32>, %y: tensor<40x24x1xf32>,
                                    %z: tensor<40x24x1xf32>, %x2: tensor<512x72x1xf32>,
                                    %w: tensor<200x72x1xf32>)
    -> (tensor<96x24x1xf32>, tensor<96x24x2xf32>, tensor<512x200x1xf32>) {
  %m = solder.conv_transpose %x, %y strides = [1] padding = [0] output_padding = [0]
       dilations = [1] groups = 1
       : (tensor<96x40x1xf32>, tensor<40x24x1xf32>) -> tensor<96x24x1xf32>
  %s = solder.conv_transpose %x, %z strides = [2] padding = [0] output_padding = [1]
       dilations = [1] groups = 1
       : (tensor<96x40x1xf32>, tensor<40x24x1xf32>) -> tensor<96x24x2xf32>
  %g = solder.conv %x2, %w strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<512x72x1xf32>, tensor<200x72x1xf32>) -> tensor<512x200x1xf32>
  return %m, %s, %g : tensor<96x24x1xf32>, tensor<96x24x2xf32>, tensor<512x200x1xf32>
}

// A GEMM-shaped conv (a Linear over 16384 rows) on sm_90a: the Hopper main
// loop over rows of samples (pixels = across_samples), 512 CTAs of 128 x 256.
// @matmul_as_conv_transpose's 96 rows would leave most SMs idle: sm80's tiles.
func.func @gemm_rows(%x: tensor<16384x1024x1xf32>, %w: tensor<1024x1024x1xf32>) -> tensor<16384x1024x1xf32> {
  %y = solder.conv %x, %w strides = [1] padding = [0] dilations = [1] groups = 1
       : (tensor<16384x1024x1xf32>, tensor<1024x1024x1xf32>) -> tensor<16384x1024x1xf32>
  return %y : tensor<16384x1024x1xf32>
}

func.func @layer4_conv(%x: tensor<32x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<32x512x7x7xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<32x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<32x512x7x7xf32>
  return %y : tensor<32x512x7x7xf32>
}

func.func @long_reduction_across(%x: tensor<64x256x56x56xf32>, %w: tensor<256x256x3x3xf32>)
    -> tensor<64x256x56x56xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<64x256x56x56xf32>, tensor<256x256x3x3xf32>) -> tensor<64x256x56x56xf32>
  return %y : tensor<64x256x56x56xf32>
}

func.func @short_reduction_per_sample(%x: tensor<64x64x56x56xf32>, %w: tensor<256x64x1x1xf32>)
    -> tensor<64x256x56x56xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<64x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<64x256x56x56xf32>
  return %y : tensor<64x256x56x56xf32>
}

func.func @layer4_conv_batch_norm(%x: tensor<32x512x7x7xf32>, %w: tensor<512x512x3x3xf32>,
                                  %g: tensor<512xf32>, %b: tensor<512xf32>)
    -> tensor<32x512x7x7xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<32x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<32x512x7x7xf32>
  %n = solder.batch_norm %y weight = %g bias = %b epsilon = 1.0e-05
       : (tensor<32x512x7x7xf32>, tensor<512xf32>, tensor<512xf32>) -> tensor<32x512x7x7xf32>
  return %n : tensor<32x512x7x7xf32>
}

func.func @split_conv_group_norm(%x: tensor<4x1280x16x16xf32>, %w: tensor<1280x1280x3x3xf32>,
                                 %norm_weight: tensor<1280xf32>, %norm_bias: tensor<1280xf32>)
    -> tensor<4x1280x16x16xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<4x1280x16x16xf32>, tensor<1280x1280x3x3xf32>) -> tensor<4x1280x16x16xf32>
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 32 epsilon = 1.0e-05
       : (tensor<4x1280x16x16xf32>, tensor<1280xf32>, tensor<1280xf32>)
         -> tensor<4x1280x16x16xf32>
  return %n : tensor<4x1280x16x16xf32>
}

func.func @resnet_stem(%x: tensor<32x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<32x64x112x112xf32> {
  %y = solder.conv %x, %w strides = [2, 2] padding = [3, 3] dilations = [1, 1] groups = 1
       : (tensor<32x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<32x64x112x112xf32>
  return %y : tensor<32x64x112x112xf32>
}

func.func @stem_five_channels(%x: tensor<8x5x224x224xf32>, %w: tensor<64x5x7x7xf32>) -> tensor<8x64x112x112xf32> {
  %y = solder.conv %x, %w strides = [2, 2] padding = [3, 3] dilations = [1, 1] groups = 1
       : (tensor<8x5x224x224xf32>, tensor<64x5x7x7xf32>) -> tensor<8x64x112x112xf32>
  return %y : tensor<8x64x112x112xf32>
}

func.func @bottleneck_edge(%x: tensor<32x64x56x56xf32>, %w1: tensor<64x64x1x1xf32>, %w2: tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32> {
  %y = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<32x64x56x56xf32>
  %r = solder.relu %y : tensor<32x64x56x56xf32>
  %z = solder.conv %r, %w2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32>
  return %z : tensor<32x64x56x56xf32>
}

func.func @layer4_conv_batch8(%x: tensor<8x512x7x7xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<8x512x7x7xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<8x512x7x7xf32>
  return %y : tensor<8x512x7x7xf32>
}

func.func @residual_edge(%x: tensor<32x64x56x56xf32>, %w1: tensor<64x64x1x1xf32>, %w2: tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32> {
  %y = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<32x64x56x56xf32>
  %r = solder.relu %y : tensor<32x64x56x56xf32>
  %z = solder.conv %r, %w2 strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32>
  %s = solder.add %z, %r : tensor<32x64x56x56xf32>
  return %s : tensor<32x64x56x56xf32>
}

func.func @block_output(%x: tensor<32x64x56x56xf32>, %w1: tensor<64x64x1x1xf32>, %w2: tensor<64x64x1x1xf32>, %w3: tensor<64x64x1x1xf32>) -> tensor<32x64x56x56xf32> {
  %y = solder.conv %x, %w1 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<32x64x56x56xf32>
  %r = solder.relu %y : tensor<32x64x56x56xf32>
  %z = solder.conv %r, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<32x64x56x56xf32>
  %t = solder.relu %z : tensor<32x64x56x56xf32>
  %u = solder.conv %t, %w3 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<32x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<32x64x56x56xf32>
  %s = solder.add %u, %r : tensor<32x64x56x56xf32>
  return %s : tensor<32x64x56x56xf32>
}

// The precision policy in tf32 follows a few-channel conv's result to a
// sum or mean that can cancel, but a mean of relu's values (of one sign;
// through a pool in a kernel of its own, read through the fusion capture
// as ResNet's global average pool reads its last block's) cannot: ResNet's
// stem runs one product; an average pool of them too, unless its divisor
// is overridden (then a bound no longer follows). A mean of the conv's own
// values of both signs keeps 3xTF32; one past a later conv of 16 channels,
// which runs one TF32 product whatever follows, does not.
// TF32-LABEL: func.func @stem_relu_mean(
// TF32: solder.fusion "stem_relu_mean_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, {{.*}}reason = "3 input channels: a reduction of 27, whole; one TF32 product;
// TF32-LABEL: func.func @stem_conv_mean(
// TF32: solder.fusion "stem_conv_mean_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, {{.*}}reason = "3 input channels: a reduction of 27, whole; one TF32 product;
// TF32: solder.fusion "stem_conv_mean_k1_conv" {{.*}}#solder.conv_schedule<implicit_gemm_tensorop, tf32,
// TF32-LABEL: func.func @stem_pool_mean(
// TF32: solder.fusion "stem_pool_mean_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, {{.*}}reason = "3 input channels: a reduction of 27, whole; one TF32 product;
// TF32-LABEL: func.func @stem_avgpool_mean(
// TF32: solder.fusion "stem_avgpool_mean_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32, {{.*}}reason = "3 input channels: a reduction of 27, whole; one TF32 product;
// TF32-LABEL: func.func @stem_divisor_mean(
// TF32: solder.fusion "stem_divisor_mean_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32x3,
// TF32-LABEL: func.func @stem_mean(
// TF32: solder.fusion "stem_mean_k0_conv" {{.*}}#solder.conv_schedule<direct_tensorop, tf32x3, {{.*}}reason = "3 input channels: a reduction of 27, whole; 3xTF32 in tf32: a sum or mean downstream can cancel one product's rounding; each step's products summed apart
func.func @stem_relu_mean(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %r = solder.relu %y : tensor<8x16x32x32xf32>
  %m = solder.reduce mean %r dims = [2, 3] keepdim : tensor<8x16x32x32xf32> -> tensor<8x16x1x1xf32>
  return %m : tensor<8x16x1x1xf32>
}

func.func @stem_conv_mean(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %w2: tensor<64x16x1x1xf32>) -> tensor<8x64x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %z = solder.conv %y, %w2 strides = [1, 1] padding = [0, 0] dilations = [1, 1] groups = 1
       : (tensor<8x16x32x32xf32>, tensor<64x16x1x1xf32>) -> tensor<8x64x32x32xf32>
  %m = solder.reduce mean %z dims = [2, 3] keepdim : tensor<8x64x32x32xf32> -> tensor<8x64x1x1xf32>
  return %m : tensor<8x64x1x1xf32>
}

func.func @stem_pool_mean(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %r = solder.relu %y : tensor<8x16x32x32xf32>
  %p = solder.pool max %r kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1]
       : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  %m = solder.reduce mean %p dims = [2, 3] keepdim : tensor<8x16x16x16xf32> -> tensor<8x16x1x1xf32>
  return %m : tensor<8x16x1x1xf32>
}

func.func @stem_avgpool_mean(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %r = solder.relu %y : tensor<8x16x32x32xf32>
  %p = solder.pool avg %r kernel = [3, 3] strides = [2, 2] padding = [1, 1] dilations = [1, 1]
       : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  %m = solder.reduce mean %p dims = [2, 3] keepdim : tensor<8x16x16x16xf32> -> tensor<8x16x1x1xf32>
  return %m : tensor<8x16x1x1xf32>
}

func.func @stem_divisor_mean(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %r = solder.relu %y : tensor<8x16x32x32xf32>
  %p = solder.pool avg %r kernel = [2, 2] strides = [2, 2] padding = [0, 0] dilations = [1, 1] {divisor_override = 1 : i64}
       : tensor<8x16x32x32xf32> -> tensor<8x16x16x16xf32>
  %m = solder.reduce mean %p dims = [2, 3] keepdim : tensor<8x16x16x16xf32> -> tensor<8x16x1x1xf32>
  return %m : tensor<8x16x1x1xf32>
}

func.func @stem_mean(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x16x1x1xf32> {
  %y = solder.conv %x, %w strides = [1, 1] padding = [1, 1] dilations = [1, 1] groups = 1
       : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %m = solder.reduce mean %y dims = [2, 3] keepdim : tensor<8x16x32x32xf32> -> tensor<8x16x1x1xf32>
  return %m : tensor<8x16x1x1xf32>
}
