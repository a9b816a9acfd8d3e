//===- Backends.h - The library's backends, made by name --------*- C++ -*-===//
//
// Internal to the skeleton library: the factories of the backends it ships,
// each in a file of its own (CpuBackends.cpp, Gpu.cpp). The Runtime picks
// one by RuntimeOptions::Backend, or takes one a program made
// (Runtime(Options, BackendFactory), docs/SkeletonAuthoring.md).
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_BACKENDS_H
#define LLQUOTE_SKELETONS_BACKENDS_H

#include "llquote/skeletons/Skeleton.h"

namespace llq::rt {
class BufferPool;
class Engine;
} // namespace llq::rt

namespace llq::detail {

/// All cores of a gang of Threads threads (0: LLQ_NUM_THREADS, else every
/// core), kernels compiled by Eng, outputs from Pool.
std::unique_ptr<Backend> makeCpuBackend(rt::Engine &Eng, unsigned Threads,
                                        std::shared_ptr<rt::BufferPool> Pool);
/// The calling thread alone, without atomics.
std::unique_ptr<Backend>
makeSequentialBackend(rt::Engine &Eng, std::shared_ptr<rt::BufferPool> Pool);
/// The first NVIDIA GPU (Gpu.cpp). Fails when the driver or the device is
/// missing, unless O.CompileOnly.
llvm::Expected<std::unique_ptr<Backend>> makeGpuBackend(const RuntimeOptions &O);

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_BACKENDS_H
