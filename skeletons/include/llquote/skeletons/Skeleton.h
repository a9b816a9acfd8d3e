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
//
// The target-specific parts sit behind Backend: how an index space is
// launched, whether atomics exist, where arrays live. Skeletons ask it;
// they never test which backend they run on.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_SKELETON_H
#define LLQUOTE_SKELETONS_SKELETON_H

#include "llquote/skeletons/Node.h"
#include "llquote/runtime/Scheduler.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
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
class Backend {
public:
  virtual ~Backend() = default;
  /// For Runtime::backend() and the kernel cache's key only.
  virtual BackendKind kind() const = 0;
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
  /// Runs phase Phase of K over [Begin, End), in pieces that start at
  /// Begin + k * Grain and hold whole multiples of Grain (the last one
  /// what is left); Args is the argument block, one 8-byte slot each.
  virtual rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                            int64_t End, void *Args, int64_t Grain) = 0;
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
};

/// A backend that does what Inner does, for a backend that changes only
/// part of it (counts or records launches, say): it overrides what it
/// changes and calls WrappingBackend's for the rest.
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

/// Fault word codes from 2^40 up are checked-mode faults: DivisionFault +
/// 2 * I is an integer division by zero in scalar function I of the
/// kernel, and + 1 a signed division overflow (the least value by -1).
/// Codes below are the preorder numbers of the nodes at fault.
constexpr int64_t DivisionFault = int64_t(1) << 40;
/// ReadFault + 64 * I + K: scalar function I of the kernel read its array
/// parameter K (FnImpl::Arrays) at an index outside the array.
constexpr int64_t ReadFault = int64_t(1) << 41;

/// Checked mode (RuntimeOptions::Checks): guards every integer division
/// and remainder in the scalar functions of M, which G wrote in checked
/// mode, so that a divisor that would trap stores a DivisionFault code
/// instead (Checks.cpp).
void addDivisionChecks(llvm::Module &M, const KernelGen &G);

/// Every phi of a struct type in M becomes a phi per field and an
/// insertvalue of them (SplitAggregatePhis.cpp), so that reductions over
/// struct variables vectorize like scalar ones.
void splitAggregatePhis(llvm::Module &M);

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
  /// Whether the backend loaded the code from its disk cache.
  bool FromDisk = false;
  size_t numPhases() const { return std::max(Phases.size(), Device.size()); }
};

/// Sets K.Loops and K.Weight from the scalar functions of M that G named
/// and the functions defined in M that they call: whether one has a loop,
/// and their instructions, a call to anything but a cheap intrinsic (exp,
/// log, sin, ...) counting as 16.
void weighFunctions(const llvm::Module &M, const KernelGen &G, Kernel &K);

/// The nodes of the tree under Root in preorder: the numbering KernelGen
/// gives the slots, and Launch fills them in.
std::vector<const Node *> preorder(const Node &Root);

/// One run of a compiled kernel.
class Launch {
public:
  /// Order, if given, is preorder(Root), made once for many launches, and
  /// outlives the Launch.
  Launch(const Node &Root, const Kernel &K, Backend &B,
         const std::vector<const Node *> *Order = nullptr);
  const Node &root() const { return Root; }
  Backend &backend() { return B; }

  /// Appends an output array, which the kernel must write completely: the
  /// caller's array to reuse if it fits (output 0 only), else new storage
  /// that is not zero-filled.
  llvm::Error output(const ElemType &T, const Shape &Sh);
  /// An array of the caller's that output 0 may be written into.
  std::shared_ptr<rt::Array> Reuse;
  /// Zero-filled scratch memory that lives as long as the Launch.
  void *scratch(size_t Bytes);
  /// Runs phase Phase over [Begin, End).
  llvm::Error run(unsigned Phase, int64_t Begin, int64_t End, int64_t Grain);
  /// The smallest piece of an element-wise phase that a thread takes, and
  /// the longest range run on the calling thread alone. HostGrain is the
  /// skeleton's for elements of 24 instructions; the kernel's weight
  /// scales it (Kernel::Weight), from 8 times it for the cheapest
  /// elements (a map of 2 instructions and a ret: 32768 for 4096, below
  /// which the gang's launch, 1 to 2 us, costs more than sharing the range
  /// saves) down to 1/16 of it, at least 64, for costly ones, in multiples
  /// of 64.
  /// 16 where the kernel's functions loop, so that a few thousand costly
  /// elements are still shared among the threads; the backend's own grain
  /// on a GPU. docs/Skeletons.md gives the measurements.
  int64_t grain(int64_t HostGrain) const;

  llvm::SmallVector<std::shared_ptr<rt::Array>, 2> Outputs;
  /// Set by a skeleton whose first phases run before it knows its outputs'
  /// shapes (filter counts, then allocates): an output not yet allocated
  /// is passed as a null pointer, which those phases must not write.
  /// Otherwise a phase that writes an unallocated output is an error.
  bool OutputsPending = false;
  /// The values of the kernel's Host slots.
  llvm::SmallVector<uint64_t, 4> Host;

private:
  const Node &Root;
  const Kernel &K;
  Backend &B;
  std::vector<const Node *> OwnOrder;
  const std::vector<const Node *> &Nodes;
  llvm::SmallVector<uint64_t, 16> Args;
  std::vector<std::shared_ptr<void>> Scratch;
  /// Whether kernels read the host's arrays (Backend::readsHostArrays).
  bool HostArrays;
  /// The arrays the kernel reads, as the backend holds them.
  llvm::SmallVector<
      std::pair<const rt::Array *, std::shared_ptr<rt::Array>>, 4>
      Resident;
  /// The launch's fault word, allocated by the backend when a slot needs it.
  int64_t *FaultWord = nullptr;
};

class Skeleton {
public:
  virtual ~Skeleton() = default;
  virtual const char *name() const = 0;
  /// Which of its kernels the skeleton generates for the consumer N on B,
  /// where that depends on more than N's structure (on its sizes, say):
  /// part of the kernel's key, and what generate() reads back from
  /// G.root() and G.backend(). One kernel: 0.
  virtual int64_t variant(const Node &N, const Backend &B) const {
    return 0;
  }
  virtual llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const = 0;
  virtual llvm::Error launch(Launch &L) const = 0;
};

/// A consumer node of Skel over Kids.
std::shared_ptr<Node> makeConsumer(const Skeleton &Skel, const char *Name,
                                   std::vector<NodeRef> Kids);
/// A Select of each of N's outputs.
std::vector<Acc> outputsOf(const std::shared_ptr<Node> &N);

/// Whether N's elements take at least Bytes bytes (without overflow, for
/// any shape).
bool holdsAtLeast(const Node &N, int64_t Bytes);
/// How many chunks of at least MinChunk a range of N splits into for
/// Threads threads (0 when N is 0).
int64_t chunksFor(int64_t N, unsigned Threads, int64_t MinChunk);
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
/// for a caller to read, and %i, %tail and %next.
Code foldRange(KernelGen &G, const Code &Elem, const Operand &X,
               const std::string &J, llvm::Type *T, const std::string &F,
               const Operand &First, const Operand &Last,
               const std::string &Into);

/// Reads a segment descriptor S (a vector of i32 or i64 lengths) into
/// Offs and Lens (S.size() each); checks that no length is negative, that
/// none is empty unless AllowEmpty, and that they add up to Inner. The
/// errors name the operation Name.
llvm::Error readSegments(const char *Name, const rt::Array &S, int64_t Inner,
                         bool AllowEmpty, int64_t *Offs, int64_t *Lens);
/// readSegments of the manifest segment descriptor Segs of L's operation,
/// into scratch offsets and lengths.
llvm::Error segmentsOf(Launch &L, const Node &Segs, int64_t Inner,
                       bool AllowEmpty, int64_t *&Offs, int64_t *&Lens);

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
