//===- Node.cpp - Producers: building and checking array expressions ------===//
//
// The delayed operations of Skeletons.h. Each builds a Node, computes its
// element type and shape, and checks what it was given; the first mistake
// is kept in Node::Error, located at the Fn's C++ place where a function is
// at fault, and reported when the expression runs.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Node.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

//===-- Types -------------------------------------------------------------===//

std::string llq::detail::irType(ScalarKind K) {
  switch (K) {
  case ScalarKind::I8:
  case ScalarKind::U8:
    return "i8";
  case ScalarKind::I16:
  case ScalarKind::U16:
    return "i16";
  case ScalarKind::I32:
  case ScalarKind::U32:
    return "i32";
  case ScalarKind::I64:
  case ScalarKind::U64:
    return "i64";
  case ScalarKind::F16:
    return "half";
  case ScalarKind::F32:
    return "float";
  case ScalarKind::F64:
    return "double";
  case ScalarKind::Bool:
    return "i1";
  }
  return "i8";
}

std::string llq::detail::irType(const ElemType &T) {
  if (!T.isTuple())
    return irType(T.field(0));
  std::string S = "{ ";
  for (size_t I = 0; I < T.numFields(); ++I)
    S += (I ? ", " : "") + irType(T.field(I));
  return S + " }";
}

std::string llq::detail::irTypeOf(const ElemType &T) { return irType(T); }

std::optional<ElemType> llq::detail::elemTypeOf(const std::string &IR) {
  static const std::pair<const char *, ScalarKind> Scalars[] = {
      {"i8", ScalarKind::I8},       {"i16", ScalarKind::I16},
      {"i32", ScalarKind::I32},     {"i64", ScalarKind::I64},
      {"float", ScalarKind::F32},   {"double", ScalarKind::F64},
      {"i1", ScalarKind::Bool},     {"half", ScalarKind::F16}};
  for (auto &[Name, Kind] : Scalars)
    if (IR == Name)
      return ElemType::scalar(Kind);
  llvm::StringRef S(IR);
  if (!S.consume_front("{ ") || !S.consume_back(" }"))
    return std::nullopt;
  std::vector<ScalarKind> Fields;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  S.split(Parts, ", ");
  for (llvm::StringRef P : Parts) {
    std::optional<ElemType> F = elemTypeOf(P.str());
    if (!F || F->isTuple())
      return std::nullopt;
    Fields.push_back(F->field(0));
  }
  return ElemType::tuple(Fields);
}

/// The result type of a function that maps elements of In: In itself when
/// the spellings agree (so unsigned stays unsigned), else the signed kind.
static std::optional<ElemType> resultOf(const Fn &F, const ElemType &In) {
  if (F.resultType() == irType(In))
    return In;
  return elemTypeOf(F.resultType());
}

std::string llq::detail::checkFn(const Fn &F, const char *Operation,
                                 const std::vector<std::string> &Params,
                                 const std::string &Result) {
  if (!F.ok())
    return F.error() + fmt::format("\nnote: the function was given to {}",
                                   Operation);
  auto List = [](const std::vector<std::string> &L) {
    return "(" + fmt::format("{}", fmt::join(L, ", ")) + ")";
  };
  // Arrays declared `array<T, R> %name` must be given, of T and R.
  const std::vector<ArrayParam> &Declared = F.impl().Arrays;
  if (!Declared.empty()) {
    std::vector<std::string> Names;
    for (const ArrayParam &A : Declared)
      Names.push_back("%" + A.Name);
    if (F.arrays().size() != Declared.size())
      return fmt::format("{}: error: {}: the function reads {} array{} ({}), "
                         "but {} given to it with Fn::with",
                         F.where(), Operation, Declared.size(),
                         Declared.size() == 1 ? "" : "s",
                         fmt::join(Names, ", "),
                         F.arrays().empty()
                             ? std::string("none is")
                             : fmt::format("{} {}", F.arrays().size(),
                                           F.arrays().size() == 1 ? "is"
                                                                  : "are"));
    for (size_t K = 0; K < Declared.size(); ++K) {
      const Acc &A = F.arrays()[K];
      if (!A.node() || !A.error().empty())
        continue; // The array's own error is reported.
      if (irType(A.type()) != Declared[K].Type ||
          A.shape().rank() != Declared[K].Rank)
        return fmt::format("{}: error: {}: the function reads %{} as "
                           "array<{}, {}>, but the array given is "
                           "array<{}, {}>",
                           F.where(), Operation, Declared[K].Name,
                           Declared[K].Type, Declared[K].Rank,
                           irType(A.type()), A.shape().rank());
    }
  }
  std::vector<std::string> Want = Params;
  for (const std::string &P : F.arrayParamTypes())
    Want.push_back(P);
  if (F.openParamTypes() != Want)
    return fmt::format("{}: error: {} needs a function of {}, but this one "
                       "takes {}{}",
                       F.where(), Operation, List(Want),
                       List(F.openParamTypes()),
                       F.bound().empty() ? "" : " besides its bound ones");
  if (!Result.empty() && F.resultType() != Result)
    return fmt::format("{}: error: {} needs a function that returns {}, but "
                       "this one returns {}",
                       F.where(), Operation, Result, F.resultType());
  return "";
}

std::string llq::detail::checkCombine(const Fn &F, const char *Operation,
                                      const ElemType &T, const Scalar *Seed) {
  if (!F.arrays().empty())
    return fmt::format("{}: error: {}'s function cannot read arrays",
                       F.where(), Operation);
  if (!F.bound().empty())
    return fmt::format("{}: error: {}'s function cannot have bound "
                       "parameters: it combines elements only",
                       F.where(), Operation);
  std::string Error = checkFn(F, Operation, {irType(T), irType(T)}, irType(T));
  if (Error.empty() && Seed && Seed->type() != T)
    return fmt::format("{}: the seed is {}, the array holds {}", Operation,
                       Seed->type().str(), T.str());
  return Error;
}

//===-- Nodes -------------------------------------------------------------===//


void llq::detail::useFns(Node &N, std::vector<Fn> Fns) {
  N.Fns = std::move(Fns);
  N.FnArrays.assign(N.Fns.size(), {});
  N.FnBound.assign(N.Fns.size(), {});
  for (size_t I = 0; I < N.Fns.size(); ++I)
    for (const auto &[Pos, V] : N.Fns[I].bound()) {
      N.FnBound[I].push_back(unsigned(N.Consts.size()));
      N.Consts.push_back(V);
    }
  for (size_t I = 0; I < N.Fns.size(); ++I)
    for (const Acc &A : N.Fns[I].arrays()) {
      if (!A.node()) {
        if (N.Error.empty())
          N.Error = fmt::format("{}: an empty Acc given to Fn::with", N.Name);
        continue;
      }
      if (N.Error.empty() && !A.node()->Error.empty())
        N.Error = A.node()->Error;
      if (N.Kids.size() >= 32) {
        if (N.Error.empty())
          N.Error = fmt::format("{}: functions read too many arrays", N.Name);
        continue;
      }
      N.FnArrays[I].push_back(unsigned(N.Kids.size()));
      N.ManifestKids |= 1u << N.Kids.size();
      deepen(N, *A.node());
      N.Kids.push_back(A.node());
    }
}

const std::vector<Acc> &Fn::arrays() const {
  static const std::vector<Acc> None;
  return Arrays ? *Arrays : None;
}

Fn Fn::with(std::vector<Acc> A) const {
  Fn F = *this;
  F.Arrays = std::make_shared<const std::vector<Acc>>(std::move(A));
  return F;
}

std::vector<std::string> Fn::arrayParamTypes() const {
  std::vector<std::string> Ps;
  for (const Acc &A : arrays()) {
    if (!A.node())
      continue;
    for (size_t F = 0; F < A.type().numFields(); ++F)
      Ps.push_back("ptr");
    for (unsigned D = 0; D < A.shape().rank(); ++D)
      Ps.push_back("i64");
  }
  return Ps;
}

namespace {

/// Sets N's shape from Extents, or its error.
void setShape(Node &N, const Extents &E) {
  rt::Expected<Shape> Sh = Shape::make(E);
  if (!Sh) {
    if (N.Error.empty())
      N.Error = fmt::format("{}: {}", N.Name, Sh.message());
    return;
  }
  N.Sh = *Sh;
}

void fail(Node &N, std::string Message) {
  if (N.Error.empty())
    N.Error = std::move(Message);
}

std::vector<std::string> indexParams(unsigned Rank) {
  return std::vector<std::string>(Rank, "i64");
}

/// What an index projection to rank R returns.
std::string indexResult(unsigned Rank) {
  if (Rank == 1)
    return "i64";
  std::string S = "{ ";
  for (unsigned I = 0; I < Rank; ++I)
    S += I ? ", i64" : "i64";
  return S + " }";
}

} // namespace


Acc llq::use(std::shared_ptr<rt::Array> A) {
  auto N = makeNode(Op::Use, "use");
  if (!A) {
    N->Error = "use: an empty Array";
    return Acc(N);
  }
  N->Type = A->type();
  N->Sh = A->shape();
  N->Data = std::move(A);
  return Acc(N);
}

Acc llq::generate(const Extents &Sh, const Fn &F) {
  auto N = makeNode(Op::Generate, "generate");
  useFns(*N, {F});
  setShape(*N, Sh);
  fail(*N, checkFn(F, "generate", indexParams(unsigned(Sh.size()))));
  if (N->Error.empty()) {
    if (auto T = elemTypeOf(F.resultType()))
      N->Type = *T;
    else
      fail(*N, fmt::format("{}: error: generate: '{}' is not an element type",
                           F.where(), F.resultType()));
  }
  return Acc(N);
}

Acc llq::map(const Fn &F, const Acc &A) {
  auto N = makeNode(Op::Map, "map", {A.node()});
  useFns(*N, {F});
  if (!N->Error.empty())
    return Acc(N);
  N->Sh = A.shape();
  fail(*N, checkFn(F, "map", {irType(A.type())}));
  if (N->Error.empty()) {
    if (auto T = resultOf(F, A.type()))
      N->Type = *T;
    else
      fail(*N, fmt::format("{}: error: map: '{}' is not an element type",
                           F.where(), F.resultType()));
  }
  return Acc(N);
}

/// zipWith, and with Indexed its index-aware form (imap, izipWith): F takes
/// the element's index, one i64 per dimension, before the elements.
static Acc zipWithN(const char *Name, const Fn &F, std::vector<Acc> In,
                    bool Indexed = false) {
  std::vector<NodeRef> Kids;
  for (const Acc &A : In)
    Kids.push_back(A.node());
  auto N = makeNode(Indexed ? Op::IZipWith : Op::ZipWith, Name, Kids);
  useFns(*N, {F});
  if (!N->Error.empty())
    return Acc(N);
  unsigned Rank = In[0].shape().rank();
  Extents E = extentsOf(In[0].shape());
  bool Same = true;
  std::vector<std::string> Params;
  if (Indexed)
    Params.assign(Rank, "i64");
  for (const Acc &A : In) {
    Params.push_back(irType(A.type()));
    if (A.shape().rank() != Rank) {
      fail(*N, fmt::format("{}: the arrays' ranks differ ({} and {})", Name,
                           In[0].shape().str(), A.shape().str()));
      return Acc(N);
    }
    Same = Same && A.shape() == In[0].shape();
    for (unsigned D = 0; D < Rank; ++D)
      E[D] = std::min(E[D], A.shape().extent(D));
  }
  setShape(*N, E);
  N->Code = {Same ? 1 : 0};
  fail(*N, checkFn(F, Name, Params));
  if (N->Error.empty()) {
    if (auto T = resultOf(F, In[0].type()))
      N->Type = *T;
    else
      fail(*N, fmt::format("{}: error: {}: '{}' is not an element type",
                           F.where(), Name, F.resultType()));
  }
  return Acc(N);
}

Acc llq::zipWith(const Fn &F, const Acc &A, const Acc &B) {
  return zipWithN("zipWith", F, {A, B});
}
Acc llq::zipWith(const Fn &F, const Acc &A, const Acc &B, const Acc &C) {
  return zipWithN("zipWith", F, {A, B, C});
}
Acc llq::zipWith(const Fn &F, const Acc &A, const Acc &B, const Acc &C,
                 const Acc &D) {
  return zipWithN("zipWith", F, {A, B, C, D});
}
Acc llq::imap(const Fn &F, const Acc &A) {
  return zipWithN("imap", F, {A}, /*Indexed=*/true);
}
Acc llq::izipWith(const Fn &F, const Acc &A, const Acc &B) {
  return zipWithN("izipWith", F, {A, B}, /*Indexed=*/true);
}
Acc llq::izipWith(const Fn &F, const Acc &A, const Acc &B, const Acc &C) {
  return zipWithN("izipWith", F, {A, B, C}, /*Indexed=*/true);
}

Acc llq::backpermute(const Extents &Sh, const Fn &Proj, const Acc &A) {
  auto N = makeNode(Op::Backpermute, "backpermute", {A.node()});
  useFns(*N, {Proj});
  setShape(*N, Sh);
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  fail(*N, checkFn(Proj, "backpermute", indexParams(unsigned(Sh.size())),
                   indexResult(A.shape().rank())));
  if (A.shape().rank() == 0)
    fail(*N, "backpermute: the source array has rank 0");
  return Acc(N);
}

Acc llq::transform(const Extents &Sh, const Fn &Proj, const Fn &F,
                   const Acc &A) {
  auto N = makeNode(Op::Transform, "transform", {A.node()});
  useFns(*N, {Proj, F});
  setShape(*N, Sh);
  if (!N->Error.empty())
    return Acc(N);
  if (A.shape().rank() == 0)
    fail(*N, "transform: the source array has rank 0");
  fail(*N, checkFn(Proj, "transform", indexParams(unsigned(Sh.size())),
                   indexResult(A.shape().rank())));
  fail(*N, checkFn(F, "transform", {irType(A.type())}));
  if (N->Error.empty()) {
    if (auto T = resultOf(F, A.type()))
      N->Type = *T;
    else
      fail(*N, fmt::format("{}: error: transform: '{}' is not an element type",
                           F.where(), F.resultType()));
  }
  return Acc(N);
}

Acc llq::reshape(const Extents &Sh, const Acc &A) {
  auto N = makeNode(Op::Reshape, "reshape", {A.node()});
  setShape(*N, Sh);
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  if (N->Sh.size() != A.shape().size())
    fail(*N, fmt::format("reshape: shape {} has {} elements, the array {} has "
                         "{}",
                         N->Sh.str(), N->Sh.size(), A.shape().str(),
                         A.shape().size()));
  return Acc(N);
}

Acc llq::reverse(const Acc &A) {
  auto N = makeNode(Op::Reverse, "reverse", {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  N->Sh = A.shape();
  if (A.shape().rank() != 1)
    fail(*N, fmt::format("reverse: needs a vector, not an array of shape {}",
                         A.shape().str()));
  return Acc(N);
}

Acc llq::transpose(const Acc &A) {
  auto N = makeNode(Op::Transpose, "transpose", {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  if (A.shape().rank() != 2) {
    fail(*N, fmt::format("transpose: needs a matrix, not an array of shape {}",
                         A.shape().str()));
    return Acc(N);
  }
  setShape(*N, {A.shape().extent(1), A.shape().extent(0)});
  return Acc(N);
}

Acc llq::slice(const Acc &A, int64_t I) {
  auto N = makeNode(Op::Slice, "slice", {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  N->Vals = {I};
  if (A.shape().rank() == 0 || I < 0 || I >= A.shape().extent(0)) {
    fail(*N, fmt::format("slice: index {} is outside the outermost dimension "
                         "of shape {}",
                         I, A.shape().str()));
    return Acc(N);
  }
  Extents E = extentsOf(A.shape());
  E.erase(E.begin());
  setShape(*N, E);
  return Acc(N);
}

Acc llq::replicate(int64_t Count, const Acc &A) {
  auto N = makeNode(Op::Replicate, "replicate", {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  Extents E = extentsOf(A.shape());
  E.insert(E.begin(), Count);
  if (E.size() > Shape::MaxRank)
    fail(*N, fmt::format("replicate: rank {} is more than the {} allowed",
                         E.size(), Shape::MaxRank));
  else
    setShape(*N, E);
  return Acc(N);
}

/// A cut of A's innermost dimension: Length elements from Offset on.
static Acc cut(const char *Name, const Acc &A, int64_t Offset,
               int64_t Length) {
  auto N = makeNode(Op::Cut, Name, {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  N->Vals = {Offset};
  if (A.shape().rank() == 0) {
    fail(*N, fmt::format("{}: needs an array of rank 1 or more, not a scalar",
                         Name));
    return Acc(N);
  }
  Extents E = extentsOf(A.shape());
  E.back() = Length;
  setShape(*N, E);
  return Acc(N);
}

/// The innermost extent of A, or 0 for a scalar or an erroneous A (cut
/// reports both).
static int64_t innermost(const Acc &A) {
  if (!A.error().empty() || A.shape().rank() == 0)
    return 0;
  return A.shape().extent(A.shape().rank() - 1);
}

static Acc negativeCount(const char *Name, int64_t Count, const Acc &A) {
  auto N = makeNode(Op::Cut, Name, {A.node()});
  fail(*N, fmt::format("{}: the count {} is negative", Name, Count));
  return Acc(N);
}

Acc llq::take(int64_t Count, const Acc &A) {
  if (Count < 0)
    return negativeCount("take", Count, A);
  return cut("take", A, 0, std::min(Count, innermost(A)));
}

Acc llq::drop(int64_t Count, const Acc &A) {
  if (Count < 0)
    return negativeCount("drop", Count, A);
  int64_t N = innermost(A);
  Count = std::min(Count, N);
  return cut("drop", A, Count, N - Count);
}

static Acc cutOne(const char *Name, const Acc &A, int64_t Offset) {
  Acc C = cut(Name, A, Offset, std::max<int64_t>(innermost(A) - 1, 0));
  if (C.error().empty() && innermost(A) == 0) {
    auto N = makeNode(Op::Cut, Name, {A.node()});
    fail(*N, fmt::format("{}: the innermost dimension of shape {} is empty",
                         Name, A.shape().str()));
    return Acc(N);
  }
  return C;
}

Acc llq::init(const Acc &A) { return cutOne("init", A, 0); }
Acc llq::tail(const Acc &A) { return cutOne("tail", A, 1); }

Acc llq::concat(const Acc &A, const Acc &B) {
  auto N = makeNode(Op::Concat, "concat", {A.node(), B.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  if (A.type() != B.type()) {
    fail(*N, fmt::format("concat: the arrays hold {} and {}", A.type().str(),
                         B.type().str()));
    return Acc(N);
  }
  unsigned Rank = A.shape().rank();
  if (Rank == 0 || Rank != B.shape().rank()) {
    fail(*N, fmt::format("concat: needs two arrays of one rank, 1 or more, "
                         "not shapes {} and {}",
                         A.shape().str(), B.shape().str()));
    return Acc(N);
  }
  Extents E = extentsOf(A.shape());
  for (unsigned D = 0; D + 1 < Rank; ++D)
    E[D] = std::min(E[D], B.shape().extent(D));
  E.back() += B.shape().extent(Rank - 1);
  setShape(*N, E);
  return Acc(N);
}

static Acc zipN(std::vector<Acc> In) {
  std::vector<NodeRef> Kids;
  for (const Acc &A : In)
    Kids.push_back(A.node());
  auto N = makeNode(Op::Zip, "zip", Kids);
  if (!N->Error.empty())
    return Acc(N);
  std::vector<ScalarKind> Fields;
  unsigned Rank = In[0].shape().rank();
  Extents E = extentsOf(In[0].shape());
  bool Same = true;
  for (const Acc &A : In) {
    if (A.type().isTuple()) {
      fail(*N, fmt::format("zip: the arrays must hold scalars, and one holds "
                           "{}; zip its fields (unzip) instead",
                           A.type().str()));
      return Acc(N);
    }
    if (A.shape().rank() != Rank) {
      fail(*N, fmt::format("zip: the arrays' ranks differ ({} and {})",
                           In[0].shape().str(), A.shape().str()));
      return Acc(N);
    }
    Same = Same && A.shape() == In[0].shape();
    for (unsigned D = 0; D < Rank; ++D)
      E[D] = std::min(E[D], A.shape().extent(D));
    Fields.push_back(A.type().field(0));
  }
  N->Type = ElemType::tuple(Fields);
  N->Code = {Same ? 1 : 0};
  setShape(*N, E);
  return Acc(N);
}

Acc llq::zip(const Acc &A, const Acc &B) { return zipN({A, B}); }
Acc llq::zip(const Acc &A, const Acc &B, const Acc &C) {
  return zipN({A, B, C});
}
Acc llq::zip(const Acc &A, const Acc &B, const Acc &C, const Acc &D) {
  return zipN({A, B, C, D});
}

Acc llq::field(unsigned K, const Acc &A) {
  auto N = makeNode(Op::Field, "field", {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Code = {int64_t(K)};
  N->Sh = A.shape();
  if (!A.type().isTuple() || K >= A.type().numFields()) {
    fail(*N, fmt::format("field: the elements are {}, which have no field {}",
                         A.type().str(), K));
    return Acc(N);
  }
  N->Type = ElemType::scalar(A.type().field(K));
  return Acc(N);
}
Acc llq::fst(const Acc &A) { return field(0, A); }
Acc llq::snd(const Acc &A) { return field(1, A); }
std::vector<Acc> llq::unzip(const Acc &A) {
  if (!A.node() || !A.error().empty() || !A.type().isTuple())
    return {field(0, A)};
  std::vector<Acc> Fields;
  for (unsigned K = 0; K < A.type().numFields(); ++K)
    Fields.push_back(field(K, A));
  return Fields;
}

/// replicate (New) and slice (Fixed) by specification.
static Acc reindex(const char *Name, bool Replicate,
                   const std::vector<SliceDim> &Spec, const Acc &A) {
  auto N = makeNode(Op::Reindex, Name, {A.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  unsigned All = 0, Given = 0;
  for (const SliceDim &D : Spec)
    (D.IsAll ? All : Given) += 1;
  unsigned SrcRank = Replicate ? All : All + Given;
  auto SpecText = [&] {
    std::string T = "Z";
    for (const SliceDim &D : Spec)
      T += D.IsAll ? " :. All" : fmt::format(" :. {}", D.N);
    return T;
  };
  if (SrcRank != A.shape().rank()) {
    fail(*N, fmt::format("{}: the specification ({}) has {} dimension{} of "
                         "the array, which has rank {}",
                         Name, SpecText(), SrcRank, SrcRank == 1 ? "" : "s",
                         A.shape().rank()));
    return Acc(N);
  }
  Extents E;
  unsigned S = 0;
  for (const SliceDim &D : Spec) {
    if (D.IsAll) {
      N->Code.push_back(0);
      E.push_back(A.shape().extent(S++));
    } else if (Replicate) {
      if (D.N < 0) {
        fail(*N, fmt::format("{}: the new extent {} in {} is negative", Name,
                             D.N, SpecText()));
        return Acc(N);
      }
      N->Code.push_back(1);
      E.push_back(D.N);
    } else {
      if (D.N < 0 || D.N >= A.shape().extent(S)) {
        fail(*N, fmt::format("{}: index {} in {} is outside dimension {} of "
                             "shape {}",
                             Name, D.N, SpecText(), S, A.shape().str()));
        return Acc(N);
      }
      N->Code.push_back(2 + int64_t(N->Vals.size()));
      N->Vals.push_back(D.N);
      ++S;
    }
  }
  if (E.size() > Shape::MaxRank) {
    fail(*N, fmt::format("{}: rank {} is more than the {} allowed", Name,
                         E.size(), Shape::MaxRank));
    return Acc(N);
  }
  setShape(*N, E);
  return Acc(N);
}

Acc llq::replicate(const std::vector<SliceDim> &Spec, const Acc &A) {
  return reindex("replicate", true, Spec, A);
}
Acc llq::slice(const Acc &A, const std::vector<SliceDim> &Spec) {
  return reindex("slice", false, Spec, A);
}

Acc llq::fill(const Extents &Sh, const Scalar &V) {
  auto N = makeNode(Op::Fill, "fill");
  setShape(*N, Sh);
  N->Type = V.type();
  N->Consts = {V};
  return Acc(N);
}

Acc llq::enumFromN(const Extents &Sh, const Scalar &Start) {
  auto N = makeNode(Op::EnumFromN, "enumFromN");
  setShape(*N, Sh);
  N->Type = Start.type();
  N->Consts = {Start};
  if (Start.type().isTuple() || Start.type().field(0) == ScalarKind::Bool)
    fail(*N, fmt::format("enumFromN: needs a number, not {}",
                         Start.type().str()));
  return Acc(N);
}

//===-- Acc, Array, Scalar ------------------------------------------------===//

namespace {
const Node &nodeOf(const NodeRef &N) {
  if (!N)
    throw ArrayError("an empty Acc");
  return *N;
}
} // namespace

const ElemType &Acc::type() const { return nodeOf(N).Type; }
const Shape &Acc::shape() const { return nodeOf(N).Sh; }
const std::string &Acc::error() const { return nodeOf(N).Error; }

//===-- Keys --------------------------------------------------------------===//

void llq::detail::structuralKey(const Node &N, std::vector<uint64_t> &Key) {
  Key.push_back(uint64_t(N.K) | uint64_t(N.Sh.rank()) << 8 |
                uint64_t(N.Kids.size()) << 16 |
                uint64_t(N.Type.isTuple()) << 24 |
                uint64_t(N.Type.numFields()) << 32);
  for (ScalarKind F : N.Type.fields())
    Key.push_back(uint64_t(F));
  Key.push_back(N.SkelId);
  Key.push_back(N.Code.size());
  for (int64_t C : N.Code)
    Key.push_back(uint64_t(C));
  for (const Fn &F : N.Fns) {
    Key.push_back(F.impl().Hash);
    // Which parameters are bound changes the code; their values do not.
    uint64_t Bound = 0;
    for (const auto &[Pos, V] : F.bound())
      Bound = Bound * 1099511628211ull + Pos + 1;
    Key.push_back(Bound);
  }
  Key.push_back(N.NumInputs);
  for (const Scalar &C : N.Consts)
    Key.push_back(C.allBits().size());
  for (const NodeRef &Kid : N.Kids)
    structuralKey(*Kid, Key);
}

