//===- Permute.cpp - permute: scatter with a combining function -----------===//
//
// Two phases. `init` writes the defaults (fused) into the output; `scatter`
// runs over the source, projects each index to a target, drops a target
// outside the output's shape, and combines the element into the target:
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
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

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
  $instrs:setup
  for i64 %i in %lo to %hi {
    $instrs:target
    if %inside {
      $instrs:combine
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

/// Host slots of the kernel: the tuple path's lock bytes; the private
/// copies, their reached-bytes, the output's size, a part's length and the
/// number of parts.
enum HostSlot : unsigned { Locks, Private, Reached, OutSize, PartLen, Parts };

/// The output is privatised when it has at most this many cells...
constexpr int64_t MaxPrivateCells = 1 << 16;
/// ...and the source has at least this many elements per output cell.
constexpr int64_t MinSourcePerCell = 4;

/// Whether F is an operation whose identity is zero (integer add, or, xor,
/// unsigned max), so that a private copy may start as zeros.
bool zeroIsIdentity(const Fn &F) {
  const std::string &Op = F.impl().AtomicOp;
  return Op == "add" || Op == "or" || Op == "xor" || Op == "umax";
}

/// The integer type as wide as a field in memory.
std::string bitsType(ScalarKind K) {
  return "i" + std::to_string(rt::byteSize(K) * 8);
}

class Permute final : public Skeleton {
public:
  const char *name() const override { return "permute"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &Def = *N.Kids[0], &Src = *N.Kids[1];
    const Fn &Combine = N.Fns[0], &Proj = N.Fns[1];
    std::string T = irType(N.Type);
    std::string Copy;
    std::string D = G.elemLinear(Def, "%i", Copy);
    G.store(N.Type, G.outBuffers(0, N.Type), D, "%i", Copy);

    std::string Target;
    std::vector<std::string> Ix = G.multiOf(Src, "%i", Target);
    std::string X = G.elemMulti(Src, Ix, Target);
    Target += fmt::format("  %x = {} {}\n", T, X);
    std::vector<std::string> Args;
    for (const std::string &I : Ix)
      Args.push_back("i64 " + I);
    std::string P = G.call(N, 1, Args, Target);
    unsigned Rank = Def.Sh.rank();
    std::vector<std::string> Tx;
    if (Rank == 1)
      Tx.push_back(P);
    for (unsigned I = 0; Rank > 1 && I < Rank; ++I) {
      Tx.push_back(G.fresh("tx"));
      Target += fmt::format("  {} = extractvalue {} {}, {}\n", Tx.back(),
                            Proj.resultType(), P, I);
    }
    Target += "  %inside = i1 true\n";
    for (unsigned I = 0; I < Rank; ++I) {
      std::string Lo = G.fresh("ge"), Hi = G.fresh("lt"), Both = G.fresh("in");
      Target += fmt::format("  {} = icmp sge i64 {}, 0\n", Lo, Tx[I]);
      Target += fmt::format("  {} = icmp slt i64 {}, {}\n", Hi, Tx[I],
                            G.extent(Def, I));
      Target += fmt::format("  {} = and i1 {}, {}\n", Both, Lo, Hi);
      Target += fmt::format("  %inside = and i1 %inside, {}\n", Both);
    }
    // The target's linear position is computed with the target, before the
    // test: both the scatter and the private phase splice the target code,
    // and each combines at TL in its own way.
    std::string TL = G.linearOf(Def, Tx, Target);
    std::string Comb;
    std::vector<std::string> Out = G.outBuffers(0, N.Type, /*NoAlias=*/false);
    std::string Setup;
    if (!G.atomics()) {
      std::string Old = G.load(N.Type, Out, TL, Comb);
      std::string New = G.call(Combine, {T + " %x", T + " " + Old}, Comb);
      G.store(N.Type, Out, New, TL, Comb);
    } else if (!N.Type.isTuple() && !Combine.impl().AtomicOp.empty()) {
      Comb += fmt::format("  %ap = getelementptr {0}, ptr {1}, i64 {2}\n"
                          "  %ao = atomicrmw {3} ptr %ap, {0} %x monotonic\n",
                          T, Out[0], TL, Combine.impl().AtomicOp);
    } else if (!N.Type.isTuple()) {
      ScalarKind K = N.Type.field(0);
      std::string B = bitsType(K), Mem = memType(K);
      std::string ToT, FromT;
      if (K == ScalarKind::Bool) {
        ToT = "  %oldv = trunc i8 %cur to i1\n";
        FromT = "  %newb = zext i1 %newv to i8\n";
      } else if (K == ScalarKind::F16 || K == ScalarKind::F32 ||
                 K == ScalarKind::F64) {
        ToT = fmt::format("  %oldv = bitcast {} %cur to {}\n", B, T);
        FromT = fmt::format("  %newb = bitcast {} %newv to {}\n", T, B);
      } else {
        ToT = fmt::format("  %oldv = {} %cur\n", T);
        FromT = fmt::format("  %newb = {} %newv\n", T);
      }
      Comb += fmt::format(
          "  %cp = getelementptr {0}, ptr {1}, i64 {2}\n"
          "  %cur = load atomic {3}, ptr %cp monotonic, align {4}\n"
          "  %spin = i1 true\n"
          "  while %spin {{\n{5}"
          "    %newv = call {6} {7}({6} %x, {6} %oldv)\n{8}"
          "    %pair = cmpxchg ptr %cp, {3} %cur, {3} %newb monotonic "
          "monotonic\n"
          "    %cur = extractvalue {{ {3}, i1 }} %pair, 0\n"
          "    %done = extractvalue {{ {3}, i1 }} %pair, 1\n"
          "    %spin = xor i1 %done, true\n  }}\n",
          Mem, Out[0], TL, B, rt::byteSize(K), ToT, T, G.fn(Combine), FromT);
    } else {
      Setup = fmt::format("  %locks = ptr {}\n", G.hostPtr(0, false));
      Comb += fmt::format("  %lp = getelementptr i8, ptr %locks, i64 {}\n"
                          "  %spin = i1 true\n"
                          "  while %spin {{\n"
                          "    %held = atomicrmw xchg ptr %lp, i8 1 acquire\n"
                          "    %spin = icmp ne i8 %held, 0\n  }}\n",
                          TL);
      std::string Old = G.load(N.Type, Out, TL, Comb);
      std::string New = G.call(Combine, {T + " %x", T + " " + Old}, Comb);
      G.store(N.Type, Out, New, TL, Comb);
      Comb += "  store atomic i8 0, ptr %lp release, align 1\n";
    }

    // Private copies: the part this piece of the source belongs to, its
    // copy of the output, and the byte per cell that says it was reached.
    std::string PSetup, PComb, MSetup, MComb;
    if (G.atomics() && !N.Type.isTuple()) {
      // Copies of an operation whose identity is zero start as the zeroed
      // scratch; the others keep a byte per cell that says it was reached.
      bool Zero = zeroIsIdentity(Combine);
      PSetup = fmt::format(
          "  %part = sdiv i64 %lo, {0}\n"
          "  %pfirst = mul i64 %part, {1}\n"
          "  %pcopy = getelementptr {2}, ptr {3}, i64 %pfirst\n",
          G.hostInt(PartLen), G.hostInt(OutSize), memType(N.Type.field(0)),
          G.hostPtr(Private));
      if (!Zero)
        PSetup += fmt::format(
            "  %preach = getelementptr i8, ptr {}, i64 %pfirst\n",
            G.hostPtr(Reached));
      std::vector<std::string> Copy = {"%pcopy"};
      if (!Zero) {
        PComb = fmt::format("  %rp = getelementptr i8, ptr %preach, i64 {}\n"
                            "  %seen = load i8, ptr %rp\n"
                            "  %fresh = icmp eq i8 %seen, 0\n"
                            "  if %fresh {{\n",
                            TL);
        G.store(N.Type, Copy, "%x", TL, PComb);
        PComb += "    store i8 1, ptr %rp\n  } else {\n";
      }
      std::string Old = G.load(N.Type, Copy, TL, PComb);
      std::string New = G.call(Combine, {T + " %x", T + " " + Old}, PComb);
      G.store(N.Type, Copy, New, TL, PComb);
      if (!Zero)
        PComb += "  }\n";

      MSetup = fmt::format("  %parts = i64 {}\n", G.hostInt(Parts));
      MComb = fmt::format("  %mfirst = mul i64 %part, {0}\n"
                          "  %mcell = add i64 %mfirst, %i\n",
                          G.hostInt(OutSize));
      if (!Zero)
        MComb += fmt::format("  %mrp = getelementptr i8, ptr {}, i64 %mcell\n"
                             "  %mseen = load i8, ptr %mrp\n"
                             "  %mhas = icmp ne i8 %mseen, 0\n"
                             "  if %mhas {{\n",
                             G.hostPtr(Reached));
      std::vector<std::string> All = {G.hostPtr(Private)};
      std::vector<std::string> Outs = G.outBuffers(0, N.Type);
      std::string Mine = G.load(N.Type, All, "%mcell", MComb);
      std::string Cur = G.load(N.Type, Outs, "%i", MComb);
      std::string Both = G.call(Combine, {T + " " + Mine, T + " " + Cur}, MComb);
      G.store(N.Type, Outs, Both, "%i", MComb);
      if (!Zero)
        MComb += "  }\n";
    } else {
      // Never run: the phases exist in every permute kernel.
      MSetup = "  %parts = i64 0\n";
    }
    return G.instantiate(PermuteSkeleton,
                         {{"copy", Copy},
                          {"setup", Setup},
                          {"target", Target},
                          {"combine", Comb},
                          {"psetup", PSetup},
                          {"pcombine", PComb},
                          {"msetup", MSetup},
                          {"mcombine", MComb}},
                         {"init", "scatter", "private", "merge"}, Ctx);
  }

  llvm::Error launch(Launch &L) const override {
    const Node &N = L.root();
    if (llvm::Error E = L.output(N.Type, N.Sh))
      return E;
    int64_t Cells = N.Sh.size(), Source = N.Kids[1]->Sh.size();
    unsigned Threads = L.backend().parallelism();
    bool Privatise = L.backend().atomics() && !N.Type.isTuple() &&
                     Threads > 1 && Cells > 0 && Cells <= MaxPrivateCells &&
                     Source >= MinSourcePerCell * Cells * int64_t(Threads);
    L.Host.assign(Parts + 1, 0);
    L.Host[Locks] = reinterpret_cast<uintptr_t>(
        L.scratch(N.Type.isTuple() ? size_t(Cells) : 1));
    if (llvm::Error E = L.run(0, 0, Cells, L.grain(4096)))
      return E;
    if (!Privatise)
      return L.run(1, 0, Source, L.grain(4096));
    int64_t Len = (Source + Threads - 1) / Threads;
    int64_t NumParts = (Source + Len - 1) / Len;
    size_t Bytes = rt::byteSize(N.Type.field(0));
    // Pieces of at least Len indices start Len or more apart, so no two
    // share a part (their first index over Len).
    L.Host[Private] = reinterpret_cast<uintptr_t>(
        L.scratch(size_t(NumParts * Cells) * Bytes));
    if (!zeroIsIdentity(N.Fns[0]))
      L.Host[Reached] =
          reinterpret_cast<uintptr_t>(L.scratch(size_t(NumParts * Cells)));
    L.Host[OutSize] = uint64_t(Cells);
    L.Host[PartLen] = uint64_t(Len);
    L.Host[Parts] = uint64_t(NumParts);
    if (llvm::Error E = L.run(2, 0, Source, Len))
      return E;
    return L.run(3, 0, Cells, L.grain(4096));
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
  N->Error = Combine.arrays().empty()
                 ? checkFn(Combine, "permute", {T, T}, T)
                 : fmt::format("{}: error: permute's combining function "
                               "cannot read arrays",
                               Combine.where());
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
