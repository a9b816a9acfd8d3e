//===- Scheduler.h - Gang scheduler for kernel ranges -----------*- C++ -*-===//
//
// A Gang is a fixed set of threads that runs data-parallel kernels over index
// ranges. A kernel has the C signature of KernelFn, which is what JIT-compiled
// skeletons export, so the raw function-pointer entry points are the primary
// API; the template parallelFor wraps a C++ callable in the same machinery.
//
// Contract of every entry point:
//   - Requires: the Gang outlives the call; a kernel may run concurrently with
//     itself on disjoint sub-ranges and must tolerate that.
//   - Produces: when run() or parallelFor() returns, every piece of the job
//     (and of every phase chained after it) has returned and no thread still
//     touches Args; on success each index in [Begin, End) ran exactly once.
//   - Errors: the first failure of a chain (a kernel's llq_rt_report_error,
//     an exception, JobChain::fail) is the one returned. Pieces that have not
//     started when it happens are skipped and later phases never start, so
//     after a failure an index ran at most once.
//
// Calls may nest (a kernel may call parallelFor on the same gang) and may come
// from several threads at once; a waiting thread runs queued pieces instead of
// blocking, so nesting cannot deadlock. README.md in this folder describes
// the design.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_RUNTIME_SCHEDULER_H
#define LLQUOTE_RUNTIME_SCHEDULER_H

#include "llquote/runtime/Status.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace llq::rt {

/// A kernel processes the indices [Start, End) of its job.
using KernelFn = void (*)(int64_t Start, int64_t End, void *Args);

class JobChain;

/// One parallel loop: a kernel over [Begin, End), plus what to do after it.
struct Job {
  /// End <= Begin is an empty range: the kernel is not called (and may then
  /// be null), but OnComplete still runs.
  int64_t Begin = 0;
  int64_t End = 0;
  KernelFn Fn = nullptr;
  void *Args = nullptr;
  /// Pieces start at multiples of MinGrain from Begin and only the last may be
  /// shorter; a range of at most MinGrain runs inline on the calling thread.
  /// Values below 1 mean 1.
  int64_t MinGrain = 1;
  /// About how many pieces each thread's share is cut into; 0 means the
  /// gang's GangOptions::PiecesPerThread. More balance work whose cost
  /// varies from index to index (a loop that exits early) better.
  unsigned PiecesPerThread = 0;
  /// Runs once, on the thread that finishes the last piece, after every piece
  /// has returned and only if nothing has failed. It may start the next phase
  /// with JobChain::then; an exception it throws fails the chain.
  std::function<void(JobChain &)> OnComplete;
};

/// The chain of phases a run() executes, as seen from an OnComplete.
class JobChain {
public:
  /// Starts Next when the current OnComplete returns. At most once per
  /// OnComplete, and only from inside it.
  void then(Job Next);
  /// Fails the chain with Message (unless it has failed already).
  void fail(std::string Message);

protected:
  JobChain() = default;
  ~JobChain() = default;
};

/// Calls Fn(Begin, End, Args) on the calling thread, where Begin < End,
/// with llq_rt_report_error reaching the Status it returns, and an
/// exception Fn throws turned into a failure: what a gang does with a range
/// it runs inline, without a gang.
Status runOnThisThread(KernelFn Fn, int64_t Begin, int64_t End, void *Args);

/// Thrown by the template parallelFor for a failure that was not itself an
/// exception (a kernel called llq_rt_report_error).
class KernelError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct GangOptions {
  /// Threads that run kernels, counting the caller; 0 means
  /// Gang::defaultNumThreads(). A gang of N threads starts N - 1 workers.
  unsigned NumThreads = 0;
  /// How many times an idle thread polls for work before it sleeps. Each poll
  /// is one CPU pause instruction (tens of nanoseconds).
  unsigned SpinIterations = 4096;
  /// A job is divided into about NumThreads * PiecesPerThread pieces: more
  /// pieces balance uneven work better, fewer cost less to hand out (an
  /// empty parallelFor on 2 threads: 0.6-0.7 us with 1, 0.8 with 2, 0.9
  /// with 4, against 0.7-0.8 for an OpenMP parallel for).
  unsigned PiecesPerThread = 2;
};

namespace detail {
class GangImpl;
} // namespace detail

class Gang {
public:
  explicit Gang(unsigned NumThreads = 0);
  explicit Gang(const GangOptions &Options);
  /// Joins the workers. No run() on this gang may be in progress.
  ~Gang();
  Gang(const Gang &) = delete;
  Gang &operator=(const Gang &) = delete;

  unsigned numThreads() const;

  /// Runs First and every phase its OnComplete chains after it, and waits
  /// once for the whole chain.
  Status run(Job First);

  Status parallelFor(int64_t Begin, int64_t End, KernelFn Fn, void *Args,
                     int64_t MinGrain = 1, unsigned PiecesPerThread = 0);
  /// Whether parallelFor(Begin, End, Fn, Args, MinGrain) calls Fn once, on
  /// the calling thread, over the whole range (as runOnThisThread does):
  /// a range of at most MinGrain indices, or any range on one thread.
  bool runsInline(int64_t Begin, int64_t End, int64_t MinGrain) const;

  /// Calls Body(Start, End) on disjoint sub-ranges covering [Begin, End),
  /// concurrently. Rethrows the first exception a call threw.
  template <typename BodyT,
            typename = std::enable_if_t<std::is_invocable_v<
                std::remove_reference_t<BodyT> &, int64_t, int64_t>>>
  void parallelFor(int64_t Begin, int64_t End, BodyT &&Body,
                   int64_t MinGrain = 1) {
    using B = std::remove_reference_t<BodyT>;
    KernelFn Trampoline = [](int64_t Start, int64_t Stop, void *Args) {
      (*static_cast<B *>(Args))(Start, Stop);
    };
    void *Args =
        const_cast<void *>(static_cast<const void *>(std::addressof(Body)));
    throwIfFailed(parallelFor(Begin, End, Trampoline, Args, MinGrain));
  }

  /// The gang shared by the whole process, created on first use with
  /// defaultNumThreads() threads and joined at exit.
  static Gang &global();

  /// LLQ_NUM_THREADS when it holds a valid count, else the number of hardware
  /// threads (at least 1). Read on every call.
  static unsigned defaultNumThreads();

private:
  /// Rethrows S's exception, or throws KernelError for any other failure.
  static void throwIfFailed(const Status &S);

  std::unique_ptr<detail::GangImpl> Impl;
};

/// The largest thread count LLQ_NUM_THREADS may ask for.
constexpr unsigned MaxNumThreads = 1024;

/// Parses a thread count: decimal digits only, 1 to MaxNumThreads. Anything
/// else (empty, signs, spaces, trailing text, 0, overflow) yields nothing.
std::optional<unsigned> parseNumThreads(const char *Text);

} // namespace llq::rt

extern "C" {
/// For kernels (JIT-compiled ones in particular) to fail the job that is
/// running them: the message is copied, the rest of the job is cancelled, and
/// run() returns it. Returns 1 if a job was running on this thread, else 0
/// (and does nothing).
int llq_rt_report_error(const char *Message);

/// 1 if the job running on this thread has failed, so a long kernel can stop
/// early; else 0.
int llq_rt_cancelled(void);
}

#endif // LLQUOTE_RUNTIME_SCHEDULER_H
