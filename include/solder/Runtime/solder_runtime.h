/*===- solder_runtime.h - C API of libsolder_runtime -------------*- C -*-===*\
 *
 * Loads a Solder bundle and runs it on caller-owned device memory, on a
 * caller-given stream (a CUstream or cudaStream_t; NULL is the legacy default
 * stream). Depends on the CUDA driver API only, loaded at run time.
 *
 *   SolderBundle *bundle;
 *   if (solderLoadBundle("w1.bundle", &bundle) != SOLDER_OK)
 *     fprintf(stderr, "%s\n", solderLastError());
 *   const void *inputs[] = {x, w, b, gamma, beta};  // device pointers
 *   void *outputs[] = {out};
 *   solderRun(bundle, inputs, outputs, stream);
 *   solderFreeBundle(bundle);
 *
 * Every call that fails returns a status and leaves a one-line message,
 * naming the kernel where a launch failed, in solderLastError() (per thread).
\*===----------------------------------------------------------------------===*/

#ifndef SOLDER_RUNTIME_SOLDER_RUNTIME_H
#define SOLDER_RUNTIME_SOLDER_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SolderBundle SolderBundle;

typedef enum SolderStatus {
  SOLDER_OK = 0,
  SOLDER_ERROR_BUNDLE = 1,   /* missing, malformed, wrong version or target */
  SOLDER_ERROR_NO_GPU = 2,   /* no driver or no device */
  SOLDER_ERROR_CUDA = 3,     /* a CUDA call failed (out of memory, launch) */
  SOLDER_ERROR_ARGUMENT = 4, /* bad arguments to this API */
} SolderStatus;

/* Loads the bundle directory `path` onto the current CUDA context (the
 * primary context of device 0 when none is current) and allocates its
 * workspace. A bundle of several archs (solder-compile --arch=sm_80,sm_90a)
 * loads its target for this GPU (solderResolveBundle). */
SolderStatus solderLoadBundle(const char *path, SolderBundle **bundle);
void solderFreeBundle(SolderBundle *bundle);

/* The bundle directory solderLoadBundle loads for `path` on this GPU: `path`
 * itself, or for a bundle of several archs the folder of the one built for
 * this GPU (else the newest portable target below it, run from its PTX),
 * written to `resolved` (`size` bytes). The driver is asked only for a bundle
 * of several archs. */
SolderStatus solderResolveBundle(const char *path, char *resolved, size_t size);

/* Runs the bundle. `inputs` and `outputs` hold device pointers, in the order
 * of the manifest, each to a dense f32 tensor of the manifest's shape in its
 * layout (row-major NCDHW; (N, *spatial, C) where the entry's "layout" is
 * "channels_last") starting on 16 bytes (kernels load and store float4). Asynchronous
 * on `stream`. The launches go out as one CUDA graph, built at the first call
 * and updated where a pointer differs from the last call's; a call on a stream
 * being captured launches them one by one into the capture, as does every
 * call when SOLDER_GRAPH=0 is in the environment. */
SolderStatus solderRun(SolderBundle *bundle, const void *const *inputs,
                       void *const *outputs, void *stream);

/* solderRun, told what each input holds: `versions[i]` is a number the
 * caller changes whenever input i's contents may have changed (PyTorch's
 * tensor._version + 1, for a tensor written only through PyTorch's
 * in-place ops), or 0 for "may differ from any earlier call". The bundle's
 * preparations (launches that compute workspace from parameters alone:
 * the weights to KTRSC or TF32 fragments) then run only when one of their
 * inputs has another pointer or version than at the previous call. NULL
 * versions: solderRun. A call on a stream being captured runs every
 * launch. */
SolderStatus solderRunVersioned(SolderBundle *bundle, const void *const *inputs,
                                void *const *outputs, void *stream,
                                const uint64_t *versions);

int solderNumInputs(const SolderBundle *bundle);
int solderNumOutputs(const SolderBundle *bundle);
/* Name, rank and shape of input/output `index` (NULL/-1 when out of range). */
const char *solderInputName(const SolderBundle *bundle, int index);
int solderInputRank(const SolderBundle *bundle, int index);
const int64_t *solderInputShape(const SolderBundle *bundle, int index);
const char *solderOutputName(const SolderBundle *bundle, int index);
int solderOutputRank(const SolderBundle *bundle, int index);
const int64_t *solderOutputShape(const SolderBundle *bundle, int index);

/* The last error of this thread, or "" after success. */
const char *solderLastError(void);

#ifdef __cplusplus
}
#endif

#endif /* SOLDER_RUNTIME_SOLDER_RUNTIME_H */
