//===- Skeletons.h - Parallel arrays with quoted scalar functions -*- C++ -*-===//
//
// The array language of llquote, after Accelerate. Arrays are built from
// operations (map, zipWith, fold, scans, permute, stencils, ...) whose
// scalar functions are quoted in the llquote dialect with LLQ_FN:
//
//   llq::Runtime R;
//   llq::Array<float> X = llq::fromVector(Xs), Y = llq::fromVector(Ys);
//   auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
//   auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
//   float Dot = R.run(llq::fold(Add, 0.0f, llq::zipWith(Mul, X, Y))).scalar();
//
// An operation only describes an array (an Acc). Producers (generate, map,
// zipWith, transform, backpermute and the operations built on them) stay
// delayed: the consumer that reads them (a fold, a scan, permute, a stencil,
// or Runtime::run) inlines their code instead of reading an intermediate
// array. Runtime::run instantiates each consumer's skeleton, written in the
// dialect, for the element types and functions at hand, JIT-compiles it once
// per structure (the cache is keyed on the operation tree, never on IR
// text), and runs it on every core.
//
// Mistakes are reported, never crashed on: an operation given arrays or
// functions that do not fit records the error, and run() throws ArrayError
// (tryRun() returns it as an llvm::Error) with the C++ place of the LLQ_FN
// and the operation's name. docs/Skeletons.md documents every operation.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_H
#define LLQUOTE_SKELETONS_H

#include "llquote/skeletons/Language.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

namespace llq {

//===-- Running ------------------------------------------------------------===//

enum class BackendKind : uint8_t {
  CPU,        ///< Every core, through the gang scheduler; atomics.
  Sequential, ///< One thread, no atomics: the reference for tests.
  GPU,        ///< The first NVIDIA GPU, through the CUDA driver and PTX.
};

struct RuntimeOptions {
  BackendKind Backend = BackendKind::CPU;
  /// Threads for the CPU backend, 1 to 1024 (rt::MaxNumThreads; more is an
  /// ArrayError from the Runtime's constructor); 0: LLQ_NUM_THREADS, else
  /// every core.
  unsigned Threads = 0;
  /// A line per kernel to stderr; unset: LLQ_VERBOSE.
  std::optional<bool> Verbose;
  /// Where each compiled kernel's IR is written (NAME.ll, NAME.opt.ll);
  /// unset: LLQ_DUMP_IR, else nowhere.
  std::optional<std::string> DumpIR;
  /// -O level for kernels; unset: LLQ_OPT_LEVEL, else 3.
  std::optional<unsigned> OptLevel;
  /// The CPU to compile for; unset: LLQ_MCPU, else the host.
  std::optional<std::string> CPU;
  /// For BackendKind::GPU, the architecture to compile for ("sm_90");
  /// unset: LLQ_GPU_ARCH, else the device's, else sm_90.
  std::optional<std::string> GpuArch;
  /// Whether compiled kernels (objects, PTX) are kept on disk; unset:
  /// LLQ_CACHE, else on.
  std::optional<bool> DiskCache;
  /// The root of that disk cache; unset: LLQ_CACHE_DIR, else
  /// $XDG_CACHE_HOME/llquote, else $HOME/.cache/llquote.
  std::optional<std::string> CacheDir;
  /// The bound, in bytes, on the disk cache's directory (least recently
  /// used entries are removed past it; 0: no bound); unset:
  /// LLQ_CACHE_MAX_SIZE, else 256 MiB.
  std::optional<uint64_t> CacheMaxSize;
  /// The most compiled kernels this Runtime keeps in memory: past it, the
  /// least recently used kernel that no run is using is removed from the
  /// JIT and its code memory freed (a later run that needs it compiles it
  /// again, or loads it from the disk cache). 0: no bound. Unset:
  /// LLQ_CACHE_MEMORY (a number of kernels), else 1024.
  std::optional<size_t> MaxKernels;
  /// Bytes of freed array storage (buffers of 64 KiB and more) the CPU
  /// backends keep for the next array of the same size, so that a pipeline
  /// run again does not fault its intermediates' pages in anew each time.
  /// 0: none kept. Unset: LLQ_POOL_BYTES, else 256 MiB.
  std::optional<uint64_t> PoolBytes;
  /// Checked mode: an integer division by zero, or a signed division of
  /// the least value by -1, in a scalar function becomes an ArrayError that
  /// names the operation and the function's C++ line, where it is otherwise
  /// undefined (on x86 the process dies of SIGFPE). Index functions that
  /// leave their source are errors in either mode. Unset: LLQ_CHECKS (1 or
  /// on), else off. docs/Skeletons.md says what the checks cost.
  std::optional<bool> Checks;
  /// Fusion of producers into their consumers. Off: every operation runs
  /// as a kernel of its own and writes its whole result to memory, which
  /// the next reads (to measure what fusion buys, or to isolate a fault);
  /// an operation used twice is then computed once. Unset: LLQ_FUSION (off
  /// or 0 turns it off), else on.
  std::optional<bool> Fusion;
  /// For BackendKind::GPU: compile only, with no device or driver needed.
  /// kernelIR() and kernelPTX() work; run() fails.
  bool CompileOnly = false;
};

/// Success if the GPU backend can run here, else why not (no driver, no
/// device, an old driver). Tests that need a GPU skip with this message.
llvm::Error gpuAvailable();

/// Counts since the Runtime was made.
struct RuntimeStats {
  uint64_t KernelsBuilt = 0; ///< Skeletons instantiated (structural misses).
  uint64_t KernelHits = 0;   ///< Runs that found their kernel by structure.
  uint64_t Launches = 0;     ///< Kernel phases run.
  /// Of KernelsBuilt, those whose code the engine loaded from the disk
  /// cache instead of compiling.
  uint64_t KernelsFromDisk = 0;
  /// Kernels removed from memory to keep within RuntimeOptions::MaxKernels.
  uint64_t KernelsEvicted = 0;
  /// Kernels in memory now.
  uint64_t KernelsResident = 0;
  /// Arrays whose storage came from freed storage kept for reuse
  /// (RuntimeOptions::PoolBytes) instead of new memory.
  uint64_t BuffersReused = 0;
  /// Runs of an expression run before (the same Acc, not an equal one)
  /// that reused its plan: no walk of the tree, no key, no lookup (and so
  /// not counted in KernelHits).
  uint64_t PlanHits = 0;
};

namespace detail {
class Backend;
struct BackendContext;
struct PreparedImpl;
struct BoundImpl;
} // namespace detail

/// A prepared expression bound for good to its arrays (Prepared::bind):
/// the output it writes and the inputs it reads. A call repeats the
/// kernel launches of the first run on these arrays' storage, reading
/// what the inputs hold at the time: no shapes worked out, no lookup, no
/// allocation, no lock. It is the form for a loop that recomputes one
/// array from others of fixed shapes, the way a hand-written loop over
/// preallocated arrays would. It keeps its arrays, its kernels and their
/// Runtime alive. A call is not synchronised: call one Bound from one
/// thread at a time (bind one per thread to run from several).
class Bound {
public:
  Bound() = default;
  /// Computes the expression into output(). Throws ArrayError on a fault
  /// of a kernel (an index outside an array, in checked mode a division
  /// by zero), described as Runtime::run describes it.
  void operator()();
  /// The array the result is written into.
  const Array<> &output() const;
  /// Whether calls repeat recorded launches. An expression whose launches
  /// depend on its arrays' contents (a filter, segmented operations, acond
  /// and awhile), or a GPU Runtime's, runs as Prepared::runInto instead:
  /// the same result, at that cost; a result that no longer fits the
  /// output (a filter that keeps more) is then an ArrayError.
  bool repeatsLaunches() const;

private:
  friend class Prepared;
  std::shared_ptr<detail::BoundImpl> P;
};
/// Makes the backend a Runtime runs on, for backend authors and tests
/// (docs/SkeletonAuthoring.md): the context gives the engine, the options
/// and the backend the options name, for a backend that wraps it.
using BackendFactory =
    std::function<std::unique_ptr<detail::Backend>(detail::BackendContext &)>;

/// An expression prepared once to run many times (Runtime::prepare): its
/// fusion worked out and its kernels found or compiled, so that a call
/// costs the launches and the result's allocation only. Its inputs are the
/// arrays the expression was built over (inputs()); a call runs on them as
/// they are now, or on others of the same element types and ranks, of any
/// extents, given in their place (every shape follows theirs, as for a
/// pipeline compiled ahead of time, docs/AheadOfTime.md). Copies share one plan, and calls on it run one at a time;
/// prepare the expression once per thread to run it from several at once.
/// It keeps its Runtime's kernels and threads alive.
class Prepared {
public:
  Prepared() = default;
  /// Runs the expression; Inputs, if any, replace its input arrays in
  /// order, one for each. Throws ArrayError on a mistake or failure.
  template <typename... Ts> Array<> operator()(const Array<Ts> &...Inputs) const {
    return run({detail::ArrayHandle(Inputs)...});
  }
  /// As operator(), writing the result into Into's storage when it has the
  /// result's element type and shape and is not an input (as
  /// Runtime::run(A, Into)).
  template <typename... Ts>
  Array<> runInto(const detail::ArrayHandle &Into,
                  const Array<Ts> &...Inputs) const {
    return run({detail::ArrayHandle(Inputs)...}, &Into);
  }
  Array<> run(llvm::ArrayRef<detail::ArrayHandle> Inputs,
              const detail::ArrayHandle *Into = nullptr) const;
  /// The expression bound to Out, which must have the result's element
  /// type and shape and be none of the inputs, and to Inputs in place of
  /// its inputs (none: the arrays it was built over): see Bound. Runs it
  /// once, into Out. Throws ArrayError on a mistake.
  template <typename... Ts>
  Bound bind(const detail::ArrayHandle &Out, const Array<Ts> &...Inputs) const {
    return bindTo(Out, {detail::ArrayHandle(Inputs)...});
  }
  Bound bindTo(const detail::ArrayHandle &Out,
               llvm::ArrayRef<detail::ArrayHandle> Inputs) const;
  llvm::Expected<Array<>> tryRun(llvm::ArrayRef<detail::ArrayHandle> Inputs,
                                 const detail::ArrayHandle *Into = nullptr) const;
  /// The arrays the expression was built over, each once, in the order a
  /// walk from the result meets them (operands left to right, depth first):
  /// the order in which a call's Inputs replace them.
  std::vector<Array<>> inputs() const;
  size_t numInputs() const;

private:
  friend class Runtime;
  friend class Bound;
  std::shared_ptr<detail::PreparedImpl> P;
};

class Runtime {
public:
  /// Throws ArrayError if the JIT cannot be set up.
  Runtime();
  explicit Runtime(const RuntimeOptions &Options);
  /// A Runtime whose kernels run on the backend Make returns; the options
  /// apply as for any Runtime (Options.Backend names the backend that
  /// BackendContext::standard() makes). Throws ArrayError if Make fails.
  Runtime(const RuntimeOptions &Options, BackendFactory Make);
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// Computes A; throws ArrayError on any mistake or failure.
  Array<> run(const Acc &A);
  template <typename T> Array<T> run(const Acc &A) { return run(A).as<T>(); }
  /// As run(), but writes the result into Into's storage, and returns it,
  /// when Into has A's element type and shape and A does not read Into;
  /// otherwise as run(A). A loop that recomputes an array of one shape
  /// reuses one buffer instead of allocating a new one each time.
  Array<> run(const Acc &A, const detail::ArrayHandle &Into);
  /// Computes several expressions in one run, returning their arrays in
  /// order: a consumer they share runs once, and a producer that two of
  /// them read (map(f, X) under both a sum and a maximum) is computed once,
  /// as an array, where one expression alone would fuse it into each
  /// reader.
  template <typename... Accs,
            typename = std::enable_if_t<(std::is_same_v<Accs, Acc> && ...)>>
  auto run(const Acc &A, const Acc &B, const Accs &...More) {
    std::vector<Array<>> All = runAll({A, B, More...});
    return tupleOf(All, std::make_index_sequence<2 + sizeof...(More)>());
  }
  std::vector<Array<>> runAll(const std::vector<Acc> &As);
  llvm::Expected<std::vector<Array<>>> tryRunAll(const std::vector<Acc> &As);
  /// As run(), with the failure returned.
  llvm::Expected<Array<>> tryRun(const Acc &A);
  llvm::Expected<Array<>> tryRun(const Acc &A, const detail::ArrayHandle &Into);
  /// A, prepared to run again and again: its fusion worked out and its
  /// kernels compiled now (see Prepared). run() of the very same Acc also
  /// reuses the work of its last runs; a Prepared also takes new inputs,
  /// and is never forgotten. Throws ArrayError on a mistake in A.
  Prepared prepare(const Acc &A);
  llvm::Expected<Prepared> tryPrepare(const Acc &A);

  RuntimeStats stats() const;
  BackendKind backend() const;
  unsigned numThreads() const;
  /// The LLVM IR the kernels of A would be compiled from, before and after
  /// optimisation, one module after another: for tests and tools.
  llvm::Expected<std::string> kernelIR(const Acc &A, bool Optimized = false);
  /// The PTX of A's kernels, as the driver would be given it: for a GPU
  /// Runtime only.
  llvm::Expected<std::string> kernelPTX(const Acc &A);

  detail::RuntimeImpl &impl() { return *P; }

private:
  template <size_t... I>
  static auto tupleOf(std::vector<Array<>> &All, std::index_sequence<I...>) {
    return std::make_tuple(std::move(All[I])...);
  }
  std::shared_ptr<detail::RuntimeImpl> P;
};

} // namespace llq

#endif // LLQUOTE_SKELETONS_H
