//===- Cuda.cpp - The CUDA driver API, loaded at run time -----------------===//
//
// The driver's types and constants are restated here, as the driver's ABI
// fixes them, so that building needs no cuda.h. The versioned entry points
// (cuMemAlloc_v2, ...) are the ones cuda.h maps the plain names to.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Cuda.h"
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#include <vector>

using namespace llq::rt;
using namespace llq::rt::cuda;

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

constexpr int DeviceAttrMultiprocessors = 16;
constexpr int DeviceAttrThreadsPerMultiprocessor = 39;
constexpr int DeviceAttrMajor = 75;
constexpr int DeviceAttrMinor = 76;
constexpr int DeviceAttrManagedMemory = 83;
constexpr unsigned MemAttachGlobal = 1;
constexpr int PointerAttrIsManaged = 8;
constexpr int JitInfoLogBuffer = 3;
constexpr int JitInfoLogBufferBytes = 4;
constexpr int JitErrorLogBuffer = 5;
constexpr int JitErrorLogBufferBytes = 6;

} // namespace

struct Driver::Api {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DeviceTotalMem)(size_t *, CUdevice);
  CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*PrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)();
  CUresult (*MemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*PointerGetAttribute)(void *, int, CUdeviceptr);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
};

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(Major) + std::to_string(Minor);
}

Driver::Driver(void *Library, std::unique_ptr<Api> Fns)
    : Library(Library), Fns(std::move(Fns)) {}

Driver::~Driver() {
  if (Context)
    Fns->PrimaryCtxRelease(Device);
  if (Library)
    dlclose(Library);
}

Status Driver::error(const char *What, int Code) const {
  const char *Name = nullptr, *Text = nullptr;
  if (Fns->GetErrorName(Code, &Name) != 0 || !Name)
    Name = "an unknown error";
  if (Fns->GetErrorString(Code, &Text) != 0 || !Text)
    Text = "";
  std::string M = std::string(What) + " failed: " + Name;
  if (*Text)
    M += std::string(" (") + Text + ")";
  return Status::error(M);
}

Expected<std::unique_ptr<Driver>> Driver::open(const std::string &Path) {
  void *Lib = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    const char *Why = dlerror();
    return Status::error("the CUDA driver cannot be loaded: " +
                         std::string(Why ? Why : Path));
  }
  auto Fns = std::make_unique<Api>();
  std::string Missing;
  auto Bind = [&](auto &Slot, const char *Symbol) {
    void *P = dlsym(Lib, Symbol);
    if (!P && Missing.empty())
      Missing = Symbol;
    Slot = reinterpret_cast<std::remove_reference_t<decltype(Slot)>>(P);
  };
  Bind(Fns->Init, "cuInit");
  Bind(Fns->DriverGetVersion, "cuDriverGetVersion");
  Bind(Fns->DeviceGetCount, "cuDeviceGetCount");
  Bind(Fns->DeviceGet, "cuDeviceGet");
  Bind(Fns->DeviceGetName, "cuDeviceGetName");
  Bind(Fns->DeviceGetAttribute, "cuDeviceGetAttribute");
  Bind(Fns->DeviceTotalMem, "cuDeviceTotalMem_v2");
  Bind(Fns->PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  Bind(Fns->PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  Bind(Fns->CtxSetCurrent, "cuCtxSetCurrent");
  Bind(Fns->CtxSynchronize, "cuCtxSynchronize");
  Bind(Fns->MemAllocManaged, "cuMemAllocManaged");
  Bind(Fns->MemFree, "cuMemFree_v2");
  Bind(Fns->MemsetD8, "cuMemsetD8_v2");
  Bind(Fns->PointerGetAttribute, "cuPointerGetAttribute");
  Bind(Fns->ModuleLoadDataEx, "cuModuleLoadDataEx");
  Bind(Fns->ModuleUnload, "cuModuleUnload");
  Bind(Fns->ModuleGetFunction, "cuModuleGetFunction");
  Bind(Fns->LaunchKernel, "cuLaunchKernel");
  Bind(Fns->GetErrorName, "cuGetErrorName");
  Bind(Fns->GetErrorString, "cuGetErrorString");
  if (!Missing.empty()) {
    dlclose(Lib);
    return Status::error("the CUDA driver at " + Path + " lacks " + Missing +
                         "; it is older than this backend needs");
  }
  std::unique_ptr<Driver> D(new Driver(Lib, std::move(Fns)));
  Api &A = *D->Fns;
  if (CUresult R = A.Init(0))
    return D->error("cuInit", R);
  int Count = 0;
  if (CUresult R = A.DeviceGetCount(&Count))
    return D->error("cuDeviceGetCount", R);
  if (Count == 0)
    return Status::error("the CUDA driver found no GPU");
  if (CUresult R = A.DeviceGet(&D->Device, 0))
    return D->error("cuDeviceGet", R);
  DeviceInfo &I = D->Info;
  char Name[256] = {};
  if (CUresult R = A.DeviceGetName(Name, sizeof(Name) - 1, D->Device))
    return D->error("cuDeviceGetName", R);
  I.Name = Name;
  int Managed = 0, SMs = 0, Threads = 0;
  if (CUresult R = A.DeviceGetAttribute(&I.Major, DeviceAttrMajor, D->Device))
    return D->error("cuDeviceGetAttribute", R);
  if (CUresult R = A.DeviceGetAttribute(&I.Minor, DeviceAttrMinor, D->Device))
    return D->error("cuDeviceGetAttribute", R);
  if (CUresult R = A.DeviceGetAttribute(&SMs, DeviceAttrMultiprocessors,
                                        D->Device))
    return D->error("cuDeviceGetAttribute", R);
  if (CUresult R = A.DeviceGetAttribute(
          &Threads, DeviceAttrThreadsPerMultiprocessor, D->Device))
    return D->error("cuDeviceGetAttribute", R);
  if (CUresult R = A.DeviceGetAttribute(&Managed, DeviceAttrManagedMemory,
                                        D->Device))
    return D->error("cuDeviceGetAttribute", R);
  I.Multiprocessors = unsigned(SMs);
  I.ThreadsPerMultiprocessor = unsigned(Threads);
  size_t Bytes = 0;
  if (CUresult R = A.DeviceTotalMem(&Bytes, D->Device))
    return D->error("cuDeviceTotalMem", R);
  I.Memory = Bytes;
  if (CUresult R = A.DriverGetVersion(&I.DriverVersion))
    return D->error("cuDriverGetVersion", R);
  if (!Managed)
    return Status::error("the GPU " + I.Name +
                         " cannot allocate managed memory, which the GPU "
                         "backend keeps its arrays in");
  if (CUresult R = A.PrimaryCtxRetain(&D->Context, D->Device))
    return D->error("cuDevicePrimaryCtxRetain", R);
  return D;
}

Expected<Driver *> Driver::get() {
  static std::once_flag Once;
  static Expected<std::unique_ptr<Driver>> *Opened = nullptr;
  std::call_once(Once, [] {
    const char *Env = std::getenv("LLQ_CUDA_DRIVER");
    // Never destroyed: kernels may still be loaded at exit.
    Opened = new Expected<std::unique_ptr<Driver>>(
        open(Env && *Env ? Env : "libcuda.so.1"));
  });
  if (!*Opened)
    return Opened->status();
  return (*Opened)->get();
}

Expected<std::unique_ptr<Driver>> Driver::load(const std::string &Path) {
  return open(Path);
}

Status Driver::enter() {
  thread_local void *Current = nullptr;
  if (Current == Context)
    return Status();
  if (CUresult R = Fns->CtxSetCurrent(Context))
    return error("cuCtxSetCurrent", R);
  Current = Context;
  return Status();
}

Expected<void *> Driver::allocateManaged(size_t Bytes) {
  if (Status S = enter(); !S.ok())
    return S;
  CUdeviceptr P = 0;
  if (CUresult R = Fns->MemAllocManaged(&P, Bytes ? Bytes : 1,
                                        MemAttachGlobal))
    return error(("cuMemAllocManaged of " + std::to_string(Bytes) + " bytes")
                     .c_str(),
                 R);
  return reinterpret_cast<void *>(uintptr_t(P));
}

void Driver::free(void *P) {
  if (P && enter().ok())
    Fns->MemFree(CUdeviceptr(uintptr_t(P)));
}

bool Driver::isManaged(const void *P) {
  if (!P || !enter().ok())
    return false;
  unsigned Managed = 0;
  if (Fns->PointerGetAttribute(&Managed, PointerAttrIsManaged,
                               CUdeviceptr(uintptr_t(P))) != 0)
    return false;
  return Managed != 0;
}

Status Driver::memset(void *P, uint8_t Byte, size_t Bytes) {
  if (!Bytes)
    return Status();
  if (Status S = enter(); !S.ok())
    return S;
  if (CUresult R = Fns->MemsetD8(CUdeviceptr(uintptr_t(P)), Byte, Bytes))
    return error("cuMemsetD8", R);
  if (CUresult R = Fns->CtxSynchronize())
    return error("cuCtxSynchronize", R);
  return Status();
}

Expected<ModuleHandle> Driver::loadPTX(const std::string &PTX) {
  if (Status S = enter(); !S.ok())
    return S;
  std::vector<char> Log(16384, 0), Info(4096, 0);
  int Options[] = {JitErrorLogBuffer, JitErrorLogBufferBytes, JitInfoLogBuffer,
                   JitInfoLogBufferBytes};
  void *Values[] = {Log.data(), reinterpret_cast<void *>(Log.size() - 1),
                    Info.data(), reinterpret_cast<void *>(Info.size() - 1)};
  CUmodule M = nullptr;
  if (CUresult R = Fns->ModuleLoadDataEx(&M, PTX.c_str(), 4, Options, Values)) {
    Status S = error("cuModuleLoadDataEx", R);
    std::string Text = S.message();
    if (Log[0])
      Text += ":\n" + std::string(Log.data());
    return Status::error(Text);
  }
  return ModuleHandle(M);
}

Status Driver::unload(ModuleHandle M) {
  if (Status S = enter(); !S.ok())
    return S;
  if (CUresult R = Fns->ModuleUnload(static_cast<CUmodule>(M)))
    return error("cuModuleUnload", R);
  return Status();
}

Expected<FunctionHandle> Driver::function(ModuleHandle M,
                                          const std::string &Name) {
  if (Status S = enter(); !S.ok())
    return S;
  CUfunction F = nullptr;
  if (CUresult R = Fns->ModuleGetFunction(&F, static_cast<CUmodule>(M),
                                          Name.c_str()))
    return error(("cuModuleGetFunction(" + Name + ")").c_str(), R);
  return FunctionHandle(F);
}

Status Driver::launch(FunctionHandle F, unsigned Blocks, unsigned Threads,
                      void **Params) {
  if (Status S = enter(); !S.ok())
    return S;
  if (CUresult R = Fns->LaunchKernel(static_cast<CUfunction>(F), Blocks, 1, 1,
                                     Threads, 1, 1, 0, nullptr, Params,
                                     nullptr))
    return error("cuLaunchKernel", R);
  if (CUresult R = Fns->CtxSynchronize())
    return error("the kernel (cuCtxSynchronize)", R);
  return Status();
}
