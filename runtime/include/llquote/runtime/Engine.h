//===- Engine.h - JIT engine with memory and disk kernel caches -*- C++ -*-===//
//
// The Engine turns LLVM IR modules into callable host code. It wraps an ORC
// LLJIT for the host (JITTargetMachineBuilder::detectHost), optimises each
// module with the new pass manager at -O3 for the host's real vector width,
// and keeps two caches in front of the compiler:
//
//   - a memory cache: a module whose canonical text was added before (to the
//     same JITDylib, with the same options) is not compiled again; the
//     request costs printing and hashing the module and one map lookup;
//   - a disk cache of object files (an llvm::ObjectCache), shared by every
//     process of the same LLVM version, target triple and CPU, so that a new
//     process loads a kernel's object instead of compiling it.
//
// Contract of addModule:
//   - Requires: the module is valid IR for the host (its triple and data
//     layout are either empty, and then taken from the engine, or the
//     host's).
//   - Produces: on success, the module's external symbols are defined in the
//     tracker's JITDylib and lookup() resolves them; concurrent requests for
//     one kernel compile it once, the others wait for that compile.
//   - Errors: invalid IR, a foreign triple or data layout, and duplicate
//     definitions come back as llvm::Error. A disk entry that fails its
//     checks is deleted and rebuilt, never loaded; a disk cache that cannot
//     be written only costs the next process a compile.
//
// The library prints nothing, except one line per kernel request to stderr
// (or EngineOptions::Log) when LLQ_VERBOSE=1 or EngineOptions::Verbose asks
// for it. docs/Runtime.md documents the environment variables, the cache
// key and the on-disk layout.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_ENGINE_H
#define LLQUOTE_RUNTIME_ENGINE_H

// Kernels compiled here run on a Gang; a user of one needs the other.
#include "llquote/runtime/Scheduler.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/Support/Error.h"
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace llvm {
class Module;
class raw_ostream;
class TargetMachine;
namespace orc {
class JITTargetMachineBuilder;
class LLJIT;
} // namespace orc
} // namespace llvm

namespace llq::rt {

namespace detail {
class DiskObjectCache;
class KernelTable;
class VerboseLog;
struct VectorMathLibrary;
} // namespace detail

/// How an engine compiles. Every field left unset is read from the
/// environment variable named in its comment, and failing that takes the
/// default; a field set here wins over the environment.
struct EngineOptions {
  /// The CPU to generate code for, as LLVM names it ("znver4", "x86-64"), or
  /// "host". Unset: LLQ_MCPU, else the host's CPU with the host's features.
  /// A CPU other than the host's gets that CPU's own features only.
  std::optional<std::string> CPU;
  /// 0 to 3, for both the IR pipeline and code generation. Unset:
  /// LLQ_OPT_LEVEL, else 3.
  std::optional<unsigned> OptLevel;
  /// Whether compiled objects are kept on disk. Unset: LLQ_CACHE ("off" or
  /// "0" disables it), else on.
  std::optional<bool> DiskCache;
  /// The root of the disk cache, below which entries live in
  /// <llvm-version>/<triple>/<cpu>/. Unset: LLQ_CACHE_DIR, else
  /// $XDG_CACHE_HOME/llquote, else $HOME/.cache/llquote; with none of them
  /// set, there is no disk cache.
  std::optional<std::string> CacheDir;
  /// The bound, in bytes, on the disk cache's directory: past it the least
  /// recently used entries are removed. 0: no bound. Unset:
  /// LLQ_CACHE_MAX_SIZE (bytes, or with a K, M or G suffix), else 256 MiB.
  std::optional<uint64_t> CacheMaxSize;
  /// Whether each disk entry is synced before it is renamed into place, so
  /// that a crash or power loss leaves it whole or absent. Unset:
  /// LLQ_CACHE_SYNC, else on.
  std::optional<bool> CacheSync;
  /// One line per kernel request: its time and which cache served it.
  /// Unset: LLQ_VERBOSE ("1" enables it).
  std::optional<bool> Verbose;
  /// Where verbose lines go; null means stderr. Must outlive the engine.
  llvm::raw_ostream *Log = nullptr;
};

/// Per-kernel code generation choices; each is part of the cache key.
struct KernelOptions {
  /// Sets every fast-math flag on every floating-point operation and lets
  /// code generation contract and reassociate. Off by default so that
  /// results do not depend on the vector width the CPU offers.
  bool FastMath = false;
};

/// The machine compileObject generates code for: another machine's, for
/// ahead-of-time compilation, or the host's.
struct ObjectTarget {
  /// An LLVM target triple ("aarch64-linux-gnu", "x86_64-linux-gnu");
  /// empty: the host's.
  std::string Triple;
  /// A CPU of the triple's target, as llc -mcpu names it ("znver4",
  /// "x86-64-v3", "neoverse-v2"); empty: the host's CPU and features where
  /// Triple is empty, else the target's generic CPU.
  std::string CPU;
  /// Target features added to the CPU's ("+avx2,-avx512f"), as llc -mattr.
  std::string Features;
  /// 0 to 3, as EngineOptions::OptLevel.
  unsigned OptLevel = 3;
};

/// M compiled into a relocatable object file for T, optimised by the
/// engine's own pipeline with T's cost model (vector width, vector math
/// library) and code generation, without a JIT: the code a program links
/// ahead of time. M's triple and data layout become T's; its definitions
/// keep their names and linkage. Fails, naming the cause, on a triple or
/// CPU LLVM does not know, a target this LLVM was built without, an
/// invalid module, or an error in code generation (as addModule would).
/// Thread-safe for modules in distinct contexts.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileObject(llvm::Module &M, const ObjectTarget &T);

/// Which path produced a kernel's code.
enum class KernelOrigin {
  Compiled,    ///< Optimised and compiled by this request.
  MemoryCache, ///< Already in the JITDylib: no work but the key.
  DiskCache,   ///< Object loaded from the disk cache and linked.
};

/// What addModule made available.
struct AddedModule {
  /// Owns the kernel's code: remove() frees it for every holder and evicts
  /// it from the memory cache. On a memory hit this is the tracker of the
  /// request that compiled the kernel, not the one passed in; it is null if
  /// that tracker's resources were moved with ResourceTracker::transferTo,
  /// in which case the code lives on under the tracker they went to.
  llvm::orc::ResourceTrackerSP Tracker = nullptr;
  KernelOrigin Origin = KernelOrigin::Compiled;
  /// The cache key as 32 hex digits; also the disk entry's file stem.
  std::string Key;
};

/// Event counts since the engine was created. A successful addModule adds
/// one to exactly one of Compiles, MemoryHits and DiskHits; a failed one may
/// still have counted the work it did before failing.
struct EngineCounters {
  uint64_t Compiles = 0;
  uint64_t MemoryHits = 0;
  uint64_t DiskHits = 0;
  /// Disk entries found corrupt, truncated or for another key; each was
  /// deleted and the kernel compiled instead.
  uint64_t DiskRejects = 0;
  /// Disk entries removed to keep the directory under its bound.
  uint64_t DiskEvictions = 0;
};

class Engine {
public:
  /// Fails on a bad LLQ_* variable or option (see docs/Runtime.md) or if
  /// the host target is not usable.
  static llvm::Expected<std::unique_ptr<Engine>>
  create(EngineOptions Options = {});
  /// Ends the JIT session: every kernel's code is freed. No addModule or
  /// kernel call may be in progress, and no tracker may outlive the engine.
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// Makes the module's symbols callable, compiling it only if neither
  /// cache has it. RT null means a new tracker in the main JITDylib, so
  /// that each kernel can be freed on its own.
  llvm::Expected<AddedModule>
  addModule(llvm::orc::ThreadSafeModule TSM,
            llvm::orc::ResourceTrackerSP RT = nullptr,
            KernelOptions Options = {});

  /// The address of a symbol of the main JITDylib, linking it on first use.
  llvm::Expected<llvm::orc::ExecutorAddr> lookupAddress(llvm::StringRef Name);

  /// The function Name, as a pointer of the type the caller states; the
  /// type is the caller's promise, nothing checks it.
  template <typename FnT> llvm::Expected<FnT *> lookup(llvm::StringRef Name) {
    static_assert(std::is_function_v<FnT>, "lookup<FnT> needs a function type");
    llvm::Expected<llvm::orc::ExecutorAddr> Addr = lookupAddress(Name);
    if (!Addr)
      return Addr.takeError();
    return Addr->toPtr<FnT *>();
  }

  /// Runs, in place, what addModule runs on a cache miss before code
  /// generation (data layout, verifier, fast-math flags, the -O pipeline),
  /// so that tools and tests can read the IR the engine compiles.
  llvm::Error optimize(llvm::Module &M, KernelOptions Options = {}) const;

  EngineCounters counters() const;
  llvm::orc::JITDylib &mainJITDylib();
  const llvm::DataLayout &dataLayout() const { return Layout; }
  const std::string &triple() const { return TripleName; }
  const std::string &cpu() const { return CPUName; }
  /// The target features kernels are compiled for, as LLVM spells them
  /// ("+avx2,+fma,-sse4a,...").
  const std::string &features() const { return Features; }
  /// Whether the CPU kernels are compiled for has the target feature
  /// \p Name ("avx512f", "sse4a"), its own or one \ref features adds; a
  /// CPU named in the options has its features even when they are not
  /// the host's. Builds the subtarget's description: ask once, not per
  /// kernel.
  bool hasFeature(llvm::StringRef Name) const;
  unsigned optLevel() const { return OptLevel; }
  /// The directory holding this engine's disk entries; empty when the
  /// disk cache is off.
  std::string diskCacheDir() const;

private:
  Engine();
  llvm::Error initialize(const EngineOptions &Options);
  /// Creates the LLJIT, makes its errors quiet, registers the memory cache
  /// for removals, and defines the runtime's entry points for kernels.
  llvm::Error startJIT(llvm::orc::JITTargetMachineBuilder Builder);
  /// Settles a memory miss: builds the object and adds it under RT (a new
  /// tracker in JD if RT is null), filling Result's Origin.
  llvm::Error buildAndAdd(llvm::orc::ThreadSafeModule &TSM,
                          llvm::orc::JITDylib &JD,
                          llvm::orc::ResourceTrackerSP &RT,
                          KernelOptions Options, AddedModule &Result);
  /// Settles a cache miss: loads the object from disk or compiles it.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  buildObject(llvm::Module &M, const std::string &Key, KernelOptions Options,
              KernelOrigin &Origin);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
  createTargetMachine(KernelOptions Options) const;
  /// Gives M the engine's triple and data layout if it names none.
  llvm::Error adoptTarget(llvm::Module &M) const;

  std::string TripleName;
  std::string CPUName;
  std::string Features;
  unsigned OptLevel = 3;
  llvm::DataLayout Layout{""};

  /// Copied for every compile: a TargetMachine is not safe to share
  /// between threads that generate code at the same time.
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> TargetBuilder;
  std::unique_ptr<detail::VerboseLog> Log;
  std::unique_ptr<detail::DiskObjectCache> Disk;
  std::unique_ptr<detail::KernelTable> Kernels;
  /// Vector variants for calls that allow approximation (`afn`).
  std::unique_ptr<detail::VectorMathLibrary> VectorMath;
  std::unique_ptr<llvm::orc::LLJIT> JIT;

  std::atomic<uint64_t> Compiles{0};
  std::atomic<uint64_t> MemoryHits{0};
  std::atomic<uint64_t> DiskHits{0};
};

/// Parses an optimisation level: one digit, 0 to 3. The error names the
/// value and what is accepted.
llvm::Expected<unsigned> parseOptLevel(llvm::StringRef Text);

/// Parses a switch variable: "1" or "on" is true, "0" or "off" is false
/// (case-insensitive); the error names Variable.
llvm::Expected<bool> parseSwitch(llvm::StringRef Variable,
                                 llvm::StringRef Text);

/// Parses a size in bytes: decimal digits with an optional K, M or G
/// (powers of 1024, either case); 0 is 0. The error names Variable.
llvm::Expected<uint64_t> parseSize(llvm::StringRef Variable,
                                   llvm::StringRef Text);

} // namespace llq::rt

#endif // LLQUOTE_RUNTIME_ENGINE_H
