//===- Runtime.cpp - Running array expressions: fusion, caches, backends --===//
//
// run() records a plan of an expression (record()): walking from the root,
// a consumer's producers are copied into one tree (fused); a consumer below
// another becomes an earlier step, read as a manifest array. Each tree's
// structure is the kernel cache's key, so an operation built again costs
// the walk, a key, a hash lookup and the launch: no template is
// instantiated and no IR is printed or hashed. On a miss the consumer's
// skeleton is instantiated and the engine compiles it (or finds it in its
// own memory and disk caches). Then execute() binds the plan's leaves to
// the arrays and launches its steps in order.
//
// The same expression run again (the same Acc) skips the walk too: the
// last plans are kept by root node. A Prepared holds one plan for good and
// runs it on new input arrays of the same shapes.
//
//===----------------------------------------------------------------------===//

#include "Aot.h"
#include "Backends.h"
#include "llquote/skeletons/Skeleton.h"
#include "llquote/runtime/BufferPool.h"
#include "llquote/runtime/Engine.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <cstring>
#include <list>
#include <thread>
#include <map>
#include <unordered_map>

using namespace llq;
using namespace llq::detail;

namespace {

struct KeyHash {
  size_t operator()(const std::vector<uint64_t> &K) const {
    uint64_t H = 14695981039346656037ull;
    for (uint64_t W : K) {
      H ^= W;
      H *= 1099511628211ull;
      H ^= H >> 29;
    }
    return size_t(H);
  }
};

std::string optionOrEnv(const std::optional<std::string> &Opt,
                        const char *Var) {
  if (Opt)
    return *Opt;
  const char *V = std::getenv(Var);
  return V ? V : "";
}

/// A switch: the option when it is set, else whether Var is 1 or on.
bool switchOn(const std::optional<bool> &Opt, const char *Var) {
  if (Opt)
    return *Opt;
  std::string V = optionOrEnv(std::nullopt, Var);
  return V == "1" || V == "on";
}

} // namespace

namespace llq::detail {

/// The bytes of A's storage, all fields.
static uint64_t storageBytes(const rt::Array &A) {
  uint64_t Bytes = 0;
  for (ScalarKind F : A.type().fields())
    Bytes += uint64_t(A.size()) * rt::byteSize(F);
  return Bytes;
}

/// Small results of earlier runs, kept so that a later run writes into one
/// that nothing else holds any more instead of allocating: a loop that runs
/// an expression and drops the result of the run before allocates nothing.
/// At most MaxBytes each, so that what is kept is little memory.
template <size_t N> struct Spares {
  static constexpr uint64_t MaxBytes = 64 << 10;
  std::shared_ptr<rt::Array> Slot[N];
  unsigned Next = 0;
  /// A kept array of type T and shape Sh that nothing else holds, taken
  /// out; else null.
  std::shared_ptr<rt::Array> take(const ElemType &T, const Shape &Sh) {
    for (std::shared_ptr<rt::Array> &A : Slot)
      if (A && A.use_count() == 1 && A->type() == T && A->shape() == Sh)
        return std::move(A);
    return nullptr;
  }
  /// Keeps A, if it is small and owns its storage, in an empty place, else
  /// in that of one nothing else holds, else in turn; returns the array it
  /// replaced, for the caller to let go.
  std::shared_ptr<rt::Array> keep(const std::shared_ptr<rt::Array> &A) {
    if (!A->ownsData() || storageBytes(*A) > MaxBytes)
      return nullptr;
    for (std::shared_ptr<rt::Array> &S : Slot)
      if (!S) {
        S = A;
        return nullptr;
      }
    for (std::shared_ptr<rt::Array> &S : Slot)
      if (S.use_count() == 1)
        return std::exchange(S, A);
    std::shared_ptr<rt::Array> Old = std::exchange(Slot[Next], A);
    Next = (Next + 1) % N;
    return Old;
  }
};

/// A lock whose uncontended lock and unlock cost one atomic exchange and a
/// store, where a mutex's cost two atomic read-modify-writes: a warm run of
/// a small array takes one, and each is a visible part of its cost. A
/// waiter yields its thread while it waits.
class SpinLock {
public:
  void lock() {
    while (Held.exchange(true, std::memory_order_acquire))
      while (Held.load(std::memory_order_relaxed))
        std::this_thread::yield();
  }
  void unlock() { Held.store(false, std::memory_order_release); }

private:
  std::atomic<bool> Held{false};
};

/// What run() does for one expression, worked out once: the consumers to
/// launch, in order, each with its tree (its producers fused, the arrays it
/// reads as Use leaves) and its kernel, and where each leaf's array comes
/// from. A plan holds no array: a run binds the leaves, launches, and lets
/// them go, so that a plan kept for the next run keeps no memory alive.
struct Plan {
  /// A value of a run: input Param, or the value of the awhile loop Loop
  /// levels in (0: the outermost around the plan), or else output Output
  /// of step Step.
  struct Source {
    int Param = -1;
    unsigned Step = 0, Output = 0;
    int Loop = -1;
  };
  struct Control;
  struct Step {
    std::shared_ptr<Node> Root;
    std::shared_ptr<const Kernel> K;
    /// The Use leaves of Root's tree, and what each holds during a run.
    std::vector<std::pair<Node *, Source>> Leaves;
    /// preorder(*Root), for its launches.
    std::vector<const Node *> Order;
    /// An acond or awhile, in place of Root and K.
    std::unique_ptr<Control> Ctl;
    /// What its last launch ran, run again while its leaves keep the
    /// shapes they had (LaunchRecord): made on its second run at those
    /// shapes, the first that shows the step is run again; null where it
    /// cannot be.
    std::unique_ptr<LaunchRecord> Record;
    /// Runs since the leaves' shapes last changed.
    unsigned Runs = 0;
  };
  std::vector<Step> Steps;
  /// Each input array: the first Use node of the expression that holds
  /// it, depth first, left to right.
  std::vector<const Node *> Inputs;
  Source Result;
  /// The other results of a run of several expressions (runAll).
  std::vector<Source> More;
  /// Small results of its runs, written into again (Spares).
  Spares<2> Recycled;
  /// Taken by a run (RuntimeImpl::takePlan): no other run may use it.
  std::atomic<bool> Busy{false};
};

/// An acond: First is the condition, Then and Else the branches. An
/// awhile: First is the initial value, Test the condition and Then the
/// step, both plans reading the loop's value as Source::Loop. The plans
/// share the inputs of the plan around them, and compile with it.
struct Plan::Control {
  bool IsLoop = false;
  Source First;
  std::unique_ptr<Plan> Test, Then, Else;
};

/// What a run records for Prepared::bind: each step's launches, and the
/// arrays the steps wrote, which the records point into. Incomplete where
/// a step's launches cannot be repeated.
struct Capture {
  struct Step {
    std::shared_ptr<const Kernel> K;
    std::unique_ptr<LaunchRecord> R;
  };
  std::vector<Step> Steps;
  std::vector<std::shared_ptr<rt::Array>> Arrays;
  bool Complete = true;
};

class RuntimeImpl {
public:
  RuntimeImpl(const RuntimeOptions &O, const BackendFactory &Make)
      : Opts(O) {
    // The range LLQ_NUM_THREADS accepts. A bad variable is ignored; a bad
    // option, set in code, is refused: starting thousands of threads (or
    // failing to allocate their queues) is never what was meant.
    if (O.Threads > rt::MaxNumThreads)
      throw ArrayError(fmt::format(
          "llquote: RuntimeOptions::Threads is {}: expected 1 to {} threads, "
          "or 0 for LLQ_NUM_THREADS, else one per hardware thread",
          O.Threads, rt::MaxNumThreads));
    rt::EngineOptions EO;
    EO.CPU = O.CPU;
    EO.OptLevel = O.OptLevel;
    EO.Verbose = O.Verbose;
    EO.DiskCache = O.DiskCache;
    EO.CacheDir = O.CacheDir;
    EO.CacheMaxSize = O.CacheMaxSize;
    if (O.MaxKernels) {
      MaxKernels = *O.MaxKernels;
    } else if (std::string V = optionOrEnv(std::nullopt, "LLQ_CACHE_MEMORY");
               !V.empty()) {
      llvm::StringRef Text(V);
      unsigned long long N = 0;
      if (Text.getAsInteger(10, N) || !llvm::all_of(Text, llvm::isDigit))
        throw ArrayError(fmt::format(
            "llquote: LLQ_CACHE_MEMORY='{}': expected a number of kernels "
            "(0 for no bound)",
            V));
      MaxKernels = size_t(N);
    }
    uint64_t PoolBytes = uint64_t(256) << 20;
    if (O.PoolBytes) {
      PoolBytes = *O.PoolBytes;
    } else if (std::string V = optionOrEnv(std::nullopt, "LLQ_POOL_BYTES");
               !V.empty()) {
      llvm::Expected<uint64_t> Size = rt::parseSize("LLQ_POOL_BYTES", V);
      if (!Size)
        throw ArrayError("llquote: " + llvm::toString(Size.takeError()));
      PoolBytes = *Size;
    }
    Pool = rt::BufferPool::create(size_t(PoolBytes));
    auto E = rt::Engine::create(EO);
    if (!E)
      throw ArrayError("llquote: cannot start the JIT: " +
                       llvm::toString(E.takeError()));
    Eng = std::move(*E);
    BackendContext Ctx{Opts, *Eng, Pool};
    if (Make) {
      B = Make(Ctx);
      if (!B)
        throw ArrayError("llquote: the backend factory made no backend");
    } else {
      auto Standard = Ctx.standard();
      if (!Standard)
        throw ArrayError("llquote: " + llvm::toString(Standard.takeError()));
      B = std::move(*Standard);
    }
    Verbose = switchOn(O.Verbose, "LLQ_VERBOSE");
    Checks = switchOn(O.Checks, "LLQ_CHECKS");
    if (O.Fusion) {
      Fusion = *O.Fusion;
    } else {
      std::string V = optionOrEnv(std::nullopt, "LLQ_FUSION");
      Fusion = !(V == "0" || V == "off");
    }
    DumpDir = optionOrEnv(O.DumpIR, "LLQ_DUMP_IR");
  }

  /// Computes N, into Into's storage where it fits. A run of the very
  /// expression (the same Acc) run before reuses its plan: no walk, no key.
  llvm::Expected<std::shared_ptr<rt::Array>>
  run(const NodeRef &N, std::shared_ptr<rt::Array> Into = nullptr);
  /// Computes every expression of Ns in one plan: what they share is
  /// computed once.
  llvm::Expected<std::vector<std::shared_ptr<rt::Array>>>
  runAll(llvm::ArrayRef<NodeRef> Ns);
  /// N's plan, every kernel found or compiled (Runtime::prepare); with
  /// Compile false, its trees only (kernelIR).
  llvm::Expected<std::shared_ptr<Plan>> record(const NodeRef &N,
                                               bool Compile = true);
  /// Runs P on In (one array per input, of the shapes recorded), into
  /// Into where it fits, else with Recycle into one of P's spares.
  /// Loops holds the values of the awhile loops around P, outermost first.
  /// More, if given, receives the values of P.More. Cap, if given,
  /// receives what each step launched (every step through its launcher).
  llvm::Expected<std::shared_ptr<rt::Array>>
  execute(Plan &P, llvm::ArrayRef<const std::shared_ptr<rt::Array> *> In,
          std::shared_ptr<rt::Array> Into, bool Recycle = true,
          llvm::ArrayRef<std::shared_ptr<rt::Array>> Loops = {},
          std::vector<std::shared_ptr<rt::Array>> *More = nullptr,
          Capture *Cap = nullptr);
  /// Runs step S again as its record says, into Into where it fits,
  /// putting its outputs in Outs: false where a kernel reported a fault,
  /// which a launch through the launcher describes.
  llvm::Expected<bool>
  repeat(Plan::Step &S, std::shared_ptr<rt::Array> Into,
         llvm::SmallVectorImpl<std::shared_ptr<rt::Array>> &Outs);
  /// Runs an acond or awhile whose First value is First.
  llvm::Expected<std::shared_ptr<rt::Array>>
  control(Plan::Control &C,
          llvm::ArrayRef<const std::shared_ptr<rt::Array> *> In,
          llvm::ArrayRef<std::shared_ptr<rt::Array>> Loops,
          std::shared_ptr<rt::Array> First);
  /// The IR of N's kernel, optimised or not, or (PTX) its PTX.
  llvm::Expected<std::string> kernelCode(const NodeRef &N, bool Optimized,
                                         bool PTX);

  RuntimeOptions Opts;
  /// Freed array storage kept for reuse (RuntimeOptions::PoolBytes).
  std::shared_ptr<rt::BufferPool> Pool;
  std::unique_ptr<rt::Engine> Eng;
  std::unique_ptr<Backend> B;
  bool Verbose = false;
  /// Checked mode: division faults are errors (Checks.cpp).
  bool Checks = false;
  /// Producers fused into their consumers (RuntimeOptions::Fusion); off,
  /// each runs as a kernel of its own.
  bool Fusion = true;
  /// The bound on Cache's kernels (0: none); see RuntimeOptions.
  size_t MaxKernels = 1024;
  std::string DumpDir;
  std::atomic<uint64_t> Built{0}, Hits{0}, Launches{0}, FromDisk{0},
      Evicted{0}, PlanHits{0};
  /// The Bounds alive: each counts its own calls, with no atomic
  /// read-modify-write (a few nanoseconds of a call), and adds them to
  /// Launches when it goes; stats() adds those of the living.
  std::mutex BoundLock;
  std::vector<const BoundImpl *> Bounds;
  uint64_t launches();
  /// Kernels in memory now.
  uint64_t resident() {
    std::lock_guard<std::mutex> Lock(CacheLock);
    return Cache.size();
  }

private:
  /// One record(): the steps made so far, by the consumer they run, and
  /// the inputs, by array.
  struct Recording {
    /// A recording of the plan of a whole expression.
    Recording(Plan &P, bool Compile) : P(P), Top(P), Compile(Compile) {}
    /// One of a branch or loop body of Outer's plan, into Sub: it shares
    /// Outer's inputs.
    Recording(Plan &Sub, Recording &Outer)
        : P(Sub), Top(Outer.Top), Compile(Outer.Compile),
          Shared(Outer.Shared ? Outer.Shared : &Outer.InputOf),
          Loops(Outer.Loops) {}
    Plan &P;
    /// The plan whose Inputs these are: P, or the plan P is a part of.
    Plan &Top;
    bool Compile;
    /// Searched in order: an expression has a few of each.
    llvm::SmallVector<std::pair<const Node *, unsigned>, 4> StepOf;
    /// The steps that compute producers as arrays, by producer, and those
    /// of acond and awhile: such a node read twice is computed once.
    llvm::SmallVector<std::pair<const Node *, unsigned>, 4> ArrayOf;
    llvm::SmallVector<const rt::Array *, 4> InputOf;
    /// The outermost recording's InputOf, for a branch or loop body.
    llvm::SmallVector<const rt::Array *, 4> *Shared = nullptr;
    /// The stand-ins of the awhile loops around P, outermost first.
    llvm::SmallVector<const Node *, 2> Loops;
    /// Producers that several results of one run read (runAll): each is
    /// computed once, as an array, instead of fused into every reader.
    llvm::SmallPtrSet<const Node *, 8> Meet;
    /// The consumers made for producers run as arrays, alive while StepOf
    /// holds their addresses.
    std::vector<std::shared_ptr<Node>> Made;
    /// What Use node U holds: an input, or a loop's value.
    llvm::Expected<Plan::Source> input(const Node &U);
  };
  /// The step of an acond or awhile N, and the plans of its parts.
  llvm::Expected<Plan::Source> recordControl(const NodeRef &N, Recording &R);
  /// Where the value of N comes from: an input or a step's output.
  llvm::Expected<Plan::Source> recordValue(const NodeRef &N, Recording &R);
  /// The step that runs consumer C, its inputs' steps recorded first.
  llvm::Expected<unsigned> recordConsumer(const Node &C, Recording &R);
  /// A copy of producer P's tree for step S, consumers below it read as
  /// arrays.
  llvm::Expected<NodeRef> recordTree(const NodeRef &P, Recording &R,
                                     Plan::Step &S);
  /// A Use leaf of S that holds P's value at a run.
  llvm::Expected<NodeRef> recordManifest(const NodeRef &P, Recording &R,
                                         Plan::Step &S);
  llvm::Error recordKids(const Node &From, Node &To, Recording &R,
                         Plan::Step &S);
  llvm::Expected<std::shared_ptr<const Kernel>> kernelFor(const Node &Root);
  /// The consumer whose kernel computes N, with its producers fused.
  llvm::Expected<std::shared_ptr<Node>> rootOf(const NodeRef &N);
  llvm::Error dump(const llvm::Module &M, const std::string &Name,
                   const KernelGen &G);
  /// The module of G's root, as its skeleton writes it, with the division
  /// checks of checked mode.
  llvm::Expected<std::unique_ptr<llvm::Module>> generate(KernelGen &G,
                                                         llvm::LLVMContext &Ctx);

  /// Removes least recently used kernels that no run, kept plan or
  /// Prepared holds until the cache is within MaxKernels (or nothing more
  /// can go). CacheLock held.
  void evict();

  using Key = std::vector<uint64_t>;
  struct Entry {
    std::shared_ptr<const Kernel> K;
    /// Its place in Recent.
    std::list<const Key *>::iterator Use;
  };
  std::mutex CacheLock;
  std::unordered_map<Key, Entry, KeyHash> Cache;
  /// Cache's keys, most recently used first.
  std::list<const Key *> Recent;

  /// The plans of the expressions run last, by root node: a run of the
  /// same Acc again takes its plan (Plan::Busy: no other run uses it at
  /// the same time, and it is not replaced) and gives it back. Expr tells
  /// a live root from a new node at a freed one's address.
  struct CachedPlan {
    const Node *Key = nullptr;
    std::weak_ptr<const Node> Expr;
    std::shared_ptr<Plan> P;
    uint64_t LastUse = 0;
  };
  static constexpr size_t MaxPlans = 16;
  /// Held for a scan of Plans or Results, never across a call that may
  /// take long (nothing is destroyed under it).
  SpinLock PlanLock;
  std::vector<CachedPlan> Plans;
  uint64_t PlanClock = 0;
  /// N's plan if it is kept and free, marked busy; else null.
  Plan *takePlan(const Node *N);
  /// Keeps P as N's plan, in the place of the least recently used plan
  /// that is not busy if all are full.
  /// Lets go of the plans of expressions the program no longer holds, and
  /// so of their kernels.
  void dropDeadPlans();
  /// With Result, also keeps a new expression's result in Results.
  void keepPlan(const NodeRef &N, std::shared_ptr<Plan> P,
                const std::shared_ptr<rt::Array> *Result = nullptr);
  /// Results of new expressions' runs (Spares); under PlanLock.
  Spares<4> Results;
};

} // namespace llq::detail

llvm::Error RuntimeImpl::dump(const llvm::Module &M, const std::string &Name,
                              const KernelGen &G) {
  if (DumpDir.empty())
    return llvm::Error::success();
  if (std::error_code EC = llvm::sys::fs::create_directories(DumpDir))
    return failure("LLQ_DUMP_IR: cannot create " + DumpDir + ": " +
                   EC.message());
  auto Write = [&](const llvm::Module &Mod,
                   const std::string &File) -> llvm::Error {
    std::error_code EC;
    llvm::raw_fd_ostream OS(DumpDir + "/" + File, EC);
    if (EC)
      return failure("LLQ_DUMP_IR: cannot write " + DumpDir + "/" + File +
                     ": " + EC.message());
    Mod.print(OS, nullptr);
    return llvm::Error::success();
  };
  if (llvm::Error E = Write(M, Name + ".ll"))
    return E;
  std::unique_ptr<llvm::Module> Opt = llvm::CloneModule(M);
  if (llvm::Error E = B->lower(*Opt, G, /*Optimize=*/true))
    return E;
  if (llvm::Error E = Write(*Opt, Name + ".opt.ll"))
    return E;
  std::string Ext = B->targetCodeExtension();
  if (Ext.empty())
    return llvm::Error::success();
  std::unique_ptr<llvm::Module> Target = llvm::CloneModule(M);
  auto Code = B->targetCode(*Target, G);
  if (!Code)
    return Code.takeError();
  std::string File = DumpDir + "/" + Name + "." + Ext;
  std::error_code EC;
  llvm::raw_fd_ostream OS(File, EC);
  if (EC)
    return failure("LLQ_DUMP_IR: cannot write " + File + ": " + EC.message());
  OS << *Code;
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
RuntimeImpl::generate(KernelGen &G, llvm::LLVMContext &Ctx) {
  // Every consumer the library or a skeleton author builds holds a
  // Skeleton; a bare Launcher is the ahead-of-time runtime's, which never
  // generates.
  auto M = static_cast<const Skeleton &>(*G.root().Skel).generate(G, Ctx);
  if (M && G.checks())
    addDivisionChecks(**M, G);
  if (M)
    splitAggregatePhis(**M);
  return M;
}

/// Whether a call to F costs no more than an instruction or two.
static bool cheapCall(const llvm::Function &F) {
  switch (F.getIntrinsicID()) {
  case llvm::Intrinsic::fabs:
  case llvm::Intrinsic::fma:
  case llvm::Intrinsic::fmuladd:
  case llvm::Intrinsic::minnum:
  case llvm::Intrinsic::maxnum:
  case llvm::Intrinsic::minimum:
  case llvm::Intrinsic::maximum:
  case llvm::Intrinsic::copysign:
  case llvm::Intrinsic::smin:
  case llvm::Intrinsic::smax:
  case llvm::Intrinsic::umin:
  case llvm::Intrinsic::umax:
  case llvm::Intrinsic::abs:
  case llvm::Intrinsic::floor:
  case llvm::Intrinsic::ceil:
  case llvm::Intrinsic::trunc:
  case llvm::Intrinsic::rint:
  case llvm::Intrinsic::round:
  case llvm::Intrinsic::sqrt:
    return true;
  default:
    return false;
  }
}

void llq::detail::weighFunctions(const llvm::Module &M, const KernelGen &G,
                                 Kernel &K) {
  llvm::SmallPtrSet<const llvm::Function *, 8> Seen;
  std::vector<const llvm::Function *> Work;
  for (size_t I = 0; I < G.numFunctions(); ++I)
    if (const llvm::Function *F = M.getFunction(KernelGen::functionName(I)))
      Work.push_back(F);
  K.Loops = false;
  K.Weight = 0;
  while (!Work.empty()) {
    const llvm::Function *F = Work.back();
    Work.pop_back();
    if (F->isDeclaration() || !Seen.insert(F).second)
      continue;
    llvm::SmallVector<std::pair<const llvm::BasicBlock *,
                                const llvm::BasicBlock *>, 4> Backedges;
    llvm::FindFunctionBackedges(*F, Backedges);
    K.Loops |= !Backedges.empty();
    for (const llvm::BasicBlock &BB : *F)
      for (const llvm::Instruction &I : BB) {
        K.Weight += 1;
        if (auto *CB = llvm::dyn_cast<llvm::CallBase>(&I))
          if (const llvm::Function *Callee = CB->getCalledFunction()) {
            if (Callee->isDeclaration() && !cheapCall(*Callee))
              K.Weight += 15;
            Work.push_back(Callee);
          }
      }
  }
}

llvm::Expected<std::shared_ptr<const Kernel>>
RuntimeImpl::kernelFor(const Node &Root) {
  std::vector<uint64_t> Key;
  Key.reserve(64);
  Key.push_back(uint64_t(B->kind()) | uint64_t(Checks) << 8);
  Key.push_back(uint64_t(Root.Skel->variant(Root, *B)));
  structuralKey(Root, Key);
  std::lock_guard<std::mutex> Lock(CacheLock);
  auto It = Cache.find(Key);
  if (It != Cache.end()) {
    ++Hits;
    Recent.splice(Recent.begin(), Recent, It->second.Use);
    if (Verbose)
      llvm::errs() << "llquote: " << It->second.K->Name
                   << ": found by structure, no instantiation\n";
    return It->second.K;
  }
  auto Start = std::chrono::steady_clock::now();
  std::string Name = fmt::format("llq_{}_{:016x}", Root.Skel->name(),
                                 uint64_t(KeyHash()(Key)));
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  KernelGen G(Root, Name, *B, *Ctx, Checks);
  auto M = generate(G, *Ctx);
  if (!M)
    return llvm::joinErrors(
        failure(fmt::format("{}: the {} skeleton did not instantiate:",
                            Root.Name, Root.Skel->name())),
        M.takeError());
  if (llvm::Error E = dump(**M, Name, G))
    return std::move(E);
  auto K = std::make_shared<Kernel>();
  K->Name = Name;
  K->Slots = G.slots();
  weighFunctions(**M, G, *K);
  // Kernels report faults through their fault word; only a scalar
  // function that calls the scheduler itself needs a failure sink.
  K->CallsScheduler = (*M)->getFunction("llq_rt_report_error") ||
                      (*M)->getFunction("llq_rt_cancelled");
  K->FnHashes = G.functionHashes();
  K->DescribeFault = &describeFault;
  std::string How;
  if (llvm::Error E = B->compile(std::move(*M), std::move(Ctx), G, *K, How))
    return std::move(E);
  ++Built;
  if (K->FromDisk)
    ++FromDisk;
  if (Verbose) {
    llvm::errs() << fmt::format(
        "llquote: {}: instantiated and {} in {:.1f} ms\n", Name, How,
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - Start)
            .count());
  }
  auto Added = Cache.emplace(std::move(Key), Entry{K, {}}).first;
  Recent.push_front(&Added->first);
  Added->second.Use = Recent.begin();
  // The new kernel is held by the caller, so it is never the one to go.
  evict();
  return std::shared_ptr<const Kernel>(K);
}

void RuntimeImpl::evict() {
  if (MaxKernels && Cache.size() > MaxKernels)
    dropDeadPlans();
  auto It = Recent.end();
  while (MaxKernels && Cache.size() > MaxKernels && It != Recent.begin()) {
    --It;
    auto Found = Cache.find(**It);
    // Held by a run (or by the caller of kernelFor): it stays.
    if (Found->second.K.use_count() > 1)
      continue;
    if (Verbose)
      llvm::errs() << fmt::format(
          "llquote: {}: evicted, the least recently used of {} kernels "
          "(bound {}); its code is freed\n",
          Found->second.K->Name, Cache.size(), MaxKernels);
    It = Recent.erase(It);
    Cache.erase(Found);
    ++Evicted;
  }
}

llvm::Expected<Plan::Source> RuntimeImpl::Recording::input(const Node &U) {
  if (U.LoopValue) {
    for (size_t K = 0; K < Loops.size(); ++K)
      if (Loops[K] == &U)
        return Plan::Source{-1, 0, 0, int(K)};
    return failure("awhile: the loop's value is used outside the loop's "
                   "condition and step");
  }
  if (!U.Data)
    return failure("run: a use of no array");
  if (U.Distributed)
    return failure("run: the expression reads a distributed array "
                   "(llq::mpi::DArray); run it with llq::mpi::Runtime");
  auto &Table = Shared ? *Shared : InputOf;
  const auto *It = llvm::find(Table, U.Data.get());
  if (It == Table.end()) {
    Table.push_back(U.Data.get());
    Top.Inputs.push_back(&U);
    It = Table.end() - 1;
  }
  return Plan::Source{int(It - Table.begin()), 0, 0};
}

llvm::Expected<Plan::Source> RuntimeImpl::recordValue(const NodeRef &N,
                                                      Recording &R) {
  if (!N->Error.empty())
    return failure(N->Error);
  if (N->K == Op::Use)
    return R.input(*N);
  if (N->K == Op::Cond || N->K == Op::While)
    return recordControl(N, R);
  if (N->K == Op::Select || N->K == Op::Consumer) {
    bool Sel = N->K == Op::Select;
    auto S = recordConsumer(Sel ? *N->Kids[0] : *N, R);
    if (!S)
      return S.takeError();
    return Plan::Source{-1, *S, Sel ? unsigned(N->Code[0]) : 0u};
  }
  // A producer at the root, or read as a manifest array, is computed by
  // the materialising skeleton.
  for (auto [Producer, Ix] : R.ArrayOf)
    if (Producer == N.get())
      return Plan::Source{-1, Ix, 0};
  auto M = makeMaterialize(N);
  R.Made.push_back(M);
  auto S = recordConsumer(*M, R);
  if (!S)
    return S.takeError();
  R.ArrayOf.push_back({N.get(), *S});
  return Plan::Source{-1, *S, 0};
}

llvm::Expected<NodeRef> RuntimeImpl::recordManifest(const NodeRef &P,
                                                    Recording &R,
                                                    Plan::Step &S) {
  auto From = recordValue(P, R);
  if (!From)
    return From.takeError();
  auto U = std::make_shared<Node>();
  U->K = Op::Use;
  U->Type = P->Type;
  U->Sh = P->Sh;
  S.Leaves.push_back({U.get(), *From});
  return NodeRef(U);
}

llvm::Expected<NodeRef> RuntimeImpl::recordTree(const NodeRef &P, Recording &R,
                                                Plan::Step &S) {
  if (!P->isProducer())
    return recordManifest(P, R, S);
  auto C = copyNode(*P);
  if (P->K == Op::Use) {
    auto From = R.input(*P);
    if (!From)
      return From.takeError();
    C->Data = nullptr;
    S.Leaves.push_back({C.get(), *From});
  }
  if (llvm::Error E = recordKids(*P, *C, R, S))
    return std::move(E);
  return NodeRef(C);
}

llvm::Error RuntimeImpl::recordKids(const Node &From, Node &To, Recording &R,
                                    Plan::Step &S) {
  // A kid is read as an array when the consumer reads it on the host, when
  // several results of one run read it (Meet), and, without fusion, when
  // it is a producer other than a reshape (another view of the same
  // elements). The copy that computes a producer as an array reads that
  // producer fused, whatever else holds.
  bool Copy = From.Skel == &materializeSkeleton();
  bool Unfused = !Fusion && !Copy;
  for (size_t I = 0; I < From.Kids.size(); ++I) {
    const Node &Kid = *From.Kids[I];
    bool Manifest =
        From.ManifestKids & (1u << I) || (!Copy && R.Meet.count(&Kid)) ||
        (Unfused && Kid.isProducer() && Kid.K != Op::Use && Kid.K != Op::Reshape);
    auto K = Manifest ? recordManifest(From.Kids[I], R, S)
                      : recordTree(From.Kids[I], R, S);
    if (!K)
      return K.takeError();
    To.Kids.push_back(*K);
  }
  return llvm::Error::success();
}

llvm::Expected<unsigned> RuntimeImpl::recordConsumer(const Node &C,
                                                     Recording &R) {
  for (auto [Made, Ix] : R.StepOf)
    if (Made == &C)
      return Ix;
  Plan::Step S;
  S.Root = copyNode(C);
  if (llvm::Error E = recordKids(C, *S.Root, R, S))
    return std::move(E);
  S.Order = preorder(*S.Root);
  if (R.Compile) {
    auto K = kernelFor(*S.Root);
    if (!K)
      return K.takeError();
    S.K = std::move(*K);
  }
  unsigned Ix = unsigned(R.P.Steps.size());
  R.P.Steps.push_back(std::move(S));
  R.StepOf.push_back({&C, Ix});
  return Ix;
}

llvm::Expected<Plan::Source> RuntimeImpl::recordControl(const NodeRef &N,
                                                       Recording &R) {
  for (auto [Done, Ix] : R.ArrayOf)
    if (Done == N.get())
      return Plan::Source{-1, Ix, 0};
  auto C = std::make_unique<Plan::Control>();
  C->IsLoop = N->K == Op::While;
  auto First = recordValue(N->Kids[0], R);
  if (!First)
    return First.takeError();
  C->First = *First;
  // A part's plan, reading the loop's value when Loop is its stand-in.
  auto Part = [&](const NodeRef &E,
                  const Node *Loop) -> llvm::Expected<std::unique_ptr<Plan>> {
    auto Sub = std::make_unique<Plan>();
    Recording Inner(*Sub, R);
    if (Loop)
      Inner.Loops.push_back(Loop);
    auto Result = recordValue(E, Inner);
    if (!Result)
      return Result.takeError();
    Sub->Result = *Result;
    return std::move(Sub);
  };
  const Node *Loop = C->IsLoop ? N->Kids[3].get() : nullptr;
  auto A = Part(N->Kids[1], Loop);
  if (!A)
    return A.takeError();
  auto B = Part(N->Kids[2], Loop);
  if (!B)
    return B.takeError();
  (C->IsLoop ? C->Test : C->Then) = std::move(*A);
  (C->IsLoop ? C->Then : C->Else) = std::move(*B);
  Plan::Step S;
  S.Ctl = std::move(C);
  unsigned Ix = unsigned(R.P.Steps.size());
  R.P.Steps.push_back(std::move(S));
  R.ArrayOf.push_back({N.get(), Ix});
  return Plan::Source{-1, Ix, 0};
}

/// Whether A is one of the arrays In points to, or holds its elements in
/// the storage of one: a run must not write it.
static bool isAnInput(const rt::Array &A,
                      llvm::ArrayRef<const std::shared_ptr<rt::Array> *> In) {
  return llvm::any_of(In, [&](const std::shared_ptr<rt::Array> *I) {
    return I->get() == &A || (A.numFields() && (*I)->numFields() &&
                              (*I)->data(0) == A.data(0));
  });
}

llvm::Expected<std::shared_ptr<Plan>> RuntimeImpl::record(const NodeRef &N,
                                                          bool Compile) {
  if (!N)
    return failure("run: an empty Acc");
  auto P = std::make_shared<Plan>();
  Recording R(*P, Compile);
  auto Result = recordValue(N, R);
  if (!Result)
    return Result.takeError();
  P->Result = *Result;
  return P;
}

llvm::Expected<std::shared_ptr<rt::Array>>
RuntimeImpl::execute(Plan &P,
                     llvm::ArrayRef<const std::shared_ptr<rt::Array> *> In,
                     std::shared_ptr<rt::Array> Into, bool Recycle,
                     llvm::ArrayRef<std::shared_ptr<rt::Array>> Loops,
                     std::vector<std::shared_ptr<rt::Array>> *More,
                     Capture *Cap) {
  bool Others = More && !P.More.empty();
  if (P.Result.Loop >= 0 && !Others)
    return Loops[size_t(P.Result.Loop)];
  if (P.Result.Param >= 0 && !Others)
    return *In[size_t(P.Result.Param)];
  // The result is written into Into only where no input is Into.
  if (Into && isAnInput(*Into, In))
    Into = nullptr;
  bool FromStep = P.Result.Param < 0 && P.Result.Loop < 0;
  if (!FromStep)
    Into = nullptr;
  Recycle = Recycle && !Into && FromStep && P.Result.Output == 0 &&
            P.Steps[P.Result.Step].Root;
  if (Recycle) {
    const Node &Root = *P.Steps[P.Result.Step].Root;
    Into = P.Recycled.take(Root.Type, Root.Sh);
  }
  llvm::SmallVector<llvm::SmallVector<std::shared_ptr<rt::Array>, 1>, 2> Outs(
      P.Steps.size());
  auto ValueOf = [&](const Plan::Source &From) -> const std::shared_ptr<rt::Array> & {
    if (From.Loop >= 0)
      return Loops[size_t(From.Loop)];
    return From.Param >= 0 ? *In[size_t(From.Param)]
                           : Outs[From.Step][From.Output];
  };
  for (unsigned I = 0; I < P.Steps.size(); ++I) {
    Plan::Step &S = P.Steps[I];
    if (S.Ctl) {
      if (Cap)
        Cap->Complete = false;
      auto V = control(*S.Ctl, In, Loops, ValueOf(S.Ctl->First));
      if (!V)
        return V.takeError();
      Outs[I].push_back(std::move(*V));
      continue;
    }
    bool Resized = false;
    for (auto &[Leaf, From] : S.Leaves) {
      const std::shared_ptr<rt::Array> &A = ValueOf(From);
      // A pointer that owns nothing: A outlives the launch, and the copy
      // and release of an owning one are two atomic operations a leaf, a
      // visible part of a small array's run.
      Leaf->Data = std::shared_ptr<rt::Array>(std::shared_ptr<rt::Array>(),
                                              A.get());
      if (!(Leaf->Sh == A->shape())) {
        Leaf->Sh = A->shape();
        Resized = true;
      }
    }
    // The plan holds no array between runs.
    auto Release = llvm::make_scope_exit([&S] {
      for (auto &Leaf : S.Leaves)
        Leaf.first->Data.reset();
    });
    // Arrays of other extents than the tree has (a Prepared given others):
    // its shapes follow theirs; the kernel depends on the structure only.
    if (Resized) {
      // Recorded again on the second run at these shapes.
      S.Record.reset();
      S.Runs = 0;
      if (rt::Status St = reshapeTree(*S.Root); !St.ok())
        return failure(St.message());
    }
    bool IntoHere = P.Result.Step == I && P.Result.Output == 0;
    if (S.Record && !Cap) {
      auto Ran = repeat(S, IntoHere ? std::move(Into) : nullptr, Outs[I]);
      if (!Ran)
        return Ran.takeError();
      if (*Ran) {
        Launches += S.K->numPhases();
        continue;
      }
      // A kernel reported a fault: run again through the launcher, which
      // says what it was.
      S.Record.reset();
      S.Runs = 0;
      Outs[I].clear();
    }
    Launch L(*S.Root, *S.K, *B, &S.Order);
    if (IntoHere)
      L.Reuse = std::move(Into);
    L.Recording =
        (Cap || S.Runs++ == 1) && S.Root->Skel->repeatable();
    try {
      if (rt::Status E = S.Root->Skel->launch(L); !E.ok())
        return failure(E.message());
    } catch (const ArrayError &Ex) {
      return failure(Ex.what());
    }
    Launches += S.K->numPhases();
    if (Cap) {
      // A Bound keeps what its launches need, however large.
      std::unique_ptr<LaunchRecord> R = L.record(SIZE_MAX);
      Cap->Complete = Cap->Complete && R;
      if (R)
        Cap->Steps.push_back({S.K, std::move(R)});
      Cap->Arrays.insert(Cap->Arrays.end(), L.Outputs.begin(),
                         L.Outputs.end());
    } else {
      // A plan kept between runs keeps little memory alive.
      S.Record = L.record(/*MaxScratchBytes=*/64 << 10);
    }
    Outs[I].assign(std::make_move_iterator(L.Outputs.begin()),
                   std::make_move_iterator(L.Outputs.end()));
  }
  if (More)
    for (const Plan::Source &S : P.More)
      More->push_back(ValueOf(S));
  std::shared_ptr<rt::Array> Result =
      FromStep ? std::move(Outs[P.Result.Step][P.Result.Output])
               : ValueOf(P.Result);
  if (Recycle)
    P.Recycled.keep(Result);
  return Result;
}

llvm::Expected<bool>
RuntimeImpl::repeat(Plan::Step &S, std::shared_ptr<rt::Array> Into,
                    llvm::SmallVectorImpl<std::shared_ptr<rt::Array>> &Outs) {
  LaunchRecord &R = *S.Record;
  Outs.resize(R.Outputs.size());
  for (size_t K = 0; K < R.Outputs.size(); ++K) {
    const auto &[T, Sh] = R.Outputs[K];
    // As Launch::output: the caller's array where it fits (the kernels of
    // a recorded launch read and write host memory).
    if (K == 0 && Into && Into->type() == T && Into->shape() == Sh) {
      Outs[K] = std::move(Into);
      continue;
    }
    rt::Expected<std::shared_ptr<rt::Array>> A = B->allocate(T, Sh);
    if (!A)
      return failure(fmt::format("{}: {}", S.Root->Name, A.message()));
    Outs[K] = std::move(*A);
  }
  bool Faulted = false;
  if (rt::Status St = R.repeat(*S.K, *B, &S.Order, Outs.data(), Faulted);
      !St.ok())
    return failure(fmt::format("{}: {}", S.Root->Name, St.message()));
  return !Faulted;
}

llvm::Expected<std::shared_ptr<rt::Array>>
RuntimeImpl::control(Plan::Control &C,
                     llvm::ArrayRef<const std::shared_ptr<rt::Array> *> In,
                     llvm::ArrayRef<std::shared_ptr<rt::Array>> Loops,
                     std::shared_ptr<rt::Array> First) {
  if (!C.IsLoop)
    return execute(holds(*First) ? *C.Then : *C.Else, In, nullptr,
                   /*Recycle=*/false, Loops);
  llvm::SmallVector<std::shared_ptr<rt::Array>, 2> Inner(Loops.begin(),
                                                         Loops.end());
  Inner.push_back(std::move(First));
  for (;;) {
    auto Test = execute(*C.Test, In, nullptr, /*Recycle=*/false, Inner);
    if (!Test)
      return Test.takeError();
    if (!holds(**Test))
      break;
    auto Next = execute(*C.Then, In, nullptr, /*Recycle=*/false, Inner);
    if (!Next)
      return Next.takeError();
    Inner.back() = std::move(*Next);
  }
  return std::move(Inner.back());
}

Plan *RuntimeImpl::takePlan(const Node *N) {
  std::lock_guard<SpinLock> Lock(PlanLock);
  for (CachedPlan &C : Plans)
    if (C.Key == N && C.P && !C.Expr.expired()) {
      // Busy: another thread runs this very expression now. Only takePlan
      // sets it, under PlanLock, so a load and a store do what an exchange
      // would, without an atomic read-modify-write (a few nanoseconds of a
      // small array's run); the acquire pairs with the release that ended
      // the last run of the plan.
      if (C.P->Busy.load(std::memory_order_acquire))
        return nullptr;
      C.P->Busy.store(true, std::memory_order_relaxed);
      // Counted here, under the lock, for the same reason.
      PlanHits.store(PlanHits.load(std::memory_order_relaxed) + 1,
                     std::memory_order_relaxed);
      C.LastUse = ++PlanClock;
      return C.P.get();
    }
  return nullptr;
}

void RuntimeImpl::keepPlan(const NodeRef &N, std::shared_ptr<Plan> P,
                           const std::shared_ptr<rt::Array> *Result) {
  // What the kept plan and result replace is destroyed after the lock is
  // let go: a plan may hold the last reference to a kernel.
  CachedPlan Replaced;
  std::shared_ptr<rt::Array> Dropped;
  std::lock_guard<SpinLock> Lock(PlanLock);
  if (Result)
    Dropped = Results.keep(*Result);
  CachedPlan *Slot = nullptr;
  for (CachedPlan &C : Plans) {
    bool Gone = !C.P || C.Expr.expired();
    // Another thread has kept a plan for N meanwhile.
    if (C.Key == N.get() && !Gone)
      return;
    if (Gone) {
      Slot = &C;
      break;
    }
    if (!C.P->Busy.load(std::memory_order_relaxed) &&
        (!Slot || C.LastUse < Slot->LastUse))
      Slot = &C;
  }
  if ((!Slot || Slot->P) && Plans.size() < MaxPlans) {
    Plans.emplace_back();
    Slot = &Plans.back();
  }
  if (Slot) {
    Replaced = std::move(*Slot);
    *Slot = CachedPlan{N.get(), N, std::move(P), ++PlanClock};
  }
}

void RuntimeImpl::dropDeadPlans() {
  llvm::SmallVector<std::shared_ptr<Plan>, 16> Dead;
  {
    std::lock_guard<SpinLock> Lock(PlanLock);
    for (CachedPlan &C : Plans)
      if (C.P && C.Expr.expired())
        Dead.push_back(std::move(C.P));
  }
  // Their kernels are let go here, outside the lock.
}

llvm::Expected<std::shared_ptr<rt::Array>>
RuntimeImpl::run(const NodeRef &N, std::shared_ptr<rt::Array> Into) {
  if (!N)
    return failure("run: an empty Acc");
  if (!N->Error.empty())
    return failure(N->Error);
  if (N->K == Op::Use)
    return N->Data;
  std::shared_ptr<Plan> Made;
  Plan *P = takePlan(N.get());
  if (!P) {
    auto Recorded = record(N, /*Compile=*/true);
    if (!Recorded)
      return Recorded.takeError();
    Made = std::move(*Recorded);
    P = Made.get();
  }
  llvm::SmallVector<const std::shared_ptr<rt::Array> *, 4> In;
  for (const Node *U : P->Inputs)
    In.push_back(&U->Data);
  if (!Made) {
    auto R = execute(*P, In, std::move(Into));
    P->Busy.store(false, std::memory_order_release);
    return R;
  }
  // A new expression, which may never run again: its result goes to the
  // Runtime's spares, not the plan's.
  bool Spare = !Into && P->Result.Param < 0 && P->Result.Loop < 0 &&
               P->Result.Output == 0 && P->Steps[P->Result.Step].Root;
  if (Spare) {
    const Node &Root = *P->Steps[P->Result.Step].Root;
    std::lock_guard<SpinLock> Lock(PlanLock);
    Into = Results.take(Root.Type, Root.Sh);
  }
  auto R = execute(*P, In, std::move(Into), /*Recycle=*/false);
  keepPlan(N, std::move(Made), Spare && R ? &*R : nullptr);
  return R;
}

/// The producers that the expressions Roots meet at: reached from two of
/// them by paths that join there (a producer below such a one is reached
/// only through it, and is not counted).
static llvm::SmallPtrSet<const Node *, 8>
sharedProducers(llvm::ArrayRef<NodeRef> Roots) {
  std::unordered_map<const Node *, uint64_t> Reach;
  for (size_t I = 0; I < Roots.size(); ++I) {
    uint64_t Bit = uint64_t(1) << (I % 64);
    std::vector<const Node *> Work{Roots[I].get()};
    while (!Work.empty()) {
      const Node *N = Work.back();
      Work.pop_back();
      uint64_t &M = Reach[N];
      if (M & Bit)
        continue;
      M |= Bit;
      for (const NodeRef &K : N->Kids)
        Work.push_back(K.get());
    }
  }
  llvm::SmallPtrSet<const Node *, 8> Shared;
  for (auto &[N, M] : Reach)
    for (const NodeRef &K : N->Kids)
      if (K->isProducer() && K->K != Op::Use && Reach.find(K.get())->second != M)
        Shared.insert(K.get());
  for (const NodeRef &Root : Roots)
    if (Root->isProducer() && Root->K != Op::Use && Reach[Root.get()] != 0 &&
        (Reach[Root.get()] & (Reach[Root.get()] - 1)))
      Shared.insert(Root.get());
  return Shared;
}

llvm::Expected<std::vector<std::shared_ptr<rt::Array>>>
RuntimeImpl::runAll(llvm::ArrayRef<NodeRef> Ns) {
  for (const NodeRef &N : Ns) {
    if (!N)
      return failure("run: an empty Acc");
    if (!N->Error.empty())
      return failure(N->Error);
  }
  if (Ns.empty())
    return std::vector<std::shared_ptr<rt::Array>>();
  Plan P;
  Recording R(P, /*Compile=*/true);
  R.Meet = sharedProducers(Ns);
  for (size_t I = 0; I < Ns.size(); ++I) {
    auto S = recordValue(Ns[I], R);
    if (!S)
      return S.takeError();
    if (I == 0)
      P.Result = *S;
    else
      P.More.push_back(*S);
  }
  llvm::SmallVector<const std::shared_ptr<rt::Array> *, 4> In;
  for (const Node *U : P.Inputs)
    In.push_back(&U->Data);
  std::vector<std::shared_ptr<rt::Array>> Out;
  auto First = execute(P, In, nullptr, /*Recycle=*/false, {}, &Out);
  if (!First)
    return First.takeError();
  Out.insert(Out.begin(), std::move(*First));
  return Out;
}

llvm::Expected<std::shared_ptr<Node>> RuntimeImpl::rootOf(const NodeRef &N) {
  // Only the kernel's code is wanted: the arrays it reads are not computed.
  if (!N->Error.empty())
    return failure(N->Error);
  NodeRef Top = N;
  if (N->K == Op::Use) {
    // An array's kernel is the copy that run() would not even make.
    Top = makeMaterialize(N);
  }
  auto P = record(Top, /*Compile=*/false);
  if (!P)
    return P.takeError();
  if (!(*P)->Steps[(*P)->Result.Step].Root)
    return failure(fmt::format("{}: runs the kernels of its parts as its "
                               "condition says, and has no kernel of its own; "
                               "ask for a part's",
                               N->Name));
  return (*P)->Steps[(*P)->Result.Step].Root;
}

llvm::Expected<std::string> RuntimeImpl::kernelCode(const NodeRef &N,
                                                    bool Optimized, bool PTX) {
  if (PTX && llvm::StringRef(B->targetCodeExtension()) != "ptx")
    return failure("kernelPTX: this Runtime's backend is not the GPU; make "
                   "it with RuntimeOptions::Backend = BackendKind::GPU");
  auto Root = rootOf(N);
  if (!Root)
    return Root.takeError();
  llvm::LLVMContext Ctx;
  KernelGen G(**Root, "kernel", *B, Ctx, Checks);
  auto M = generate(G, Ctx);
  if (!M)
    return M.takeError();
  if (PTX)
    return B->targetCode(**M, G);
  if (llvm::Error E = B->lower(**M, G, Optimized))
    return std::move(E);
  std::string S;
  llvm::raw_string_ostream OS(S);
  (*M)->print(OS, nullptr);
  return S;
}

//===-- Runtime -----------------------------------------------------------===//

llvm::Expected<std::unique_ptr<Backend>> BackendContext::standard() {
  switch (Options.Backend) {
  case BackendKind::GPU:
    return makeGpuBackend(Options);
  case BackendKind::CPU:
    return makeCpuBackend(Engine, Options.Threads, Pool);
  case BackendKind::Sequential:
    break;
  }
  return makeSequentialBackend(Engine, Pool);
}

Runtime::Runtime() : Runtime(RuntimeOptions()) {}
Runtime::Runtime(const RuntimeOptions &Options)
    : P(std::make_shared<RuntimeImpl>(Options, BackendFactory())) {}
Runtime::Runtime(const RuntimeOptions &Options, BackendFactory Make)
    : P(std::make_shared<RuntimeImpl>(Options, Make)) {}
Runtime::~Runtime() = default;

llvm::Expected<Array<>> Runtime::tryRun(const Acc &A) {
  auto R = P->run(A.node());
  if (!R)
    return R.takeError();
  return Array<>(std::move(*R));
}

llvm::Expected<std::vector<Array<>>>
Runtime::tryRunAll(const std::vector<Acc> &As) {
  std::vector<NodeRef> Ns;
  for (const Acc &A : As)
    Ns.push_back(A.node());
  auto R = P->runAll(Ns);
  if (!R)
    return R.takeError();
  std::vector<Array<>> Out;
  for (std::shared_ptr<rt::Array> &A : *R)
    Out.emplace_back(std::move(A));
  return Out;
}

std::vector<Array<>> Runtime::runAll(const std::vector<Acc> &As) {
  auto R = tryRunAll(As);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return std::move(*R);
}

Array<> Runtime::run(const Acc &A) {
  auto R = tryRun(A);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return std::move(*R);
}

llvm::Expected<Array<>> Runtime::tryRun(const Acc &A,
                                        const detail::ArrayHandle &Into) {
  auto R = P->run(A.node(), Into.shared());
  if (!R)
    return R.takeError();
  return Array<>(std::move(*R));
}

Array<> Runtime::run(const Acc &A, const detail::ArrayHandle &Into) {
  auto R = tryRun(A, Into);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return std::move(*R);
}

llvm::Expected<std::string> Runtime::kernelIR(const Acc &A, bool Optimized) {
  if (!A.node())
    return failure("kernelIR: an empty Acc");
  return P->kernelCode(A.node(), Optimized, /*PTX=*/false);
}

llvm::Expected<std::string> Runtime::kernelPTX(const Acc &A) {
  if (!A.node())
    return failure("kernelPTX: an empty Acc");
  return P->kernelCode(A.node(), /*Optimized=*/true, /*PTX=*/true);
}

RuntimeStats Runtime::stats() const {
  return {P->Built.load(),    P->Hits.load(),     P->launches(),
          P->FromDisk.load(), P->Evicted.load(),  P->resident(),
          P->Pool ? uint64_t(P->Pool->reuses()) : 0, P->PlanHits.load()};
}

//===-- Prepared ----------------------------------------------------------===//

namespace llq::detail {
struct PreparedImpl {
  std::shared_ptr<RuntimeImpl> RT;
  /// The expression: its Use nodes hold the default inputs.
  NodeRef Expr;
  std::shared_ptr<Plan> P;
  /// Runs bind the plan's leaves: one at a time. Calls from several threads
  /// wait their turn, yielding (Prepared's documentation says to prepare an
  /// expression once per thread instead).
  SpinLock Lock;
};
} // namespace llq::detail

llvm::Expected<Prepared> Runtime::tryPrepare(const Acc &A) {
  if (!A.node())
    return failure("prepare: an empty Acc");
  if (!A.node()->Error.empty())
    return failure(A.node()->Error);
  auto Made = P->record(A.node());
  if (!Made)
    return Made.takeError();
  Prepared Out;
  Out.P = std::make_shared<PreparedImpl>();
  Out.P->RT = P;
  Out.P->Expr = A.node();
  Out.P->P = std::move(*Made);
  return Out;
}

Prepared Runtime::prepare(const Acc &A) {
  auto R = tryPrepare(A);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return std::move(*R);
}

size_t Prepared::numInputs() const { return P ? P->P->Inputs.size() : 0; }

std::vector<Array<>> Prepared::inputs() const {
  std::vector<Array<>> Out;
  if (P)
    for (const Node *U : P->P->Inputs)
      Out.emplace_back(U->Data);
  return Out;
}

/// The arrays a call of the prepared plan Pl runs on, into In: Inputs, or
/// with none the arrays it was built over.
static llvm::Error
bindInputs(const Plan &Pl, llvm::ArrayRef<detail::ArrayHandle> Inputs,
           llvm::SmallVectorImpl<const std::shared_ptr<rt::Array> *> &In) {
  if (Inputs.empty()) {
    for (const Node *U : Pl.Inputs)
      In.push_back(&U->Data);
  } else {
    if (Inputs.size() != Pl.Inputs.size())
      return failure(fmt::format(
          "prepared expression: given {} input array{}, expected {} (or none, "
          "to run on the arrays it was built over)",
          Inputs.size(), Inputs.size() == 1 ? "" : "s", Pl.Inputs.size()));
    for (size_t I = 0; I < Inputs.size(); ++I) {
      const std::shared_ptr<rt::Array> &A = Inputs[I].shared();
      const rt::Array &Was = *Pl.Inputs[I]->Data;
      if (!A)
        return failure(fmt::format(
            "prepared expression: input {} is an empty Array", I));
      if (A->type() != Was.type() || A->shape().rank() != Was.shape().rank())
        return failure(fmt::format(
            "prepared expression: input {} is {} {}, where the expression was "
            "prepared with {} {}; a prepared expression runs on arrays of the "
            "element types and ranks it was prepared with, of any extents "
            "(prepare it again, or run() the expression, for others)",
            I, irType(A->type()), A->shape().str(), irType(Was.type()),
            Was.shape().str()));
      In.push_back(&A);
    }
  }
  return llvm::Error::success();
}

llvm::Expected<Array<>>
Prepared::tryRun(llvm::ArrayRef<detail::ArrayHandle> Inputs,
                 const detail::ArrayHandle *Into) const {
  if (!P)
    return failure("a Prepared that no Runtime::prepare made: it has no "
                   "expression to run");
  llvm::SmallVector<const std::shared_ptr<rt::Array> *, 4> In;
  if (llvm::Error E = bindInputs(*P->P, Inputs, In))
    return std::move(E);
  std::lock_guard<SpinLock> Lock(P->Lock);
  auto R = P->RT->execute(*P->P, In, Into ? Into->shared() : nullptr,
                          /*Recycle=*/true);
  if (!R)
    return R.takeError();
  return Array<>(std::move(*R));
}

Array<> Prepared::run(llvm::ArrayRef<detail::ArrayHandle> Inputs,
                      const detail::ArrayHandle *Into) const {
  auto R = tryRun(Inputs, Into);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return std::move(*R);
}

//===-- Bound -------------------------------------------------------------===//

namespace llq::detail {
struct BoundImpl {
  ~BoundImpl() {
    if (!Registered)
      return;
    std::lock_guard<std::mutex> Lock(RT->BoundLock);
    llvm::erase(RT->Bounds, this);
    RT->Launches += launches();
  }
  uint64_t launches() const {
    return Calls.load(std::memory_order_relaxed) * LaunchesPerCall;
  }
  Prepared Prep;
  /// Prep's Runtime, which Prep keeps alive.
  RuntimeImpl *RT = nullptr;
  std::vector<Array<>> Inputs;
  Array<> Out;
  /// The launches of the first run, bound to Out, the inputs, and the
  /// arrays in between (held in Cap.Arrays); empty where they cannot be
  /// repeated.
  Capture Cap;
  /// Where the repeated launches leave the result, when not in Out's
  /// storage: copied into Out after them.
  std::shared_ptr<rt::Array> Result;
  uint64_t LaunchesPerCall = 0;
  /// Calls that repeated the launches: only the thread calling writes it.
  std::atomic<uint64_t> Calls{0};
  bool Registered = false;
};
} // namespace llq::detail

uint64_t RuntimeImpl::launches() {
  std::lock_guard<std::mutex> Lock(BoundLock);
  uint64_t N = Launches.load();
  for (const BoundImpl *B : Bounds)
    N += B->launches();
  return N;
}

/// Whether A is B's elements: of B's type and shape, in B's storage (a
/// result may be a view of the array its kernel wrote, a reshape of it).
static bool sameStorage(const rt::Array &A, const rt::Array &B) {
  if (A.type() != B.type() || !(A.shape() == B.shape()))
    return false;
  for (size_t F = 0; F < A.numFields(); ++F)
    if (A.data(F) != B.data(F))
      return false;
  return true;
}

/// Copies From's elements into To, of its type and shape.
static void copyElements(const rt::Array &From, rt::Array &To) {
  for (size_t F = 0; F < From.numFields(); ++F)
    std::memcpy(To.data(F), From.data(F),
                size_t(From.size()) * rt::byteSize(From.type().field(F)));
}

Bound Prepared::bindTo(const detail::ArrayHandle &Out,
                       llvm::ArrayRef<detail::ArrayHandle> Inputs) const {
  if (!P)
    throw ArrayError("bind: a Prepared that no Runtime::prepare made: it has "
                     "no expression to run");
  if (!Out.shared())
    throw ArrayError("bind: the output is an empty Array");
  llvm::SmallVector<const std::shared_ptr<rt::Array> *, 4> In;
  if (llvm::Error E = bindInputs(*P->P, Inputs, In))
    throw ArrayError("bind: " + llvm::toString(std::move(E)));
  if (P->P->Steps.empty())
    throw ArrayError("bind: the expression is one of its input arrays; there "
                     "is nothing to compute into the output");
  // Written at every call, the output must not be read.
  if (isAnInput(Out.raw(), In))
    throw ArrayError("bind: the output is one of the expression's inputs; "
                     "bind an array of its own");
  auto B = std::make_shared<BoundImpl>();
  B->Prep = *this;
  B->RT = P->RT.get();
  for (const std::shared_ptr<rt::Array> *A : In)
    B->Inputs.emplace_back(*A);
  B->Out = Array<>(Out.shared());
  std::lock_guard<SpinLock> Lock(P->Lock);
  auto R = P->RT->execute(*P->P, In, Out.shared(), /*Recycle=*/false, {},
                          nullptr, &B->Cap);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  const rt::Array &A = **R;
  if (A.type() != Out.type() || !(A.shape() == Out.shape()))
    throw ArrayError(fmt::format("bind: the output is {} {}, where the result "
                                 "is {} {}; bind an array of the result's "
                                 "element type and shape",
                                 irType(Out.type()), Out.shape().str(),
                                 irType(A.type()), A.shape().str()));
  // A result no kernel can write in place (an acond's or awhile's, the
  // second output of a scanl', a reshape's view): each call copies it.
  if (!sameStorage(A, Out.raw())) {
    B->Result = *R;
    copyElements(A, Out.raw());
  }
  if (B->Cap.Complete && P->RT->B->readsHostArrays()) {
    for (Capture::Step &S : B->Cap.Steps) {
      // The arrays are fixed: the recorded blocks already point into them.
      S.R->Pointers.clear();
      B->LaunchesPerCall += S.K->numPhases();
    }
    std::lock_guard<std::mutex> Lock(P->RT->BoundLock);
    P->RT->Bounds.push_back(B.get());
    B->Registered = true;
  } else {
    B->Cap = Capture();
    B->Cap.Complete = false;
    B->Result.reset();
  }
  Bound Result;
  Result.P = std::move(B);
  return Result;
}

void Bound::operator()() {
  if (!P)
    throw ArrayError("a Bound that no Prepared::bind made: it has no "
                     "expression to run");
  BoundImpl &Im = *P;
  // Through the launchers, which can compute a result that no longer fits
  // the output (a filter that keeps more this time): an error, as nothing
  // else could hold it.
  auto RunPrepared = [&Im] {
    llvm::SmallVector<detail::ArrayHandle, 4> In(Im.Inputs.begin(),
                                                 Im.Inputs.end());
    Array<> Got = Im.Prep.run(In, &Im.Out);
    if (Got.type() != Im.Out.type() || !(Got.shape() == Im.Out.shape()))
      throw ArrayError(fmt::format(
          "bound call: the result is {} {} this time, which the bound output "
          "({} {}) cannot hold",
          irType(Got.type()), Got.shape().str(), irType(Im.Out.type()),
          Im.Out.shape().str()));
    if (!sameStorage(Got.raw(), Im.Out.raw()))
      copyElements(Got.raw(), Im.Out.raw());
  };
  if (!Im.Cap.Complete) {
    RunPrepared();
    return;
  }
  Backend &B = *Im.RT->B;
  for (Capture::Step &S : Im.Cap.Steps) {
    bool Faulted = false;
    if (rt::Status St = S.R->repeat(*S.K, B, nullptr, nullptr, Faulted);
        !St.ok())
      throw ArrayError(St.message());
    if (Faulted) {
      // Run through the launchers, which say what the fault was.
      RunPrepared();
      return;
    }
  }
  if (Im.Result)
    copyElements(*Im.Result, Im.Out.raw());
  Im.Calls.store(Im.Calls.load(std::memory_order_relaxed) + 1,
                 std::memory_order_relaxed);
}

const Array<> &Bound::output() const {
  static const Array<> None;
  return P ? P->Out : None;
}

bool Bound::repeatsLaunches() const { return P && P->Cap.Complete; }
BackendKind Runtime::backend() const { return P->B->kind(); }
unsigned Runtime::numThreads() const { return P->B->parallelism(); }

//===-- Plans for ahead-of-time compilation -------------------------------===//

/// P in the ahead-of-time runtime's terms (Aot.h).
static llvm::Expected<ExportedPlan> exportOf(const Plan &P) {
  auto SourceOf = [](const Plan::Source &S) {
    aot::Source Out;
    Out.Param = S.Param;
    Out.Step = S.Step;
    Out.Output = S.Output;
    Out.Loop = S.Loop;
    return Out;
  };
  ExportedPlan E;
  for (const Plan::Step &S : P.Steps) {
    ExportedStep X;
    if (S.Ctl) {
      auto C = std::make_shared<ExportedControl>();
      C->IsLoop = S.Ctl->IsLoop;
      C->First = SourceOf(S.Ctl->First);
      for (auto [From, To] : {std::pair{S.Ctl->Test.get(), &C->Test},
                              std::pair{S.Ctl->Then.get(), &C->Then},
                              std::pair{S.Ctl->Else.get(), &C->Else}}) {
        if (!From)
          continue;
        auto Sub = exportOf(*From);
        if (!Sub)
          return Sub.takeError();
        *To = std::move(*Sub);
      }
      X.Ctl = std::move(C);
      E.Steps.push_back(std::move(X));
      continue;
    }
    X.Root = S.Root;
    X.K = S.K;
    for (auto &[Leaf, From] : S.Leaves) {
      auto It = std::find(S.Order.begin(), S.Order.end(), Leaf);
      X.Leaves.push_back({unsigned(It - S.Order.begin()), SourceOf(From)});
    }
    E.Steps.push_back(std::move(X));
  }
  E.Result = SourceOf(P.Result);
  return E;
}

llvm::Expected<ExportedPlan> llq::detail::exportPlan(Runtime &R,
                                                   const NodeRef &N) {
  if (!N)
    return failure("an empty Acc");
  if (!N->Error.empty())
    return failure(N->Error);
  auto P = R.impl().record(N, /*Compile=*/true);
  if (!P)
    return P.takeError();
  auto E = exportOf(**P);
  if (!E)
    return E.takeError();
  E->Inputs = (*P)->Inputs;
  return E;
}
