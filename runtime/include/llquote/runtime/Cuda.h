//===- Cuda.h - The CUDA driver API, loaded at run time ---------*- C++ -*-===//
//
// The GPU backend talks to the CUDA driver through this class only. The
// driver library is opened with dlopen on first use, never linked, so
// llquote builds, and its tests pass, on machines without a GPU or a driver:
// there Driver::get() fails with the reason, and everything built on it
// reports that the GPU is not available.
//
// One device (the first), through its primary context, which every call
// makes current on the calling thread. Every call that can fail returns a
// Status or an Expected whose message names the driver call and the
// driver's own error name and text; none aborts.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_CUDA_H
#define LLQUOTE_RUNTIME_CUDA_H

#include "llquote/runtime/Status.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llq::rt::cuda {

/// Opaque driver handles (CUmodule, CUfunction).
using ModuleHandle = void *;
using FunctionHandle = void *;

struct DeviceInfo {
  std::string Name;             ///< "NVIDIA H100 80GB HBM3".
  int Major = 0, Minor = 0;     ///< Compute capability.
  unsigned Multiprocessors = 0; ///< SMs.
  unsigned ThreadsPerMultiprocessor = 0;
  uint64_t Memory = 0;          ///< Bytes of device memory.
  int DriverVersion = 0;        ///< 13000 for CUDA 13.0.
  /// "sm_90": the architecture to compile for.
  std::string arch() const;
};

class Driver {
public:
  /// The process's driver: opens the library named by LLQ_CUDA_DRIVER, else
  /// libcuda.so.1, initializes it and retains device 0's primary context.
  /// The first outcome is kept: a failure is reported again, not retried.
  static Expected<Driver *> get();
  /// As get(), but from the library at \p Path and not kept: for tests.
  static Expected<std::unique_ptr<Driver>> load(const std::string &Path);
  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  const DeviceInfo &device() const { return Info; }

  /// Memory that the host and the device both address (cuMemAllocManaged):
  /// pages move to whichever side touches them.
  Expected<void *> allocateManaged(size_t Bytes);
  void free(void *P);
  /// Whether P points into managed memory (allocated by any Driver call).
  bool isManaged(const void *P);
  /// Fills device-visible memory with a byte, on the device.
  Status memset(void *P, uint8_t Byte, size_t Bytes);

  /// Loads PTX text; the driver compiles it for the device. A rejection
  /// carries the driver's error log.
  Expected<ModuleHandle> loadPTX(const std::string &PTX);
  Status unload(ModuleHandle M);
  Expected<FunctionHandle> function(ModuleHandle M, const std::string &Name);
  /// Launches F on a 1-D grid and waits for it; Params points at each
  /// kernel parameter's value. A fault in the kernel is returned here.
  Status launch(FunctionHandle F, unsigned Blocks, unsigned Threads,
                void **Params);

private:
  struct Api;
  Driver(void *Library, std::unique_ptr<Api> Fns);
  static Expected<std::unique_ptr<Driver>> open(const std::string &Path);
  /// Makes the context current on this thread.
  Status enter();
  /// A failed Status for the driver call What that returned Code.
  Status error(const char *What, int Code) const;

  void *Library;
  std::unique_ptr<Api> Fns;
  void *Context = nullptr;
  int Device = 0;
  DeviceInfo Info;
};

} // namespace llq::rt::cuda

#endif // LLQUOTE_RUNTIME_CUDA_H
