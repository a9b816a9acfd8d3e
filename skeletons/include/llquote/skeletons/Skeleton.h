//===- Skeleton.h - What a skeleton is, and what it is given ----*- C++ -*-===//
//
// A skeleton turns one consumer node into a kernel module and runs it:
//
//   - generate(): instantiates the skeleton's dialect template for the node,
//     with the element code of its (fused) producers that KernelGen writes.
//     Every phase of the skeleton is one entry point with the gang's kernel
//     signature, void(i64 start, i64 end, ptr args); the args block holds
//     one 8-byte slot per buffer, extent and constant the code reads.
//   - launch(): allocates the outputs, computes what the host decides
//     (chunk counts, offsets), and runs the phases through the Backend.
//     That half, the launch protocol, is Launch.h, without LLVM; the
//     library's launchers live in skeletons/host (llquote_host).
//
// The target-specific parts sit behind Backend: how an index space is
// launched, whether atomics exist, where arrays live. Skeletons ask it;
// they never test which backend they run on.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_SKELETON_H
#define LLQUOTE_SKELETONS_SKELETON_H

#include "llquote/skeletons/Launch.h"
#include "llquote/skeletons/Node.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace llvm {
class Module;
class LLVMContext;
} // namespace llvm

namespace llq::rt {
class BufferPool;
class Engine;
} // namespace llq::rt

namespace llq::detail {

struct Kernel;
class KernelGen;
class Backend;

/// What a BackendFactory is given (Runtime(Options, Make)).
struct BackendContext {
  const RuntimeOptions &Options;
  /// The Runtime's JIT engine, which the CPU backends compile with.
  rt::Engine &Engine;
  /// The Runtime's pool of freed array storage (RuntimeOptions::PoolBytes).
  std::shared_ptr<rt::BufferPool> Pool;
  /// The backend Options.Backend names, as a Runtime made without a
  /// factory has it; for a backend that wraps it.
  llvm::Expected<std::unique_ptr<Backend>> standard();
};

/// Where kernels run: the one seam between the skeletons and a target.
/// The skeletons and the Runtime ask a backend what it can do (atomics(),
/// piecesInOrder(), tiledWalks(), grain()) and never which one it is; a
/// backend compiles, lowers, shows and launches its kernels, and places the
/// arrays they read and write. The CPU and sequential backends live in
/// CpuBackends.cpp, the GPU backend in Gpu.cpp; docs/SkeletonAuthoring.md
/// says how to write another.
class Backend : public Executor {
public:
  /// For Runtime::backend() and the kernel cache's key only.
  virtual BackendKind kind() const = 0;
  /// Compiles the module G wrote into K's phases; says in How where the
  /// code came from ("compiled", "loaded from the disk cache", ...).
  virtual llvm::Error compile(std::unique_ptr<llvm::Module> M,
                              std::unique_ptr<llvm::LLVMContext> Ctx,
                              const KernelGen &G, Kernel &K,
                              std::string &How) = 0;
  /// Makes M, which G wrote, what compile() generates code from: with
  /// Optimize, the optimisation pipeline included. Runtime::kernelIR and
  /// LLQ_DUMP_IR show it.
  virtual llvm::Error lower(llvm::Module &M, const KernelGen &G,
                            bool Optimize) = 0;
  /// The target code of M, which G wrote, as text (PTX), for
  /// Runtime::kernelPTX and LLQ_DUMP_IR; an error where the backend shows
  /// none.
  virtual llvm::Expected<std::string> targetCode(llvm::Module &M,
                                                 const KernelGen &G);
  /// The file extension LLQ_DUMP_IR gives targetCode() ("ptx"), or "" when
  /// there is none to write.
  virtual const char *targetCodeExtension() const { return ""; }
};

/// A backend that does what Inner does, for a backend that changes only
/// part of it (counts or records launches, say): it overrides what it
/// changes and calls WrappingBackend's for the rest. It does not forward
/// callsInline(), so that every launch, repeated ones too, goes through
/// its launch(); one that leaves launches alone may forward it.
class WrappingBackend : public Backend {
public:
  explicit WrappingBackend(std::unique_ptr<Backend> Inner)
      : Inner(std::move(Inner)) {}
  BackendKind kind() const override { return Inner->kind(); }
  unsigned parallelism() const override { return Inner->parallelism(); }
  bool atomics() const override { return Inner->atomics(); }
  bool piecesInOrder() const override { return Inner->piecesInOrder(); }
  bool tiledWalks() const override { return Inner->tiledWalks(); }
  bool readsHostArrays() const override { return Inner->readsHostArrays(); }
  bool nonTemporalStores() const override {
    return Inner->nonTemporalStores();
  }
  bool nonTemporalStreams() const override {
    return Inner->nonTemporalStreams();
  }
  llvm::Error compile(std::unique_ptr<llvm::Module> M,
                      std::unique_ptr<llvm::LLVMContext> Ctx,
                      const KernelGen &G, Kernel &K,
                      std::string &How) override {
    return Inner->compile(std::move(M), std::move(Ctx), G, K, How);
  }
  llvm::Error lower(llvm::Module &M, const KernelGen &G,
                    bool Optimize) override {
    return Inner->lower(M, G, Optimize);
  }
  llvm::Expected<std::string> targetCode(llvm::Module &M,
                                         const KernelGen &G) override {
    return Inner->targetCode(M, G);
  }
  const char *targetCodeExtension() const override {
    return Inner->targetCodeExtension();
  }
  rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t Grain) override {
    return Inner->launch(K, Phase, Begin, End, Args, Grain);
  }
  int64_t grain(int64_t HostGrain) const override {
    return Inner->grain(HostGrain);
  }
  rt::Expected<std::shared_ptr<rt::Array>>
  allocate(const ElemType &T, const Shape &Sh) override {
    return Inner->allocate(T, Sh);
  }
  rt::Expected<std::shared_ptr<void>> scratch(size_t Bytes) override {
    return Inner->scratch(Bytes);
  }
  rt::Expected<std::shared_ptr<rt::Array>>
  resident(const std::shared_ptr<rt::Array> &A) override {
    return Inner->resident(A);
  }

protected:
  std::unique_ptr<Backend> Inner;
};

/// Generated code: hygienic fragments (LLQ_HYGIENIC_INSTRS), in order, for
/// one `$instrs:` antiquote of a skeleton's template, which splices them as
/// one. Each fragment's own names are renamed apart at its splice.
using Code = std::vector<Fragment>;
/// An operand of generated code, as a `$opr:` antiquote takes it: a
/// constant or number, a name of the skeleton's template (`"j"` for its
/// variable %j), a slot (KernelGen::slot), or a value a fragment exports.
using Operand = Binding;
/// An operand with its type, for the arguments of a call.
struct Typed {
  llvm::Type *Ty;
  Operand V;
};

/// Writes a kernel module for one consumer: slots, types, element code.
/// Every piece of code it writes is a quoted fragment; an error in one (a
/// mistake of the skeleton's) is kept and returned by instantiate().
class KernelGen {
public:
  /// With Checks, the kernel is built for checked mode: every phase takes
  /// the fault word (faultParam()), for addDivisionChecks. Types are made
  /// in Ctx, the context the kernel's module is built in.
  KernelGen(const Node &Root, std::string Name, const Backend &B,
            llvm::LLVMContext &Ctx, bool Checks = false);

  const Node &root() const { return Root; }
  const std::string &name() const { return Name; }
  const Backend &backend() const { return B; }
  bool atomics() const { return B.atomics(); }
  llvm::LLVMContext &context() const { return Ctx; }

  /// Splices template T, an LLQ_HYGIENIC_INSTRS template, with Bound into
  /// C, and returns the value it exports as Export (none: an empty
  /// Operand). The fragment's names are its own: what it reads it is given
  /// in Bound, what it assigns of the template around it by `$id:`.
  Operand emit(Code &C, const Template &T, const Bindings &Bound,
               const char *Export = nullptr);
  /// The same, for a template exporting several values: they are returned
  /// in the order of Exports.
  std::vector<Operand> emitAll(Code &C, const Template &T,
                               const Bindings &Bound,
                               const std::vector<std::string> &Exports);
  /// Splices T, an LLQ_INSTRS template written in the names of the
  /// skeleton's template (it reads %acc, %j, ... by name), with Bound into
  /// C; it assigns the template variables in Outputs, and no others.
  void code(Code &C, const Template &T, const Bindings &Bound,
            std::vector<std::string> Outputs = {});
  /// Code setting the skeleton template's variable Var (%x for "x") to V,
  /// of type T.
  void assign(Code &C, const std::string &Var, llvm::Type *T,
              const Operand &V);

  /// The LLVM types of an element type (a literal struct for a tuple) and
  /// of a scalar in registers (i1 for Bool) and in memory (i8 for Bool).
  llvm::Type *type(const ElemType &T) const;
  llvm::Type *type(ScalarKind K) const;
  llvm::Type *memType(ScalarKind K) const;
  /// A type a function's signature names ("{ i64, i64 }"), in the
  /// kernel's context.
  llvm::Type *typeOf(const std::string &Signature);

  /// The kernel's name for F, "f0" (a global name, for `$gid:`); its
  /// definition goes into the module.
  std::string fn(const Fn &F);
  /// The parameter that holds slot S, "s3" (a name, for `$opr:`).
  Operand slot(SlotSpec S);
  Operand buffer(const Node &N, unsigned Field);
  Operand extent(const Node &N, unsigned Dim);
  Operand val(const Node &N, unsigned K);
  Operand out(unsigned Output, unsigned Field, bool NoAlias = true);
  Operand hostInt(unsigned K);
  Operand hostPtr(unsigned K, bool NoAlias = true);
  /// A pointer to the launch's fault word, an i64 that starts at -1.
  /// Code that finds the program at fault (an index a projection returned
  /// outside its source, say) stores the preorder number of the node at
  /// fault there, atomically, and goes on without the bad access; the
  /// launch then fails with a message that names the node.
  Operand fault();
  /// In checked mode, the name of the phases' fault parameter ("s0");
  /// otherwise empty.
  const std::string &faultParam() const { return FaultParam; }
  bool checks() const { return !FaultParam.empty(); }
  /// Code that builds constant C of N; returns its operand.
  Operand constant(const Node &N, unsigned C, Code &Out);

  /// Code computing N's element at a linear position / a multi-index
  /// (outermost first); returns the operand that holds it.
  Operand elemLinear(const Node &N, const Operand &L, Code &Out);
  Operand elemMulti(const Node &N, const std::vector<Operand> &Ix, Code &Out);
  /// Row-major position of Ix in N's shape, and the reverse: the index of
  /// L in the shape of N's first Dims dimensions (all of them if negative).
  Operand linearOf(const Node &N, const std::vector<Operand> &Ix, Code &Out);
  std::vector<Operand> multiOf(const Node &N, const Operand &L, Code &Out,
                               int Dims = -1);
  /// `call` of F on typed arguments; returns the result.
  Operand call(const Fn &F, const std::vector<Typed> &Args, Code &Out);
  /// The same for Owner's function FnIx, adding the arrays it reads.
  Operand call(const Node &Owner, unsigned FnIx, std::vector<Typed> Args,
               Code &Out);
  /// Whether Ix (an i64) lies in [0, Extent), and SoFar (an i1) holds.
  Operand inRange(Code &Out, const Operand &Ix, const Operand &Extent,
                  const Operand &SoFar);
  /// Field F of the tuple Agg, of type Tuple.
  Operand extractField(Code &Out, llvm::Type *Tuple, const Operand &Agg,
                       unsigned F);
  /// Loads / stores an element of type T at position L, one buffer per
  /// field. A NonTemporal store is marked `!nontemporal`: it bypasses the
  /// caches where the target can, so that writing an output far larger
  /// than the caches does not first read each of its lines from memory.
  /// Use it only for outputs too large to be read again from a cache.
  Operand load(const ElemType &T, const std::vector<Operand> &Bufs,
               const Operand &L, Code &Out);
  void store(const ElemType &T, const std::vector<Operand> &Bufs,
             const Operand &V, const Operand &L, Code &Out,
             bool NonTemporal = false);
  std::vector<Operand> outBuffers(unsigned Output, const ElemType &T,
                                  bool NoAlias = true);

  /// Instantiates Skel, a module template with the antiquotes $defs:fns,
  /// $params:params and $defs:entries besides those in Extra; each phase P
  /// of Phases is a function @body.P of the template, exported as
  /// @NAME.P.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  instantiate(const Template &Skel, Bindings Extra,
              const std::vector<std::string> &Phases, llvm::LLVMContext &Ctx);

  const std::vector<SlotSpec> &slots() const { return Slots; }
  /// The text hash (FnImpl::Hash) of each scalar function, by index.
  std::vector<uint64_t> functionHashes() const;
  const std::vector<std::string> &phases() const { return Phases; }
  /// The scalar functions the kernel calls, functionName(0) to
  /// functionName(N-1) in its module.
  size_t numFunctions() const { return Fns.size(); }
  const FnImpl &function(size_t I) const { return *Fns[I]; }
  /// The module's name for scalar function I, "f3" (fn() gives "@f3").
  static std::string functionName(size_t I);
  /// Preorder numbering of the tree under Root.
  unsigned indexOf(const Node &N) const;

private:
  const Node &Root;
  std::string Name;
  const Backend &B;
  llvm::LLVMContext &Ctx;
  /// The first mistake in a fragment, returned by instantiate().
  std::string Failed;
  /// T's fragment with Bound (Names: its exports or outputs), or none
  /// after keeping its mistake in Failed.
  std::optional<Fragment> quote(const Template &T, const Bindings &Bound,
                                std::vector<std::string> Names);
  /// `T V`, an argument of a call.
  Binding typedArg(llvm::Type *T, const Operand &V);
  llvm::StringMap<llvm::Type *> Signatures;
  std::map<const Node *, unsigned> Index;
  std::vector<SlotSpec> Slots;
  std::map<SlotSpec, unsigned> SlotIx;
  std::vector<const FnImpl *> Fns;
  std::vector<std::string> Phases;
  std::string FaultParam;
};

/// The message of fault code At of L's kernel, naming the scalar function
/// or index function at fault and its C++ place: Kernel::DescribeFault of
/// every kernel the Runtime compiles.
std::string describeFault(const Launch &L, int64_t At);

/// Checked mode (RuntimeOptions::Checks): guards every integer division
/// and remainder in the scalar functions of M, which G wrote in checked
/// mode, so that a divisor that would trap stores a DivisionFault code
/// instead (Checks.cpp).
void addDivisionChecks(llvm::Module &M, const KernelGen &G);

/// Every phi of a struct type in M becomes a phi per field and an
/// insertvalue of them (SplitAggregatePhis.cpp), so that reductions over
/// struct variables vectorize like scalar ones.
void splitAggregatePhis(llvm::Module &M);

/// Sets K.Loops and K.Weight from the scalar functions of M that G named
/// and the functions defined in M that they call: whether one has a loop,
/// and their instructions, a call to anything but a cheap intrinsic (exp,
/// log, sin, ...) counting as 16.
void weighFunctions(const llvm::Module &M, const KernelGen &G, Kernel &K);

/// Defines VectorName, a declaration in M of type (<L x T>, ...) -> <L x T>,
/// as the function ScalarName of M, of type (T, ...) -> T, on every lane
/// (WidenLanes.cpp): where ScalarName is one block that touches no memory,
/// divides no integers and calls only intrinsics with vector forms. Returns
/// false, M unchanged, where it is not.
bool widenLanes(llvm::Module &M, llvm::StringRef ScalarName,
                llvm::StringRef VectorName);

class Skeleton : public Launcher {
public:
  /// Instantiates the skeleton's template for the consumer G.root().
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const = 0;
};

/// A skeleton of the library: its host half is Host, one of the launchers
/// of llquote_host (skeletons/host/Launchers.cpp), shared with programs
/// that run kernels compiled ahead of time.
class LibrarySkeleton : public Skeleton {
public:
  explicit LibrarySkeleton(const Launcher &Host) : Host(Host) {}
  const char *name() const override { return Host.name(); }
  int64_t variant(const Node &N, const Executor &B) const override {
    return Host.variant(N, B);
  }
  rt::Status launch(Launch &L) const override { return Host.launch(L); }
  rt::Status reshape(Node &N) const override { return Host.reshape(N); }
  bool repeatable() const override { return Host.repeatable(); }

private:
  const Launcher &Host;
};

/// A consumer node of Skel over Kids.
std::shared_ptr<Node> makeConsumer(const Skeleton &Skel, const char *Name,
                                   std::vector<NodeRef> Kids);
/// A Select of each of N's outputs.
std::vector<Acc> outputsOf(const std::shared_ptr<Node> &N);

/// An llvm::Error holding Message.
llvm::Error failure(const std::string &Message);
/// Code folding the elements [First, Last) (at least one) with the
/// function F (a name for `$gid:`) into the template variable Into, in
/// index order, as four quarters at once: four chains of calls, so that a
/// function with a long latency (a floating-point add) keeps four in
/// flight, whose folds are then combined in order. Only associativity is
/// used. A range of fewer than four elements is one chain. Elem computes
/// X, the element at the template variable J; T is the element type.
/// Assigns %len, %q (a quarter's length), %q0 .. %q3 (the quarters'
/// starts, the last quarter running to Last), %multi (whether there are
/// quarters) and %a0 .. %a3 (their folds under %multi; Into otherwise),
/// for a caller to read, and %i, %tail and %next. With Chains 8, each
/// quarter (then of even length) is two halves folded at once, eight
/// chains in all, and a range of fewer than eight elements is one chain;
/// it assigns the same variables.
Code foldRange(KernelGen &G, const Code &Elem, const Operand &X,
               const std::string &J, llvm::Type *T, const std::string &F,
               const Operand &First, const Operand &Last,
               const std::string &Into, unsigned Chains = 4);
/// foldRange's eight chains in three parts, for a caller that runs the
/// steps among other work: Start assigns the variables foldRange's do but
/// the combined ones (%len, %e, %q, %q0 .. %q3, %h0 .. %h3, %multi) and,
/// under %multi, the chains %o0 .. %o7 from their first elements; Step
/// advances every chain by its element %i (1 <= %i < %e); End folds the
/// last chain's tail and combines the chains in order into Into, or folds
/// the range as one chain where it has fewer than eight elements, and
/// assigns %a0 .. %a3. Start, the steps for %i from 1 to %e, End: what
/// foldRange(..., 8) is, association included.
struct FoldParts {
  Code Start, Step, End;
};
FoldParts foldEighthsParts(KernelGen &G, const Code &Elem, const Operand &X,
                           const std::string &J, llvm::Type *T,
                           const std::string &F, const Operand &First,
                           const Operand &Last, const std::string &Into);
/// Whether elements of type T can be scanned several at a time
/// (scanByLanes): one field that is not Bool (whose registers are i1 and
/// memory i8).
bool lanesFit(const ElemType &T);
/// What the streaming scan folds meanwhile: the next chunk's range, the
/// start, step and rest of its fold, and the variables they assign (and
/// any others the caller's code assigns, %o for a row's stores).
struct LanesAhead {
  Code Range, Start, Step, Rest;
  std::vector<std::string> Vars;
};
/// A scan by lanes, its declaration of F's vector form for `$defs:lanes`,
/// and that form's name, which widenLanes(M, F, VectorFn) defines after
/// instantiation (where it cannot, the caller instantiates its scalar scan
/// instead).
struct LanesScan {
  Code Scan;
  Binding Declaration = std::vector<Binding>();
  std::string VectorFn;
};
/// Code scanning elements with F (a name for `$gid:`) from the template
/// variable %from, in scan order (upwards for Left, else downwards), to End
/// (exclusive), eight at a time (Scan.cpp, ScanLanes), the value of
/// everything before in %acc, and the rest with Step, which scans element
/// %j into %acc and stores it. Elem sets %x to element %j; StoreJ stores
/// %acc as element %j's result (for Exclusive, the value before it). Leaves
/// %acc the last element's. Assigns %span, %nvec, %vspan, %acc1, %accv,
/// %k, %lb, %r, %j, %x and Ahead's variables.
LanesScan scanByLanes(KernelGen &G, llvm::Type *T, const std::string &F,
                      const Code &Elem, const Code &Step, bool Left,
                      bool Exclusive, const std::function<void(Code &)> &StoreJ,
                      const Operand &End, const LanesAhead &Ahead = {});
/// Code setting %row and %s, the row and the segment of index %it of a
/// segmented operation on an array of rank Rank with %nseg segments a row:
/// for a vector, %it itself, without a division.
Code rowAndSegment(KernelGen &G, unsigned Rank);

/// The skeletons of the library.
const Skeleton &materializeSkeleton();
/// The materialising consumer that computes the producer N.
std::shared_ptr<Node> makeMaterialize(const NodeRef &N);
/// The scans of arrays of rank 2 or more, row by row (ScanRows.cpp).
const Skeleton &scanRowsSkeleton(bool Left);

} // namespace llq::detail

/// The names a skeleton outside the library uses (docs/SkeletonAuthoring.md).
namespace llq::authoring {
using detail::Code;
using detail::Operand;
using detail::Typed;
using detail::Backend;
using detail::WrappingBackend;
using detail::BackendContext;
using detail::failure;
using detail::Kernel;
using detail::irType;
using detail::KernelGen;
using detail::Launch;
using detail::makeConsumer;
using detail::Node;
using detail::Skeleton;
} // namespace llq::authoring

#endif // LLQUOTE_SKELETONS_SKELETON_H
