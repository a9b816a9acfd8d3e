//===- Fold.cpp - Reductions: fold, fold1, foldAll, foldSeg, fold1Seg -----===//
//
// fold reduces the innermost dimension. The rows × chunks of a row are the
// index space of the first phase, which folds each chunk from its first
// element; the second folds each row's partials in index order, from the
// seed. Only associativity is used, and the chunking depends on the sizes
// and the thread count alone, so a result is the same from run to run.
// With many rows a row is one chunk; the sequential backend always uses one
// chunk, a plain left fold. A chunk's loop is cut where its input starts a
// cache line (LineStart), which changes no order of calls: only a function
// with `reassoc` is regrouped by LLVM, and its rounding may then depend on
// the input's address as well.
//
// foldSeg folds each segment of the innermost dimension, one segment per
// index; the host computes the segments' offsets and checks their sum. A
// segment's elements are folded as four quarters at once (foldRange), then
// combined with the seed or the segment's first element.
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

const Template FoldSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.part(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %n = i64 $opr:n
  %nchunks = i64 $opr:nchunks
  %chunk = i64 $opr:chunk
  %part = ptr $opr:part
  for i64 %it in %lo to %hi {
    %row = sdiv i64 %it, %nchunks
    %c = srem i64 %it, %nchunks
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %lastc = icmp slt i64 %last0, %n
    %last = select i1 %lastc, i64 %last0, i64 %n
    $instrs:outer
    %j = i64 %first
    $instrs:elem
    %acc = $type:t $opr:x
    %next = add i64 %first, 1
    ; Up to the first element that starts a cache line of the input
    ; (LineStart), then the rest.
    $instrs:peel
    for i64 %j in %next to $opr:mid {
      $instrs:elem
      %acc = call $type:t $gid:f($type:t %acc, $type:t $opr:x)
    }
    for i64 %j in $opr:mid to %last {
      $instrs:elem
      %acc = call $type:t $gid:f($type:t %acc, $type:t $opr:x)
    }
    %pp = getelementptr $type:t, ptr %part, i64 %it
    store $type:t %acc, ptr %pp
  }
  ret void
}

define internal void @body.final(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %nchunks = i64 $opr:nchunks
  %part = ptr $opr:part
  for i64 %row in %lo to %hi {
    %base = mul i64 %row, %nchunks
    $instrs:init
    for i64 %c in %c0 to %nchunks {
      %pi = add i64 %base, %c
      %pp = getelementptr $type:t, ptr %part, i64 %pi
      %p = load $type:t, ptr %pp
      %acc = call $type:t $gid:f($type:t %acc, $type:t %p)
    }
    $instrs:store
  }
  ret void
}

$defs:entries
)");

const Template FoldSegSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.seg(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %nseg = i64 $opr:nseg
  %offs = ptr $opr:offs
  %lens = ptr $opr:lens
  for i64 %it in %lo to %hi {
    $instrs:rowseg
    %op = getelementptr i64, ptr %offs, i64 %s
    %first = load i64, ptr %op
    %lp = getelementptr i64, ptr %lens, i64 %s
    %len = load i64, ptr %lp
    %last = add i64 %first, %len
    $instrs:outer
    $instrs:init
    %some = icmp slt i64 %from, %last
    if %some {
      $instrs:fold
      %acc = call $type:t $gid:f($type:t %acc, $type:t %part)
    }
    $instrs:store
  }
  ret void
}

$defs:entries
)");

/// Index %it's row %row and segment %s: a vector has one row, and no
/// division per segment (a 64-bit one, about 15 cycles, in segments of 64
/// elements on average: a segmented sum of 2^22 floats went from 24.3 to
/// 29.8 GB/s, 0.84x to 1.01x OpenMP, on a 2-core rocketlake).
const Template RowAndSegment = LLQ_INSTRS(R"(
  %row = sdiv i64 %it, %nseg
  %s = srem i64 %it, %nseg
)");
const Template OneRow = LLQ_INSTRS(R"(
  %row = i64 0
  %s = i64 %it
)");

} // namespace

Code llq::detail::rowAndSegment(KernelGen &G, unsigned Rank) {
  Code C;
  G.code(C, Rank > 1 ? RowAndSegment : OneRow, {}, {"row", "s"});
  return C;
}

namespace {

/// The outer multi-index of row %row of N's shape, and the full index with
/// the innermost component %j.
/// The fold's seed, or its first partial result, as %acc, and the first
/// chunk %c0 the final phase combines.
const Template SeededInit = LLQ_INSTRS(R"(
  %acc = $type:t $opr:seed
  %c0 = i64 0
)");
const Template PartInit = LLQ_INSTRS(R"(
  %pp0 = getelementptr $type:t, ptr %part, i64 %base
  %acc = load $type:t, ptr %pp0
  %c0 = i64 1
)");
/// A segment's fold starts at its seed, or at its first element.
const Template SeededSegInit = LLQ_INSTRS(R"(
  %acc = $type:t $opr:seed
  %from = i64 %first
)");
const Template FirstSegInit = LLQ_INSTRS(R"(
  %j = i64 %first
  $instrs:elem
  %acc = $type:t $opr:x
  %from = add i64 %first, 1
)");

/// The first position from `from` on, before `last`, whose element of the
/// array at base (of elements 1 << shift bytes; row `row` of rows n long)
/// starts a cache line, or `last`.
const Template LineStart = LLQ_HYGIENIC_INSTRS(R"(
  %at = mul i64 $opr:row, $opr:n
  %at = add i64 %at, $opr:from
  %a = ptrtoint ptr $opr:base to i64
  %a = lshr i64 %a, $const:shift
  %a = add i64 %a, %at
  %a = sub i64 0, %a
  %a = and i64 %a, $const:mask
  %mid = add i64 $opr:from, %a
  %inside = icmp slt i64 %mid, $opr:last
  %mid = select i1 %inside, i64 %mid, i64 $opr:last
)");

/// The bytes of a cache line, to which a chunk's loop aligns its input.
constexpr unsigned LineBytes = 64;

/// A manifest array that N reads at N's own linear positions (through
/// maps, zips of arrays of one shape, fields and reshapes), or null.
const Node *linearLeaf(const Node &N) {
  switch (N.K) {
  case Op::Use:
    return &N;
  case Op::Map:
  case Op::Field:
  case Op::Reshape:
    return linearLeaf(*N.Kids[0]);
  case Op::Zip:
  case Op::ZipWith:
    if (N.Code[0] == 0)
      return nullptr;
    for (unsigned K = 0; K < N.NumInputs; ++K)
      if (const Node *L = linearLeaf(*N.Kids[K]))
        return L;
    return nullptr;
  default:
    return nullptr;
  }
}

/// The indices of row %row's element %j of N: the outer ones computed once
/// per row, into Out.
std::vector<Operand> rowIndex(KernelGen &G, const Node &N, Code &Out) {
  unsigned Rank = N.Sh.rank();
  std::vector<Operand> Ix;
  if (Rank > 1)
    Ix = G.multiOf(N, "row", Out, int(Rank) - 1);
  Ix.push_back("j");
  return Ix;
}

class Fold final : public LibrarySkeleton {
public:
  Fold() : LibrarySkeleton(foldLauncher()) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    llvm::Type *T = G.type(N.Type);
    Code Outer, Elem, Init, Store;
    std::vector<Operand> Ix = rowIndex(G, A, Outer);
    Operand X = G.elemMulti(A, Ix, Elem);
    if (!N.Consts.empty()) {
      Operand Seed = G.constant(N, 0, Init);
      G.code(Init, SeededInit, {{"t", T}, {"seed", Seed}}, {"acc", "c0"});
    } else {
      G.code(Init, PartInit, {{"t", T}}, {"pp0", "acc", "c0"});
    }
    G.store(N.Type, G.outBuffers(0, N.Type), "acc", "row", Store);
    // A chunk's loop, which LLVM vectorizes where F reassociates, reads
    // whole cache lines of its first linear input from the first one on.
    // It starts at the chunk's second element, 4 bytes past a line of an
    // aligned array (a std::vector's data may itself lie past one), and
    // then every other vector load spanned two lines: sums and dot
    // products of 2^14 floats ran at 60% of their speed now on a 2-core
    // rocketlake. Elements too large or of odd size are left alone.
    Code Peel;
    Operand Mid = "next";
    const Node *Leaf = linearLeaf(A);
    unsigned Bytes = Leaf ? unsigned(rt::byteSize(Leaf->Type.field(0))) : 0;
    if (Bytes && Bytes < LineBytes && llvm::isPowerOf2_32(Bytes))
      Mid = G.emit(Peel, LineStart,
                   {{"row", "row"},
                    {"n", "n"},
                    {"from", "next"},
                    {"last", "last"},
                    {"base", G.buffer(*Leaf, 0)},
                    {"shift", llvm::Log2_32(Bytes)},
                    {"mask", LineBytes / Bytes - 1}},
                   "mid");
    return G.instantiate(FoldSkeleton,
                         {{"n", G.hostInt(0)},
                          {"nchunks", G.hostInt(1)},
                          {"chunk", G.hostInt(2)},
                          {"part", G.hostPtr(3)},
                          {"outer", Outer},
                          {"elem", Elem},
                          {"x", X},
                          {"peel", Peel},
                          {"mid", Mid},
                          {"init", Init},
                          {"store", Store},
                          {"t", T},
                          {"f", G.fn(N.Fns[0])}},
                         {"part", "final"}, Ctx);
  }

};

class FoldSeg final : public LibrarySkeleton {
public:
  FoldSeg() : LibrarySkeleton(foldSegLauncher()) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    llvm::Type *T = G.type(N.Type);
    Code Outer, Elem, Init, Store;
    std::vector<Operand> Ix = rowIndex(G, A, Outer);
    Operand X = G.elemMulti(A, Ix, Elem);
    if (!N.Consts.empty()) {
      Operand Seed = G.constant(N, 0, Init);
      G.code(Init, SeededSegInit, {{"t", T}, {"seed", Seed}}, {"acc", "from"});
    } else {
      G.code(Init, FirstSegInit, {{"t", T}, {"elem", Elem}, {"x", X}},
             {"j", "acc", "from"});
    }
    G.store(N.Type, G.outBuffers(0, N.Type), "acc", "it", Store);
    std::string F = G.fn(N.Fns[0]);
    return G.instantiate(FoldSegSkeleton,
                         {{"nseg", G.hostInt(0)},
                          {"offs", G.hostPtr(1)},
                          {"lens", G.hostPtr(2)},
                          {"rowseg", rowAndSegment(G, A.Sh.rank())},
                          {"outer", Outer},
                          {"fold", foldRange(G, Elem, X, "j", T, F, "from",
                                             "last", "part")},
                          {"init", Init},
                          {"store", Store},
                          {"t", T},
                          {"f", F}},
                         {"seg"}, Ctx);
  }

};

const Fold FoldSkel;
const FoldSeg FoldSegSkel;

/// A as a vector of all its elements: a reshape whose extent follows A's
/// (Code = {1}), so that a plan run on arrays of other extents flattens
/// them too (reshapeTree).
Acc flatten(const Acc &A) {
  Acc R = reshape({A.shape().size()}, A);
  if (R.error().empty())
    const_cast<Node &>(*R.node()).Code = {1};
  return R;
}

/// fold and fold1 over A (Seed null for fold1), named Name.
Acc makeFold(const char *Name, const Fn &F, const Scalar *Seed, const Acc &A) {
  auto N = makeConsumer(FoldSkel, Name, {A.node()});
  N->Fns = {F};
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  if (A.shape().rank() == 0) {
    N->Error = fmt::format("{}: needs an array of rank 1 or more", Name);
    return Acc(N);
  }
  N->Error = checkCombine(F, Name, A.type(), Seed);
  if (Seed)
    N->Consts = {*Seed};
  N->OutTypes = {N->Type};
  // The shape, and an empty fold without a seed, by the launcher's rule,
  // which a run on arrays of other extents applies again.
  if (rt::Status S = N->Skel->reshape(*N); !S.ok() && N->Error.empty())
    N->Error = S.message();
  return Acc(N);
}

Acc makeFoldSeg(const char *Name, const Fn &F, const Scalar *Seed,
                const Acc &A, const Acc &Segs) {
  auto N = makeConsumer(FoldSegSkel, Name, {A.node(), Segs.node()});
  N->ManifestKids = 2;
  N->Fns = {F};
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  if (A.shape().rank() == 0) {
    N->Error = fmt::format("{}: needs an array of rank 1 or more", Name);
    return Acc(N);
  }
  if (Segs.shape().rank() != 1 ||
      (Segs.type() != ElemType::scalar(ScalarKind::I32) &&
       Segs.type() != ElemType::scalar(ScalarKind::I64))) {
    N->Error = fmt::format("{}: the segments must be a vector of i32 or i64, "
                           "not {} of shape {}",
                           Name, Segs.type().str(), Segs.shape().str());
    return Acc(N);
  }
  N->Error = checkCombine(F, Name, A.type(), Seed);
  if (Seed)
    N->Consts = {*Seed};
  Extents E = outerExtents(A.shape());
  E.push_back(Segs.shape().extent(0));
  rt::Expected<Shape> Out = Shape::make(E);
  if (!Out) {
    N->Error = fmt::format("{}: {}", Name, Out.message());
    return Acc(N);
  }
  N->Sh = *Out;
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  return Acc(N);
}

} // namespace

Acc llq::fold(const Fn &F, const Scalar &Seed, const Acc &A) {
  return makeFold("fold", F, &Seed, A);
}
Acc llq::fold1(const Fn &F, const Acc &A) {
  return makeFold("fold1", F, nullptr, A);
}
Acc llq::foldAll(const Fn &F, const Scalar &Seed, const Acc &A) {
  if (!A.error().empty())
    return makeFold("foldAll", F, &Seed, A);
  return makeFold("foldAll", F, &Seed, flatten(A));
}
Acc llq::fold1All(const Fn &F, const Acc &A) {
  if (!A.error().empty())
    return makeFold("fold1All", F, nullptr, A);
  return makeFold("fold1All", F, nullptr, flatten(A));
}
Acc llq::foldSeg(const Fn &F, const Scalar &Seed, const Acc &A,
                 const Acc &Segs) {
  return makeFoldSeg("foldSeg", F, &Seed, A, Segs);
}
Acc llq::fold1Seg(const Fn &F, const Acc &A, const Acc &Segs) {
  return makeFoldSeg("fold1Seg", F, nullptr, A, Segs);
}
