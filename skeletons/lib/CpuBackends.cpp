//===- CpuBackends.cpp - The CPU and sequential backends ------------------===//
//
// Both compile kernels with the JIT engine (its memory and disk caches
// included) and call them as host functions; arrays live in host memory,
// their outputs taken from the Runtime's pool of freed buffers. The CPU
// backend runs a phase's pieces on every thread of a gang, lowest first, and
// has atomics; the sequential backend runs the whole range on the calling
// thread, without atomics: the reference the tests compare with.
//
//===----------------------------------------------------------------------===//

#include "Backends.h"
#include "llquote/runtime/BufferPool.h"
#include "llquote/runtime/Engine.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include <map>
#include <mutex>

using namespace llq;
using namespace llq::detail;

namespace {

/// What the CPU backends share: kernels compiled by the JIT engine, with
/// its memory and disk caches, and called as host functions.
class JitBackend : public Backend {
public:
  JitBackend(rt::Engine &Eng, std::shared_ptr<rt::BufferPool> Pool)
      : Pool(std::move(Pool)), Eng(Eng) {
    bool X86 = llvm::Triple(Eng.triple()).isX86();
    NonTemporal = !X86 || Eng.hasFeature("sse4a");
    NonTemporalInStreams = NonTemporal && (!X86 || Eng.hasFeature("avx512f"));
  }
  /// Outputs from the pool: an intermediate freed at the end of one run is
  /// the next run's, its pages already in place.
  rt::Expected<std::shared_ptr<rt::Array>>
  allocate(const ElemType &T, const Shape &Sh) override {
    return allocateFrom(Pool.get(), T, Sh);
  }
  bool readsHostArrays() const override { return true; }
  /// On x86, only where SSE4a's scalar MOVNTSS/MOVNTSD exist (AMD's
  /// CPUs): LLVM writes a vector store that is not known to be aligned,
  /// as the vectorized loops' are, as eight of those; without them as
  /// eight MOVNTIs of general registers, not measured to pay, and a
  /// scalar float store as a plain one. Elsewhere (AArch64's STNP) yes.
  bool nonTemporalStores() const override { return NonTemporal; }
  /// On AMD's x86, only from Zen 4 on (told apart by AVX-512). A Zen 3
  /// writes one stream of MOVNTSS at memory speed, but two or more
  /// interleaved ones collapse: a four-quarter scan of 2^24 floats ran at
  /// 0.25 GB/s where plain stores give 12-16, and a plain C loop storing
  /// into two regions by turns with _mm_stream_ss at 0.11 GB/s against 3.4
  /// with plain stores (with 16-float blocks by turns, 1.3 against 9.1).
  /// On Zen 5 the scan gains from them (docs/Skeletons.md, "Scans").
  bool nonTemporalStreams() const override { return NonTemporalInStreams; }
  llvm::Error lower(llvm::Module &M, const KernelGen &,
                    bool Optimize) override {
    // The module is the host's as it is; the engine optimises it.
    return Optimize ? Eng.optimize(M) : llvm::Error::success();
  }
  llvm::Error compile(std::unique_ptr<llvm::Module> M,
                      std::unique_ptr<llvm::LLVMContext> Ctx,
                      const KernelGen &G, Kernel &K,
                      std::string &How) override {
    auto Added =
        Eng.addModule(llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx)));
    if (!Added)
      return Added.takeError();
    K.Owner = ownerOf(Added->Tracker);
    for (const std::string &P : G.phases()) {
      auto F = Eng.lookup<void(int64_t, int64_t, void *)>(K.Name + "." + P);
      if (!F)
        return F.takeError();
      K.Phases.push_back(*F);
    }
    K.FromDisk = Added->Origin == rt::KernelOrigin::DiskCache;
    How = Added->Origin == rt::KernelOrigin::Compiled ? "compiled"
          : Added->Origin == rt::KernelOrigin::DiskCache
              ? "loaded from the disk cache"
              : "found in the engine's memory cache";
    return llvm::Error::success();
  }

private:
  /// The owner of the code under T: one per tracker, shared by every Kernel
  /// the engine served from it (a memory hit returns the tracker of the
  /// request that compiled), which removes the tracker, and so frees the
  /// code, when the last of them is gone.
  std::shared_ptr<void> ownerOf(const llvm::orc::ResourceTrackerSP &T) {
    if (!T)
      return nullptr;
    std::lock_guard<std::mutex> Lock(OwnersLock);
    if (std::shared_ptr<void> Live = Owners[T.get()].lock())
      return Live;
    std::shared_ptr<void> Owner(T.get(), [this, T](void *) {
      {
        std::lock_guard<std::mutex> Lock(OwnersLock);
        Owners.erase(T.get());
      }
      if (llvm::Error E = T->remove())
        llvm::consumeError(std::move(E));
    });
    Owners[T.get()] = Owner;
    return Owner;
  }

  std::shared_ptr<rt::BufferPool> Pool;
  rt::Engine &Eng;
  bool NonTemporal, NonTemporalInStreams;
  std::mutex OwnersLock;
  std::map<const llvm::orc::ResourceTracker *, std::weak_ptr<void>> Owners;
};

class CpuBackend final : public JitBackend {
public:
  CpuBackend(rt::Engine &Eng, unsigned Threads,
             std::shared_ptr<rt::BufferPool> Pool)
      : JitBackend(Eng, std::move(Pool)), G(Threads) {}
  BackendKind kind() const override { return BackendKind::CPU; }
  unsigned parallelism() const override { return G.numThreads(); }
  bool atomics() const override { return true; }
  rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t Grain) override {
    return launchOnGang(G, K, Phase, Begin, End, Args, Grain);
  }
  bool callsInline(int64_t Begin, int64_t End, int64_t Grain) const override {
    return G.runsInline(Begin, End, Grain);
  }

private:
  rt::Gang G;
};

class SequentialBackend final : public JitBackend {
public:
  using JitBackend::JitBackend;
  BackendKind kind() const override { return BackendKind::Sequential; }
  unsigned parallelism() const override { return 1; }
  bool atomics() const override { return false; }
  rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t) override {
    if (End > Begin)
      K.Phases[Phase](Begin, End, Args);
    return rt::Status();
  }
  bool callsInline(int64_t Begin, int64_t End, int64_t) const override {
    return End > Begin;
  }
};

} // namespace

std::unique_ptr<Backend>
llq::detail::makeCpuBackend(rt::Engine &Eng, unsigned Threads,
                            std::shared_ptr<rt::BufferPool> Pool) {
  return std::make_unique<CpuBackend>(Eng, Threads, std::move(Pool));
}

std::unique_ptr<Backend>
llq::detail::makeSequentialBackend(rt::Engine &Eng,
                                   std::shared_ptr<rt::BufferPool> Pool) {
  return std::make_unique<SequentialBackend>(Eng, std::move(Pool));
}
