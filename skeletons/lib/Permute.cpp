//===- Permute.cpp - permute: scatter with a combining function -----------===//
//
// Two phases at heart. `init` writes the defaults (fused) into the output;
// `scatter` runs over the source, projects each index to a target, drops a
// target outside the output's shape, and combines the element into the
// target:
//   - with one atomicrmw when the function is one (add, fadd, and, or, xor,
//     signed/unsigned min/max, minnum/maxnum);
//   - else with a cmpxchg loop on the element's bits;
//   - else, for tuples, under a spinlock byte per target cell.
// A backend without atomics (the sequential one) gets a plain
// read-combine-write.
//
// When the output is small beside the source (a histogram: 256 bins, a
// million elements), every thread hammering the same few cells with atomics
// spends its time moving cache lines. Then, for elements that are not
// tuples, `scatter` is replaced by two phases: `private` scatters each part
// of the source (one per thread) into a private copy of the output, with a
// byte per cell that says whether the part reached it, and `merge` combines
// the parts' copies into the output, cell by cell, in part order. Only the
// combination order changes, which permute leaves open anyway. When the
// function is integer add, or, xor or unsigned max, whose identity is zero,
// the copies start as zeros (scratch memory is zero-filled) and need no
// reached bytes: each element is a load, the operation and a store, and an
// unreached cell combines zero into the output, which leaves it as it was.
// The copies start 4 KiB apart (PartAlignBytes): two cores scattering into
// one page slow each other down.
// A scatter that the backend runs on the calling thread alone, in one call
// (Executor::callsInline: a short one, or any on a gang of one), takes a
// fifth phase, `direct`: a plain read-combine-write into the output, as the
// sequential backend's `scatter` is. A backend that does not say so (a
// wrapper) takes the private copy, with a single part, where that copy is
// no longer than the source: atomics would only cost there.
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;
using namespace llq::detail::permute;

namespace {

const Template PermuteSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.init(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  for i64 %i in %lo to %hi {
    $instrs:copy
  }
  ret void
}

define internal void @body.scatter(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  for i64 %i in %lo to %hi {
    $instrs:target
    if %inside {
      $instrs:combine
    }
  }
  ret void
}

define internal void @body.direct(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  for i64 %i in %lo to %hi {
    $instrs:target
    if %inside {
      $instrs:direct
    }
  }
  ret void
}

define internal void @body.private(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:psetup
  for i64 %i in %lo to %hi {
    $instrs:target
    if %inside {
      $instrs:pcombine
    }
  }
  ret void
}

define internal void @body.merge(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:msetup
  for i64 %i in %lo to %hi {
    for i64 %part in 0 to %parts {
      $instrs:mcombine
    }
  }
  ret void
}

$defs:entries
)");


/// Whether F is an operation whose identity is zero (integer add, or, xor,
/// unsigned max), so that a private copy may start as zeros.
bool zeroIsIdentity(const Fn &F) {
  const std::string &Op = F.impl().AtomicOp;
  return Op == "add" || Op == "or" || Op == "xor" || Op == "umax";
}

/// The element combined into its target with one atomicrmw, one template
/// per operation a function can be (FnImpl::AtomicOp).
const Template AtomicAdd = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw add ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicFAdd = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw fadd ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicAnd = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw and ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicOr = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw or ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicXor = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw xor ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicMax = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw max ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicMin = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw min ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicUMax = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw umax ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicUMin = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw umin ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicFMax = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw fmax ptr %ap, $type:t $opr:x monotonic
)");
const Template AtomicFMin = LLQ_HYGIENIC_INSTRS(R"(
  %ap = getelementptr $type:t, ptr $opr:buf, i64 $opr:ix
  %ao = atomicrmw fmin ptr %ap, $type:t $opr:x monotonic
)");

/// The template of atomicrmw operation Op, or null.
const Template *atomicCombine(const std::string &Op) {
  static const std::pair<const char *, const Template *> Ops[] = {
      {"add", &AtomicAdd},   {"fadd", &AtomicFAdd}, {"and", &AtomicAnd},
      {"or", &AtomicOr},     {"xor", &AtomicXor},   {"max", &AtomicMax},
      {"min", &AtomicMin},   {"umax", &AtomicUMax}, {"umin", &AtomicUMin},
      {"fmax", &AtomicFMax}, {"fmin", &AtomicFMin}};
  for (const auto &[Name, T] : Ops)
    if (Op == Name)
      return T;
  return nullptr;
}

/// The element combined into its target with a compare-and-swap loop on
/// the target's bits: a bitcast between the element and its bits (a no-op
/// for integers), or, for a bool, a byte.
const Template CasCombine = LLQ_HYGIENIC_INSTRS(R"(
  %cp = getelementptr $type:bits, ptr $opr:buf, i64 $opr:ix
  %cur = load atomic $type:bits, ptr %cp monotonic, align $const:align
  %spin = i1 true
  while %spin {
    %oldv = bitcast $type:bits %cur to $type:t
    %newv = call $type:t $gid:f($type:t $opr:x, $type:t %oldv)
    %newb = bitcast $type:t %newv to $type:bits
    %pair = cmpxchg ptr %cp, $type:bits %cur, $type:bits %newb monotonic monotonic
    %cur = extractvalue { $type:bits, i1 } %pair, 0
    %done = extractvalue { $type:bits, i1 } %pair, 1
    %spin = xor i1 %done, true
  }
)");
const Template CasCombineBool = LLQ_HYGIENIC_INSTRS(R"(
  %cp = getelementptr i8, ptr $opr:buf, i64 $opr:ix
  %cur = load atomic i8, ptr %cp monotonic, align 1
  %spin = i1 true
  while %spin {
    %oldv = trunc i8 %cur to i1
    %newv = call i1 $gid:f(i1 $opr:x, i1 %oldv)
    %newb = zext i1 %newv to i8
    %pair = cmpxchg ptr %cp, i8 %cur, i8 %newb monotonic monotonic
    %cur = extractvalue { i8, i1 } %pair, 0
    %done = extractvalue { i8, i1 } %pair, 1
    %spin = xor i1 %done, true
  }
)");

/// A tuple's target cell under its lock byte.
const Template Lock = LLQ_HYGIENIC_INSTRS(R"(
  %lp = getelementptr i8, ptr $opr:locks, i64 $opr:ix
  %spin = i1 true
  while %spin {
    %held = atomicrmw xchg ptr %lp, i8 1 acquire
    %spin = icmp ne i8 %held, 0
  }
)");
const Template Unlock = LLQ_HYGIENIC_INSTRS(R"(
  store atomic i8 0, ptr $opr:lock release, align 1
)");

/// The private phase's part of the source, and its copy of the output
/// (with the bytes that say a cell was reached).
const Template PrivateSetup = LLQ_INSTRS(R"(
  %part = sdiv i64 %lo, $opr:partlen
  %pfirst = mul i64 %part, $opr:stride
  %pcopy = getelementptr $type:mem, ptr $opr:private, i64 %pfirst
)");
const Template PrivateReached = LLQ_INSTRS(R"(
  %preach = getelementptr i8, ptr $opr:reached, i64 %pfirst
)");
/// A cell of the copy is set by the first element that reaches it and
/// combined with by the others.
const Template PrivateFirst = LLQ_INSTRS(R"(
  %rp = getelementptr i8, ptr %preach, i64 $opr:ix
  %seen = load i8, ptr %rp
  %fresh = icmp eq i8 %seen, 0
  if %fresh {
    $instrs:first
    store i8 1, ptr %rp
  } else {
    $instrs:combine
  }
)");
/// The merge: part %part's copy of cell %i, if the part reached it.
const Template MergeSetup = LLQ_INSTRS(R"(
  %parts = i64 $opr:parts
)");
const Template MergeCell = LLQ_INSTRS(R"(
  %mfirst = mul i64 %part, $opr:stride
  %mcell = add i64 %mfirst, %i
)");
const Template MergeIfReached = LLQ_INSTRS(R"(
  %mrp = getelementptr i8, ptr $opr:reached, i64 %mcell
  %mseen = load i8, ptr %mrp
  %mhas = icmp ne i8 %mseen, 0
  if %mhas {
    $instrs:merge
  }
)");

class Permute final : public LibrarySkeleton {
public:
  Permute() : LibrarySkeleton(permuteLauncher()) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &Def = *N.Kids[0], &Src = *N.Kids[1];
    const Fn &Combine = N.Fns[0], &Proj = N.Fns[1];
    llvm::Type *T = G.type(N.Type);
    llvm::Type *I64 = llvm::Type::getInt64Ty(Ctx);
    Code Copy;
    Operand D = G.elemLinear(Def, "i", Copy);
    G.store(N.Type, G.outBuffers(0, N.Type), D, "i", Copy);

    // The element (%x), its target (TL) and whether the target is inside
    // the output (%inside).
    Code Target;
    std::vector<Operand> Ix = G.multiOf(Src, "i", Target);
    G.assign(Target, "x", T, G.elemMulti(Src, Ix, Target));
    std::vector<Typed> Args;
    for (const Operand &I : Ix)
      Args.push_back({I64, I});
    Operand P = G.call(N, 1, Args, Target);
    unsigned Rank = Def.Sh.rank();
    std::vector<Operand> Tx;
    if (Rank == 1)
      Tx.push_back(P);
    for (unsigned I = 0; Rank > 1 && I < Rank; ++I)
      Tx.push_back(G.extractField(Target, G.typeOf(Proj.resultType()), P, I));
    Operand Inside = true;
    for (unsigned I = 0; I < Rank; ++I)
      Inside = G.inRange(Target, Tx[I], G.extent(Def, I), Inside);
    G.assign(Target, "inside", llvm::Type::getInt1Ty(Ctx), Inside);
    // The target's linear position is computed with the target, before the
    // test: both the scatter and the private phase splice the target code,
    // and each combines at TL in its own way.
    Operand TL = G.linearOf(Def, Tx, Target);
    Code Comb;
    std::vector<Operand> Out = G.outBuffers(0, N.Type, /*NoAlias=*/false);
    // A read-combine-write of TL in Bufs.
    auto CombineInto = [&](const std::vector<Operand> &Bufs, Code &C) {
      Operand Old = G.load(N.Type, Bufs, TL, C);
      Operand New = G.call(Combine, {{T, "x"}, {T, Old}}, C);
      G.store(N.Type, Bufs, New, TL, C);
    };
    // The calling thread alone: a plain read-combine-write of the output.
    Code Direct;
    CombineInto(G.outBuffers(0, N.Type), Direct);
    const Template *Atomic = atomicCombine(Combine.impl().AtomicOp);
    if (!G.atomics()) {
      CombineInto(Out, Comb);
    } else if (!N.Type.isTuple() && Atomic) {
      G.emit(Comb, *Atomic, {{"t", T}, {"buf", Out[0]}, {"ix", TL}, {"x", "x"}});
    } else if (!N.Type.isTuple()) {
      ScalarKind K = N.Type.field(0);
      if (K == ScalarKind::Bool)
        G.emit(Comb, CasCombineBool,
               {{"buf", Out[0]}, {"ix", TL}, {"x", "x"}, {"f", G.fn(Combine)}});
      else
        G.emit(Comb, CasCombine,
               {{"bits", llvm::Type::getIntNTy(Ctx, unsigned(rt::byteSize(K) * 8))},
                {"t", T},
                {"buf", Out[0]},
                {"ix", TL},
                {"align", rt::byteSize(K)},
                {"x", "x"},
                {"f", G.fn(Combine)}});
    } else {
      Operand Held = G.emit(Comb, Lock,
                            {{"locks", G.hostPtr(Locks, false)}, {"ix", TL}},
                            "lp");
      CombineInto(Out, Comb);
      G.emit(Comb, Unlock, {{"lock", Held}});
    }

    // Private copies: the part this piece of the source belongs to, its
    // copy of the output, and the byte per cell that says it was reached.
    Code PSetup, PComb, MSetup, MComb;
    if (G.atomics() && !N.Type.isTuple()) {
      // Copies of an operation whose identity is zero start as the zeroed
      // scratch; the others keep a byte per cell that says it was reached.
      bool Zero = N.Code[0] != 0;
      G.code(PSetup, PrivateSetup,
             {{"partlen", G.hostInt(PartLen)},
              {"stride", G.hostInt(PartStride)},
              {"mem", G.memType(N.Type.field(0))},
              {"private", G.hostPtr(Private)}},
             {"part", "pfirst", "pcopy"});
      if (!Zero)
        G.code(PSetup, PrivateReached, {{"reached", G.hostPtr(Reached)}},
               {"preach"});
      std::vector<Operand> CopyBufs = {"pcopy"};
      if (!Zero) {
        Code First, Later;
        G.store(N.Type, CopyBufs, "x", TL, First);
        CombineInto(CopyBufs, Later);
        G.code(PComb, PrivateFirst,
               {{"ix", TL}, {"first", First}, {"combine", Later}},
               {"rp", "seen", "fresh"});
      } else {
        CombineInto(CopyBufs, PComb);
      }

      G.code(MSetup, MergeSetup, {{"parts", G.hostInt(Parts)}}, {"parts"});
      G.code(MComb, MergeCell, {{"stride", G.hostInt(PartStride)}},
             {"mfirst", "mcell"});
      std::vector<Operand> All = {G.hostPtr(Private)};
      std::vector<Operand> Outs = G.outBuffers(0, N.Type);
      Code Merge;
      Operand Mine = G.load(N.Type, All, "mcell", Merge);
      Operand Cur = G.load(N.Type, Outs, "i", Merge);
      Operand Both = G.call(Combine, {{T, Mine}, {T, Cur}}, Merge);
      G.store(N.Type, Outs, Both, "i", Merge);
      if (!Zero)
        G.code(MComb, MergeIfReached,
               {{"reached", G.hostPtr(Reached)}, {"merge", Merge}},
               {"mrp", "mseen", "mhas"});
      else
        MComb.insert(MComb.end(), Merge.begin(), Merge.end());
    } else {
      // Never run: the phases exist in every permute kernel.
      G.code(MSetup, MergeSetup, {{"parts", 0}}, {"parts"});
    }
    return G.instantiate(PermuteSkeleton,
                         {{"copy", Copy},
                          {"target", Target},
                          {"combine", Comb},
                          {"psetup", PSetup},
                          {"pcombine", PComb},
                          {"msetup", MSetup},
                          {"mcombine", MComb},
                          {"direct", Direct}},
                         {"init", "scatter", "private", "merge", "direct"}, Ctx);
  }

};

const Permute PermuteSkel;

} // namespace

Acc llq::permute(const Fn &Combine, const Acc &Defaults, const Fn &Proj,
                 const Acc &Src) {
  auto N = makeConsumer(PermuteSkel, "permute", {Defaults.node(), Src.node()});
  useFns(*N, {Combine, Proj});
  if (!N->Error.empty())
    return Acc(N);
  // Structural, and read by the launcher, which has no functions: whether
  // a private copy may start as zeros.
  N->Code = {zeroIsIdentity(Combine) ? 1 : 0};
  N->Type = Defaults.type();
  N->Sh = Defaults.shape();
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  std::string T = irType(N->Type);
  if (Src.type() != Defaults.type()) {
    N->Error = fmt::format("permute: the source holds {}, the defaults {}",
                           Src.type().str(), Defaults.type().str());
    return Acc(N);
  }
  if (Defaults.shape().rank() == 0) {
    N->Error = "permute: the defaults array has rank 0";
    return Acc(N);
  }
  N->Error = !Combine.arrays().empty()
                 ? fmt::format("{}: error: permute's combining function "
                               "cannot read arrays",
                               Combine.where())
             : !Combine.bound().empty()
                 ? fmt::format("{}: error: permute's combining function "
                               "cannot have bound parameters: it combines "
                               "elements only",
                               Combine.where())
                 : checkFn(Combine, "permute", {T, T}, T);
  if (N->Error.empty()) {
    std::string Ret = "i64";
    unsigned R = Defaults.shape().rank();
    if (R > 1) {
      Ret = "{ i64";
      for (unsigned I = 1; I < R; ++I)
        Ret += ", i64";
      Ret += " }";
    }
    N->Error = checkFn(Proj, "permute",
                       std::vector<std::string>(Src.shape().rank(), "i64"),
                       Ret);
  }
  return Acc(N);
}
