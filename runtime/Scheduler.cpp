//===- Scheduler.cpp - Gang scheduler for kernel ranges -------------------===//
//
// Threads: a gang of N has N - 1 workers plus whichever thread calls run(),
// which works while it waits. There are N task queues; queue 0 belongs to
// the threads outside the gang, queue I (I >= 1) to worker I.
//
// A job is cut up front into pieces (see launch) that are spread over all the
// queues in contiguous blocks. A thread takes work from the back of its own
// queue and steals from the front of the others'. A piece that finishes last
// completes its job: it runs OnComplete, which may chain the next phase, and
// with no next phase marks the chain done. The thread that called run()
// waits only for that mark.
//
// A range of one phase (parallelFor) takes a shorter road when no other
// parallelFor of the gang is using it: it is posted in the gang's one
// broadcast slot (see runBroadcast), where each thread takes pieces, those
// of its own block first, by a compare-and-swap on the block's ticket, and
// reports them done with one subtraction. That is what an OpenMP
// `parallel for` costs (a few cache lines passed between cores); the
// queues' road costs a lock and two shared counters per piece, and stays
// for chains, nested calls and calls made while the slot is taken.
//
// Every synchronisation is explained where it happens; the sleep protocol is
// described at idle().
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Scheduler.h"
#include <algorithm>
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

using namespace llq::rt;

namespace {

struct ChainState;

/// One phase of a chain while it runs.
struct JobState {
  JobState(Job Desc, ChainState &Chain) : Desc(std::move(Desc)), Chain(Chain) {}

  Job Desc;
  ChainState &Chain;
  /// Pieces that have not finished. The thread that brings it to zero owns
  /// the JobState from then on and completes the job.
  std::atomic<int64_t> PiecesLeft{0};
};

struct Task {
  JobState *Owner = nullptr;
  int64_t Start = 0;
  int64_t End = 0;
};

/// A deque of tasks behind a mutex. A job is cut into only a few pieces per
/// thread, so one uncontended lock per piece is cheap next to the work of any
/// job worth splitting; that buys a deque that is simple to get right instead
/// of a lock-free one. Over-aligned so that two queues never share a cache
/// line.
struct alignas(64) TaskQueue {
  /// Appends pieces [First, Last) of Owner's range, each PieceSize long but
  /// the last, in reverse: the owner, popping from the back, then takes them
  /// in ascending order, and thieves take the last ones first.
  void pushPieces(JobState *Owner, int64_t Begin, int64_t End,
                  int64_t PieceSize, uint64_t First, uint64_t Last) {
    std::lock_guard<std::mutex> Lock(M);
    if (Size + (Last - First) > Ring.size())
      grow(Size + (Last - First));
    for (uint64_t P = Last; P-- > First;) {
      int64_t Start = Begin + int64_t(P) * PieceSize;
      int64_t Stop = End - Start < PieceSize ? End : Start + PieceSize;
      Ring[(Head + Size++) & (Ring.size() - 1)] = {Owner, Start, Stop};
    }
    // Relaxed: Hint is only a hint for thieves (see popFront); the mutex
    // publishes the tasks themselves.
    Hint.store(Size, std::memory_order_relaxed);
  }

  bool popBack(Task &Out) {
    // The owner may skip the lock on a zero hint as thieves do (popFront).
    if (Hint.load(std::memory_order_relaxed) == 0)
      return false;
    std::lock_guard<std::mutex> Lock(M);
    if (Size == 0)
      return false;
    Out = Ring[(Head + --Size) & (Ring.size() - 1)];
    Hint.store(Size, std::memory_order_relaxed);
    return true;
  }

  bool popFront(Task &Out) {
    // A thief would otherwise lock every queue on each scan. A stale zero
    // only delays the steal: the gang's QueuedTasks count keeps the thief
    // scanning until the task is taken (see GangImpl::idle).
    if (Hint.load(std::memory_order_relaxed) == 0)
      return false;
    std::lock_guard<std::mutex> Lock(M);
    if (Size == 0)
      return false;
    Out = Ring[Head];
    Head = (Head + 1) & (Ring.size() - 1);
    --Size;
    Hint.store(Size, std::memory_order_relaxed);
    return true;
  }

  bool empty() {
    std::lock_guard<std::mutex> Lock(M);
    return Size == 0;
  }

private:
  /// Reallocates to a power of two that holds Needed tasks, front first.
  void grow(size_t Needed) {
    size_t Capacity = std::max<size_t>(16, Ring.size());
    while (Capacity < Needed)
      Capacity *= 2;
    std::vector<Task> Bigger(Capacity);
    for (size_t I = 0; I < Size; ++I)
      Bigger[I] = Ring[(Head + I) & (Ring.size() - 1)];
    Ring = std::move(Bigger);
    Head = 0;
  }

  std::mutex M;
  std::vector<Task> Ring; // Capacity is zero or a power of two.
  size_t Head = 0;
  size_t Size = 0;
  std::atomic<size_t> Hint{0};
};

} // namespace

namespace {
struct FailureSink;
} // namespace

namespace llq::rt::detail {

class GangImpl {
public:
  explicit GangImpl(const GangOptions &Options);
  ~GangImpl();

  Status run(Job First);
  /// A run of one phase with no OnComplete, without building its Job
  /// where it runs inline.
  Status runRange(int64_t Begin, int64_t End, KernelFn Fn, void *Args,
                  int64_t MinGrain, unsigned PiecesPerThread);
  unsigned numThreads() const { return NumThreads; }
  /// Whether a phase of [Begin, End) cut in pieces of MinGrain runs on the
  /// calling thread alone.
  bool runsInline(int64_t Begin, int64_t End, int64_t MinGrain) const {
    uint64_t Count = uint64_t(End) - uint64_t(Begin);
    return End > Begin && Count <= uint64_t(INT64_MAX) &&
           (NumThreads == 1 ||
            Count <= uint64_t(std::max<int64_t>(MinGrain, 1)));
  }

private:

  /// Runs Chain's job J (and any inline-sized phases after it) or hands its
  /// pieces to the queues.
  void launch(ChainState &Chain, Job J, unsigned Home);
  /// After the last piece of the current phase: runs OnComplete. Returns true
  /// with the next phase in Next, or marks the chain done.
  bool finishPhase(ChainState &Chain, Job &Next);
  void markDone(ChainState &Chain);
  void shutdown();
  void workerMain(unsigned Home);
  bool runOneTask(unsigned Home);
  void runTask(const Task &T, unsigned Home);
  void pushPieces(JobState &J, uint64_t Count, int64_t PieceSize,
                  unsigned Home);
  void idle(const std::atomic<bool> *Done);
  void wakeSleepers();
  unsigned homeOf() const;
  /// Runs [Begin, End) through the broadcast slot; false, having done
  /// nothing, where the slot is taken or the range does not fit it.
  bool runBroadcast(int64_t Begin, int64_t End, KernelFn Fn, void *Args,
                    int64_t Grain, unsigned PiecesPerThread, Status &Result);
  /// Takes and runs pieces of the broadcast job while it has some, those
  /// of block Home first; returns whether it ran any.
  bool helpBroadcast(unsigned Home);
  /// The length of the pieces of a range of Count > Grain indices, cut for
  /// PPT pieces a thread (0: the gang's PiecesPerThread): a multiple of
  /// Grain, at most 2 * Count, so that nothing wraps.
  uint64_t pieceLength(uint64_t Count, uint64_t Grain, unsigned PPT) const {
    uint64_t Target = uint64_t(NumThreads) * (PPT ? PPT : PiecesPerThread);
    uint64_t Piece = std::max((Count + Target - 1) / Target, Grain);
    return (Piece + Grain - 1) / Grain * Grain;
  }
  /// The first piece of block B of a broadcast job of Pieces pieces (B up
  /// to NumThreads, whose start is the end).
  uint64_t blockStart(uint64_t Pieces, unsigned B) const {
    return Pieces * B / NumThreads;
  }

  unsigned NumThreads;
  unsigned SpinIterations;
  unsigned PiecesPerThread;
  std::unique_ptr<TaskQueue[]> Queues;
  std::vector<std::thread> Workers;

  /// Tasks pushed and not yet popped, counted up before the push and down
  /// after the pop, so a zero here means that every queue was empty.
  std::atomic<int64_t> QueuedTasks{0};
  std::atomic<bool> Stop{false};

  /// Sleeping, see idle(). Workers and run() callers sleep on different
  /// condition variables so that a finished chain wakes only its waiters.
  std::mutex SleepMutex;
  std::condition_variable WorkerWake;
  std::condition_variable WaiterWake;
  std::atomic<unsigned> SleepingWorkers{0};
  std::atomic<unsigned> SleepingWaiters{0};

  /// The broadcast slot: one job at a time, posted by the thread that holds
  /// BroadcastBusy. Its pieces are cut into NumThreads contiguous blocks,
  /// and block B's ticket (Tickets[B]) holds the job's epoch (above
  /// TicketPieceBits) and the next piece of the block to take. Each thread
  /// takes the pieces of its own block first (block 0 the caller's), so
  /// that a range run again and again is cut the same way and each thread
  /// finds its part in its own caches, as an OpenMP static schedule does;
  /// then it takes what is left of the others'. A thread reads a ticket,
  /// then the job's fields, then takes the piece with a compare-and-swap
  /// of the ticket it read: the swap fails if the job changed meanwhile (a
  /// new epoch), so the fields it read belong to the piece it took. They
  /// are atomics because such a stale read may race with the next job's
  /// writes.
  struct alignas(64) Broadcast {
    std::atomic<KernelFn> Fn{nullptr};
    std::atomic<void *> Args{nullptr};
    std::atomic<int64_t> Begin{0};
    std::atomic<int64_t> End{0};
    std::atomic<int64_t> Piece{0};
    std::atomic<FailureSink *> Sink{nullptr};
    std::atomic<uint32_t> Count{0};
    /// Whether the job may have pieces left: what wakes an idle worker
    /// (idle()). Written by the poster only.
    std::atomic<bool> Open{false};
  } Slot;
  /// A block's ticket, on a cache line of its own.
  struct alignas(64) Ticket {
    std::atomic<uint64_t> Word{0};
  };
  std::unique_ptr<Ticket[]> Tickets;
  /// Pieces of the broadcast job not yet reported done.
  alignas(64) std::atomic<int64_t> SlotLeft{0};
  alignas(64) std::atomic<bool> BroadcastBusy{false};
};

} // namespace llq::rt::detail

using llq::rt::detail::GangImpl;

namespace {

/// What a kernel's llq_rt_report_error and llq_rt_cancelled reach: the
/// chain it runs for, or a range run inline on the calling thread.
struct FailureSink {
  /// Keeps the first failure and cancels what has not started.
  virtual void recordFailure(std::string Text,
                             std::exception_ptr Exception) = 0;
  std::atomic<bool> Failed{false};

protected:
  ~FailureSink() = default;
};

/// A range run on the calling thread alone, by one call of its kernel: no
/// other thread reports to it, so it needs no lock, and it is cheap to make
/// (a small array's whole run is one such call).
struct InlineRun final : FailureSink {
  void recordFailure(std::string Text, std::exception_ptr E) override {
    if (Failed.load(std::memory_order_relaxed))
      return;
    Message = std::move(Text);
    Exception = std::move(E);
    Failed.store(true, std::memory_order_relaxed);
  }
  Status status() {
    return Failed.load(std::memory_order_relaxed)
               ? Status::error(std::move(Message), std::move(Exception))
               : Status();
  }
  std::string Message;
  std::exception_ptr Exception;
};

/// A run whose kernels several threads call at once: the first failure is
/// kept under a lock.
struct SharedRun : FailureSink {
  /// Keeps the first failure and cancels what has not started.
  void recordFailure(std::string Text, std::exception_ptr Exception) override {
    std::lock_guard<std::mutex> Lock(ErrorMutex);
    if (Failed.load(std::memory_order_relaxed))
      return;
    Message = std::move(Text);
    FirstException = std::move(Exception);
    // Relaxed: Failed only decides whether to skip work; the message is read
    // after the run has finished, which publishes it (Done, or the broadcast
    // slot's count).
    Failed.store(true, std::memory_order_relaxed);
  }

  /// Read after the run has finished.
  Status status() {
    if (!Failed.load(std::memory_order_acquire))
      return Status();
    std::lock_guard<std::mutex> Lock(ErrorMutex);
    return Status::error(Message, FirstException);
  }

  std::mutex ErrorMutex;
  std::string Message;
  std::exception_ptr FirstException;
};

/// The state of one run(): it lives on the caller's stack, which is why
/// nothing may touch it once Done is set.
struct ChainState final : JobChain, SharedRun {
  ChainState() = default;

  /// The phase that is running; one slot suffices because the next phase is
  /// created only after the current one has finished (see finishPhase).
  std::optional<JobState> Current;
  /// Set by then() during OnComplete; only that thread touches it.
  std::optional<Job> Pending;
  bool InOnComplete = false;
  std::atomic<bool> Done{false};
};

/// The chain whose kernel or OnComplete this thread is running, for
/// llq_rt_report_error; saved and restored around each call, so nested runs
/// see their own chain.
thread_local FailureSink *CurrentChain = nullptr;

/// Which gang this thread works for, and its queue there.
thread_local const GangImpl *WorkerOf = nullptr;
thread_local unsigned WorkerHome = 0;

/// Tells the CPU that this is a spin-wait loop: it saves power and yields
/// the core's resources to a hyper-thread sibling.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#else
  std::this_thread::yield();
#endif
}

/// Calls F on behalf of Chain, turning an exception into a chain failure.
template <typename FnT> void callForChain(FailureSink &Chain, FnT &&F) {
  FailureSink *Saved = CurrentChain;
  CurrentChain = &Chain;
  try {
    F();
  } catch (const std::exception &E) {
    Chain.recordFailure(E.what(), std::current_exception());
  } catch (...) {
    Chain.recordFailure(
        "kernel threw an exception that is not a std::exception",
        std::current_exception());
  }
  CurrentChain = Saved;
}

} // namespace

void JobChain::then(Job Next) {
  auto &Chain = static_cast<ChainState &>(*this);
  assert(Chain.InOnComplete && "then() outside of an OnComplete");
  assert(!Chain.Pending && "then() called twice in one OnComplete");
  Chain.Pending = std::move(Next);
}

void JobChain::fail(std::string Message) {
  static_cast<ChainState &>(*this).recordFailure(std::move(Message), nullptr);
}

GangImpl::GangImpl(const GangOptions &Options)
    : NumThreads(Options.NumThreads ? Options.NumThreads
                                    : Gang::defaultNumThreads()),
      SpinIterations(Options.SpinIterations),
      PiecesPerThread(std::max(1u, Options.PiecesPerThread)),
      Queues(new TaskQueue[NumThreads]), Tickets(new Ticket[NumThreads]) {
  Workers.reserve(NumThreads - 1);
  try {
    for (unsigned I = 1; I < NumThreads; ++I)
      Workers.emplace_back([this, I] { workerMain(I); });
  } catch (...) {
    // Thread creation failed: stop the workers that did start, so the
    // exception leaves no thread behind.
    shutdown();
    throw;
  }
}

GangImpl::~GangImpl() { shutdown(); }

void GangImpl::shutdown() {
  {
    // Stop is set under SleepMutex so that a worker between its check of
    // Stop and its wait cannot miss the notification (see idle()).
    std::lock_guard<std::mutex> Lock(SleepMutex);
    Stop.store(true, std::memory_order_seq_cst);
  }
  WorkerWake.notify_all();
  for (std::thread &W : Workers)
    W.join();
  Workers.clear();
  for (unsigned I = 0; I < NumThreads; ++I)
    assert(Queues[I].empty() && "gang destroyed while a job was running");
}

unsigned GangImpl::homeOf() const { return WorkerOf == this ? WorkerHome : 0; }

void GangImpl::workerMain(unsigned Home) {
  WorkerOf = this;
  WorkerHome = Home;
  // Relaxed: Stop publishes no data, and there is nothing to drain on the way
  // out because no run() may be in progress when a gang is destroyed.
  while (!Stop.load(std::memory_order_relaxed)) {
    if (Slot.Open.load(std::memory_order_relaxed) && helpBroadcast(Home))
      continue;
    if (!runOneTask(Home))
      idle(nullptr);
  }
}

Status llq::rt::runOnThisThread(KernelFn Fn, int64_t Begin, int64_t End,
                                void *Args) {
  InlineRun Run;
  callForChain(Run, [&] { Fn(Begin, End, Args); });
  return Run.status();
}

Status GangImpl::runRange(int64_t Begin, int64_t End, KernelFn Fn, void *Args,
                          int64_t MinGrain, unsigned PiecesPerThread) {
  if (Fn && runsInline(Begin, End, MinGrain))
    return runOnThisThread(Fn, Begin, End, Args);
  Status Result;
  if (Fn && runBroadcast(Begin, End, Fn, Args, MinGrain, PiecesPerThread,
                         Result))
    return Result;
  Job J;
  J.Begin = Begin;
  J.End = End;
  J.Fn = Fn;
  J.Args = Args;
  J.MinGrain = MinGrain;
  J.PiecesPerThread = PiecesPerThread;
  return run(std::move(J));
}

Status GangImpl::run(Job First) {
  // One phase that runs inline: called here, without the chain's phase
  // bookkeeping and the seq_cst store that publishes Done to waiters, as
  // launch() would call it. A small array's whole run is this call, so what
  // it saves (a few atomic operations) is a visible part of its cost.
  if (!First.OnComplete && First.Fn &&
      runsInline(First.Begin, First.End, First.MinGrain))
    return runOnThisThread(First.Fn, First.Begin, First.End, First.Args);
  ChainState Chain;
  unsigned Home = homeOf();
  launch(Chain, std::move(First), Home);
  // Help rather than block: this is what makes nested calls safe, since the
  // pieces this thread waits for may be sitting in its own queue.
  // Acquire pairs with markDone's store: everything the chain wrote is
  // visible once Done reads true.
  while (!Chain.Done.load(std::memory_order_acquire)) {
    if (!runOneTask(Home))
      idle(&Chain.Done);
  }
  return Chain.status();
}

/// Bits of the broadcast ticket that count pieces; the epoch is above.
constexpr unsigned TicketPieceBits = 24;
constexpr uint64_t TicketPieceMask = (uint64_t(1) << TicketPieceBits) - 1;

bool GangImpl::runBroadcast(int64_t Begin, int64_t End, KernelFn Fn,
                            void *Args, int64_t Grain, unsigned PPT,
                            Status &Result) {
  // Only ranges that the queues would cut into pieces (runsInline said no).
  uint64_t Count = uint64_t(End) - uint64_t(Begin);
  uint64_t G = uint64_t(std::max<int64_t>(Grain, 1));
  if (NumThreads == 1 || Count > uint64_t(INT64_MAX) || Count <= G)
    return false;
  // The pieces launch() would cut.
  uint64_t Piece = pieceLength(Count, G, PPT);
  uint64_t Pieces = (Count + Piece - 1) / Piece;
  if (Pieces >= TicketPieceMask)
    return false;
  // The slot holds one job; a call made while it is taken (from another
  // thread, or from a kernel the slot's job runs) takes the queues.
  // Acquire: the previous poster's last writes to the slot come first.
  if (BroadcastBusy.load(std::memory_order_relaxed) ||
      BroadcastBusy.exchange(true, std::memory_order_acquire))
    return false;
  SharedRun Run;
  // The new epoch opens closed (no piece to take) before any field
  // changes; each field's store is a release, and each load of one in
  // helpBroadcast an acquire. A thread that reads a field of this job with
  // a ticket of the last one therefore fails its swap: the closed ticket
  // comes first.
  uint64_t Epoch = (Tickets[0].Word.load(std::memory_order_relaxed) >>
                    TicketPieceBits) + 1;
  for (unsigned B = 0; B < NumThreads; ++B)
    Tickets[B].Word.store(Epoch << TicketPieceBits | TicketPieceMask,
                          std::memory_order_relaxed);
  Slot.Fn.store(Fn, std::memory_order_release);
  Slot.Args.store(Args, std::memory_order_release);
  Slot.Begin.store(Begin, std::memory_order_release);
  Slot.End.store(End, std::memory_order_release);
  Slot.Piece.store(int64_t(Piece), std::memory_order_release);
  Slot.Sink.store(&Run, std::memory_order_release);
  Slot.Count.store(uint32_t(Pieces), std::memory_order_release);
  SlotLeft.store(int64_t(Pieces), std::memory_order_relaxed);
  // Release: a thread that reads an open ticket reads the fields above.
  for (unsigned B = 0; B < NumThreads; ++B)
    Tickets[B].Word.store(Epoch << TicketPieceBits | blockStart(Pieces, B),
                          std::memory_order_release);
  // seq_cst: half of the sleep handshake in idle(), as QueuedTasks is.
  Slot.Open.store(true, std::memory_order_seq_cst);
  wakeSleepers();

  unsigned Home = homeOf();
  helpBroadcast(Home);
  // Every piece is taken: idle workers need not look again.
  Slot.Open.store(false, std::memory_order_relaxed);
  // Acquire pairs with each thread's release of its pieces: their writes
  // are visible once the count reads zero. A thread still running a piece
  // is at work, so the wait spins; while it does, this thread runs queued
  // pieces, which the piece it waits for may itself wait for.
  for (unsigned Spins = 0;
       SlotLeft.load(std::memory_order_acquire) != 0;) {
    if (runOneTask(Home))
      continue;
    if (++Spins < SpinIterations)
      cpuRelax();
    else
      std::this_thread::yield();
  }
  // No thread touches Run any more: a late one fails its swap (the epoch
  // is spent), and the next poster's acquire orders its writes after ours.
  BroadcastBusy.store(false, std::memory_order_release);
  Result = Run.status();
  return true;
}

bool GangImpl::helpBroadcast(unsigned Home) {
  int64_t Ran = 0;
  for (unsigned K = 0; K < NumThreads; ++K) {
    unsigned B = (Home + K) % NumThreads;
    std::atomic<uint64_t> &Word = Tickets[B].Word;
    uint64_t T = Word.load(std::memory_order_acquire);
    while (true) {
      uint64_t P = T & TicketPieceMask;
      // A closed ticket's piece is past every block's end.
      if (P >= blockStart(Slot.Count.load(std::memory_order_acquire), B + 1))
        break;
      KernelFn Fn = Slot.Fn.load(std::memory_order_acquire);
      void *Args = Slot.Args.load(std::memory_order_acquire);
      int64_t Begin = Slot.Begin.load(std::memory_order_acquire);
      int64_t End = Slot.End.load(std::memory_order_acquire);
      int64_t Piece = Slot.Piece.load(std::memory_order_acquire);
      FailureSink *Sink = Slot.Sink.load(std::memory_order_acquire);
      // Acquire on failure too: T then is a ticket to start again from,
      // and may be a new job's, whose fields are read next.
      if (!Word.compare_exchange_weak(T, T + 1, std::memory_order_acquire,
                                      std::memory_order_acquire))
        continue;
      // The piece is this thread's, and the fields are its job's: the job
      // cannot change before this thread reports the piece done.
      int64_t Start = Begin + int64_t(P) * Piece;
      int64_t Stop = End - Start < Piece ? End : Start + Piece;
      if (!Sink->Failed.load(std::memory_order_relaxed))
        callForChain(*Sink, [&] { Fn(Start, Stop, Args); });
      ++Ran;
      ++T;
    }
  }
  // Release: publishes the pieces' writes to the poster (runBroadcast).
  // The pieces are reported once, at the end: the job cannot end, nor the
  // epoch change, before they are.
  if (Ran)
    SlotLeft.fetch_sub(Ran, std::memory_order_release);
  return Ran != 0;
}

void GangImpl::launch(ChainState &Chain, Job J, unsigned Home) {
  // A loop, not recursion, so that a long chain of inline-sized phases does
  // not grow the stack.
  while (true) {
    JobState &State = Chain.Current.emplace(std::move(J), Chain);
    const Job &D = State.Desc;
    uint64_t Count = D.End > D.Begin ? uint64_t(D.End) - uint64_t(D.Begin) : 0;
    uint64_t Grain = uint64_t(std::max<int64_t>(D.MinGrain, 1));
    if (Count > uint64_t(INT64_MAX)) {
      Chain.recordFailure("job range [" + std::to_string(D.Begin) + ", " +
                              std::to_string(D.End) +
                              ") has more than 2^63-1 indices",
                          nullptr);
    } else if (Count > 0 && !D.Fn) {
      Chain.recordFailure("job over a non-empty range has no kernel", nullptr);
    } else if (Count > Grain && NumThreads > 1) {
      // Full pieces first: every piece is a multiple of the grain long, so
      // piece starts stay aligned for vector kernels; the last gets the rest.
      uint64_t Piece = pieceLength(Count, Grain, D.PiecesPerThread);
      pushPieces(State, (Count + Piece - 1) / Piece, int64_t(Piece), Home);
      return;
    } else if (Count > 0) {
      callForChain(Chain, [&] { D.Fn(D.Begin, D.End, D.Args); });
    }
    if (!finishPhase(Chain, J))
      return;
  }
}

void GangImpl::pushPieces(JobState &J, uint64_t Count, int64_t PieceSize,
                          unsigned Home) {
  // Set before any piece is visible; the queue mutex publishes it to whoever
  // pops a piece.
  J.PiecesLeft.store(int64_t(Count), std::memory_order_relaxed);
  // Counted before the push, so QueuedTasks never reads lower than what the
  // queues hold. seq_cst: half of the sleep handshake in idle().
  QueuedTasks.fetch_add(int64_t(Count), std::memory_order_seq_cst);

  // Contiguous blocks, the first for this thread's own queue. The last push
  // hands the job over: J may be finished and destroyed by other threads the
  // moment the last block is visible, so nothing below reads J after it.
  int64_t Begin = J.Desc.Begin, End = J.Desc.End;
  JobState *Owner = &J;
  for (unsigned Q = 0; Q < NumThreads; ++Q) {
    uint64_t First = Count * Q / NumThreads;
    uint64_t Last = Count * (Q + 1) / NumThreads;
    if (First < Last)
      Queues[(Home + Q) % NumThreads].pushPieces(Owner, Begin, End, PieceSize,
                                                 First, Last);
  }
  wakeSleepers();
}

bool GangImpl::runOneTask(unsigned Home) {
  Task T;
  bool Found = Queues[Home].popBack(T);
  for (unsigned K = 1; !Found && K < NumThreads; ++K)
    Found = Queues[(Home + K) % NumThreads].popFront(T);
  if (!Found)
    return false;
  // Counted down after the pop, so QueuedTasks never reads lower than what
  // the queues hold (a sleeper relies on a zero meaning "nothing queued").
  QueuedTasks.fetch_sub(1, std::memory_order_relaxed);
  runTask(T, Home);
  return true;
}

void GangImpl::runTask(const Task &T, unsigned Home) {
  JobState &J = *T.Owner;
  ChainState &Chain = J.Chain;
  // Relaxed: a stale false only runs a piece that could have been skipped.
  if (!Chain.Failed.load(std::memory_order_relaxed))
    callForChain(Chain, [&] { J.Desc.Fn(T.Start, T.End, J.Desc.Args); });
  // acq_rel: the release half publishes this piece's writes; the acquire half
  // lets the last finisher (and so OnComplete and, through Done, the caller)
  // see the writes of every piece. After a non-final decrement, J may already
  // be gone, so it is not touched again.
  if (J.PiecesLeft.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  Job Next;
  if (finishPhase(Chain, Next))
    launch(Chain, std::move(Next), Home);
}

bool GangImpl::finishPhase(ChainState &Chain, Job &Next) {
  JobState &J = *Chain.Current;
  if (J.Desc.OnComplete && !Chain.Failed.load(std::memory_order_relaxed)) {
    Chain.InOnComplete = true;
    callForChain(Chain, [&] { J.Desc.OnComplete(Chain); });
    Chain.InOnComplete = false;
  }
  Chain.Current.reset();
  bool HasNext = Chain.Pending && !Chain.Failed.load(std::memory_order_relaxed);
  if (HasNext)
    Next = std::move(*Chain.Pending);
  Chain.Pending.reset();
  if (!HasNext)
    markDone(Chain);
  return HasNext;
}

void GangImpl::markDone(ChainState &Chain) {
  // The caller may return, and Chain vanish, as soon as Done is true, so
  // Chain is not touched after the store. The gang outlives this call even if
  // the caller destroys it at once: ~Gang joins this thread first (or this is
  // the caller's own thread).
  // seq_cst: half of the sleep handshake in idle(), and the release that
  // publishes the chain's results to the caller.
  Chain.Done.store(true, std::memory_order_seq_cst);
  if (SleepingWaiters.load(std::memory_order_seq_cst) == 0)
    return;
  // Taking the mutex waits out a waiter that has counted itself as sleeping
  // but not yet blocked, so the notification cannot fall between its check
  // and its wait.
  { std::lock_guard<std::mutex> Lock(SleepMutex); }
  WaiterWake.notify_all();
}

void GangImpl::wakeSleepers() {
  if (SleepingWorkers.load(std::memory_order_seq_cst) == 0 &&
      SleepingWaiters.load(std::memory_order_seq_cst) == 0)
    return;
  // As in markDone: the mutex orders this notification after any sleeper's
  // check of QueuedTasks.
  { std::lock_guard<std::mutex> Lock(SleepMutex); }
  WorkerWake.notify_all();
  WaiterWake.notify_all();
}

/// Waits until there may be a task to run, Stop is set, or (for a run()
/// caller) *Done is set. It spins first, because a gang usually runs jobs
/// back to back and a futex sleep and wake costs microseconds, then sleeps.
///
/// Sleeping cannot miss a wake-up. A sleeper counts itself in Sleeping*,
/// then checks the condition; a producer changes the condition (QueuedTasks
/// or Done), then reads Sleeping*. All four accesses are seq_cst, so they
/// fall in one total order, and in it either the sleeper's check comes after
/// the producer's change (the sleeper sees it and does not wait), or the
/// producer's read comes after the sleeper's count (the producer notifies).
/// The producer takes SleepMutex before notifying and the sleeper holds it
/// from its count to its wait, so that notification cannot arrive in between.
/// A producer that sees no sleeper skips the mutex and the system call, which
/// is the common case while the gang is busy.
void GangImpl::idle(const std::atomic<bool> *Done) {
  auto HasWork = [&] {
    return QueuedTasks.load(std::memory_order_seq_cst) > 0 ||
           (!Done && Slot.Open.load(std::memory_order_seq_cst)) ||
           Stop.load(std::memory_order_seq_cst) ||
           (Done && Done->load(std::memory_order_seq_cst));
  };
  for (unsigned I = 0; I < SpinIterations; ++I) {
    if (HasWork())
      return;
    cpuRelax();
  }
  std::atomic<unsigned> &Sleeping = Done ? SleepingWaiters : SleepingWorkers;
  std::condition_variable &Wake = Done ? WaiterWake : WorkerWake;
  std::unique_lock<std::mutex> Lock(SleepMutex);
  Sleeping.fetch_add(1, std::memory_order_seq_cst);
  Wake.wait(Lock, HasWork);
  Sleeping.fetch_sub(1, std::memory_order_relaxed);
}

Gang::Gang(unsigned NumThreads) : Gang(GangOptions{NumThreads}) {}

Gang::Gang(const GangOptions &Options)
    : Impl(std::make_unique<detail::GangImpl>(Options)) {}

Gang::~Gang() = default;

unsigned Gang::numThreads() const { return Impl->numThreads(); }

Status Gang::run(Job First) { return Impl->run(std::move(First)); }

bool Gang::runsInline(int64_t Begin, int64_t End, int64_t MinGrain) const {
  return Impl->runsInline(Begin, End, MinGrain);
}

Status Gang::parallelFor(int64_t Begin, int64_t End, KernelFn Fn, void *Args,
                         int64_t MinGrain, unsigned PiecesPerThread) {
  return Impl->runRange(Begin, End, Fn, Args, MinGrain, PiecesPerThread);
}

void Gang::throwIfFailed(const Status &S) {
  if (S.ok())
    return;
  if (S.exception())
    std::rethrow_exception(S.exception());
  throw KernelError(S.message());
}

Gang &Gang::global() {
  // A function-local static: C++ makes its creation thread-safe, and its
  // destructor joins the workers at exit.
  static Gang Global;
  return Global;
}

unsigned Gang::defaultNumThreads() {
  if (std::optional<unsigned> N =
          parseNumThreads(std::getenv("LLQ_NUM_THREADS")))
    return *N;
  return std::max(1u, std::thread::hardware_concurrency());
}

std::optional<unsigned> llq::rt::parseNumThreads(const char *Text) {
  if (!Text || !*Text)
    return std::nullopt;
  unsigned Value = 0;
  for (const char *C = Text; *C; ++C) {
    if (*C < '0' || *C > '9')
      return std::nullopt;
    Value = Value * 10 + unsigned(*C - '0');
    if (Value > MaxNumThreads) // Also stops the product from wrapping.
      return std::nullopt;
  }
  if (Value == 0)
    return std::nullopt;
  return Value;
}

int llq_rt_report_error(const char *Message) {
  if (!CurrentChain)
    return 0;
  CurrentChain->recordFailure(Message ? Message : "kernel reported an error",
                              nullptr);
  return 1;
}

int llq_rt_cancelled(void) {
  return CurrentChain && CurrentChain->Failed.load(std::memory_order_relaxed);
}
