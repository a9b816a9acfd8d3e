//===- Stencil.cpp - stencil and stencil2 with boundary conditions --------===//
//
// A stencil computes each element from its k^rank neighbours (k = 3, 5, 7;
// rank 1, 2 or 3). The output's linear index space is walked row by row, as
// in the map skeleton, and each row is split in three: the left border, the
// interior and the right border. A row whose outer coordinates are all at
// least r = k/2 from the edges has an interior, where every neighbour is in
// range: its loop reads the neighbours with no check at all, so it
// vectorizes. Everywhere else each coordinate goes through the boundary
// condition:
//   clamp     c < 0 reads 0, c >= e reads e-1;
//   mirror    -1 reads 1, e reads e-2 (the edge is not repeated);
//   wrap      c reads c mod e;
//   constant  any neighbour outside reads the constant.
// Mirror reflects at the top edge what reflecting at the bottom left past
// it; the coordinate mirror and wrap give is then clamped, which changes it
// only for an extent of at most r, so no read is ever outside the array
// (docs/Skeletons.md has the table).
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <cmath>
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

const Template StencilSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.stencil(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  $instrs:setup
  %ix = i64 %lo
  %more = icmp slt i64 %ix, %hi
  while %more {
    %row = sdiv i64 %ix, %inner
    %rowbase = mul i64 %row, %inner
    %j0 = sub i64 %ix, %rowbase
    %rowend = add i64 %rowbase, %inner
    %short = icmp slt i64 %rowend, %hi
    %stop = select i1 %short, i64 %rowend, i64 %hi
    %j1 = sub i64 %stop, %rowbase
    %rowin = i1 true
    $instrs:outer
    ; The interior of this piece of the row: [%a, %b).
    %a0 = call i64 @llvm.smax.i64(i64 %j0, i64 %radius)
    %a1 = call i64 @llvm.smin.i64(i64 %a0, i64 %j1)
    %right = sub i64 %inner, %radius
    %b0 = call i64 @llvm.smin.i64(i64 %j1, i64 %right)
    %b1 = call i64 @llvm.smax.i64(i64 %b0, i64 %a1)
    %a = select i1 %rowin, i64 %a1, i64 %j1
    %b = select i1 %rowin, i64 %b1, i64 %j1
    for i64 %j in %j0 to %a {
      %lin = add i64 %rowbase, %j
      $instrs:border
    }
    for i64 %j in %a to %b {
      %lin = add i64 %rowbase, %j
      $instrs:interior
    }
    for i64 %j in %b to %j1 {
      %lin = add i64 %rowbase, %j
      $instrs:border
    }
    %ix = i64 %stop
    %more = icmp slt i64 %ix, %hi
  }
  ret void
}

$defs:entries
)");

/// Code that moves coordinate C (of extent E) into range under boundary K;
/// returns the new coordinate. InRange collects, for constant boundaries,
/// whether C was in range.
std::string boundaryCoord(KernelGen &G, Boundary::Kind K, const std::string &C,
                          const std::string &E, std::string &Code,
                          std::string *InRange) {
  auto Clamp = [&](const std::string &X) {
    std::string Em1 = G.fresh("em"), Lo = G.fresh("cl"), Hi = G.fresh("cl");
    Code += fmt::format("  {} = sub i64 {}, 1\n", Em1, E);
    Code += fmt::format("  {} = call i64 @llvm.smax.i64(i64 {}, i64 0)\n", Lo,
                        X);
    Code += fmt::format("  {} = call i64 @llvm.smin.i64(i64 {}, i64 {})\n", Hi,
                        Lo, Em1);
    return Hi;
  };
  switch (K) {
  case Boundary::Clamp:
    return Clamp(C);
  case Boundary::Constant: {
    std::string Ge = G.fresh("ge"), Lt = G.fresh("lt"), In = G.fresh("in");
    Code += fmt::format("  {} = icmp sge i64 {}, 0\n", Ge, C);
    Code += fmt::format("  {} = icmp slt i64 {}, {}\n", Lt, C, E);
    Code += fmt::format("  {} = and i1 {}, {}\n", In, Ge, Lt);
    std::string All = G.fresh("all");
    Code += fmt::format("  {} = and i1 {}, {}\n", All, *InRange, In);
    *InRange = All;
    return Clamp(C);
  }
  case Boundary::Mirror: {
    // c < 0: -c; c >= e: 2(e-1) - c.
    std::string Neg = G.fresh("mn"), Abs = G.fresh("ma"), Top = G.fresh("mt"),
                Refl = G.fresh("mr"), Over = G.fresh("mo"), M = G.fresh("m");
    Code += fmt::format("  {} = sub i64 0, {}\n", Neg, C);
    Code += fmt::format("  {} = call i64 @llvm.smax.i64(i64 {}, i64 {})\n",
                        Abs, C, Neg);
    Code += fmt::format("  {} = shl i64 {}, 1\n", Top, E);
    Code += fmt::format("  {} = sub i64 {}, 2\n", Refl, Top);
    std::string R2 = G.fresh("mr");
    Code += fmt::format("  {} = sub i64 {}, {}\n", R2, Refl, Abs);
    Code += fmt::format("  {} = icmp sge i64 {}, {}\n", Over, Abs, E);
    Code += fmt::format("  {} = select i1 {}, i64 {}, i64 {}\n", M, Over, R2,
                        Abs);
    return Clamp(M);
  }
  case Boundary::Wrap: {
    std::string R = G.fresh("w"), Neg = G.fresh("wn"), P = G.fresh("wp"),
                W = G.fresh("w");
    Code += fmt::format("  {} = srem i64 {}, {}\n", R, C, E);
    Code += fmt::format("  {} = icmp slt i64 {}, 0\n", Neg, R);
    Code += fmt::format("  {} = add i64 {}, {}\n", P, R, E);
    Code += fmt::format("  {} = select i1 {}, i64 {}, i64 {}\n", W, Neg, P, R);
    return Clamp(W);
  }
  }
  llvm_unreachable("unknown boundary");
}

/// The arguments for F's neighbourhood of array A, at Ix (outer..., %j).
void neighbours(KernelGen &G, const Node &N, unsigned Which, bool Interior,
                const std::vector<std::string> &Ix, std::string &Code,
                std::vector<std::string> &Args) {
  const Node &A = *N.Kids[Which];
  unsigned Rank = A.Sh.rank();
  int64_t K = N.Code[0], R = K / 2;
  auto Kind = Boundary::Kind(N.Code[1 + Which]);
  int64_t Count = 1;
  for (unsigned D = 0; D < Rank; ++D)
    Count *= K;
  for (int64_t I = 0; I < Count; ++I) {
    // Offsets of neighbour I in row-major order.
    std::vector<int64_t> Off(Rank);
    int64_t Q = I;
    for (unsigned D = Rank; D-- > 0;) {
      Off[D] = Q % K - R;
      Q /= K;
    }
    std::vector<std::string> At(Rank);
    std::string InRange = "true";
    for (unsigned D = 0; D < Rank; ++D) {
      At[D] = G.fresh("c");
      Code += fmt::format("  {} = add i64 {}, {}\n", At[D], Ix[D], Off[D]);
      if (!Interior)
        At[D] = boundaryCoord(G, Kind, At[D], G.extent(A, D), Code, &InRange);
    }
    std::string X = G.elemMulti(A, At, Code);
    if (!Interior && Kind == Boundary::Constant) {
      unsigned C = unsigned(N.Code[3 + Which]);
      std::string V = G.constant(N, C, Code), S = G.fresh("sel");
      Code += fmt::format("  {} = select i1 {}, {} {}, {} {}\n", S, InRange,
                          irType(A.Type), X, irType(A.Type), V);
      X = S;
    }
    Args.push_back(irType(A.Type) + " " + X);
  }
}

class Stencil final : public Skeleton {
public:
  const char *name() const override { return "stencil"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root();
    unsigned Rank = N.Sh.rank();
    int64_t R = N.Code[0] / 2;
    std::string Setup = fmt::format("  %inner = i64 {}\n  %radius = i64 {}\n",
                                    G.extent(N, Rank - 1), R);
    // The output's extents live in the consumer's own slots.
    std::string Outer;
    std::vector<std::string> Ix(Rank);
    Ix[Rank - 1] = "%j";
    if (Rank >= 2) {
      Outer += "  %q = i64 %row\n";
      for (unsigned D = Rank - 1; D-- > 0;) {
        Ix[D] = fmt::format("%o{}", D);
        if (D > 0)
          Outer += fmt::format("  {0} = srem i64 %q, {1}\n"
                               "  %q = sdiv i64 %q, {1}\n",
                               Ix[D], G.extent(N, D));
        else
          Outer += "  %o0 = i64 %q\n";
        Outer += fmt::format(
            "  %lo{0} = icmp sge i64 {1}, {2}\n"
            "  %hb{0} = sub i64 {3}, {2}\n"
            "  %hi{0} = icmp slt i64 {1}, %hb{0}\n"
            "  %rowin = and i1 %rowin, %lo{0}\n"
            "  %rowin = and i1 %rowin, %hi{0}\n",
            D, Ix[D], R, G.extent(N, D));
      }
    }
    std::string Code[2];
    for (int Interior = 0; Interior < 2; ++Interior) {
      std::vector<std::string> Args;
      for (unsigned W = 0; W < N.NumInputs; ++W)
        neighbours(G, N, W, Interior, Ix, Code[Interior], Args);
      std::string Y = G.call(N, 0, Args, Code[Interior]);
      G.store(N.Type, G.outBuffers(0, N.Type), Y, "%lin", Code[Interior]);
    }
    return G.instantiate(StencilSkeleton,
                         {{"setup", Setup},
                          {"outer", Outer},
                          {"border", Code[0]},
                          {"interior", Code[1]}},
                         {"stencil"}, Ctx);
  }

  llvm::Error launch(Launch &L) const override {
    const Node &N = L.root();
    if (llvm::Error E = L.output(N.Type, N.Sh))
      return E;
    return L.run(0, 0, N.Sh.size(), L.grain(4096));
  }
};

const Stencil StencilSkel;

/// The stencil's size k from F's arity, for Arrays arrays of rank Rank.
int64_t stencilSize(size_t Arity, unsigned Rank, size_t Arrays) {
  for (int64_t K : {3, 5, 7}) {
    int64_t Count = 1;
    for (unsigned D = 0; D < Rank; ++D)
      Count *= K;
    if (size_t(Count) * Arrays == Arity)
      return K;
  }
  return 0;
}

Acc makeStencil(const char *Name, const Fn &F,
                std::vector<std::pair<Boundary, Acc>> In) {
  std::vector<NodeRef> Kids;
  for (auto &[B, A] : In)
    Kids.push_back(A.node());
  auto N = makeConsumer(StencilSkel, Name, Kids);
  useFns(*N, {F});
  if (!N->Error.empty())
    return Acc(N);
  unsigned Rank = In[0].second.shape().rank();
  Extents E(In[0].second.shape().extents(),
            In[0].second.shape().extents() + Rank);
  std::vector<std::string> Params;
  for (auto &[B, A] : In) {
    if (A.shape().rank() != Rank) {
      N->Error = fmt::format("{}: the arrays' ranks differ", Name);
      return Acc(N);
    }
    for (unsigned D = 0; D < Rank; ++D)
      E[D] = std::min(E[D], A.shape().extent(D));
    if (B.K == Boundary::Constant &&
        (!B.Value || B.Value->type() != A.type())) {
      N->Error = fmt::format("{}: the boundary constant must be {}", Name,
                             A.type().str());
      return Acc(N);
    }
  }
  if (Rank < 1 || Rank > 3) {
    N->Error = fmt::format("{}: needs an array of rank 1, 2 or 3, not {}",
                           Name, In[0].second.shape().str());
    return Acc(N);
  }
  if (!F.ok()) {
    N->Error = checkFn(F, Name, {});
    return Acc(N);
  }
  int64_t K = stencilSize(F.paramTypes().size() - F.arrayParamTypes().size(),
                          Rank, In.size());
  if (K == 0) {
    N->Error = fmt::format("{}: error: {} of rank {} needs a function of 3, 5 "
                           "or 7 neighbours per dimension, but this one "
                           "takes {} parameters",
                           F.where(), Name, Rank, F.paramTypes().size());
    return Acc(N);
  }
  size_t Per = (F.paramTypes().size() - F.arrayParamTypes().size()) /
               In.size();
  for (auto &[B, A] : In)
    for (size_t I = 0; I < Per; ++I)
      Params.push_back(irType(A.type()));
  N->Error = checkFn(F, Name, Params);
  N->Code = {K, In[0].first.K, In.size() > 1 ? In[1].first.K : 0, 0, 0};
  for (size_t W = 0; W < In.size(); ++W)
    if (In[W].first.K == Boundary::Constant) {
      N->Code[3 + W] = int64_t(N->Consts.size());
      N->Consts.push_back(*In[W].first.Value);
    }
  if (N->Error.empty()) {
    if (auto T = elemTypeOf(F.resultType()))
      N->Type = *T;
    else
      N->Error = fmt::format("{}: error: {}: '{}' is not an element type",
                             F.where(), Name, F.resultType());
  }
  N->Sh = *Shape::make(E);
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  return Acc(N);
}

} // namespace

Acc llq::stencil(const Fn &F, const Boundary &B, const Acc &A) {
  return makeStencil("stencil", F, {{B, A}});
}
Acc llq::stencil2(const Fn &F, const Boundary &BA, const Acc &A,
                  const Boundary &BB, const Acc &B) {
  return makeStencil("stencil2", F, {{BA, A}, {BB, B}});
}
