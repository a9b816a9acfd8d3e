//===- Stencil.cpp - stencil and stencil2 with boundary conditions --------===//
//
// A stencil computes each element from its neighbourhood: k0 x k1 x ...
// elements around it, each size odd from 1 to 9 (rank 1, 2 or 3); stencil2
// reads a neighbourhood of each of two arrays, of sizes of its own. The
// output's linear index space is walked row by row, as in the map skeleton,
// and each row is split in three: the left border, the interior and the
// right border. A row whose outer coordinates are all at least the largest
// radius r = k/2 of their dimension from the edges has an interior, where
// every neighbour is in range: its loop reads the neighbours with no check
// at all, so it vectorizes. Everywhere else each coordinate goes through the boundary
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

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/DerivedTypes.h"
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
  %inner = i64 $opr:inner
  %radius = i64 $const:radius
  %ix = i64 %lo
  %more = icmp slt i64 %ix, %hi
  ; The first row's number is a division, made only where the piece does
  ; not start in row 0 (a small array's whole run is one piece there); the
  ; rows after it follow one another.
  %row = i64 0
  %later = icmp sge i64 %ix, %inner
  %divide = and i1 %more, %later
  if %divide {
    %row = sdiv i64 %ix, %inner
  }
  while %more {
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
    %row = add i64 %row, 1
    %more = icmp slt i64 %ix, %hi
  }
  ret void
}

$defs:entries
)");

/// Coordinates moved into range under a boundary condition, each then
/// clamped to [0, extent): the clamp changes what mirror and wrap give only
/// for extents of at most the radius.
const Template ClampCoord = LLQ_HYGIENIC_INSTRS(R"(
  %em = sub i64 $opr:extent, 1
  %lo = call i64 @llvm.smax.i64(i64 $opr:c, i64 0)
  %at = call i64 @llvm.smin.i64(i64 %lo, i64 %em)
)");
/// c < 0: -c; c >= e: 2(e-1) - c.
const Template MirrorCoord = LLQ_HYGIENIC_INSTRS(R"(
  %neg = sub i64 0, $opr:c
  %abs = call i64 @llvm.smax.i64(i64 $opr:c, i64 %neg)
  %top = shl i64 $opr:extent, 1
  %refl = sub i64 %top, 2
  %back = sub i64 %refl, %abs
  %over = icmp sge i64 %abs, $opr:extent
  %m = select i1 %over, i64 %back, i64 %abs
)");
const Template WrapCoord = LLQ_HYGIENIC_INSTRS(R"(
  %r = srem i64 $opr:c, $opr:extent
  %neg = icmp slt i64 %r, 0
  %up = add i64 %r, $opr:extent
  %w = select i1 %neg, i64 %up, i64 %r
)");
/// A neighbour's coordinate, and its value or the boundary's constant.
const Template Offset = LLQ_HYGIENIC_INSTRS(R"(
  %c = add i64 $opr:ix, $const:off
)");
const Template OrConstant = LLQ_HYGIENIC_INSTRS(R"(
  %sel = select i1 $opr:in, $type:t $opr:x, $type:t $opr:v
)");
/// Whether the outer coordinate o lies at least the radius from its edges.
const Template RowInside = LLQ_HYGIENIC_INSTRS(R"(
  %lo = icmp sge i64 $opr:o, $const:r
  %hb = sub i64 $opr:extent, $const:r
  %hi = icmp slt i64 $opr:o, %hb
  $id:rowin = and i1 $id:rowin, %lo
  $id:rowin = and i1 $id:rowin, %hi
)");

/// Code that moves coordinate C (of extent E) into range under boundary K;
/// returns the new coordinate. InRange collects, for constant boundaries,
/// whether C was in range.
Operand boundaryCoord(KernelGen &G, Boundary::Kind K, const Operand &C,
                      const Operand &E, Code &Out, Operand &InRange) {
  auto Clamp = [&](const Operand &X) {
    return G.emit(Out, ClampCoord, {{"c", X}, {"extent", E}}, "at");
  };
  switch (K) {
  case Boundary::Clamp:
    return Clamp(C);
  case Boundary::Constant:
    InRange = G.inRange(Out, C, E, InRange);
    return Clamp(C);
  case Boundary::Mirror:
    return Clamp(G.emit(Out, MirrorCoord, {{"c", C}, {"extent", E}}, "m"));
  case Boundary::Wrap:
    return Clamp(G.emit(Out, WrapCoord, {{"c", C}, {"extent", E}}, "w"));
  }
  llvm_unreachable("unknown boundary");
}

/// The node's structure: Code = {boundary kind of array 0, of array 1,
/// constant of array 0, of array 1, rank, sizes of array 0 (one per
/// dimension), sizes of array 1}.
constexpr unsigned SizesAt = 5;
int64_t sizeOf(const Node &N, unsigned Which, unsigned D) {
  return N.Code[SizesAt + Which * N.Code[4] + D];
}
/// The largest radius of dimension D over the arrays.
int64_t radiusOf(const Node &N, unsigned D) {
  int64_t R = 0;
  for (unsigned W = 0; W < N.NumInputs; ++W)
    R = std::max(R, sizeOf(N, W, D) / 2);
  return R;
}

/// The arguments for F's neighbourhood of array A, at Ix (outer..., %j).
void neighbours(KernelGen &G, const Node &N, unsigned Which, bool Interior,
                const std::vector<Operand> &Ix, Code &Out,
                std::vector<Typed> &Args) {
  const Node &A = *N.Kids[Which];
  unsigned Rank = A.Sh.rank();
  auto Kind = Boundary::Kind(N.Code[Which]);
  llvm::Type *T = G.type(A.Type);
  int64_t Count = 1;
  for (unsigned D = 0; D < Rank; ++D)
    Count *= sizeOf(N, Which, D);
  for (int64_t I = 0; I < Count; ++I) {
    // Offsets of neighbour I in row-major order.
    std::vector<int64_t> Off(Rank);
    int64_t Q = I;
    for (unsigned D = Rank; D-- > 0;) {
      int64_t K = sizeOf(N, Which, D);
      Off[D] = Q % K - K / 2;
      Q /= K;
    }
    std::vector<Operand> At(Rank, Operand(0));
    Operand InRange = true;
    for (unsigned D = 0; D < Rank; ++D) {
      At[D] = G.emit(Out, Offset, {{"ix", Ix[D]}, {"off", Off[D]}}, "c");
      if (!Interior)
        At[D] = boundaryCoord(G, Kind, At[D], G.extent(A, D), Out, InRange);
    }
    Operand X = G.elemMulti(A, At, Out);
    if (!Interior && Kind == Boundary::Constant) {
      unsigned C = unsigned(N.Code[2 + Which]);
      Operand V = G.constant(N, C, Out);
      X = G.emit(Out, OrConstant, {{"in", InRange}, {"t", T}, {"x", X}, {"v", V}},
                 "sel");
    }
    Args.push_back({T, X});
  }
}

class Stencil final : public LibrarySkeleton {
public:
  Stencil() : LibrarySkeleton(stencilLauncher()) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root();
    unsigned Rank = N.Sh.rank();
    // The output's extents live in the consumer's own slots. A row is
    // inside (%rowin) when each of its outer coordinates is at least its
    // dimension's radius from its edges.
    Code Outer;
    std::vector<Operand> Ix;
    if (Rank >= 2) {
      Ix = G.multiOf(N, "row", Outer, int(Rank) - 1);
      for (unsigned D = 0; D + 1 < Rank; ++D)
        G.emit(Outer, RowInside,
               {{"o", Ix[D]}, {"r", radiusOf(N, D)}, {"extent", G.extent(N, D)},
                {"rowin", "rowin"}});
    }
    Ix.push_back("j");
    Code Body[2];
    for (int Interior = 0; Interior < 2; ++Interior) {
      std::vector<Typed> Args;
      for (unsigned W = 0; W < N.NumInputs; ++W)
        neighbours(G, N, W, Interior, Ix, Body[Interior], Args);
      Operand Y = G.call(N, 0, Args, Body[Interior]);
      G.store(N.Type, G.outBuffers(0, N.Type), Y, "lin", Body[Interior]);
    }
    return G.instantiate(StencilSkeleton,
                         {{"inner", G.extent(N, Rank - 1)},
                          {"radius", radiusOf(N, Rank - 1)},
                          {"outer", Outer},
                          {"border", Body[0]},
                          {"interior", Body[1]}},
                         {"stencil"}, Ctx);
  }

};

const Stencil StencilSkel;

/// The stencil's size k from F's arity, for Arrays arrays of rank Rank.
int64_t stencilSize(size_t Arity, unsigned Rank, size_t Arrays) {
  for (int64_t K : {3, 5, 7, 9}) {
    int64_t Count = 1;
    for (unsigned D = 0; D < Rank; ++D)
      Count *= K;
    if (size_t(Count) * Arrays == Arity)
      return K;
  }
  return 0;
}

/// A stencil of the arrays In, each with its boundary and its sizes (none:
/// k in every dimension, from F's arity).
struct StencilInput {
  Boundary B;
  Acc A;
  std::optional<Extents> Sizes;
};

Acc makeStencil(const char *Name, const Fn &F, std::vector<StencilInput> In) {
  std::vector<NodeRef> Kids;
  for (auto &[B, A, Sizes] : In)
    Kids.push_back(A.node());
  auto N = makeConsumer(StencilSkel, Name, Kids);
  useFns(*N, {F});
  if (!N->Error.empty())
    return Acc(N);
  unsigned Rank = In[0].A.shape().rank();
  Extents E(In[0].A.shape().extents(), In[0].A.shape().extents() + Rank);
  std::vector<std::string> Params;
  for (auto &[B, A, Sizes] : In) {
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
                           Name, In[0].A.shape().str());
    return Acc(N);
  }
  for (size_t W = 0; W < In.size(); ++W) {
    if (!In[W].Sizes)
      continue;
    const Extents &Sizes = *In[W].Sizes;
    const char *Which = In.size() == 1 ? "" : W == 0 ? " of the first array"
                                                     : " of the second array";
    if (Sizes.size() != Rank) {
      N->Error = fmt::format("{}: {} sizes{} for an array of rank {}", Name,
                             Sizes.size(), Which, Rank);
      return Acc(N);
    }
    for (unsigned D = 0; D < Rank; ++D)
      if (Sizes[D] < 1 || Sizes[D] > 9 || Sizes[D] % 2 == 0) {
        N->Error = fmt::format("{}: the size {} of dimension {}{} must be "
                               "odd, from 1 to 9",
                               Name, Sizes[D], D, Which);
        return Acc(N);
      }
  }
  if (!F.ok()) {
    N->Error = checkFn(F, Name, {});
    return Acc(N);
  }
  size_t Arity = F.openParamTypes().size() - F.arrayParamTypes().size();
  if (!In[0].Sizes) {
    int64_t K = stencilSize(Arity, Rank, In.size());
    if (K == 0) {
      N->Error = fmt::format("{}: error: {} of rank {} needs a function of "
                             "3, 5, 7 or 9 neighbours per dimension, but this "
                             "one takes {} parameters (give the sizes for "
                             "others)",
                             F.where(), Name, Rank, F.paramTypes().size());
      return Acc(N);
    }
    for (StencilInput &I : In)
      I.Sizes = Extents(Rank, K);
  }
  N->Code = {In[0].B.K, In.size() > 1 ? In[1].B.K : 0, 0, 0, int64_t(Rank)};
  for (StencilInput &I : In) {
    int64_t Count = 1;
    for (int64_t K : *I.Sizes) {
      N->Code.push_back(K);
      Count *= K;
    }
    for (int64_t J = 0; J < Count; ++J)
      Params.push_back(irType(I.A.type()));
  }
  N->Error = checkFn(F, Name, Params);
  for (size_t W = 0; W < In.size(); ++W)
    if (In[W].B.K == Boundary::Constant) {
      N->Code[2 + W] = int64_t(N->Consts.size());
      N->Consts.push_back(*In[W].B.Value);
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
  return makeStencil("stencil", F, {{B, A, std::nullopt}});
}
Acc llq::stencil(const Fn &F, const Extents &Sizes, const Boundary &B,
                 const Acc &A) {
  return makeStencil("stencil", F, {{B, A, Sizes}});
}
Acc llq::stencil2(const Fn &F, const Boundary &BA, const Acc &A,
                  const Boundary &BB, const Acc &B) {
  return makeStencil("stencil2", F,
                     {{BA, A, std::nullopt}, {BB, B, std::nullopt}});
}
Acc llq::stencil2(const Fn &F, const Extents &SizesA, const Boundary &BA,
                  const Acc &A, const Extents &SizesB, const Boundary &BB,
                  const Acc &B) {
  return makeStencil("stencil2", F,
                     {{BA, A, SizesA}, {BB, B, SizesB}});
}
