//===- Launch.h - Running a compiled kernel: the launch protocol -*- C++ -*-===//
//
// The host half of every skeleton, without LLVM: what a kernel's argument
// block holds (SlotSpec), what a compiled kernel is (Kernel), where kernels
// run and arrays live (Executor), one run of a kernel (Launch), and a
// skeleton's host half (Launcher): allocating outputs, deciding what the
// host decides (chunk counts, offsets, tile sides) and running the
// kernel's phases in order.
//
// Plain C++17 over the runtime (Scheduler.h, Array.h): the library's
// launchers are compiled into llquote_host, which does not link LLVM, so
// that a program can run kernels compiled ahead of time without it.
// Skeleton.h builds the generating half on top: Backend is an Executor
// that also compiles, Skeleton a Launcher that also generates.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_LAUNCH_H
#define LLQUOTE_SKELETONS_LAUNCH_H

#include "llquote/skeletons/Expr.h"
#include "llquote/runtime/BufferPool.h"
#include "llquote/runtime/Scheduler.h"
#include "llquote/runtime/Status.h"
#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace llq::detail {

class Launch;

/// One 8-byte slot of a kernel's argument block.
struct SlotSpec {
  /// Fault: a pointer to the launch's fault word (see KernelGen::fault).
  enum Kind : uint8_t { Buffer, Extent, ConstField, Val, Out, Host, Fault };
  Kind K = Host;
  uint32_t NodeIx = 0; ///< Preorder number of the node it belongs to.
  uint32_t A = 0;      ///< Field, dimension, constant or value number.
  uint32_t B = 0;      ///< A constant's field.
  std::string Ty;      ///< The parameter's type: ptr, i64, or a field's.
  bool NoAlias = true; ///< For ptr: only this thread touches it.
  auto tie() const { return std::tie(K, NodeIx, A, B, Ty, NoAlias); }
  bool operator<(const SlotSpec &O) const { return tie() < O.tie(); }
};

/// Fault word codes from 2^40 up are checked-mode faults: DivisionFault +
/// 2 * I is an integer division by zero in scalar function I of the
/// kernel, and + 1 a signed division overflow (the least value by -1).
/// Codes below are the preorder numbers of the nodes at fault.
constexpr int64_t DivisionFault = int64_t(1) << 40;
/// ReadFault + 64 * I + K: scalar function I of the kernel read its array
/// parameter K (FnImpl::Arrays) at an index outside the array.
constexpr int64_t ReadFault = int64_t(1) << 41;
/// What the DivisionFault code At (below ReadFault) was.
inline const char *divisionFaultKind(int64_t At) {
  return (At - DivisionFault) % 2 ? "signed integer division overflow (the "
                                    "least value divided by -1)"
                                  : "integer division by zero";
}

struct Kernel {
  std::string Name;
  /// Host entry points, for the backends that run on the CPU.
  std::vector<rt::KernelFn> Phases;
  /// Device functions, for the GPU backend; kept alive by Owner.
  std::vector<void *> Device;
  /// Owns the code: when the last Kernel holding it is gone (the Runtime's
  /// cache evicted it, no run uses it), the backend frees the code.
  std::shared_ptr<void> Owner;
  std::vector<SlotSpec> Slots;
  /// Whether a scalar function of the kernel, or one it calls, has a loop:
  /// an element may then cost far more than a load and a store, and ranges
  /// are cut finer (Launch::grain).
  bool Loops = false;
  /// Instructions of those functions, a call of a math function (exp,
  /// log, ...) counted as 16: what an element costs, roughly, when they
  /// do not loop (Launch::grain).
  unsigned Weight = 0;
  /// KernelGen::functionHashes(): a DivisionFault names the function of
  /// the launch's tree with that text.
  std::vector<uint64_t> FnHashes;
  /// The message of a checked-mode fault (a DivisionFault or ReadFault
  /// code), which names the scalar function at fault in the launch's tree:
  /// set by the library that compiled the kernel, which knows the
  /// functions. Without it the message names the code alone.
  std::string (*DescribeFault)(const Launch &L, int64_t Code) = nullptr;
  /// Whether the backend loaded the code from its disk cache.
  bool FromDisk = false;
  /// Whether its code may call llq_rt_report_error or llq_rt_cancelled (a
  /// scalar function may): a range called directly must then be called
  /// through rt::runOnThisThread, which gives those a failure sink. True
  /// unless whoever made the kernel knows better.
  bool CallsScheduler = true;
  size_t numPhases() const { return std::max(Phases.size(), Device.size()); }
};

/// Where kernels run and arrays live: the launch half of a Backend
/// (Skeleton.h), which the skeletons' launchers ask what it can do and never
/// which one it is.
class Executor {
public:
  virtual ~Executor() = default;
  /// Threads that run a launch at once.
  virtual unsigned parallelism() const = 0;
  /// Whether concurrent writes to one cell need atomics.
  virtual bool atomics() const = 0;
  /// Whether the pieces of a phase are taken in order, lowest first, each
  /// by a thread that runs it to its end, so that a piece may wait for the
  /// one before it (a streaming scan passes its carry on so). A CPU gang's
  /// are; a GPU's blocks are scheduled in no order.
  virtual bool piecesInOrder() const { return true; }
  /// Whether a thread walking a 2-D tile of an element-wise phase pays (a
  /// transpose through a CPU's caches). Where one thread runs one element,
  /// so that a warp's accesses are neighbours, it does not.
  virtual bool tiledWalks() const { return true; }
  /// Runs phase Phase of K over [Begin, End), in pieces that start at
  /// Begin + k * Grain and hold whole multiples of Grain (the last one
  /// what is left); Args is the argument block, one 8-byte slot each.
  virtual rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                            int64_t End, void *Args, int64_t Grain) = 0;
  /// Whether launch() of a phase over [Begin, End) in pieces of Grain
  /// would only call the phase's host entry point once, on the calling
  /// thread, over the whole range: a launch repeated from its record
  /// (LaunchRecord) then calls it so itself (rt::runOnThisThread). False,
  /// the default, for a backend that does anything else in launch() (a GPU
  /// backend, a wrapper that watches the launches).
  virtual bool callsInline(int64_t Begin, int64_t End, int64_t Grain) const {
    (void)Begin, (void)End, (void)Grain;
    return false;
  }
  /// The piece length for a phase that is correct for any piece, which
  /// HostGrain would be on a CPU: one index on the GPU, whose threads in
  /// a warp then touch neighbouring elements.
  virtual int64_t grain(int64_t HostGrain) const { return HostGrain; }
  /// New storage that kernels can write and the host can read.
  virtual rt::Expected<std::shared_ptr<rt::Array>>
  allocate(const ElemType &T, const Shape &Sh);
  /// Zero-filled bytes that kernels and the host both address: at least
  /// scratchBytes(Bytes) of them, 64-byte aligned.
  virtual rt::Expected<std::shared_ptr<void>> scratch(size_t Bytes);
  /// Bytes rounded up to 64, plus 64 of slack for vector over-reads.
  static size_t scratchBytes(size_t Bytes) {
    return (Bytes + 63) / 64 * 64 + 64;
  }
  /// An array with A's elements that kernels can read: A itself where
  /// kernels read host memory.
  virtual rt::Expected<std::shared_ptr<rt::Array>>
  resident(const std::shared_ptr<rt::Array> &A) {
    return A;
  }
  /// Whether resident(A) is A for every array, so that a launch may pass
  /// kernels the host's own pointers without asking: true for backends
  /// whose kernels read host memory, and that say so.
  virtual bool readsHostArrays() const { return false; }
  /// Whether `!nontemporal` stores pay on this target: they bypass a cache
  /// hierarchy, so that writing an output far larger than the caches does
  /// not first read each line from memory. A CPU's do.
  virtual bool nonTemporalStores() const { return false; }
  /// Whether `!nontemporal` stores still pay when a loop interleaves them
  /// into several regions at once (a streaming scan's four quarters of a
  /// chunk). By default, where nontemporal stores pay at all.
  virtual bool nonTemporalStreams() const { return nonTemporalStores(); }
};

/// The nodes of the tree under Root in preorder: the numbering KernelGen
/// gives the slots, and Launch fills them in.
std::vector<const Node *> preorder(const Node &Root);

/// What a launch of a repeatable launcher (Launcher::repeatable) ran: its
/// argument blocks, the slots of them that point into arrays, and the
/// scratch memory they point to, kept to be run again without the launcher
/// while the tree's shapes stay as they were. A warm run of a small array
/// then costs its kernel and little more: the launcher's walk of the slots,
/// its allocations and decisions are what make up most of the rest.
struct LaunchRecord {
  struct Call {
    unsigned Phase = 0;
    int64_t Begin = 0, End = 0, Grain = 0;
    std::vector<uint64_t> Args;
    /// The phase's entry point, where the backend would only call it on
    /// the calling thread (Executor::callsInline): called directly, and
    /// bare (not through rt::runOnThisThread) where the kernel never calls
    /// the scheduler (Kernel::CallsScheduler).
    rt::KernelFn Direct = nullptr;
  };
  /// A slot of call Call that holds field Field of output Output's storage,
  /// or, with Output -1, of the array node NodeIx (preorder) holds.
  struct Pointer {
    uint32_t Call = 0, Slot = 0, NodeIx = 0, Field = 0;
    int32_t Output = -1;
  };
  /// Segment lengths the launcher read on the host (segmentsOf), into
  /// offsets and lengths in its scratch memory: read again before each
  /// repeat, from the array node NodeIx holds then, or, for a record bound
  /// to its arrays for good (repeat's Nodes null), from Fixed, the array
  /// it was recorded with.
  struct SegmentRead {
    uint32_t NodeIx = 0;
    const rt::Array *Fixed = nullptr;
    int64_t Inner = 0;
    bool AllowEmpty = false;
    int64_t *Offs = nullptr, *Lens = nullptr;
  };
  std::vector<Call> Calls;
  std::vector<Pointer> Pointers;
  std::vector<SegmentRead> Segments;
  /// The outputs, as the launcher allocated them.
  std::vector<std::pair<ElemType, Shape>> Outputs;
  /// The launch's scratch memory, and the bytes of it filled with zeros
  /// again before each repeat (0 where the kernels write it first).
  std::vector<std::pair<std::shared_ptr<void>, size_t>> Scratch;
  /// The fault word, in Scratch, or null.
  int64_t *FaultWord = nullptr;

  /// Runs the calls again on B: with the arrays the nodes of Nodes (the
  /// tree's preorder) hold now, which have the shapes they had when the
  /// calls were recorded, into Outs, one array of each of Outputs; with no
  /// Pointers (a record bound to its arrays for good), on the arrays it was
  /// recorded with, and Nodes and Outs may be null. A kernel that reports a
  /// fault, or segment lengths that no longer fit (readSegments), set
  /// Faulted: the launch is then to be run again through its launcher,
  /// which describes the fault.
  rt::Status repeat(const Kernel &K, Executor &B,
                    const std::vector<const Node *> *Nodes,
                    const std::shared_ptr<rt::Array> *Outs, bool &Faulted);
};

/// One run of a compiled kernel.
class Launch {
public:
  /// Order, if given, is preorder(Root), made once for many launches, and
  /// outlives the Launch.
  Launch(const Node &Root, const Kernel &K, Executor &B,
         const std::vector<const Node *> *Order = nullptr);
  const Node &root() const { return Root; }
  const Kernel &kernel() const { return K; }
  /// preorder(root()).
  const std::vector<const Node *> &nodes() const { return Nodes; }
  Executor &backend() { return B; }

  /// Appends an output array, which the kernel must write completely: the
  /// caller's array to reuse if it fits (output 0 only), else new storage
  /// that is not zero-filled.
  rt::Status output(const ElemType &T, const Shape &Sh);
  /// An array of the caller's that output 0 may be written into.
  std::shared_ptr<rt::Array> Reuse;
  /// Zero-filled scratch memory that lives as long as the Launch. Zero
  /// false says the kernels write every byte of it before they read it, so
  /// that a launch repeated from its record (LaunchRecord) need not fill it
  /// with zeros again.
  void *scratch(size_t Bytes, bool Zero = true);
  /// Runs phase Phase over [Begin, End).
  rt::Status run(unsigned Phase, int64_t Begin, int64_t End, int64_t Grain);
  /// The smallest piece of an element-wise phase that a thread takes, and
  /// the longest range run on the calling thread alone. HostGrain is the
  /// skeleton's for elements of 24 instructions; the kernel's weight
  /// scales it (Kernel::Weight), from 4 times it for the cheapest
  /// elements (a map of 2 instructions and a ret: 16384 for 4096, below
  /// which the gang's launch, 0.7 to 0.9 us, costs more than sharing the
  /// range saves) down to 1/16 of it, at least 64, for costly ones, rounded
  /// down to a power of two, so that a power-of-two range splits evenly.
  /// 16 where the kernel's functions loop, so that a few thousand costly
  /// elements are still shared among the threads; the backend's own grain
  /// on a GPU. docs/Skeletons.md gives the measurements.
  int64_t grain(int64_t HostGrain) const;

  std::vector<std::shared_ptr<rt::Array>> Outputs;
  /// Set by a skeleton whose first phases run before it knows its outputs'
  /// shapes (filter counts, then allocates): an output not yet allocated
  /// is passed as a null pointer, which those phases must not write.
  /// Otherwise a phase that writes an unallocated output is an error.
  bool OutputsPending = false;
  /// The values of the kernel's Host slots.
  std::vector<uint64_t> Host;

  /// The message of fault code At of the kernel, as far as the tree tells
  /// it: a node's fault in full, a checked-mode one by its kind. A
  /// Kernel::DescribeFault that knows the scalar functions adds their
  /// names and places, and falls back to this.
  std::string plainFault(int64_t At) const;

  /// Set before the launcher runs, by a runtime that would run the launch
  /// again: run() then keeps what it launches, for record().
  bool Recording = false;
  /// After a launch that succeeded with Recording set: what it ran, to run
  /// again (LaunchRecord), or null where it cannot be (a backend whose
  /// kernels do not read host memory, a phase run with outputs pending, or
  /// more than MaxScratchBytes of scratch memory, which the record would
  /// keep alive).
  std::unique_ptr<LaunchRecord> record(size_t MaxScratchBytes);
  /// Notes, while Recording, that the launcher read segment lengths from
  /// the array node Segs holds into Offs and Lens (segmentsOf).
  void recordSegments(const Node &Segs, int64_t Inner, bool AllowEmpty,
                      int64_t *Offs, int64_t *Lens);

private:
  void recordCall(unsigned Phase, int64_t Begin, int64_t End, int64_t Grain,
                  const uint64_t *Args);

  const Node &Root;
  const Kernel &K;
  Executor &B;
  std::vector<const Node *> OwnOrder;
  const std::vector<const Node *> &Nodes;
  /// The argument block: in InlineArgs for kernels of up to 16 slots (no
  /// allocation a launch, which a small array's run would feel), else in
  /// HeapArgs.
  uint64_t InlineArgs[16];
  std::vector<uint64_t> HeapArgs;
  std::vector<std::pair<std::shared_ptr<void>, size_t>> Scratch;
  size_t ScratchBytes = 0;
  /// What run() recorded (Recording), null once it met what cannot be.
  std::unique_ptr<LaunchRecord> Rec;
  bool Unrecordable = false;
  /// Whether kernels read the host's arrays (Executor::readsHostArrays).
  bool HostArrays;
  /// The arrays the kernel reads, as the backend holds them.
  std::vector<std::pair<const rt::Array *, std::shared_ptr<rt::Array>>>
      Resident;
  /// The launch's fault word, allocated by the backend when a slot needs it.
  int64_t *FaultWord = nullptr;
};

/// The host half of a skeleton: what runs a compiled kernel of it. The
/// library's launchers live in llquote_host (skeletons/host), so that the
/// ahead-of-time runtime shares them; a Skeleton (Skeleton.h) is a
/// Launcher that also generates the kernel.
class Launcher {
public:
  virtual ~Launcher() = default;
  /// The skeleton's name, which also names its launcher (launcherNamed).
  virtual const char *name() const = 0;
  /// Which of its kernels the skeleton generates for the consumer N on B,
  /// where that depends on more than N's structure (on its sizes, say):
  /// part of the kernel's key, and what generate() reads back from
  /// G.root() and G.backend(). One kernel: 0.
  virtual int64_t variant(const Node &, const Executor &) const { return 0; }
  /// Allocates the outputs of L's consumer, computes what the host decides
  /// and runs the kernel's phases.
  virtual rt::Status launch(Launch &L) const = 0;
  /// Whether what launch() does depends on the shapes of the tree and the
  /// backend alone, never on the contents of an array (a count read back)
  /// but segment lengths read through segmentsOf, which a record reads
  /// again; and its kernels ask of their scratch memory only that it be
  /// zero-filled (or, scratch(Bytes, false), nothing): a runtime may then
  /// record a launch (LaunchRecord) and run it again, on arrays of the same
  /// shapes, without calling launch().
  virtual bool repeatable() const { return false; }
  /// Sets the consumer N's shape and output shapes from its kids' (already
  /// set), for a run on arrays of other extents than the tree was built
  /// with (reshapeTree); an error where they do not fit. The default
  /// refuses: the skeleton's kernels then run on the shapes they were
  /// built for only.
  virtual rt::Status reshape(Node &N) const;
};

/// Recomputes the shapes of the tree under Root, bottom up, from those of
/// its Use leaves, which a run has bound to arrays of new extents: what
/// running a kernel compiled for a structure on arrays of any extents
/// needs. The operations that fix their own extents (generate, fill,
/// backpermute, reshape...) keep them. An error names the operation
/// whose arrays no longer fit (a reshape of a size that changed, a zipWith
/// whose kernel was made for arrays of one shape given two), or the one
/// that cannot take other extents.
rt::Status reshapeTree(Node &Root);

/// The library's launcher of the skeleton named Name ("fold", "scanl"...),
/// or null: how a program that did not build its trees with the library's
/// operations (the ahead-of-time runtime) finds them.
const Launcher *launcherNamed(const std::string &Name);

/// Whether N's elements take at least Bytes bytes (without overflow, for
/// any shape).
bool holdsAtLeast(const Node &N, int64_t Bytes);
/// How many chunks of at least MinChunk a range of N splits into for
/// Threads threads (0 when N is 0).
int64_t chunksFor(int64_t N, unsigned Threads, int64_t MinChunk);

/// Reads a segment descriptor S (a vector of i32 or i64 lengths) into
/// Offs and Lens (S.size() each); checks that no length is negative, that
/// none is empty unless AllowEmpty, and that they add up to Inner. The
/// errors name the operation Name.
rt::Status readSegments(const char *Name, const rt::Array &S, int64_t Inner,
                         bool AllowEmpty, int64_t *Offs, int64_t *Lens);
/// readSegments of the manifest segment descriptor Segs of L's operation,
/// into scratch offsets and lengths; a recorded launch reads them again
/// each time it is repeated.
rt::Status segmentsOf(Launch &L, const Node &Segs, int64_t Inner,
                       bool AllowEmpty, int64_t *&Offs, int64_t *&Lens);

/// Runs phase Phase of K over [Begin, End) on the gang G, in pieces of
/// whole multiples of Grain: what a CPU executor's launch() does. Kernels
/// whose functions loop (Kernel::Loops) are cut finer, so that stealing
/// balances elements of very different costs.
rt::Status launchOnGang(rt::Gang &G, const Kernel &K, unsigned Phase,
                        int64_t Begin, int64_t End, void *Args, int64_t Grain);
/// New uninitialised storage for T and Sh, from Pool if it is not null.
rt::Expected<std::shared_ptr<rt::Array>>
allocateFrom(rt::BufferPool *Pool, const ElemType &T, const Shape &Sh);

/// Every core, through a gang of Threads threads (0: LLQ_NUM_THREADS, else
/// one per hardware thread), with atomics, outputs from Pool (or new
/// memory): the executor of kernels compiled for the host, whether by the
/// JIT's CPU backend or ahead of time. NonTemporalStores says whether the
/// kernels were compiled for a CPU whose non-temporal stores pay.
std::unique_ptr<Executor>
makeCpuExecutor(unsigned Threads, std::shared_ptr<rt::BufferPool> Pool,
                bool NonTemporalStores);

/// Fails with Message (an rt::Status error), for launchers.
inline rt::Status failed(std::string Message) {
  return rt::Status::error(std::move(Message));
}

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_LAUNCH_H
