//===- Runtime.cpp - Running array expressions: fusion, caches, backends --===//
//
// run() walks an expression from the root: a consumer's producers are
// copied into one tree (fused); a consumer below another is run first and
// read as a manifest array. The tree's structure is the kernel cache's key,
// so a repeated operation costs a key, a hash lookup and the launch: no
// template is instantiated and no IR is printed or hashed. On a miss the
// consumer's skeleton is instantiated and the engine compiles it (or finds
// it in its own memory and disk caches).
//
//===----------------------------------------------------------------------===//

#include "Backends.h"
#include "llquote/skeletons/Skeleton.h"
#include "llquote/runtime/BufferPool.h"
#include "llquote/runtime/Engine.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <list>
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

std::shared_ptr<Node> copyNode(const Node &N) {
  auto C = std::make_shared<Node>();
  C->K = N.K;
  C->Name = N.Name;
  C->Type = N.Type;
  C->Sh = N.Sh;
  C->Fns = N.Fns;
  C->FnArrays = N.FnArrays;
  C->NumInputs = N.NumInputs;
  C->Consts = N.Consts;
  C->Code = N.Code;
  C->Vals = N.Vals;
  C->Data = N.Data;
  C->Skel = N.Skel;
  C->SkelId = N.SkelId;
  C->ManifestKids = N.ManifestKids;
  C->OutTypes = N.OutTypes;
  C->OutShapes = N.OutShapes;
  C->Depth = N.Depth;
  return C;
}

std::shared_ptr<Node> useOf(std::shared_ptr<rt::Array> A) {
  auto N = std::make_shared<Node>();
  N->K = Op::Use;
  N->Type = A->type();
  N->Sh = A->shape();
  N->Data = std::move(A);
  return N;
}

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

class RuntimeImpl {
  /// The results of the consumers one run() has computed: a consumer that
  /// is shared, and both halves of scanl', run once.
  using Memo = std::map<const Node *, std::vector<std::shared_ptr<rt::Array>>>;

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
    DumpDir = optionOrEnv(O.DumpIR, "LLQ_DUMP_IR");
  }

  llvm::Expected<std::shared_ptr<rt::Array>>
  run(const NodeRef &N, std::shared_ptr<rt::Array> Into = nullptr) {
    Memo M;
    // An expression with an error may be deeper than the walks below take.
    if (N && !N->Error.empty())
      return failure(N->Error);
    if (Into && reads(*N, *Into))
      Into = nullptr;
    return run(N, M, std::move(Into));
  }
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
  /// The bound on Cache's kernels (0: none); see RuntimeOptions.
  size_t MaxKernels = 1024;
  std::string DumpDir;
  std::atomic<uint64_t> Built{0}, Hits{0}, Launches{0}, FromDisk{0},
      Evicted{0};
  /// Kernels in memory now.
  uint64_t resident() {
    std::lock_guard<std::mutex> Lock(CacheLock);
    return Cache.size();
  }

private:
  llvm::Expected<std::shared_ptr<rt::Array>>
  run(const NodeRef &N, Memo &M, std::shared_ptr<rt::Array> Into = nullptr);
  llvm::Expected<std::vector<std::shared_ptr<rt::Array>>>
  materialize(const Node &C, Memo &M,
              std::shared_ptr<rt::Array> Into = nullptr);
  /// Whether the expression reads A's storage.
  static bool reads(const Node &N, const rt::Array &A) {
    if (N.K == Op::Use && N.Data && N.Data->numFields() &&
        A.numFields() && N.Data->data(0) == A.data(0))
      return true;
    for (const NodeRef &K : N.Kids)
      if (reads(*K, A))
        return true;
    return false;
  }
  /// With Dry, an array the tree reads is not computed but stands as a Use
  /// of its type and shape with no data: enough to generate its kernel.
  llvm::Expected<NodeRef> prepare(const NodeRef &P, Memo &M, bool Dry);
  llvm::Expected<std::shared_ptr<Node>> prepareConsumer(const Node &C, Memo &M,
                                                        bool Dry = false);
  /// The array the consumer-or-select P computes; with Dry, a stand-in.
  llvm::Expected<NodeRef> manifest(const NodeRef &P, Memo &M, bool Dry);
  llvm::Expected<std::shared_ptr<const Kernel>> kernelFor(const Node &Root);
  /// The consumer whose kernel computes N, with its producers fused.
  llvm::Expected<std::shared_ptr<Node>> rootOf(const NodeRef &N);
  llvm::Error dump(const llvm::Module &M, const std::string &Name,
                   const KernelGen &G);
  /// The module of G's root, as its skeleton writes it, with the division
  /// checks of checked mode.
  llvm::Expected<std::unique_ptr<llvm::Module>> generate(KernelGen &G,
                                                         llvm::LLVMContext &Ctx);

  /// Removes least recently used kernels that no run holds until the
  /// cache is within MaxKernels (or nothing more can go). CacheLock held.
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
};

} // namespace llq::detail

llvm::Expected<NodeRef> RuntimeImpl::manifest(const NodeRef &P, Memo &M,
                                              bool Dry) {
  if (Dry) {
    auto N = std::make_shared<Node>();
    N->K = Op::Use;
    N->Type = P->Type;
    N->Sh = P->Sh;
    return NodeRef(N);
  }
  auto A = run(P, M);
  if (!A)
    return A.takeError();
  return NodeRef(useOf(*A));
}

llvm::Expected<NodeRef> RuntimeImpl::prepare(const NodeRef &P, Memo &M,
                                             bool Dry) {
  if (P->K == Op::Consumer || P->K == Op::Select)
    return manifest(P, M, Dry);
  auto C = copyNode(*P);
  for (size_t I = 0; I < P->Kids.size(); ++I) {
    auto K = P->ManifestKids & (1u << I) ? manifest(P->Kids[I], M, Dry)
                                          : prepare(P->Kids[I], M, Dry);
    if (!K)
      return K.takeError();
    C->Kids.push_back(*K);
  }
  return NodeRef(C);
}

llvm::Expected<std::shared_ptr<Node>>
RuntimeImpl::prepareConsumer(const Node &C, Memo &M, bool Dry) {
  auto Root = copyNode(C);
  for (size_t I = 0; I < C.Kids.size(); ++I) {
    auto K = C.ManifestKids & (1u << I) ? manifest(C.Kids[I], M, Dry)
                                         : prepare(C.Kids[I], M, Dry);
    if (!K)
      return K.takeError();
    Root->Kids.push_back(*K);
  }
  return Root;
}

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
  auto M = G.root().Skel->generate(G, Ctx);
  if (M && G.checks())
    addDivisionChecks(**M, G);
  return M;
}

/// Whether one of the scalar functions of M that G named, or a function
/// defined in M that one of them calls, has a loop.
static bool functionsLoop(const llvm::Module &M, const KernelGen &G) {
  llvm::SmallPtrSet<const llvm::Function *, 8> Seen;
  std::vector<const llvm::Function *> Work;
  for (size_t I = 0; I < G.numFunctions(); ++I)
    if (const llvm::Function *F = M.getFunction(KernelGen::functionName(I)))
      Work.push_back(F);
  while (!Work.empty()) {
    const llvm::Function *F = Work.back();
    Work.pop_back();
    if (F->isDeclaration() || !Seen.insert(F).second)
      continue;
    llvm::SmallVector<std::pair<const llvm::BasicBlock *,
                                const llvm::BasicBlock *>, 4> Backedges;
    llvm::FindFunctionBackedges(*F, Backedges);
    if (!Backedges.empty())
      return true;
    for (const llvm::BasicBlock &BB : *F)
      for (const llvm::Instruction &I : BB)
        if (auto *CB = llvm::dyn_cast<llvm::CallBase>(&I))
          if (const llvm::Function *Callee = CB->getCalledFunction())
            Work.push_back(Callee);
  }
  return false;
}

llvm::Expected<std::shared_ptr<const Kernel>>
RuntimeImpl::kernelFor(const Node &Root) {
  std::vector<uint64_t> Key;
  Key.reserve(64);
  Key.push_back(uint64_t(B->kind()) | uint64_t(Checks) << 8);
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
  K->Loops = functionsLoop(**M, G);
  K->FnHashes = G.functionHashes();
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

llvm::Expected<std::vector<std::shared_ptr<rt::Array>>>
RuntimeImpl::materialize(const Node &C, Memo &M,
                         std::shared_ptr<rt::Array> Into) {
  auto Found = M.find(&C);
  if (Found != M.end())
    return Found->second;
  auto Root = prepareConsumer(C, M);
  if (!Root)
    return Root.takeError();
  auto K = kernelFor(**Root);
  if (!K)
    return K.takeError();
  Launch L(**Root, **K, *B);
  L.Reuse = std::move(Into);
  try {
    if (llvm::Error E = C.Skel->launch(L))
      return std::move(E);
  } catch (const ArrayError &Ex) {
    return failure(Ex.what());
  }
  Launches += (*K)->numPhases();
  M[&C] = L.Outputs;
  return L.Outputs;
}

llvm::Expected<std::shared_ptr<rt::Array>>
RuntimeImpl::run(const NodeRef &N, Memo &Done, std::shared_ptr<rt::Array> Into) {
  if (!N)
    return failure("run: an empty Acc");
  if (!N->Error.empty())
    return failure(N->Error);
  if (N->K == Op::Use)
    return N->Data;
  if (N->K == Op::Select) {
    auto Outs = materialize(*N->Kids[0], Done);
    if (!Outs)
      return Outs.takeError();
    return (*Outs)[size_t(N->Code[0])];
  }
  if (N->K == Op::Consumer) {
    auto Outs = materialize(*N, Done, std::move(Into));
    if (!Outs)
      return Outs.takeError();
    return (*Outs)[0];
  }
  auto M = makeConsumer(materializeSkeleton(), N->Name, {N});
  M->Type = N->Type;
  M->Sh = N->Sh;
  auto Outs = materialize(*M, Done, std::move(Into));
  if (!Outs)
    return Outs.takeError();
  return (*Outs)[0];
}

llvm::Expected<std::shared_ptr<Node>> RuntimeImpl::rootOf(const NodeRef &N) {
  if (!N->Error.empty())
    return failure(N->Error);
  if (N->K == Op::Select)
    return rootOf(N->Kids[0]);
  // Only the kernel's code is wanted: the arrays it reads are not computed.
  Memo Done;
  if (N->K == Op::Consumer)
    return prepareConsumer(*N, Done, /*Dry=*/true);
  auto M = makeConsumer(materializeSkeleton(), N->Name, {N});
  return prepareConsumer(*M, Done, /*Dry=*/true);
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
    : P(std::make_unique<RuntimeImpl>(Options, BackendFactory())) {}
Runtime::Runtime(const RuntimeOptions &Options, BackendFactory Make)
    : P(std::make_unique<RuntimeImpl>(Options, Make)) {}
Runtime::~Runtime() = default;

llvm::Expected<Array<>> Runtime::tryRun(const Acc &A) {
  auto R = P->run(A.node());
  if (!R)
    return R.takeError();
  return Array<>(*R);
}

Array<> Runtime::run(const Acc &A) {
  auto R = tryRun(A);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return *R;
}

llvm::Expected<Array<>> Runtime::tryRun(const Acc &A,
                                        const detail::ArrayHandle &Into) {
  auto R = P->run(A.node(), Into.shared());
  if (!R)
    return R.takeError();
  return Array<>(*R);
}

Array<> Runtime::run(const Acc &A, const detail::ArrayHandle &Into) {
  auto R = tryRun(A, Into);
  if (!R)
    throw ArrayError(llvm::toString(R.takeError()));
  return *R;
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
  return {P->Built.load(),    P->Hits.load(),     P->Launches.load(),
          P->FromDisk.load(), P->Evicted.load(),  P->resident(),
          P->Pool ? uint64_t(P->Pool->reuses()) : 0};
}
BackendKind Runtime::backend() const { return P->B->kind(); }
unsigned Runtime::numThreads() const { return P->B->parallelism(); }
