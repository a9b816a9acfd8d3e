//===- Distributed.cpp - Running array expressions over MPI ranks ---------===//
//
// Runtime::run walks the expression (Evaluator) and gives every operation
// this rank's part of its result, a Val: a local expression over this
// rank's rows (delayed, so that element-wise operations and their consumer
// still fuse into one local kernel), or the whole array where every rank
// holds it. What each kind of operation does:
//
//  - element-wise (map, zipWith, zip, field, fill, generate, imap,
//    izipWith): the same operation on this rank's rows; index functions
//    see global indices (offsetFn). Operands in another layout are moved
//    to the first operand's rows (fetchRows); arrays that functions read
//    (Fn::with) are gathered whole on every rank.
//  - fold, scans and stencils along inner dimensions of an array of rank 2
//    or more: the same operation on this rank's rows.
//  - a fold of a vector (foldAll, sum, ...): each rank folds its rows, the
//    partial results are gathered on every rank in rank order and folded
//    there with the same function (foldPartials).
//  - a scan of a vector: each rank folds its rows, the totals are gathered,
//    each rank folds those before it (after it, from the right) into its
//    carry, and scans its rows from the carry (scanVector).
//  - stencils: each rank fetches the rows within the window's radius from
//    its neighbours (halo rows), runs the stencil over them and keeps its
//    own rows (stencilRows).
//  - a segmented fold of a vector: each rank folds the pieces of segments
//    its rows hold and sends them to the rank that holds the segment's
//    result, which folds them in rank order (foldSegVector).
//  - reverse, transpose, backpermute, transform, permute: elements are
//    routed to and from the ranks that hold them (routed, permuted).
//  - take, drop, init, tail and concat of arrays of rank 2 or more (along
//    the rows), enumFromN of integers: on each rank's rows.
//  - everything else (slices, cuts of a vector, filter, segmented scans of
//    a vector, ...): its operands are gathered whole on every rank,
//    which all compute the whole result (replicated), counted in
//    Stats::Replicated.
//
// Every local run is followed by agree(), which every rank reaches in the
// same order: a failure on one rank becomes the same ArrayError on all. The
// collectives themselves (agree, moving rows and elements) are Exchange.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Exchange.h"
#include "llquote/skeletons/Node.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/Support/Error.h"
#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <unordered_map>

using namespace llq;
using namespace llq::detail;
using llq::mpi::Layout;

namespace {

const std::shared_ptr<rt::Array> &dataOf(const Acc &A) {
  static const std::shared_ptr<rt::Array> None;
  const NodeRef &N = A.node();
  return N && N->K == Op::Use && !N->Distributed ? N->Data : None;
}

/// N with its kids replaced by Kids and its (first) result's shape by Sh.
std::shared_ptr<Node> cloneWith(const Node &N, std::vector<NodeRef> Kids,
                                const Shape &Sh) {
  auto C = copyNode(N);
  C->Sh = Sh;
  C->Kids = std::move(Kids);
  for (const NodeRef &K : C->Kids)
    C->Depth = std::max(C->Depth, K->Depth + 1);
  if (!C->OutShapes.empty())
    C->OutShapes[0] = Sh;
  C->LengthAfterRun = N.LengthAfterRun;
  C->LoopValue = N.LoopValue;
  return C;
}

/// F, taking its first (outermost) index relative to this rank's rows: the
/// same text with that parameter renamed, and the global index computed
/// from it and a bound offset, `%mpi.off`. One per function and process,
/// so that every offset runs one kernel.
Fn offsetFn(const Fn &F) {
  static std::mutex Lock;
  static std::unordered_map<uint64_t, Fn> Made;
  std::lock_guard<std::mutex> G(Lock);
  auto It = Made.find(F.id());
  if (It == Made.end()) {
    const FnImpl &I = F.impl();
    std::string Sig = I.Signature;
    const std::string &First = I.ParamNames.at(0);
    size_t Open = Sig.find('(');
    size_t At = Sig.find("%" + First, Open);
    if (Open == std::string::npos || At == std::string::npos)
      throw ArrayError(fmt::format("{}: internal error: no index parameter "
                                   "in '{}'",
                                   F.where(), Sig));
    Sig.replace(At, First.size() + 1, "%mpi.row");
    Sig.insert(Open + 1, "i64 %mpi.off, ");
    std::string Body =
        fmt::format("%{} = add i64 %mpi.row, %mpi.off\n{}", First, I.Body);
    unsigned Line = I.Line > 1 ? I.Line - 1 : 1;
    Fn W = I.Uses ? Fn(Prelude(I.Uses->Text, I.Uses->File, I.Uses->Line), Sig,
                       Body, I.File, Line)
                  : Fn(Sig, Body, I.File, Line);
    if (!W.ok())
      throw ArrayError(W.error());
    It = Made.emplace(F.id(), W).first;
  }
  return It->second;
}

} // namespace

namespace llq::mpi {

Layout Layout::even(int64_t Rows, int Ranks) {
  Layout L;
  L.Starts.resize(size_t(Ranks) + 1);
  for (int R = 0; R <= Ranks; ++R)
    L.Starts[R] = Rows / Ranks * R + std::min<int64_t>(R, Rows % Ranks);
  return L;
}

Layout Layout::onRank(int64_t Rows, int Root, int Ranks) {
  Layout L;
  for (int R = 0; R <= Ranks; ++R)
    L.Starts.push_back(R <= Root ? 0 : Rows);
  return L;
}

/// This rank's part of an operation's result.
struct Val {
  ElemType Type = ElemType::scalar(ScalarKind::I32);
  Shape Global;
  /// Every rank holds the whole array in Local.
  bool Whole = false;
  Layout L;
  Acc Local;
};

struct Evaluator {
  Runtime &R;
  Exchange X;
  std::unordered_map<const Node *, std::vector<Val>> Memo;
  /// The awhile loops being run: their stand-in and its value now.
  std::vector<std::pair<const Node *, Val>> Loops;

  explicit Evaluator(Runtime &R) : R(R), X(R.Comm, R.Rank, R.Size, R.St) {}

  //===-- Agreement and local runs ----------------------------------------===//

  /// Runs E here (Skip: this rank has nothing to run), then agrees.
  std::shared_ptr<rt::Array> runLocal(const Acc &E, bool Skip = false) {
    std::shared_ptr<rt::Array> Out;
    std::string Failure;
    if (!Skip) {
      ++R.St.LocalRuns;
      if (const auto &D = dataOf(E)) {
        Out = D;
      } else {
        llvm::Expected<Array<>> A = R.Local->tryRun(E);
        if (A)
          Out = A->shared();
        else
          Failure = llvm::toString(A.takeError());
      }
    }
    X.agree(Failure.empty() ? nullptr : &Failure);
    return Out;
  }

  /// V's local part as an array (computed now if it is delayed).
  std::shared_ptr<rt::Array> materialize(Val &V) {
    if (const auto &D = dataOf(V.Local))
      return D;
    std::shared_ptr<rt::Array> A = runLocal(V.Local);
    V.Local = use(A);
    return A;
  }

  /// V whole on every rank.
  Val whole(Val V) {
    if (V.Whole)
      return V;
    std::shared_ptr<rt::Array> Mine = materialize(V);
    Val W = V;
    W.Whole = true;
    W.Local = use(X.fetchRows(Mine, V.L, V.Global, V.Type,
                            {{0, V.Global.extent(0)}}));
    return W;
  }

  /// This rank's rows of V in the layout L.
  Acc rowsIn(Val &V, const Layout &L) {
    if (!V.Whole && V.L == L)
      return V.Local;
    int64_t S = L.start(R.Rank), E = L.start(R.Rank + 1);
    if (V.Whole)
      return use(viewRows(materialize(V), S, E - S));
    std::shared_ptr<rt::Array> Mine = materialize(V);
    return use(X.fetchRows(Mine, V.L, V.Global, V.Type, {{S, E}}));
  }

  Val distributed(const ElemType &T, const Shape &Global, Layout L,
                  Acc Local) {
    Val V;
    V.Type = T;
    V.Global = Global;
    V.L = std::move(L);
    V.Local = std::move(Local);
    return V;
  }
  Val wholeVal(const ElemType &T, const Shape &Global, Acc Local) {
    Val V;
    V.Type = T;
    V.Global = Global;
    V.Whole = true;
    V.Local = std::move(Local);
    return V;
  }
  /// The layout of an operation's result of Rows rows over the operands
  /// In: the first distributed operand's, else an even split.
  Layout layoutOf(const std::vector<Val> &In, int64_t Rows) {
    for (const Val &V : In)
      if (!V.Whole)
        return V.L;
    return Layout::even(Rows, R.Size);
  }
  /// Output I of the multi-output consumer C, of type T and shape Sh.
  static NodeRef selectOf(const std::shared_ptr<Node> &C, size_t I,
                          const ElemType &T, const Shape &Sh) {
    auto S = makeNode(Op::Select, C->Name, {C});
    S->Code = {int64_t(I)};
    S->Type = T;
    S->Sh = Sh;
    return S;
  }
  /// Rows of Sh here under L.
  Shape localShape(const Shape &Sh, const Layout &L) {
    return withRows(Sh, L.rowsOf(R.Rank));
  }
  Extents extentsOf(const Shape &Sh) {
    return Extents(Sh.extents(), Sh.extents() + Sh.rank());
  }

  //===-- The walk --------------------------------------------------------===//

  Val one(const NodeRef &N) {
    if (N->K == Op::Select)
      return eval(*N->Kids[0]).at(size_t(N->Code[0]));
    return eval(*N).at(0);
  }

  std::vector<Val> eval(const Node &N) {
    for (auto &[Stand, V] : Loops)
      if (Stand == &N)
        return {V};
    auto Found = Memo.find(&N);
    if (Found != Memo.end())
      return Found->second;
    std::vector<Val> Out = compute(N);
    Memo.emplace(&N, Out);
    return Out;
  }

  /// K's value whole here, as a local array.
  NodeRef wholeArray(const NodeRef &K) {
    Val V = whole(one(K));
    return use(materialize(V)).node();
  }

  /// The arrays N's functions read, whole, as local arrays.
  std::vector<NodeRef> fnArraysWhole(const Node &N) {
    std::vector<NodeRef> Kids;
    for (unsigned K = N.NumInputs; K < N.Kids.size(); ++K)
      Kids.push_back(wholeArray(N.Kids[K]));
    return Kids;
  }

  /// F of N (its I-th function) reading the arrays ArraysAt.
  Fn withArrays(const Node &N, size_t I, const Fn &F,
                const std::vector<NodeRef> &Arrays) {
    if (N.FnArrays[I].empty())
      return F;
    std::vector<Acc> As;
    for (unsigned K : N.FnArrays[I])
      As.push_back(Acc(Arrays[K - N.NumInputs]));
    return F.with(As);
  }

  /// F of an index operation, with global indices: offsetFn bound to this
  /// rank's first row, and F's own bound values again.
  Fn globalIndexFn(const Node &N, const std::vector<NodeRef> &Arrays,
                   int64_t First, size_t I = 0) {
    const Fn &F = N.Fns[I];
    Fn W = withArrays(N, I, offsetFn(F), Arrays).bind("mpi.off", First);
    for (const auto &[Pos, V] : F.bound())
      W = W.bind(F.impl().ParamNames.at(Pos), V);
    if (!W.ok())
      throw ArrayError(W.error());
    return W;
  }

  std::vector<Val> compute(const Node &N) {
    if (!N.Error.empty())
      throw ArrayError(N.Error);
    switch (N.K) {
    case Op::Use:
      if (N.Distributed) {
        Layout L;
        L.Starts = N.Vals;
        if (L.ranks() != R.Size)
          throw ArrayError(fmt::format(
              "run: a distributed array of {} ranks, run on a communicator "
              "of {}; make it with this Runtime",
              L.ranks(), R.Size));
        return {distributed(N.Type, N.Sh, L, use(N.Data))};
      }
      if (N.LoopValue)
        throw ArrayError("awhile: the loop's value is used outside the "
                         "loop's condition and step");
      if (!N.Data)
        throw ArrayError("run: a use of no array");
      return {wholeVal(N.Type, N.Sh, use(N.Data))};
    case Op::Map:
    case Op::ZipWith:
    case Op::Zip:
    case Op::IZipWith:
    case Op::Field:
    case Op::Generate:
    case Op::Fill:
      if ((N.K != Op::ZipWith && N.K != Op::Zip && N.K != Op::IZipWith) ||
          N.Code[0] != 0)
        return {elementwise(N)};
      return replicated(N);
    case Op::Reshape:
      return {reshaped(N)};
    case Op::Cut:
    case Op::Concat:
      if (cutsRows(N))
        return {rowsProducer(N)};
      return replicated(N);
    case Op::EnumFromN:
      if (N.Sh.rank() >= 1 && !N.Type.isTuple() &&
          N.Type.field(0) != ScalarKind::F16 &&
          N.Type.field(0) != ScalarKind::F32 &&
          N.Type.field(0) != ScalarKind::F64)
        return {enumerated(N)};
      return replicated(N);
    case Op::Reverse:
    case Op::Transpose:
    case Op::Backpermute:
    case Op::Transform:
      if (one(N.Kids[0]).Whole || N.Sh.rank() == 0)
        return replicated(N);
      return {routed(N)};
    case Op::Select:
      return {eval(*N.Kids[0]).at(size_t(N.Code[0]))};
    case Op::Cond:
      return {chosen(N)};
    case Op::While:
      return {loop(N)};
    case Op::Consumer:
      return consumer(N);
    default:
      return replicated(N);
    }
  }

  /// Every kid whole; N computed whole on every rank.
  std::vector<Val> replicated(const Node &N) {
    std::vector<NodeRef> Kids;
    bool AllWhole = true;
    for (const NodeRef &K : N.Kids) {
      AllWhole &= one(K).Whole;
      Kids.push_back(wholeArray(K));
    }
    if (!AllWhole || N.Kids.empty())
      ++R.St.Replicated;
    auto C = cloneWith(N, Kids, N.Sh);
    if (N.OutTypes.size() <= 1)
      return {wholeVal(N.Type, N.Sh, Acc(C))};
    std::vector<Val> Out;
    for (size_t I = 0; I < N.OutTypes.size(); ++I)
      Out.push_back(wholeVal(N.OutTypes[I], N.OutShapes[I],
                             Acc(selectOf(C, I, N.OutTypes[I],
                                          N.OutShapes[I]))));
    return Out;
  }

  Val elementwise(const Node &N) {
    std::vector<Val> In;
    for (unsigned K = 0; K < N.NumInputs; ++K)
      In.push_back(one(N.Kids[K]));
    std::vector<NodeRef> Arrays = fnArraysWhole(N);
    bool AllWhole = true;
    for (const Val &V : In)
      AllWhole &= V.Whole;
    if (N.Sh.rank() == 0 || (AllWhole && !In.empty())) {
      std::vector<NodeRef> Kids;
      for (Val &V : In)
        Kids.push_back(V.Local.node());
      Kids.insert(Kids.end(), Arrays.begin(), Arrays.end());
      return wholeVal(N.Type, N.Sh, Acc(cloneWith(N, Kids, N.Sh)));
    }
    Layout L = layoutOf(In, N.Sh.extent(0));
    std::vector<Acc> Kids;
    for (Val &V : In)
      Kids.push_back(rowsIn(V, L));
    Shape Here = localShape(N.Sh, L);
    int64_t First = L.start(R.Rank);
    Acc E;
    switch (N.K) {
    case Op::Map:
      E = map(withArrays(N, 0, N.Fns[0], Arrays), Kids[0]);
      break;
    case Op::ZipWith: {
      Fn F = withArrays(N, 0, N.Fns[0], Arrays);
      E = Kids.size() == 2   ? zipWith(F, Kids[0], Kids[1])
          : Kids.size() == 3 ? zipWith(F, Kids[0], Kids[1], Kids[2])
                             : zipWith(F, Kids[0], Kids[1], Kids[2], Kids[3]);
      break;
    }
    case Op::Zip:
      E = Kids.size() == 2   ? zip(Kids[0], Kids[1])
          : Kids.size() == 3 ? zip(Kids[0], Kids[1], Kids[2])
                             : zip(Kids[0], Kids[1], Kids[2], Kids[3]);
      break;
    case Op::Field:
      E = field(unsigned(N.Code[0]), Kids[0]);
      break;
    case Op::Fill:
      E = fill(extentsOf(Here), N.Consts[0]);
      break;
    case Op::Generate:
      E = generate(extentsOf(Here), globalIndexFn(N, Arrays, First));
      break;
    case Op::IZipWith: {
      Fn F = globalIndexFn(N, Arrays, First);
      E = Kids.size() == 1   ? imap(F, Kids[0])
          : Kids.size() == 2 ? izipWith(F, Kids[0], Kids[1])
                             : izipWith(F, Kids[0], Kids[1], Kids[2]);
      break;
    }
    default:
      llvm_unreachable("not element-wise");
    }
    if (!E.error().empty())
      throw ArrayError(E.error());
    return distributed(N.Type, N.Sh, L, E);
  }

  /// Whether N (take, drop, init, tail, concat: along the innermost
  /// dimension) keeps each row a row: an array of rank 2 or more, a
  /// distributed operand, and for concat operands of the same rows.
  bool cutsRows(const Node &N) {
    if (N.Sh.rank() < 2)
      return false;
    bool Any = false;
    for (const NodeRef &K : N.Kids) {
      Any |= !one(K).Whole;
      if (K->Sh.extent(0) != N.Sh.extent(0))
        return false;
    }
    return Any;
  }

  /// N over this rank's rows of its operands, which it reads row for row.
  Val rowsProducer(const Node &N) {
    std::vector<Val> In;
    for (const NodeRef &K : N.Kids)
      In.push_back(one(K));
    Layout L = layoutOf(In, N.Sh.extent(0));
    std::vector<NodeRef> Kids;
    for (Val &V : In)
      Kids.push_back(rowsIn(V, L).node());
    return distributed(N.Type, N.Sh, L,
                       Acc(cloneWith(N, Kids, localShape(N.Sh, L))));
  }

  /// enumFromN of integers: this rank's rows start from the start plus the
  /// position of its first element, in the element type's wrapping
  /// arithmetic, which is what the kernel computes for every element.
  Val enumerated(const Node &N) {
    Layout L = Layout::even(N.Sh.extent(0), R.Size);
    uint64_t Off = uint64_t(L.start(R.Rank)) * uint64_t(rowElems(N.Sh));
    const Scalar &Start = N.Consts[0];
    auto Shifted = [&](auto Zero) -> Scalar {
      using T = decltype(Zero);
      using U = std::make_unsigned_t<T>;
      return Scalar(T(U(Start.get<T>()) + U(Off)));
    };
    Scalar First = Start;
    switch (N.Type.field(0)) {
    case ScalarKind::I8: First = Shifted(int8_t()); break;
    case ScalarKind::I16: First = Shifted(int16_t()); break;
    case ScalarKind::I32: First = Shifted(int32_t()); break;
    case ScalarKind::I64: First = Shifted(int64_t()); break;
    case ScalarKind::U8: First = Shifted(uint8_t()); break;
    case ScalarKind::U16: First = Shifted(uint16_t()); break;
    case ScalarKind::U32: First = Shifted(uint32_t()); break;
    case ScalarKind::U64: First = Shifted(uint64_t()); break;
    default: llvm_unreachable("enumerated: not an integer");
    }
    auto C = cloneWith(N, {}, localShape(N.Sh, L));
    C->Consts = {First};
    return distributed(N.Type, N.Sh, L, Acc(C));
  }

  /// A reshape to a vector keeps each rank's elements where they are.
  Val reshaped(const Node &N) {
    Val In = one(N.Kids[0]);
    if (In.Whole)
      return wholeVal(N.Type, N.Sh,
                      Acc(cloneWith(N, {In.Local.node()}, N.Sh)));
    if (N.Sh.rank() != 1)
      return replicated(N)[0];
    int64_t Row = rowElems(In.Global);
    Layout L;
    for (int64_t S : In.L.Starts)
      L.Starts.push_back(S * Row);
    return distributed(N.Type, N.Sh, L,
                       reshape({L.rowsOf(R.Rank)}, In.Local));
  }

  Val chosen(const Node &N) {
    Val P = whole(one(N.Kids[0]));
    std::shared_ptr<rt::Array> B = materialize(P);
    bool Take = *static_cast<const uint8_t *>(B->data(0)) != 0;
    return one(N.Kids[Take ? 1 : 2]);
  }

  Val loop(const Node &N) {
    Val X = one(N.Kids[0]);
    for (;;) {
      // The condition and the step read the loop's value: a walk of their
      // own each time, the rest of the expression as computed already.
      Evaluator Body(R);
      Body.Memo = Memo;
      Body.Loops = Loops;
      Body.Loops.push_back({N.Kids[3].get(), X});
      Val C = Body.whole(Body.one(N.Kids[1]));
      std::shared_ptr<rt::Array> B = Body.materialize(C);
      if (*static_cast<const uint8_t *>(B->data(0)) == 0)
        return X;
      X = Body.one(N.Kids[2]);
      Body.materialize(X);
    }
  }

  /// Index tuples (a vector of i64, or of tuples of i64s: one field per
  /// dimension) as linear positions in Sh; the first outside Sh, if any,
  /// in Outside (as -1 in the result).
  static std::vector<int64_t> linearize(const rt::Array &Ix, const Shape &Sh,
                                        int64_t &Outside) {
    std::vector<int64_t> Out(size_t(Ix.size()));
    Outside = -1;
    unsigned Rank = Sh.rank();
    for (int64_t K = 0; K < Ix.size(); ++K) {
      int64_t Lin = 0;
      bool In = true;
      for (unsigned D = 0; D < Rank; ++D) {
        int64_t I = static_cast<const int64_t *>(Ix.data(D))[K];
        In &= I >= 0 && I < Sh.extent(D);
        Lin = Lin * Sh.extent(D) + I;
      }
      Out[size_t(K)] = In ? Lin : -1;
      if (!In && Outside < 0)
        Outside = K;
    }
    return Out;
  }

  /// reverse, transpose, backpermute and transform of a distributed array:
  /// each rank works out which source elements its rows read, and fetches
  /// them from their owners.
  Val routed(const Node &N) {
    Val Src = one(N.Kids[0]);
    std::shared_ptr<rt::Array> Mine = materialize(Src);
    std::vector<NodeRef> Arrays = fnArraysWhole(N);
    Layout L = N.K == Op::Reverse ? Src.L : Layout::even(N.Sh.extent(0), R.Size);
    int64_t S = L.start(R.Rank), E = L.start(R.Rank + 1);
    Shape Here = localShape(N.Sh, L);
    std::vector<int64_t> Want;
    std::string Failure;
    if (N.K == Op::Reverse) {
      int64_t Len = Src.Global.extent(0);
      for (int64_t I = S; I < E; ++I)
        Want.push_back(Len - 1 - I);
    } else if (N.K == Op::Transpose) {
      int64_t Rows = Src.Global.extent(0), Cols = Src.Global.extent(1);
      for (int64_t I = S; I < E; ++I)
        for (int64_t J = 0; J < Rows; ++J)
          Want.push_back(J * Cols + I);
    } else {
      std::shared_ptr<rt::Array> Ix = runLocal(
          generate(extentsOf(Here), globalIndexFn(N, Arrays, S, 0)), S == E);
      if (Ix) {
        int64_t Bad;
        Want = linearize(*Ix, Src.Global, Bad);
        if (Bad >= 0) {
          auto At = Here.fromIndex(Bad);
          std::string Where;
          for (size_t D = 0; D < At.size(); ++D)
            Where += fmt::format("{}{}", D ? ", " : "",
                                 At[D] + (D == 0 ? S : 0));
          Failure = fmt::format(
              "{}: the index function ({}) maps index ({}) outside the "
              "source of shape {}",
              N.Name, N.Fns[0].where(), Where, Src.Global.str());
        }
      }
    }
    X.agree(Failure.empty() ? nullptr : &Failure);
    std::shared_ptr<rt::Array> Got =
        X.fetchElements(Mine, Src.L, Src.Global, Src.Type, Want);
    Acc Part = reshape(extentsOf(Here), use(Got));
    if (N.K == Op::Transform)
      Part = map(withArrays(N, 1, N.Fns[1], Arrays), Part);
    return distributed(N.Type, N.Sh, L, Part);
  }

  /// permute: each rank works out where its source elements go, sends each
  /// with its place to the rank that holds that place, and each rank
  /// combines what it received into its rows of the defaults (combining
  /// is associative and commutative, so the order is free).
  Val permuted(const Node &N) {
    Val Def = one(N.Kids[0]), Src = one(N.Kids[1]);
    std::vector<NodeRef> Arrays = fnArraysWhole(N);
    Layout L = layoutOf({Def}, N.Sh.extent(0));
    Layout SL = layoutOf({Src}, Src.Global.extent(0));
    Acc DefRows = rowsIn(Def, L), SrcRows = rowsIn(Src, SL);
    int64_t SS = SL.start(R.Rank), SE = SL.start(R.Rank + 1);
    Val SrcHere = distributed(Src.Type, Src.Global, SL, SrcRows);
    std::shared_ptr<rt::Array> Values = materialize(SrcHere);
    Shape SrcShape = localShape(Src.Global, SL);
    std::shared_ptr<rt::Array> Ix = runLocal(
        generate(extentsOf(SrcShape), globalIndexFn(N, Arrays, SS, 1)),
        SS == SE);
    std::vector<int64_t> Targets;
    if (Ix) {
      int64_t Bad;
      Targets = linearize(*Ix, N.Sh, Bad);
    }
    int64_t Row = std::max<int64_t>(1, rowElems(N.Sh));
    std::vector<int> Counts(size_t(R.Size), 0);
    for (int64_t T : Targets)
      if (T >= 0)
        ++Counts[size_t(Exchange::ownerOf(L, T / Row))];
    std::vector<int> At = Exchange::displacements(Counts);
    size_t Sent = 0;
    for (int C : Counts)
      Sent += size_t(C);
    std::vector<int64_t> Place(Sent), From(Sent);
    for (size_t K = 0; K < Targets.size(); ++K) {
      if (Targets[K] < 0)
        continue;
      int O = Exchange::ownerOf(L, Targets[K] / Row);
      size_t P = size_t(At[size_t(O)]++);
      Place[P] = Targets[K] - L.start(O) * Row;
      From[P] = int64_t(K);
    }
    std::vector<int> RecvCounts = X.exchangeCounts(Counts);
    rt::Array Places = std::move(
        *rt::Array::wrap(*Shape::make({int64_t(Sent)}), Place.data()));
    auto Where = X.sendElements(ElemType::scalar(ScalarKind::I64), &Places,
                                nullptr, Counts, RecvCounts);
    auto Vals =
        X.sendElements(Src.Type, Values.get(), &From, Counts, RecvCounts);
    ++R.St.Exchanges;
    static const Fn Placed("i64 (i64 %k, array<i64> %at)",
                           "%r = call i64 @at(i64 %k)", __FILE__, __LINE__);
    Shape Here = localShape(N.Sh, L);
    Acc Flat = reshape({Here.size()}, DefRows);
    Acc E = reshape(extentsOf(Here), permute(N.Fns[0], Flat,
                                             Placed.with({use(Where)}),
                                             use(Vals)));
    std::shared_ptr<rt::Array> A = runLocal(E, Here.size() == 0);
    if (!A)
      A = newArray(N.Type, Here);
    return distributed(N.Type, N.Sh, L, use(A));
  }

  //===-- Consumers -------------------------------------------------------===//

  std::vector<Val> consumer(const Node &N) {
    std::string Skel = N.Skel ? N.Skel->name() : "";
    bool AnyDistributed = false;
    for (const NodeRef &K : N.Kids)
      AnyDistributed |= !one(K).Whole;
    if (!AnyDistributed)
      return replicated(N);
    unsigned Rank = N.Kids[0]->Sh.rank();
    if (Skel == "fold")
      return {Rank >= 2 ? byRows(N) : foldVector(N)};
    bool Segmented = Skel == "foldSeg" || Skel == "scanlSeg" ||
                     Skel == "scanrSeg";
    if (Segmented && Rank >= 2)
      return byRowsMulti(N);
    if (Skel == "foldSeg" && !one(N.Kids[0]).Whole)
      return {foldSegVector(N)};
    if (llvm::StringRef(N.Name).starts_with("scan") && !Segmented)
      return Rank >= 2 ? byRowsMulti(N) : scanVector(N);
    if (Skel == "stencil" && stencilByRows(N))
      return {stencilRows(N)};
    if (Skel == "permute")
      return {permuted(N)};
    return replicated(N);
  }

  /// N over this rank's rows of its input (a fold or scan along the inner
  /// dimension of an array of rank 2 or more); its other arrays (segment
  /// lengths, which apply to every row) whole.
  std::vector<Val> byRowsMulti(const Node &N) {
    Val In = one(N.Kids[0]);
    Layout L = layoutOf({In}, In.Global.extent(0));
    std::vector<NodeRef> Kids = {rowsIn(In, L).node()};
    for (size_t K = 1; K < N.Kids.size(); ++K)
      Kids.push_back(wholeArray(N.Kids[K]));
    Shape Here = localShape(N.Sh, L);
    auto C = cloneWith(N, Kids, Here);
    std::vector<Val> Out;
    for (size_t I = 0; I < N.OutTypes.size(); ++I) {
      Shape LocalI = localShape(N.OutShapes[I], L);
      NodeRef Part = C;
      if (N.OutTypes.size() > 1) {
        C->OutShapes[I] = LocalI;
        Part = selectOf(C, I, N.OutTypes[I], LocalI);
      }
      Out.push_back(distributed(N.OutTypes[I], N.OutShapes[I], L, Acc(Part)));
    }
    return Out;
  }
  Val byRows(const Node &N) { return byRowsMulti(N).at(0); }

  /// The fold of this rank's rows of a vector (none when it holds none).
  std::shared_ptr<rt::Array> localTotal(const Fn &F, Val &In) {
    bool Empty = In.L.rowsOf(R.Rank) == 0;
    return runLocal(Empty ? Acc() : fold1(F, In.Local), Empty);
  }

  /// The elements Parts (a vector, whole here) folded with F, Seed first
  /// (Left) or last; none when there is nothing to fold.
  std::shared_ptr<rt::Array> foldHere(const Fn &F, const Scalar *Seed,
                                      const std::shared_ptr<rt::Array> &Parts,
                                      bool Left = true) {
    bool Empty = Parts->size() == 0 && !Seed;
    Acc E;
    if (!Empty) {
      Acc P = use(Parts);
      if (Seed) {
        Acc S = fill({1}, *Seed);
        P = Left ? concat(S, P) : concat(P, S);
      }
      E = fold1(F, P);
    }
    return runLocal(E, Empty);
  }

  Val foldVector(const Node &N) {
    Val In = one(N.Kids[0]);
    const Fn &F = N.Fns[0];
    std::vector<int> From;
    auto Parts = X.gatherScalars(N.Type, localTotal(F, In), From);
    const Scalar *Seed = N.Consts.empty() ? nullptr : &N.Consts[0];
    return wholeVal(N.Type, N.Sh, use(foldHere(F, Seed, Parts)));
  }

  /// foldSeg and fold1Seg of a distributed vector, whose segments may
  /// cross the blocks' boundaries: each rank folds the pieces of segments
  /// its rows hold, sends each piece's fold to the rank that holds that
  /// segment's result (the results are split evenly), and each rank folds
  /// the pieces of its segments in rank order, the seed first.
  Val foldSegVector(const Node &N) {
    Val In = one(N.Kids[0]);
    std::shared_ptr<rt::Array> SegA = wholeArray(N.Kids[1])->Data;
    const Fn &F = N.Fns[0];
    const Scalar *Seed = N.Consts.empty() ? nullptr : &N.Consts[0];
    int64_t NSeg = SegA->size(), Len = In.Global.extent(0);
    // The segments' offsets, checked here as the skeleton checks them: the
    // same on every rank, so every rank throws the same error.
    std::vector<int64_t> Off(static_cast<size_t>(NSeg) + 1, Len),
        Lens(static_cast<size_t>(NSeg));
    if (rt::Status Err = readSegments(N.Name, *SegA, Len, Seed != nullptr,
                                      Off.data(), Lens.data());
        !Err.ok())
      throw ArrayError(Err.message());
    // The pieces here: (segment, elements here), segments in order.
    int64_t S = In.L.start(R.Rank), E = In.L.start(R.Rank + 1);
    std::vector<int64_t> PieceSeg, PieceLen;
    auto First = std::upper_bound(Off.begin(), Off.end(), S) - Off.begin() - 1;
    for (int64_t K = std::max<int64_t>(First, 0); K < NSeg && Off[size_t(K)] < E;
         ++K) {
      int64_t A = std::max(S, Off[size_t(K)]),
              B = std::min(E, Off[size_t(K) + 1]);
      if (A < B) {
        PieceSeg.push_back(K);
        PieceLen.push_back(B - A);
      }
    }
    std::shared_ptr<rt::Array> Parts;
    {
      Acc Lens = use(std::make_shared<rt::Array>(std::move(
          *rt::Array::fromVector(*Shape::make({int64_t(PieceLen.size())}),
                                 PieceLen))));
      Parts = runLocal(PieceLen.empty() ? Acc() : fold1Seg(F, In.Local, Lens),
                       PieceLen.empty());
    }
    // To the rank that holds each segment's result.
    Layout OutL = Layout::even(NSeg, R.Size);
    std::vector<int> Counts(size_t(R.Size), 0);
    for (int64_t K : PieceSeg)
      ++Counts[size_t(Exchange::ownerOf(OutL, K))];
    std::vector<int> RecvCounts = X.exchangeCounts(Counts);
    std::vector<std::byte> Ids = X.alltoallv(
        reinterpret_cast<const std::byte *>(PieceSeg.data()), 8, Counts,
        RecvCounts);
    size_t NGot = 0;
    for (int C : RecvCounts)
      NGot += size_t(C);
    const int64_t *Id = reinterpret_cast<const int64_t *>(Ids.data());
    // Stable by segment: each segment's pieces in rank order.
    std::vector<size_t> Order(NGot);
    for (size_t I = 0; I < NGot; ++I)
      Order[I] = I;
    std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      return Id[A] != Id[B] ? Id[A] < Id[B] : A < B;
    });
    int64_t OS = OutL.start(R.Rank), OE = OutL.start(R.Rank + 1);
    std::vector<int64_t> PerSeg(size_t(OE - OS), 0);
    for (size_t I = 0; I < NGot; ++I)
      ++PerSeg[size_t(Id[I] - OS)];
    auto Vals = X.sendElements(N.Type, Parts.get(), nullptr, Counts,
                               RecvCounts, &Order);
    ++R.St.Exchanges;
    Acc Counted = use(std::make_shared<rt::Array>(
        std::move(*rt::Array::fromVector(*Shape::make({OE - OS}), PerSeg))));
    bool None = OE == OS;
    std::shared_ptr<rt::Array> Res = runLocal(
        None ? Acc()
        : Seed ? foldSeg(F, *Seed, use(Vals), Counted)
               : fold1Seg(F, use(Vals), Counted),
        None);
    if (None)
      Res = newArray(N.Type, *Shape::make({0}));
    return distributed(N.Type, N.Sh, OutL, use(Res));
  }

  /// A scan of a vector: totals, carries, then each rank's rows from its
  /// carry.
  std::vector<Val> scanVector(const Node &N) {
    Val In = one(N.Kids[0]);
    if (In.Whole)
      return replicated(N);
    const Fn &F = N.Fns[0];
    bool Left = N.Name[4] == 'l';
    int Variant = int(N.Code[0]);
    const Scalar *Seed = N.Consts.empty() ? nullptr : &N.Consts[0];
    std::vector<int> From;
    auto Totals = X.gatherScalars(N.Type, localTotal(F, In), From);
    // The totals before this rank (left) or after it (right).
    size_t Before = 0;
    while (Before < From.size() && From[Before] < R.Rank)
      ++Before;
    size_t After = Before;
    while (After < From.size() && From[After] <= R.Rank)
      ++After;
    std::shared_ptr<rt::Array> Side =
        Left ? viewRows(Totals, 0, int64_t(Before))
             : viewRows(Totals, int64_t(After),
                        int64_t(From.size() - After));
    std::shared_ptr<rt::Array> Carry = foldHere(F, Seed, Side, Left);
    int64_t Rows = In.L.rowsOf(R.Rank);
    Acc Block = In.Local;
    bool Extra = Variant == 0 && (Left ? R.Rank == R.Size - 1 : R.Rank == 0);
    Scalar C = Carry ? ArrayHandle(Carry).at(0) : Scalar(0);
    // This rank's part of the first result.
    Acc Part;
    bool Skip = false, DropFirst = false, DropLast = false;
    if (Variant == 0) {
      Part = Extra ? (Left ? scanl(F, C, Block) : scanr(F, C, Block))
                   : (Left ? scanlPrime(F, C, Block).first
                           : scanrPrime(F, C, Block).first);
    } else if (Variant == 1) {
      if (Rows == 0)
        Skip = true;
      else if (!Carry)
        Part = Left ? scanl1(F, Block) : scanr1(F, Block);
      else if (Left) {
        Part = scanl(F, C, Block);
        DropFirst = true;
      } else {
        Part = scanr(F, C, Block);
        DropLast = true;
      }
    } else {
      Part = Left ? scanlPrime(F, C, Block).first
                  : scanrPrime(F, C, Block).first;
    }
    std::shared_ptr<rt::Array> A = runLocal(Part, Skip);
    if (Skip)
      A = newArray(N.Type, *Shape::make({0}));
    else if (DropFirst || DropLast)
      A = viewRows(A, DropFirst ? 1 : 0, Rows);
    Layout L = In.L;
    if (Variant == 0) {
      if (Left)
        L.Starts.back() += 1;
      else
        for (size_t I = 1; I < L.Starts.size(); ++I)
          L.Starts[I] += 1;
    }
    std::vector<Val> Out = {distributed(N.Type, N.OutShapes[0], L, use(A))};
    if (Variant == 2) {
      // The total: every rank's fold, seeded.
      auto Total = foldHere(F, Seed, Totals, Left);
      Out.push_back(wholeVal(N.Type, N.OutShapes[1], use(Total)));
    }
    return Out;
  }

  /// Whether a stencil can run on each rank's rows plus halo rows: every
  /// array the same shape, and the outermost dimension wrapping around in
  /// all of them or in none.
  bool stencilByRows(const Node &N) {
    for (unsigned W = 0; W < N.NumInputs; ++W)
      if (N.Kids[W]->Sh != N.Kids[0]->Sh ||
          (N.Code[W] == Boundary::Wrap) != (N.Code[0] == Boundary::Wrap))
        return false;
    return true;
  }

  /// Runs Parts here (none: this rank has nothing to run), then agrees.
  std::vector<std::shared_ptr<rt::Array>>
  runLocalAll(const std::vector<Acc> &Parts) {
    std::vector<std::shared_ptr<rt::Array>> Out;
    std::string Failure;
    if (!Parts.empty()) {
      ++R.St.LocalRuns;
      llvm::Expected<std::vector<Array<>>> A = R.Local->tryRunAll(Parts);
      if (A)
        for (Array<> &X : *A)
          Out.push_back(X.shared());
      else
        Failure = llvm::toString(A.takeError());
    }
    X.agree(Failure.empty() ? nullptr : &Failure);
    return Out;
  }

  /// A stencil over this rank's rows, with the halo rows around them from
  /// its neighbours: the radius of the window's outermost dimension on each
  /// side, cut at the array's edges (where the stencil's boundary applies
  /// as on one process), or taken from the other end when the boundary
  /// wraps around. A block of at least two radii runs the stencil over its
  /// own rows in place, and again over the few rows at each end that read
  /// halo rows (those results replace the first); a smaller block runs it
  /// over a copy of itself and its halo.
  Val stencilRows(const Node &N) {
    const Shape &Sh = N.Kids[0]->Sh;
    int64_t Rad = 0, Rows = Sh.extent(0);
    unsigned Rank = unsigned(N.Code[4]);
    for (unsigned W = 0; W < N.NumInputs; ++W)
      Rad = std::max(Rad, N.Code[5 + W * Rank] / 2);
    std::vector<Val> In;
    for (unsigned W = 0; W < N.NumInputs; ++W)
      In.push_back(one(N.Kids[W]));
    Layout L = layoutOf(In, Rows);
    int64_t S = L.start(R.Rank), E = L.start(R.Rank + 1), Own = E - S;
    bool Wrap = N.Code[0] == Boundary::Wrap;
    using Ranges = std::vector<std::pair<int64_t, int64_t>>;
    // Global rows [From, To), cut at the edges or wrapped around.
    auto RowsOf = [&](int64_t From, int64_t To) {
      Ranges W;
      if (!Wrap) {
        From = std::max<int64_t>(From, 0);
        To = std::min(To, Rows);
        if (From < To)
          W.push_back({From, To});
        return W;
      }
      for (int64_t K = From; K < To;) {
        int64_t At = ((K % Rows) + Rows) % Rows;
        int64_t Len = std::min(Rows - At, To - K);
        W.push_back({At, At + Len});
        K += Len;
      }
      return W;
    };
    Ranges Top, Bottom;
    if (Own > 0) {
      Top = RowsOf(S - Rad, S);
      Bottom = RowsOf(E, E + Rad);
    }
    auto Count = [](const Ranges &W) {
      int64_t C = 0;
      for (auto [A, B] : W)
        C += B - A;
      return C;
    };
    int64_t HT = Count(Top), HB = Count(Bottom);
    bool Split = Own >= 2 * Rad;
    Ranges Want = Top;
    if (!Split && Own > 0)
      Want.push_back({S, E});
    Want.insert(Want.end(), Bottom.begin(), Bottom.end());
    // For each array: its rows here, and what was fetched.
    std::vector<std::shared_ptr<rt::Array>> Block, Got;
    for (Val &V : In) {
      std::shared_ptr<rt::Array> Mine = materialize(V);
      // An array laid out otherwise than L has other rows here: fetch L's.
      Block.push_back(V.Whole  ? viewRows(Mine, S, Own)
                      : V.L == L ? Mine
                                 : X.fetchRows(Mine, V.L, V.Global, V.Type,
                                               {{S, E}}));
      Got.push_back(V.Whole ? pickRows(Mine, Want)
                            : X.fetchRows(Mine, V.L, V.Global, V.Type, Want));
    }
    std::vector<NodeRef> Arrays = fnArraysWhole(N);
    // The stencil over arrays whose rows are the pieces Of(W) gives.
    auto Part = [&](auto Of) {
      std::vector<NodeRef> Kids;
      int64_t Len = 0;
      for (unsigned W = 0; W < N.NumInputs; ++W) {
        std::shared_ptr<rt::Array> A = Of(W);
        Len = A->shape().extent(0);
        Kids.push_back(use(A).node());
      }
      Kids.insert(Kids.end(), Arrays.begin(), Arrays.end());
      return Acc(cloneWith(N, Kids, withRows(N.Sh, Len)));
    };
    std::vector<Acc> Parts;
    if (Own > 0 && !Split)
      Parts.push_back(Part([&](unsigned W) { return Got[W]; }));
    if (Own > 0 && Split) {
      Parts.push_back(Part([&](unsigned W) { return Block[W]; }));
      if (HT > 0)
        Parts.push_back(Part([&](unsigned W) {
          return joinRows({{Got[W], 0, HT}, {Block[W], 0, 2 * Rad}});
        }));
      if (HB > 0)
        Parts.push_back(Part([&](unsigned W) {
          return joinRows({{Block[W], Own - 2 * Rad, 2 * Rad},
                           {Got[W], HT, HB}});
        }));
    }
    std::vector<std::shared_ptr<rt::Array>> Res = runLocalAll(Parts);
    std::shared_ptr<rt::Array> A;
    if (Own == 0) {
      A = newArray(N.Type, withRows(N.Sh, 0));
    } else if (!Split) {
      A = viewRows(Res[0], HT, Own);
    } else {
      A = Res[0];
      size_t Next = 1;
      if (HT > 0)
        copyRows(*A, 0, *Res[Next++], HT, Rad);
      if (HB > 0)
        copyRows(*A, Own - Rad, *Res[Next++], Rad, Rad);
    }
    return distributed(N.Type, N.Sh, L, use(A));
  }
};

//===-- Runtime -------------------------------------------------------------===//

/// ArrayError unless MPI can be called now.
static void checkMpiUp(const char *What) {
  int Up = 0, Down = 0;
  MPI_Initialized(&Up);
  MPI_Finalized(&Down);
  if (!Up || Down)
    throw ArrayError(fmt::format(
        "{}: MPI is {}; call it between MPI_Init and MPI_Finalize", What,
        Up ? "finalized" : "not initialized"));
}

Runtime::Runtime(MPI_Comm C, const RuntimeOptions &O) : Comm(C) {
  checkMpiUp("llq::mpi::Runtime");
  if (Comm == MPI_COMM_NULL)
    throw ArrayError("llq::mpi::Runtime: MPI_COMM_NULL is no communicator");
  MPI_Comm_rank(Comm, &Rank);
  MPI_Comm_size(Comm, &Size);
  Local = std::make_unique<llq::Runtime>(O);
}

Runtime::~Runtime() = default;

DArray Runtime::make(Array<> Block, const Shape &Global, Layout L,
                     bool Whole) {
  DArray D;
  D.Global = Global;
  D.L = std::move(L);
  D.Whole = Whole;
  D.Rank = Rank;
  D.Block = Block;
  auto N = makeNode(Op::Use, "use");
  N->Type = Block.type();
  N->Sh = Global;
  N->Data = Block.shared();
  if (!Whole) {
    N->Distributed = true;
    N->Vals = D.L.Starts;
  }
  D.Use = Acc(N);
  return D;
}

/// The element type and shape of an array on Root, told to every rank.
static std::pair<ElemType, Shape> broadcastForm(MPI_Comm Comm, int Root,
                                                const detail::ArrayHandle *A) {
  std::vector<int64_t> Form;
  int Rank;
  MPI_Comm_rank(Comm, &Rank);
  if (Rank == Root) {
    if (!A->shared())
      Form = {-1};
    else {
      Form.push_back(A->type().isTuple());
      Form.push_back(int64_t(A->type().numFields()));
      for (ScalarKind K : A->type().fields())
        Form.push_back(int64_t(K));
      Form.push_back(A->shape().rank());
      for (unsigned D = 0; D < A->shape().rank(); ++D)
        Form.push_back(A->shape().extent(D));
    }
  }
  int Len = int(Form.size());
  MPI_Bcast(&Len, 1, MPI_INT, Root, Comm);
  Form.resize(size_t(Len));
  MPI_Bcast(Form.data(), Len, MPI_INT64_T, Root, Comm);
  if (Form[0] < 0)
    throw ArrayError(fmt::format("scatter: rank {} gave an empty Array", Root));
  std::vector<ScalarKind> Fields;
  size_t At = 2;
  for (int64_t I = 0; I < Form[1]; ++I)
    Fields.push_back(ScalarKind(Form[At++]));
  ElemType T = Form[0] ? ElemType::tuple(Fields) : ElemType::scalar(Fields[0]);
  std::vector<int64_t> E(Form.begin() + At + 1, Form.end());
  return {T, *Shape::make(E)};
}

DArray Runtime::scatter(const detail::ArrayHandle &Whole, int Root) {
  if (Root < 0 || Root >= Size)
    throw ArrayError(fmt::format("scatter: no rank {} in a communicator of {}",
                                 Root, Size));
  auto [T, Sh] = broadcastForm(Comm, Root, &Whole);
  if (Sh.rank() == 0) {
    Evaluator Ev(*this);
    auto A = Rank == Root ? Whole.shared() : newArray(T, Sh);
    for (size_t F = 0; F < T.numFields(); ++F)
      MPI_Bcast(A->data(F), int(rt::byteSize(T.field(F))), MPI_BYTE, Root,
                Comm);
    return make(Array<>(A), Sh, Layout::even(0, Size), true);
  }
  Evaluator Ev(*this);
  Layout L = Layout::even(Sh.extent(0), Size);
  auto Mine = Ev.X.fetchRows(Rank == Root ? Whole.shared() : nullptr,
                           Layout::onRank(Sh.extent(0), Root, Size), Sh, T,
                           {{L.start(Rank), L.start(Rank + 1)}});
  return make(Array<>(Mine), Sh, L, false);
}

DArray Runtime::fromBlocks(const detail::ArrayHandle &Block) {
  if (!Block.shared())
    throw ArrayError("fromBlocks: an empty Array");
  if (Block.shape().rank() == 0)
    throw ArrayError("fromBlocks: a block of rank 0 has no rows");
  // Everyone's rows, and a check that the rest agrees.
  std::vector<int64_t> Mine = {Block.shape().extent(0),
                               int64_t(Block.shape().rank())};
  for (unsigned D = 1; D < Block.shape().rank(); ++D)
    Mine.push_back(Block.shape().extent(D));
  for (ScalarKind K : Block.type().fields())
    Mine.push_back(int64_t(K));
  int Len = int(Mine.size()), MaxLen = 0, MinLen = 0;
  MPI_Allreduce(&Len, &MaxLen, 1, MPI_INT, MPI_MAX, Comm);
  MPI_Allreduce(&Len, &MinLen, 1, MPI_INT, MPI_MIN, Comm);
  Mine.resize(size_t(MaxLen), -1);
  std::vector<int64_t> All(Mine.size() * size_t(Size));
  MPI_Allgather(Mine.data(), MaxLen, MPI_INT64_T, All.data(), MaxLen,
                MPI_INT64_T, Comm);
  Layout L;
  L.Starts.push_back(0);
  for (int R = 0; R < Size; ++R) {
    const int64_t *Rec = All.data() + size_t(R) * Mine.size();
    if (MinLen != MaxLen ||
        !std::equal(Rec + 1, Rec + MaxLen, All.data() + 1))
      throw ArrayError(fmt::format(
          "fromBlocks: rank {} gave a block of another element type or "
          "inner extents than rank 0's ({} of {})",
          R, Block.type().str(), Block.shape().str()));
    L.Starts.push_back(L.Starts.back() + Rec[0]);
  }
  return make(Array<>(Block.shared()), withRows(Block.shape(), L.rows()), L,
              false);
}

DArray Runtime::distribute(const detail::ArrayHandle &Whole) {
  if (!Whole.shared())
    throw ArrayError("distribute: an empty Array");
  if (Whole.shape().rank() == 0)
    return make(Array<>(Whole.shared()), Whole.shape(), Layout::even(0, Size),
                true);
  Layout L = Layout::even(Whole.shape().extent(0), Size);
  return make(Array<>(viewRows(Whole.shared(), L.start(Rank), L.rowsOf(Rank))),
              Whole.shape(), L, false);
}

Array<> Runtime::gather(const DArray &A, int Root) {
  if (Root < 0 || Root >= Size)
    throw ArrayError(fmt::format("gather: no rank {} in a communicator of {}",
                                 Root, Size));
  if (A.whole())
    return Rank == Root ? A.local() : Array<>();
  Evaluator Ev(*this);
  auto Out = Ev.X.fetchRows(A.local().shared(), A.layout(), A.shape(), A.type(),
                          Rank == Root
                              ? std::vector<std::pair<int64_t, int64_t>>{{0, A.shape().extent(0)}}
                              : std::vector<std::pair<int64_t, int64_t>>{});
  return Rank == Root ? Array<>(Out) : Array<>();
}

Array<> Runtime::allgather(const DArray &A) {
  if (A.whole())
    return A.local();
  Evaluator Ev(*this);
  return Array<>(Ev.X.fetchRows(A.local().shared(), A.layout(), A.shape(),
                              A.type(), {{0, A.shape().extent(0)}}));
}

DArray Runtime::run(const Acc &E) {
  checkMpiUp("run");
  if (!E.node())
    throw ArrayError("run: an empty Acc");
  if (!E.error().empty())
    throw ArrayError(E.error());
  Evaluator Ev(*this);
  Val V = Ev.one(E.node());
  std::shared_ptr<rt::Array> A = Ev.materialize(V);
  // A filter's length is known only now; its Global was its bound.
  if (V.Whole)
    V.Global = A->shape();
  if (!V.Whole)
    return make(Array<>(A), V.Global, V.L, false);
  if (V.Global.rank() == 0)
    return make(Array<>(A), V.Global, Layout::even(0, Size), true);
  Layout L = Layout::even(V.Global.extent(0), Size);
  return make(Array<>(viewRows(A, L.start(Rank), L.rowsOf(Rank))), V.Global,
              L, false);
}

} // namespace llq::mpi
