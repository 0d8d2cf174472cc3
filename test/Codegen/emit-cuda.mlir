// Generated CUDA of the seed workloads: the fused structure of each kernel.

// W1 (3 input channels): the direct conv on tensor cores reads PyTorch's
// input layout (no input conversion) under the same generated epilogue as
// the implicit GEMM; its tiles are 6 whole output rows (110 per sample); a
// kernel before it splits the weights into the main loop's fragments once.
// A mean downstream cancels: 3xTF32 with each step's products summed apart.
// Its blocks are persistent: 14080 tiles, taken in turn by as many blocks as
// the GPU holds (the runtime sizes the grid), registers bounded for 4 an SM.
// RUN: solder-opt %solder_src/examples/w1_conv3d_groupnorm_mean.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=W1
// W1: #include <solder/conv/mainloop_direct_tensorop.cuh>
// W1-NOT: _input_ndhwc
// W1: struct w1_k0_conv_geometry {
// W1:   static constexpr int kIn[3] = {24, 32, 32}, kOut[3] = {22, 30, 30};
// The partials' one layout, (sample, pixel tile, channel), for the epilogue
// that writes them and the finalize kernel that reads them.
// W1: using w1_k0_conv_partials = solder::PartialLayout<128, 110, 24>;
// The conv output is never stored: only partial statistics leave the kernel,
// and as both are of the conv output alone (plus its bias), the epilogue
// takes each tile's channel moments, which the direct conv sums from its
// accumulators in registers: no tile, no visit of each element.
// W1: struct w1_k0_conv_epilogue {
// W1:   static constexpr bool kStoresElements = false;
// W1:   static constexpr bool kConvMoments = true;
// W1-NOT: visit(
// W1:   __device__ float channelOffset({{.*}}) const {
// W1-NEXT:     return in2[i1];  // the conv's bias
// W1:   __device__ void storeMoments(const long i0, const long i1, const long pixelTile,
// W1-NEXT:                               const solder::ConvMoments &moments) const {
// W1-NEXT:     const long slot = w1_k0_conv_partials::slot(i0, pixelTile, i1);
// W1-NEXT:     w1_k0_conv_partials::storeWelford(ws1, slot, moments.welford());
// W1-NEXT:     w1_k0_conv_partials::storeSum(ws2, slot, float(moments.total()));
// W1-NEXT:   }
// W1-NEXT: };
// W1-NOT: out{{[0-9]}}[(i0 * 24L + i1) * 19800L + pixel]
// The kernel composes the main loop, the epilogue and the plan's tile
// scheduler (persistent: 110 pixel tiles x 1 channel tile x 128 samples,
// which ConvKernel checks against the main loop's), and asserts the plan's
// threads and shared memory exactly.
// W1: using w1_k0_conv_mainloop = solder::DirectTensorOpConv<
// W1-NEXT:    w1_k0_conv_geometry, /*Rows=*/6, /*BN=*/24, /*Warps=*/4, solder::TensorMath::k3xTF32, solder::DirectAccumulation::kStepSums>;
// W1-NEXT: using w1_k0_conv_kernel = solder::ConvKernel<w1_k0_conv_mainloop, w1_k0_conv_epilogue,
// W1-NEXT:     solder::PersistentTileScheduler<110, 1, 128>>;
// W1-NEXT: static_assert(w1_k0_conv_kernel::kThreads == 128 && w1_k0_conv_kernel::kSharedBytes == 54304,
// W1-NEXT:               "the plan's threads and shared memory");
// W1-NEXT: static_assert(w1_k0_conv_mainloop::kPreparedBytes == 16896L &&
// W1-NEXT:              w1_k0_conv_mainloop::kPrepareThreads == 1056L,
// W1: // w1_k0_conv_prepare: the conv weights, split into TF32 parts, in the main loop's fragment order
// W1-NEXT: extern "C" __global__ void __launch_bounds__(256)
// W1-NEXT: w1_k0_conv_prepare(const float *__restrict__ weight,
// W1-NEXT:     float *__restrict__ prepared) {
// W1-NEXT:   w1_k0_conv_mainloop::prepare(nullptr, weight, prepared);
// W1: // w1_k0_conv: direct conv on tensor cores (direct_3xtf32) -> group_stats (partial) -> reduce (partial)
// W1:   //   ws0: w1_k0_conv_prepared
// W1: extern "C" __global__ void __launch_bounds__(128, 4)
// W1-NEXT: w1_k0_conv(
// W1:   extern __shared__ __align__(16) char shared[];
// W1-NEXT:   w1_k0_conv_kernel::run(in0, ws0, w1_k0_conv_epilogue{in0, in1, in2, out0, out1, ws1, ws2}, shared);
// The group statistics and channel means the last kernel subtracts are
// handed over in double (at x + 1000 both sit near 1000) and subtracted in
// double; float tensors elsewhere.
// The finalize's blocks take about 8 partials a thread: 64 threads for
// 3 channels x 110 tiles a statistic (finalize.cuh reads them
// channel-fastest, eight loads before their merges; the channel sums keep
// eight in flight).
// W1: extern "C" __global__ void __launch_bounds__(64)
// W1-NEXT: w1_k0_conv_finalize(const float *__restrict__ ws0,
// W1-NEXT:    const float *__restrict__ ws1,
// W1-NEXT:    double *__restrict__ out0,
// W1-NEXT:    double *__restrict__ out1) {
// W1-NEXT:   // solder.group_stats: a block per statistic
// W1-NEXT:   solder::finalizeGroupStatistic<w1_k0_conv_partials, /*Groups=*/8, /*AcrossBatch=*/false, 64>(
// W1-NEXT:       ws0, out0, 9.99999975e-06f);
// W1-NEXT:   // solder.reduce over the spatial dims: a thread per sum
// W1-NEXT:   solder::finalizeChannelSum<w1_k0_conv_partials, /*MeanOf=*/19800, 64>(ws1, out1);
// W1-NEXT: }
// The normalized channel mean, a block per output: what to reduce is the
// Region functor, the walk solder::reduceBlockPerOutput.
// W1: struct w1_k1_pointwise_region {
// W1-NEXT:   const double *__restrict__ in0;
// W1-NEXT:   const double *__restrict__ in1;
// W1-NEXT:   const float *__restrict__ in2;
// W1-NEXT:   const float *__restrict__ in3;
// W1-NEXT:   float *__restrict__ out0;
// W1:   using Accumulator = solder::MeanAccumulator;
// Read only by the mean, the normalized channel mean stays double into the
// accumulator (the mean of such terms can be far smaller than each).
// W1-NEXT:   using Element = double;
// W1:     const double v0 = (in0[i0 * 24L + i1] - in1[(i0 * 8 + i1 / 3) * 2]) * in1[(i0 * 8 + i1 / 3) * 2 + 1] * in2[i1] + in3[i1];  // solder.group_normalize, centered in double, kept double
// W1: // w1_k1_pointwise: reduction -> group_normalize -> reduce (one block per output)
// W1:   solder::reduceBlockPerOutput(w1_k1_pointwise_region{in0, in1, in2, in3, out0});

// W1 in tf32: one TF32 product on the input centered. The kernel before
// the conv also sums the weights' taps per input channel and samples each
// input plane's shift: fragments (8448 B), tap sums (24 x 3 doubles),
// shifts (128 x 3 floats); a thread per fragment, a warp per shift.
// RUN: solder-opt %solder_src/examples/w1_conv3d_groupnorm_mean.mlir --solder-pipeline=precision=tf32 | solder-translate --emit-cuda | FileCheck %s --check-prefix=W1TF32
// W1TF32: using w1_k0_conv_mainloop = solder::DirectTensorOpConv<
// W1TF32-NEXT:    w1_k0_conv_geometry, /*Rows=*/6, /*BN=*/24, /*Warps=*/4, solder::TensorMath::kTF32, solder::DirectAccumulation::kCentered>;
// W1TF32-NEXT: using w1_k0_conv_kernel = solder::ConvKernel<w1_k0_conv_mainloop, w1_k0_conv_epilogue,
// W1TF32-NEXT:     solder::PersistentTileScheduler<110, 1, 128>>;
// W1TF32: static_assert(w1_k0_conv_mainloop::kPreparedBytes == 10560L &&
// W1TF32-NEXT:              w1_k0_conv_mainloop::kPrepareThreads == 12288L,
// W1TF32: // w1_k0_conv_prepare: the conv weights split into TF32 parts in the main loop's fragment order, their tap sums, and each input plane's shift
// W1TF32-NEXT: extern "C" __global__ void __launch_bounds__(256)
// W1TF32-NEXT: w1_k0_conv_prepare(const float *__restrict__ input,
// W1TF32: extern "C" __global__ void __launch_bounds__(128, 6)
// W1TF32-NEXT: w1_k0_conv(
// W1TF32:   w1_k0_conv_kernel::run(in0, ws0, w1_k0_conv_epilogue{

// The direct conv on FMAs, forced: the same epilogue and kernel body.
// RUN: solder-opt %solder_src/examples/w1_conv3d_groupnorm_mean.mlir --solder-pipeline=mainloop=direct_fma | solder-translate --emit-cuda | FileCheck %s --check-prefix=DIRECTFMA
// DIRECTFMA: #include <solder/conv/mainloop_direct_fma.cuh>
// DIRECTFMA: using w1_k0_conv_mainloop = solder::DirectConv<w1_k0_conv_geometry, 128, 24>;
// DIRECTFMA-NEXT: using w1_k0_conv_kernel = solder::ConvKernel<w1_k0_conv_mainloop, w1_k0_conv_epilogue,
// DIRECTFMA-NEXT:     solder::GridTileScheduler<155, 1, 128>>;
// DIRECTFMA: // w1_k0_conv: direct conv with FMAs (forced) -> group_stats (partial) -> reduce (partial)
// DIRECTFMA:   w1_k0_conv_kernel::run(in0, in1, w1_k0_conv_epilogue{in0, in1, in2, out0, out1, ws0, ws1}, shared);

// W3 (8 input channels) by default: the direct conv on 3xTF32 tensor cores,
// 2 whole output rows a tile, 8 warps, all 64 channels.
// RUN: solder-opt %solder_src/examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=W3DIRECT
// W3DIRECT-NOT: _input_ndhwc
// W3DIRECT: using w3_k0_conv_mainloop = solder::DirectTensorOpConv<
// W3DIRECT-NEXT:    w3_k0_conv_geometry, /*Rows=*/2, /*BN=*/64, /*Warps=*/8, solder::TensorMath::k3xTF32, solder::DirectAccumulation::kPlain>;
// W3DIRECT-NEXT: using w3_k0_conv_kernel = solder::ConvKernel<w3_k0_conv_mainloop, w3_k0_conv_epilogue,
// W3DIRECT-NEXT:     solder::GridTileScheduler<63, 1, 128>>;
// W3DIRECT:   w3_k0_conv_kernel::run(in0, ws0, w3_k0_conv_epilogue{in0, in1, in2, out0, out1, ws1}, shared);

// In tf32 (one product) the plan bounds the registers for 3 blocks an SM.
// RUN: solder-opt %solder_src/examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir --solder-pipeline=precision=tf32 | solder-translate --emit-cuda | FileCheck %s --check-prefix=W3TF32
// W3TF32: solder::TensorMath::kTF32, solder::DirectAccumulation::kPlain>;
// W3TF32: extern "C" __global__ void __launch_bounds__(256, 3)
// W3TF32-NEXT: w3_k0_conv(

// The implicit-GEMM FMA fallback (grouped convs, strided conv_transpose),
// forced on the W1 chain: the epilogue functor visits each element (its
// accumulators are not the direct conv's), with Welford partials per
// element, visited in registers (ConvKernel's fragment hand-off).
// RUN: solder-opt %solder_src/examples/w1_conv3d_groupnorm_mean.mlir --solder-pipeline=mainloop=fma | solder-translate --emit-cuda | FileCheck %s --check-prefix=FMA
// FMA: struct w1_k0_conv_epilogue {
// FMA:   static constexpr bool kConvMoments = false;
// FMA:     solder::Welford r0;
// FMA-NEXT:     solder::SumAccumulator r1;
// FMA:     partials.r0.add(conv);
// FMA-NEXT:     partials.r1.add(conv);
// FMA:     w1_k0_conv_partials::storeWelford(ws0, slot, partials.r0);
// FMA: using w1_k0_conv_mainloop = solder::ImplicitGemmFmaConv<w1_k0_conv_geometry, 128, 32, 16>;
// FMA-NEXT: using w1_k0_conv_kernel = solder::ConvKernel<w1_k0_conv_mainloop, w1_k0_conv_epilogue,
// FMA-NEXT:     solder::GridTileScheduler<155, 1, 128>>;
// FMA-NEXT: static_assert(w1_k0_conv_kernel::kThreads == 256 && w1_k0_conv_kernel::kSharedBytes == 0,
// FMA: // w1_k0_conv: implicit-GEMM conv with FMAs (forced) -> group_stats (partial) -> reduce (partial)
// FMA:   w1_k0_conv_kernel::run(in0, in1, w1_k0_conv_epilogue{in0, in1, in2, out0, out1, ws0, ws1}, shared);

// W3 forced onto the implicit GEMM on 3xTF32 tensor cores: the layout
// conversions, the generated epilogue functor (bias, stores, the tile's
// statistics as shifted moments, written as Welford partials), CUTLASS's
// parameters in the constant bank with the kernel that builds them, and the
// kernel that runs CUTLASS's main loop under the epilogue.
// RUN: solder-opt %solder_src/examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir --solder-pipeline=mainloop=tensorop | solder-translate --emit-cuda | FileCheck %s --check-prefix=W3
// W3: #include <solder/conv/mainloop_implicit_gemm_tensorop.cuh>
// W3: // w3_k0_conv_input_ndhwc: the conv input, NCDHW to NDHWC
// W3:   solder::toChannelsLast<8, 8, 16384L>(input, inputNdhwc);
// W3: // w3_k0_conv_weight_ktrsc: the conv weights to KTRSC
// W3:   solder::weightsToKtrsc<w3_k0_conv_geometry, 8>(weight, weightKtrsc);
// W3: struct w3_k0_conv_epilogue {
// W3:   struct Partials {
// W3-NEXT:    solder::ShiftedMoments r0;
// W3:   __device__ void visit(const long i0, const long i1, const int pixel, const float acc,
// W3:     const float conv = acc + in2[i1];  // solder.conv
// W3-NEXT:     out0[(i0 * 64L + i1) * 15876L + pixel] = conv;
// W3-NEXT:     partials.r0.add(conv);
// W3:   __device__ void storePartials(
// W3:     const long slot = w3_k0_conv_partials::slot(i0, pixelTile, i1);
// W3-NEXT:     w3_k0_conv_partials::storeWelford(ws2, slot, partials.r0.welford());
// W3: using w3_k0_conv_mainloop = solder::TensorOpConv<
// W3-NEXT:    w3_k0_conv_geometry, solder::TensorOpTile<128, 64, 16, 64, 32, 4, solder::TensorMath::k3xTF32>>;
// W3-NEXT: using w3_k0_conv_kernel = solder::ConvKernel<w3_k0_conv_mainloop, w3_k0_conv_epilogue,
// W3-NEXT:     solder::GridTileScheduler<125, 1, 128>>;
// W3-NEXT: static_assert(w3_k0_conv_kernel::kThreads == 128 && w3_k0_conv_kernel::kSharedBytes == 49152,
// W3: __constant__ w3_k0_conv_mainloop::ContextStorage w3_k0_conv_context;
// W3-NEXT: extern "C" __global__ void __launch_bounds__(1)
// W3-NEXT: w3_k0_conv_build_context(w3_k0_conv_mainloop::ContextStorage *context) {
// W3-NEXT:   w3_k0_conv_mainloop::buildContext(context);
// W3: // w3_k0_conv: implicit-GEMM conv on tensor cores (tensorop_3xtf32) -> group_stats (partial)
// W3: extern "C" __global__ void __launch_bounds__(128)
// W3:   w3_k0_conv_kernel::run(ws0, ws1, w3_k0_conv_epilogue{in0, in1, in2, out0, out1, ws2}, shared, w3_k0_conv_context);
// W3's tail, a thread per output: GroupNorm's (scale, shift) of the block's
// two samples into shared memory first (the Region's prologue); the kept
// indices once per output; each chunk of 8 channels loaded and computed
// before the accumulator takes it whole (solder::reduceThreadPerOutput);
// hardswish's / 6 a multiply.
// W3: struct w3_k1_pointwise_region {
// W3:   using OutputIndex = int;
// W3-NEXT:   using LengthIndex = int;
// W3-NEXT:   static constexpr OutputIndex kOutputs = 2032128;
// W3-NEXT:   static constexpr LengthIndex kLength = 64;
// W3-NEXT:   static constexpr int kChunk = 8, kThreads = 256;
// W3-NEXT:   using Accumulator = solder::LogSumExpAccumulator;
// W3-NEXT:   using Element = float;
// W3:   struct SharedStorage {
// W3-NEXT:     float2 normalize0_coefficients[128];
// W3-NEXT:   };
// W3-NEXT:   __device__ void prologue(SharedStorage &shared,
// W3-NEXT:                            {{.*}}const unsigned firstOutput) const {
// W3-NEXT:     const int firstSample = firstOutput / 15876;
// W3-NEXT:     solder::fillTable<128, 256>(shared.normalize0_coefficients, [&](const int t) {
// W3-NEXT:       {{\[\[maybe_unused\]\]}} const int i0 = min(firstSample + t / 64, 127);
// W3-NEXT:       const int i1 = t % 64;
// W3-NEXT:       const float c_scale = in1[(i0 * 16 + i1 / 4) * 2 + 1] * in2[i1];
// W3-NEXT:       const float c_shift = in3[i1] - in1[(i0 * 16 + i1 / 4) * 2] * c_scale;
// W3-NEXT:       return make_float2(c_scale, c_shift);
// W3-NEXT:     });
// W3-NEXT:   }
// W3:   __device__ Output output(const int o, {{.*}}const unsigned firstOutput) const {
// W3-NEXT:     {{\[\[maybe_unused\]\]}} const int i0 = (o / 15876);
// W3-NEXT:     {{\[\[maybe_unused\]\]}} const int i2 = (o / 126) % 126;
// W3-NEXT:     {{\[\[maybe_unused\]\]}} const int i3 = o % 126;
// W3-NEXT:     const int firstSample = firstOutput / 15876;
// W3-NEXT:     return {o, i0, i2, i3, firstSample};
// W3-NEXT:   }
// W3:   __device__ Element element(const Output &at, const int r, {{.*}}const SharedStorage &shared) const {
// W3:     {{\[\[maybe_unused\]\]}} const int i1 = r;
// W3-NEXT:     const float2 v0_coefficients = shared.normalize0_coefficients[(i0 - firstSample) * 64 + i1];
// W3-NEXT:     const float v0 = in0[i0 * 1016064L + i1 * 15876L + i2 * 126L + i3] * v0_coefficients.x + v0_coefficients.y;  // solder.group_normalize
// W3-NEXT:     const float v1 = tanhf(v0);  // solder.tanh
// W3-NEXT:     const float v2 = v1 + 3.00000000e+00f;  // solder.add
// W3-NEXT:     const float v3 = v1 * v2;  // solder.mul
// W3-NEXT:     const float v4 = v3 * 1.66666672e-01f;  // solder.div
// W3-NEXT:     const float v5 = in0[i0 * 1016064L + i1 * 15876L + i2 * 126L + i3] + v4;  // solder.add
// W3-NEXT:     return v5;
// W3-NEXT:   }
// W3:   __device__ void store(const int o, const Accumulator &acc) const {
// W3-NEXT:     out0[o] = acc.result(64.0f);
// W3: // w3_k1_pointwise: reduction -> group_normalize -> tanh -> add -> mul -> div -> add -> reduce (one thread per output)
// W3:   solder::reduceThreadPerOutput(w3_k1_pointwise_region{in0, in1, in2, in3, out0});

// W2 small: conv_transpose of stride 1 runs as a conv with its kernel flipped.
// RUN: solder-opt %solder_src/examples/w2_small_convtranspose3d_relu_groupnorm.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=W2
// W2:   static constexpr bool kTransposed = true;
// W2: // w2_small_k0_conv_weight_ktrsc: the conv_transpose weights, flipped, to KTRSC: it runs as a conv
// W2:     const float v0 = (conv < 0.0f ? 0.0f : conv);  // solder.relu
// W2-NEXT:     out0[(i0 * 128L + i1) * 3240L + pixel] = v0;
// W2: solder::TensorOpTile<64, 128, 16, 32, 64, 4, solder::TensorMath::k3xTF32>
// W2: // w2_small_k0_conv: implicit-GEMM conv_transpose on tensor cores (tensorop_3xtf32) -> relu -> group_stats (partial)
// The normalize, float4 vectors along the last two dims (18 x 18 = 324
// floats, 18 alone is no multiple of 4), 2 a thread before it stores them
// (solder::runElementwise; 1658880 vectors are a whole number of tiles:
// no bounds checks): the statistics once per vector, the element per lane.
// W2: struct w2_small_k1_pointwise_region {
// W2:   using Index = int;
// W2-NEXT:   static constexpr Index kItems = 1658880;
// W2-NEXT:   static constexpr int kChunk = 2, kThreads = 256;
// W2-NEXT:   struct Item {
// W2-NEXT:     float4 result0;
// W2-NEXT:   };
// W2:   __device__ Item compute(const int v) const {
// W2-NEXT:     {{\[\[maybe_unused\]\]}} const int i0 = ((v / 81) / 1280);
// W2-NEXT:     {{\[\[maybe_unused\]\]}} const int i1 = ((v / 81) / 10) % 128;
// W2-NEXT:     {{\[\[maybe_unused\]\]}} const int i2 = (v / 81) % 10;
// W2-NEXT:     const int tailBase = (v % 81) * 4;
// W2:       const float4 loaded = *reinterpret_cast<const float4 *>(in0 + i0 * 414720L + i1 * 3240L + i2 * 324L + i3 * 18L + i4);
// W2:     for (int lane = 0; lane < 4; ++lane) {
// W2-NEXT:       {{\[\[maybe_unused\]\]}} const int i3 = ((tailBase + lane) / 18);
// W2-NEXT:       {{\[\[maybe_unused\]\]}} const int i4 = (tailBase + lane) % 18;
// W2-NEXT:       const float v0_scale = in1[(i0 * 8 + i1 / 16) * 2 + 1] * in2[i1];
// W2-NEXT:       const float v0_shift = in3[i1] - in1[(i0 * 8 + i1 / 16) * 2] * v0_scale;
// W2-NEXT:       const float v0 = in0_lanes[lane] * v0_scale + v0_shift;  // solder.group_normalize
// W2-NEXT:       result0_lanes[lane] = v0;
// W2-NEXT:     }
// W2-NEXT:     return {make_float4(result0_lanes[0], result0_lanes[1], result0_lanes[2], result0_lanes[3])};
// W2-NEXT:   }
// W2:   __device__ void store(const int v, const Item &results) const {
// W2-NEXT:     reinterpret_cast<float4 *>(out0)[v] = results.result0;
// W2: // w2_small_k1_pointwise: elementwise -> group_normalize (float4)
// W2:   solder::runElementwise(w2_small_k1_pointwise_region{in0, in1, in2, in3, out0});

// A ragged last tile: the template bounds its items (kItems is no multiple
// of kChunk x kThreads).
// RUN: solder-opt %solder_src/test/gpu/cases/conv2d_stride_pad_relu_groupnorm.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=RAGGEDTILE
// RAGGEDTILE: static constexpr Index kItems = 10880;
// RAGGEDTILE-NEXT: static constexpr int kChunk = 2, kThreads = 256;

// precision=tf32: the one-product main loop; W1 forced onto it, its 3
// channels padded to 4. Both operands pass through Solder's conversions,
// which round them to TF32, so the main loop reads them as TF32 and
// converts nothing (OperandsTF32).
// RUN: solder-opt %solder_src/examples/w1_conv3d_groupnorm_mean.mlir --solder-pipeline="precision=tf32 mainloop=tensorop" | solder-translate --emit-cuda | FileCheck %s --check-prefix=TF32
// TF32: // w1_k0_conv_input_ndhwc: the conv input, NCDHW to NDHWC with its 3 channels zero-padded to 4, rounded to TF32
// TF32: solder::toChannelsLast<3, 4, 24576L>(input, solder::StoreTF32{inputNdhwc});
// TF32: // w1_k0_conv_weight_ktrsc: the conv weights to KTRSC, rounded to TF32
// TF32: solder::weightsToKtrsc<w1_k0_conv_geometry, 4>(weight, solder::StoreTF32{weightKtrsc});
// TF32: solder::TensorOpTile<128, 32, 16, 32, 32, 4, solder::TensorMath::kTF32, /*OperandsTF32=*/true>
// In ieee the 3xTF32 loop splits each float itself: the conversions store
// the values as they are.
// RUN: solder-opt %solder_src/test/gpu/cases/gemm_layernorm_mlp_groupnorm_residual.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=IEEEOPERANDS
// IEEEOPERANDS: solder::rowsToChannelsLast<94, 96, 2100L>(input, inputNdhwc, gemm_layernorm_mlp_groupnorm_residual_k1_conv_prologue{in1, in2, in3});
// IEEEOPERANDS: solder::weightsToKtrsc<gemm_layernorm_mlp_groupnorm_residual_k1_conv_geometry, 96>(weight, weightKtrsc);
// IEEEOPERANDS: solder::TensorOpTile<64, 64, 32, 32, 32, 3, solder::TensorMath::k3xTF32>>;
// A GEMM whose weights the main loop reads as the caller's (no weight
// conversion) rounds both operands itself, so its input conversion stores
// floats (the GEMMs beside it convert both and read TF32).
// RUN: solder-opt %solder_src/test/gpu/cases/gemm_layernorm_mlp_groupnorm_residual.mlir --solder-pipeline="precision=tf32" | solder-translate --emit-cuda | FileCheck %s --check-prefix=TF32ASIS
// TF32ASIS: solder::weightsToKtrsc<gemm_layernorm_mlp_groupnorm_residual_k1_conv_geometry, 96>(weight, solder::StoreTF32{weightKtrsc});
// TF32ASIS: solder::TensorOpTile<64, 64, 32, 32, 32, 4, solder::TensorMath::kTF32, /*OperandsTF32=*/true>>;
// TF32ASIS: solder::rowsToChannelsLast<160, 160, 2100L>(input, inputNdhwc, gemm_layernorm_mlp_groupnorm_residual_k3_conv_prologue{in1, in2, in3});
// TF32ASIS-NOT: weightsToKtrsc
// TF32ASIS: solder::TensorOpTile<64, 64, 32, 32, 32, 4, solder::TensorMath::kTF32>>;

// A conv whose samples exceed grid z is refused at the conv, in one line.
// Statistics over more than 2^24 elements a group: count, mean and M2 in
// double (a float count stops at 2^24); the reduction below it in float.
// A reduction whose length is not a multiple of the chunk: the last chunk
// stops at the length, and only its loaded elements are added.
// RUN: solder-opt %S/Inputs/ragged-channel-max.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=RAGGED
// RAGGED:   static constexpr LengthIndex kLength = 13;
// RAGGED-NEXT:   static constexpr int kChunk = 8, kThreads = 256;
// RAGGED-NEXT:   using Accumulator = solder::MaxAccumulator;
// RAGGED:   solder::reduceThreadPerOutput(
// RUN: solder-opt %S/Inputs/batchnorm-beyond-2-24.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=BIGSTATS
// BIGSTATS: using LengthIndex = long;
// BIGSTATS: static constexpr LengthIndex kLength = 18874368L;
// BIGSTATS: using Accumulator = solder::WelfordDouble;
// Its 2 channels' statistics in 64 shares each (RegionLaunch's split
// reductions, at most 64 an output: 128 blocks), merged by each channel's
// last block.
// BIGSTATS: __device__ float4 batchnorm_stats_k0_reduction_shares[128 * solder::SplitReductionWorkspace::kVectors];
// BIGSTATS-NEXT: __device__ unsigned batchnorm_stats_k0_reduction_arrivals[2];
// BIGSTATS: // batchnorm_stats_k0_reduction: reduction -> group_stats (64 blocks per output)
// BIGSTATS: solder::reduceBlockPerOutput<64>(batchnorm_stats_k0_reduction_region{in0, out0}, solder::SplitReductionWorkspace{batchnorm_stats_k0_reduction_shares, batchnorm_stats_k0_reduction_arrivals});
// RUN: solder-opt %solder_src/test/gpu/cases/groupnorm_silu_sum_no_conv.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=SMALLSTATS
// SMALLSTATS: using Accumulator = solder::Welford;
// A conv_transpose with strides (2, 3, 1): 6 output phases, each its own
// tiles of ceil(6 / 2) x ceil(13 / 3) x 7 = 105 positions (one tile each):
// the plan's 6 pixel tiles, which ConvKernel checks against
// ImplicitGemmFmaConv's phases.
// RUN: solder-opt %solder_src/test/gpu/cases/convtranspose3d_mixed_strides_groupnorm.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=PHASES
// PHASES: // convtranspose3d_mixed_strides_groupnorm_k0_conv: implicit-GEMM conv_transpose with FMAs (conv_transpose with an output phase that no kernel tap reaches)
// PHASES: solder::GridTileScheduler<6, 1, 2>>;
// On tensor cores the phases are the same: ConvTranspose2d(k 4, stride 2)
// to 27 x 23 is 4 phases of ceil(27 / 2) x ceil(23 / 2) = 168 positions,
// 2 tiles of 128 each; the weights are reordered into a block a phase, and
// the tensor-core main loop (its Context a phase) takes the phased tiles.
// A grouped conv on tensor cores: 4 groups of 16 channels, each output
// channel's KTRSC row its group's 16 channels; 4 groups x one channel tile.
// RUN: solder-opt %solder_src/test/gpu/cases/conv2d_grouped_tensorop_groupnorm_silu.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=GROUPED
// GROUPED: kInChannels = 64, kOutChannels = 96, kGroups = 4;
// GROUPED: the conv weights to KTRSC, each output channel's row its group's channels
// GROUPED: solder::weightsToKtrsc<conv2d_grouped_tensorop_groupnorm_silu_k1_conv_geometry, 16>(weight, weightKtrsc);
// GROUPED: solder::TensorOpConv<
// GROUPED: solder::GridTileScheduler<2, 4, 3>>;

// RUN: solder-opt %solder_src/test/gpu/cases/convtranspose2d_phases_tensorop_groupnorm_silu.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=TPHASES
// TPHASES: static constexpr int kStride[3] = {1, 2, 2}, kPad[3] = {0, 1, 1}
// TPHASES: the conv_transpose weights to KTRSC, a block of each output phase's taps reversed: each phase runs as a conv of stride 1
// TPHASES: solder::weightsToKtrsc<convtranspose2d_phases_tensorop_groupnorm_silu_k0_conv_geometry, 20>(weight, weightKtrsc);
// TPHASES: solder::TensorOpConv<
// TPHASES: solder::GridTileScheduler<8, 1, 3>>;
// TPHASES: // convtranspose2d_phases_tensorop_groupnorm_silu_k0_conv: implicit-GEMM conv_transpose on tensor cores (tensorop_3xtf32) -> group_stats (partial)
// RUN: solder-opt %S/Inputs/empty-tensor.mlir --solder-pipeline | not solder-translate --emit-cuda 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: the CUDA code generator needs every tensor to hold an element; 'tensor<2048x0xf32>' is empty
// A region's launch is its plan's, read and never recomputed: a plan
// edited by hand (chunk 4, 128 threads) is generated as it says.
// RUN: solder-opt %solder_src/examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir --solder-pipeline | sed 's/chunk = 8, vector = 1, threads = 256, grid = \[7938/chunk = 4, vector = 1, threads = 128, grid = [15876/' | solder-translate --emit-cuda 2>&1 | FileCheck %s --check-prefix=PLANNED
// PLANNED: static constexpr int kChunk = 4, kThreads = 128;
// PLANNED: extern "C" __global__ void __launch_bounds__(128)
// PLANNED-NEXT: w3_k1_pointwise(
// Without a plan there is nothing to launch.
// RUN: solder-opt %solder_src/examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions))' | not solder-translate --emit-cuda 2>&1 | FileCheck %s --check-prefix=NOPLAN
// NOPLAN: error: the CUDA code generator needs the conv schedule of solder-plan (run solder-pipeline first)
// RUN: solder-opt %solder_src/test/gpu/cases/groupnorm_silu_sum_no_conv.mlir --pass-pipeline='builtin.module(func.func(solder-decompose,solder-simplify,cse,solder-form-fusions))' | not solder-translate --emit-cuda 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// NOLAUNCH: error: the CUDA code generator needs the launch of solder-plan (#solder.region_launch; run solder-pipeline first)
// RUN: solder-opt %S/Inputs/huge-batch.mlir --solder-pipeline | not solder-translate --emit-cuda 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: the CUDA code generator launches a conv's channel tiles and samples on grid y and z, at most 65535 each; this one needs 1 x 70000

// Conv prologues. The pre-activation ResnetBlock: GroupNorm(8)'s statistics
// (a reduction kernel), conv1 with norm1 + SiLU applied as the tensor-core
// implicit GEMM converts its input and norm2's statistics in its epilogue,
// conv2 with norm2 + SiLU in its input conversion and the skip add in its
// epilogue. The grouped conv (FMA main loop) and the 3-channel conv (direct
// conv on tensor cores) read PyTorch's layout: a kernel writes their input
// through the prologue first, and the direct conv's prepare and main loop
// read that.
// RUN: solder-opt %solder_src/test/gpu/cases/groupnorm_silu_conv_prologues.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=PROLOGUE
// PROLOGUE: // groupnorm_silu_conv_prologues_k0_reduction: reduction -> group_stats (one block per output)
// PROLOGUE: struct groupnorm_silu_conv_prologues_k1_conv_prologue {
// PROLOGUE-NEXT:   const float *__restrict__ in1;
// PROLOGUE-NEXT:   const float *__restrict__ in2;
// PROLOGUE-NEXT:   const float *__restrict__ in3;
// PROLOGUE:   __device__ float operator()(const long i0, const int c, const long pixel,
// PROLOGUE-NEXT:                               const float x) const {
// PROLOGUE-NEXT:     {{\[\[maybe_unused\]\]}} const long i1 = c;
// PROLOGUE-NEXT:     {{\[\[maybe_unused\]\]}} const int i2 = (int(pixel) / 20);
// PROLOGUE-NEXT:     {{\[\[maybe_unused\]\]}} const int i3 = int(pixel) % 20;
// PROLOGUE-NEXT:     const float v0_scale = in1[(i0 * 8 + i1 / 8) * 2 + 1] * in2[i1];
// PROLOGUE-NEXT:     const float v0_shift = in3[i1] - in1[(i0 * 8 + i1 / 8) * 2] * v0_scale;
// PROLOGUE-NEXT:     const float v0 = x * v0_scale + v0_shift;  // solder.group_normalize
// PROLOGUE-NEXT:     const float v1 = v0 / (1.0f + expf(-v0));  // solder.silu
// PROLOGUE-NEXT:     return v1;
// PROLOGUE: // groupnorm_silu_conv_prologues_k1_conv_input_ndhwc: the conv input, NCDHW to NDHWC, through its prologue: group_normalize -> silu
// PROLOGUE: solder::toChannelsLast<64, 64, 400L>(input, inputNdhwc, groupnorm_silu_conv_prologues_k1_conv_prologue{in1, in2, in3});
// PROLOGUE: // groupnorm_silu_conv_prologues_k1_conv: group_normalize -> silu -> implicit-GEMM conv on tensor cores (tensorop_3xtf32) -> group_stats (partial)
// PROLOGUE: groupnorm_silu_conv_prologues_k1_conv_finalize(
// PROLOGUE: solder::toChannelsLast<64, 64, 400L>(input, inputNdhwc, groupnorm_silu_conv_prologues_k2_conv_prologue{in1, in2, in3});
// PROLOGUE: // groupnorm_silu_conv_prologues_k2_conv: group_normalize -> silu -> implicit-GEMM conv on tensor cores (tensorop_3xtf32) -> add
// PROLOGUE: // groupnorm_silu_conv_prologues_k3_conv_input: the conv input as its main loop reads it: mul -> add -> relu
// PROLOGUE: solder::applyPrologue<64, 400L, 51200L>(input, prologued, groupnorm_silu_conv_prologues_k3_conv_prologue{in1, in2});
// PROLOGUE: // groupnorm_silu_conv_prologues_k3_conv: mul -> add -> relu -> implicit-GEMM conv with FMAs (groups of 16 -> 8 channels: tensor-core tiles 32 channels wide and 16 deep would run at about 8 TFLOP/s)
// PROLOGUE: groupnorm_silu_conv_prologues_k3_conv_kernel::run(ws0, in3,
// PROLOGUE: solder::applyPrologue<3, 1023L, 6138L>(input, prologued, groupnorm_silu_conv_prologues_k4_conv_prologue{in1, in2});
// PROLOGUE: // groupnorm_silu_conv_prologues_k4_conv_prepare:
// PROLOGUE: // groupnorm_silu_conv_prologues_k4_conv: mul -> add -> direct conv on tensor cores (direct_3xtf32)
// PROLOGUE: //   ws0: groupnorm_silu_conv_prologues_k4_conv_input
// PROLOGUE-NEXT: //   ws1: groupnorm_silu_conv_prologues_k4_conv_prepared
// PROLOGUE: groupnorm_silu_conv_prologues_k4_conv_kernel::run(ws0, ws1,
// A plan without the prologue kernel's launch is refused.
// RUN: solder-opt %solder_src/test/gpu/cases/groupnorm_silu_conv_prologues.mlir --solder-pipeline | sed 's/, prologue_grid = \[[0-9, ]*\]//' | not solder-translate --emit-cuda 2>&1 | FileCheck %s --check-prefix=NOPROLOGUE
// NOPROLOGUE: error: the CUDA code generator needs the prologue launch of solder-plan (run solder-pipeline first)

// An op outside every fusion region is refused with its location.
// RUN: not solder-translate --emit-cuda %s 2>&1 | FileCheck %s --check-prefix=UNFUSED
// UNFUSED: error: the CUDA code generator runs fusion regions only; 'solder.relu' is outside any (run solder-pipeline first, or this op is not supported yet)
func.func @unfused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = solder.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A GEMM-shaped conv (pixels = across_samples): its input is copied a row at
// a time (94 features padded to 96) through the prologue, the main loop runs
// the conv's samples as the pixels of one sample, and the epilogue, written
// for the conv's own geometry, is wrapped to give each pixel back its sample.
// Its output, one pixel a sample, is visited channels fastest (its stores
// run along the features, not down the samples).
// RUN: solder-opt %solder_src/test/gpu/cases/gemm_layernorm_mlp_groupnorm_residual.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=GEMM
// GEMM: // gemm_layernorm_mlp_groupnorm_residual_k1_conv_input_ndhwc: the conv input, NCDHW to NDHWC with its 94 channels zero-padded to 96, through its prologue: group_normalize -> mul -> add
// GEMM: solder::rowsToChannelsLast<94, 96, 2100L>(input, inputNdhwc, gemm_layernorm_mlp_groupnorm_residual_k1_conv_prologue{
// GEMM: struct gemm_layernorm_mlp_groupnorm_residual_k1_conv_epilogue {
// GEMM: // One pixel a sample: visited channels fastest.
// GEMM-NEXT: static constexpr bool kChannelsLast = true;
// GEMM: using gemm_layernorm_mlp_groupnorm_residual_k1_conv_mainloop = solder::TensorOpConv<
// GEMM-NEXT: solder::SamplesAsPixels<gemm_layernorm_mlp_groupnorm_residual_k1_conv_geometry>, solder::TensorOpTile<64, 64, 32, 32, 32, 3, solder::TensorMath::k3xTF32>>;
// GEMM-NEXT: using gemm_layernorm_mlp_groupnorm_residual_k1_conv_kernel = solder::ConvKernel<gemm_layernorm_mlp_groupnorm_residual_k1_conv_mainloop, solder::SamplesAsPixelsEpilogue<gemm_layernorm_mlp_groupnorm_residual_k1_conv_epilogue>,
// GEMM-NEXT: solder::GridTileScheduler<33, 3, 1>>;
// GEMM: // gemm_layernorm_mlp_groupnorm_residual_k1_conv: group_normalize -> mul -> add -> implicit-GEMM conv on tensor cores (tensorop_3xtf32), a GEMM: tiles of samples -> gelu
// GEMM: gemm_layernorm_mlp_groupnorm_residual_k1_conv_kernel::run(ws0, ws1, solder::SamplesAsPixelsEpilogue<gemm_layernorm_mlp_groupnorm_residual_k1_conv_epilogue>{gemm_layernorm_mlp_groupnorm_residual_k1_conv_epilogue{in0, in1, in2, in3, in4, in5, out0}}, shared, gemm_layernorm_mlp_groupnorm_residual_k1_conv_context);
// GEMM: solder::rowsToChannelsLast<94, 96, 2100L>(input, inputNdhwc);

// Rows of one pixel a sample with no channel padded and no prologue, and a
// 1x1 conv's weights with none padded, are the main loop's layout already:
// it reads them as they are, with no conversion kernel.
// RUN: solder-opt %S/Inputs/gemm-rows-as-is.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=ASIS
// ASIS-NOT: _input_ndhwc(
// ASIS-NOT: _weight_ktrsc(
// ASIS: gemm_rows_as_is_k0_conv_kernel::run(in0, in1,
// ASIS-NOT: _input_ndhwc(
// ASIS-NOT: _weight_ktrsc(
// ASIS: gemm_rows_as_is_k1_conv_kernel::run(in0, in1,
// ConvNeXt's Linears (1x1 convs over 24 and 96 channels of 15x13 pixels)
// read their weights as they are; the first converts its input (through
// the LayerNorm prologue) and stores its GELU'd result channels-last, which
// the second reads as it is.
// RUN: solder-opt %solder_src/test/gpu/cases/channels_last_layernorm_mlp.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=ASISW
// ASISW-NOT: channels_last_layernorm_mlp_k4_conv_weight_ktrsc(
// ASISW: out0[(i0 * 195L + pixel) * 96L + i1] = v0;  // channels-last
// ASISW: channels_last_layernorm_mlp_k4_conv_kernel::run(ws0, in5,
// ASISW-NOT: channels_last_layernorm_mlp_k5_conv_weight_ktrsc(
// ASISW-NOT: channels_last_layernorm_mlp_k5_conv_input_ndhwc(
// ASISW: channels_last_layernorm_mlp_k5_conv_kernel::run(in0, in1,

// Activations between convs stored channels-last and read as they are: a
// ResNet bottleneck's two inner activations and its output, which the next
// conv takes as its input and the last conv's epilogue as its residual.
// RUN: solder-opt %solder_src/test/gpu/cases/bottleneck_channels_last.mlir --solder-pipeline | FileCheck %s --check-prefix=CLPLAN
// CLPLAN: solder.fusion "bottleneck_channels_last_k0_conv"{{.*}}solder.channels_last = array<i64: 0>
// CLPLAN: solder.fusion "bottleneck_channels_last_k1_conv"{{.*}}solder.channels_last = array<i64: 0>
// CLPLAN: solder.fusion "bottleneck_channels_last_k2_conv"{{.*}}solder.channels_last = array<i64: 0>
// CLPLAN: solder.fusion "bottleneck_channels_last_k3_conv"{{.*}}solder.channels_last = array<i64: 0>
// CLPLAN-NOT: solder.channels_last
// RUN: solder-opt %solder_src/test/gpu/cases/bottleneck_channels_last.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=CL
// CL-COUNT-1: _input_ndhwc(
// CL-NOT: _input_ndhwc(
// CL: bottleneck_channels_last_k0_conv_kernel::run(ws0,
// CL: out0[(i0 * 784L + pixel) * 32L + i1] = v2;  // channels-last
// CL: bottleneck_channels_last_k1_conv_kernel::run(in0, ws0,
// CL: bottleneck_channels_last_k2_conv_kernel::run(in0, in1,
// CL-LABEL: struct bottleneck_channels_last_k4_conv_epilogue {
// CL: const float v0 = conv + in3[(i0 * 784L + pixel) * 64L + i1];  // solder.add
// CL-NEXT: out0[(i0 * 64L + i1) * 784L + pixel] = v0;
// CL: bottleneck_channels_last_k4_conv_kernel::run(in0, ws0,
// The caller's channels-last input and output (solder.channels_last on the
// function): the first conv reads %x as it is, the second conv's epilogue
// reads it as its residual at its own element and stores the returned
// output channels-last.
// RUN: solder-opt %solder_src/test/gpu/cases/basic_block_channels_last_io.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=CALLERCL
// CALLERCL-NOT: _input_ndhwc(
// CALLERCL: basic_block_channels_last_io_k0_conv_kernel::run(in0, ws0,
// CALLERCL-LABEL: struct basic_block_channels_last_io_k1_conv_epilogue {
// CALLERCL: const float v2 = v1 + in4[(i0 * 196L + pixel) * 64L + i1];  // solder.add
// CALLERCL: out0[(i0 * 196L + pixel) * 64L + i1] = v3;  // channels-last
// CALLERCL-NOT: _input_ndhwc(
// A depthwise conv stages the caller's channels-last input as it is; a
// conv's result it reads is stored NCDHW for it.
// RUN: solder-opt %solder_src/test/gpu/cases/depthwise2d_channels_last_input_multiplier_gelu.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=DWCL
// DWCL: using depthwise2d_channels_last_input_multiplier_gelu_k0_conv_mainloop = solder::DepthwiseConv<
// DWCL-NEXT: depthwise2d_channels_last_input_multiplier_gelu_k0_conv_geometry, /*TileRows=*/6, /*TileColumns=*/7, /*ThreadRows=*/6, /*BN=*/32, /*InputChannelsLast=*/true>;
// RUN: solder-opt %solder_src/test/gpu/cases/inverted_residual_channels_last.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=DWNCDHW
// DWNCDHW: using inverted_residual_channels_last_k1_conv_mainloop = solder::DepthwiseConv<
// DWNCDHW-NEXT: /*BN=*/8>;
// A hand-written plan that stores a tensor channels-last for a reader that
// cannot take it is refused.
// RUN: not solder-translate --emit-cuda %S/Inputs/channels-last-misread.mlir 2>&1 | FileCheck %s --check-prefix=CLBAD
// CLBAD: error: the CUDA code generator reads a tensor stored channels-last only in a conv region
// RUN: not solder-translate --emit-cuda %S/Inputs/channels-last-returned.mlir 2>&1 | FileCheck %s --check-prefix=CLRET
// CLRET: error: the CUDA code generator returns result #0 NCDHW, but misread_k0_conv stores it channels-last

// A GEMM-shaped conv reduces nothing in its epilogue (the plan leaves
// statistics over its rows to a reduction kernel); IR that asks for it is
// refused.
// Small GEMMs a block per row: squeeze-excitation's chain in shared memory
// (the first conv's result also stored, the silu's kept local to its loop),
// a head staging its input rows from an input.
// RUN: solder-opt %S/Inputs/host-rows.mlir --solder-pipeline | solder-translate --emit-cuda | FileCheck %s --check-prefix=ROWS
// ROWS: #include <solder/kernel/rows_kernel.cuh>
// ROWS-LABEL: struct rows_k1_rows_region {
// ROWS: static constexpr int kRows = 3, kThreads = 256;
// ROWS-NEXT: struct SharedStorage {
// ROWS-NEXT: float in0_row[40]; // a conv's input
// ROWS-NEXT: float row1[6]; // conv
// ROWS-NEXT: float row2[6]; // add
// ROWS-NEXT: float row3[40]; // conv
// ROWS-NEXT: };
// ROWS: shared.in0_row[i1] = in0[i0 * 40 + i1];
// ROWS: solder::linearRow<40, 6, kThreads>(shared.in0_row, in1, in2, shared.row1);
// ROWS: out0[i0 * 6 + i1] = shared.row1[i1];
// ROWS: // silu -> add
// ROWS: shared.row2[i1] = v1;
// ROWS: solder::linearRow<6, 40, kThreads>(shared.row2, in4, nullptr, shared.row3);
// ROWS: // sigmoid
// ROWS: out1[i0 * 40 + i1] = v0;
// ROWS: // rows_k1_rows: a block per row: conv (40 -> 6) -> silu -> add -> conv (6 -> 40) -> sigmoid
// ROWS: solder::runRows(rows_k1_rows_region{in0, in1, in2, in3, in4, out0, out1});
// ROWS: solder::linearRow<300, 70, kThreads>(shared.in0_row, in1, in2, shared.row1);
// ROWS: solder::linearRow<70, 50, kThreads>(shared.row2, in3, nullptr, shared.row3);

// RUN: not solder-translate --emit-cuda %S/Inputs/gemm-epilogue-reduction.mlir 2>&1 | FileCheck %s --check-prefix=GEMMREDUCE
// GEMMREDUCE: error: the CUDA code generator reduces nothing per sample in the epilogue of a conv whose tiles span samples (pixels = across_samples), only statistics across the batch; a reduction kernel reads its output
