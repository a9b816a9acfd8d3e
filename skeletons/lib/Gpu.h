//===- Gpu.h - The GPU backend: PTX through NVPTX, run by the driver -*- C++ -*-===//
//
// The skeletons' modules are the same for every backend: each phase is a
// function void(i64 lo, i64 hi, ptr args) over a piece of its index space.
// The GPU backend adds, per phase, a `ptx_kernel` written in the dialect
// that walks the pieces grid-stride, one piece per thread at a time, and
// takes the argument block by value. Calls the NVPTX target cannot lower
// (llvm.exp, expf, ...) go to libdevice's __nv_* functions, linked in when
// the module is optimised; any other call it cannot lower is an error here,
// never a crash in code generation. Arrays live in managed memory, so the
// driver moves pages to the side that touches them.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_GPU_H
#define LLQUOTE_SKELETONS_GPU_H

#include "llquote/skeletons/Skeleton.h"

namespace llq::detail {

/// The GPU backend for O (O.Backend == BackendKind::GPU). Fails when the
/// driver or the device is missing, unless O.CompileOnly.
llvm::Expected<std::unique_ptr<Backend>> makeGpuBackend(const RuntimeOptions &O);

/// Makes M, which G wrote, a module for the GPU backend B: the NVPTX triple
/// and layout, a kernel per phase, calls redirected to libdevice; with
/// Optimize, libdevice linked in and the -O3 pipeline run.
llvm::Error gpuLower(Backend &B, llvm::Module &M, const KernelGen &G,
                     bool Optimize);

/// The PTX of M after gpuLower(..., Optimize = true), made now.
llvm::Expected<std::string> gpuPTX(Backend &B, llvm::Module &M);

/// The PTX of M, which G wrote: from B's disk cache, or made by gpuLower
/// (with Optimize) and the NVPTX target, then stored there. FromDisk says
/// which.
llvm::Expected<std::string> gpuCachedPTX(Backend &B, llvm::Module &M,
                                         const KernelGen &G, bool &FromDisk);

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_GPU_H
