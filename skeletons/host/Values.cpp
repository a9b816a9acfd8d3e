//===- Values.cpp - Nodes, scalars and arrays, without LLVM ---------------===//
//
// What programs that run kernels compiled ahead of time use of the array
// language, compiled into llquote_host: nodes made and released, scalars
// and arrays read and printed. Building and checking expressions (Node.cpp
// and the skeletons) needs LLVM, for the scalar functions' types.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Expr.h"
#include <cstring>
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

//===-- Nodes -------------------------------------------------------------===//

Node::~Node() {
  // Each kid that only this node holds gives its own kids to the work list
  // before it is released, so no destructor here runs another's.
  std::vector<NodeRef> Work = std::move(Kids);
  while (!Work.empty()) {
    NodeRef Kid = std::move(Work.back());
    Work.pop_back();
    if (!Kid || Kid.use_count() != 1)
      continue;
    // The last reference: nothing else can see the node any more.
    Node &Last = const_cast<Node &>(*Kid);
    for (NodeRef &Grandkid : Last.Kids)
      Work.push_back(std::move(Grandkid));
    Last.Kids.clear();
    // The arrays of its functions are among its kids, now on the list.
    Last.Fns.clear();
  }
}

/// Raises N's depth to one more than Kid's; past MaxExpressionDepth the
/// node keeps an error (its depth stops growing there).
void llq::detail::deepen(Node &N, const Node &Kid) {
  if (Kid.Depth < N.Depth)
    return;
  N.Depth = std::min(Kid.Depth + 1, MaxExpressionDepth + 1);
  if (N.Depth > MaxExpressionDepth && N.Error.empty())
    N.Error = fmt::format(
        "{}: the expression is more than {} operations deep "
        "(llq::MaxExpressionDepth); compute a part of it with run() and use "
        "the result",
        N.Name, MaxExpressionDepth);
}

std::shared_ptr<Node> llq::detail::makeNode(Op K, const char *Name,
                                            std::vector<NodeRef> Kids) {
  auto N = std::make_shared<Node>();
  N->K = K;
  N->Name = Name;
  for (const NodeRef &Kid : Kids) {
    if (!Kid) {
      N->Error = fmt::format("{}: an argument is an empty Acc", Name);
      break;
    }
    if (!Kid->Error.empty() && N->Error.empty())
      N->Error = Kid->Error;
    if (Kid->LengthAfterRun && N->Error.empty())
      N->Error = fmt::format(
          "{}: the result of {} has a length that only a run decides; run "
          "it, then use the array it gives",
          Name, Kid->Name);
  }
  for (const NodeRef &Kid : Kids)
    if (Kid)
      deepen(*N, *Kid);
  N->Kids = std::move(Kids);
  N->NumInputs = unsigned(N->Kids.size());
  return N;
}

std::shared_ptr<Node> llq::detail::copyNode(const Node &N) {
  auto C = std::make_shared<Node>();
  C->K = N.K;
  C->Name = N.Name;
  C->Type = N.Type;
  C->Sh = N.Sh;
  C->Fns = N.Fns;
  C->FnArrays = N.FnArrays;
  C->FnBound = N.FnBound;
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

//===-- Scalars and arrays ------------------------------------------------===//

std::vector<int64_t> llq::detail::extentsOf(const Shape &Sh) {
  return std::vector<int64_t>(Sh.extents(), Sh.extents() + Sh.rank());
}

std::vector<int64_t> llq::detail::outerExtents(const Shape &Sh) {
  return std::vector<int64_t>(Sh.extents(), Sh.extents() + Sh.rank() - 1);
}

bool llq::detail::holds(const rt::Array &A) {
  return A.size() == 1 && *static_cast<const uint8_t *>(A.data(0)) != 0;
}

void llq::detail::checkArrayType(const ElemType &Have, const ElemType &Want) {
  if (Have != Want)
    throw ArrayError(fmt::format("the array holds {}, not {}", Have.str(),
                                 Want.str()));
}

Scalar ArrayHandle::at(int64_t Linear) const {
  if (!A || Linear < 0 || Linear >= A->size())
    throw ArrayError(fmt::format("element {} of an array of {} elements",
                                 Linear, A ? A->size() : 0));
  std::vector<uint64_t> Bits;
  for (size_t F = 0; F < A->numFields(); ++F) {
    size_t Bytes = rt::byteSize(A->type().field(F));
    uint64_t B = 0;
    std::memcpy(&B, static_cast<const char *>(A->data(F)) + Linear * Bytes,
                Bytes);
    Bits.push_back(B);
  }
  return Scalar(A->type(), std::move(Bits));
}

void Scalar::checkType(const ElemType &Want) const {
  if (Type != Want)
    throw ArrayError(fmt::format("the element is {}, not {}", Type.str(),
                                 Want.str()));
}

static std::string fieldStr(ScalarKind K, uint64_t B) {
  auto As = [B](auto V) {
    std::memcpy(&V, &B, sizeof(V));
    return V;
  };
  switch (K) {
  case ScalarKind::I8:
    return fmt::format("{}", As(int8_t()));
  case ScalarKind::I16:
    return fmt::format("{}", As(int16_t()));
  case ScalarKind::I32:
    return fmt::format("{}", As(int32_t()));
  case ScalarKind::I64:
    return fmt::format("{}", As(int64_t()));
  case ScalarKind::U8:
    return fmt::format("{}", As(uint8_t()));
  case ScalarKind::U16:
    return fmt::format("{}", As(uint16_t()));
  case ScalarKind::U32:
    return fmt::format("{}", As(uint32_t()));
  case ScalarKind::U64:
    return fmt::format("{}", As(uint64_t()));
  case ScalarKind::F16: {
    rt::half H;
    std::memcpy(&H, &B, sizeof(H));
    return fmt::format("{}", float(H));
  }
  case ScalarKind::F32:
    return fmt::format("{}", As(float()));
  case ScalarKind::F64:
    return fmt::format("{}", As(double()));
  case ScalarKind::Bool:
    return B ? "True" : "False";
  }
  return "?";
}

std::string Scalar::str() const {
  if (!Type.isTuple())
    return fieldStr(Type.field(0), Bits[0]);
  std::string S = "(";
  for (size_t I = 0; I < Bits.size(); ++I)
    S += (I ? "," : "") + fieldStr(Type.field(I), Bits[I]);
  return S + ")";
}

std::string llq::show(const ArrayHandle &A) {
  const Shape &Sh = A.shape();
  std::string Dims = "Z";
  for (unsigned D = 0; D < Sh.rank(); ++D)
    Dims += fmt::format(" :. {}", Sh.extent(D));
  const char *Kind = Sh.rank() == 0   ? "Scalar"
                     : Sh.rank() == 1 ? "Vector"
                     : Sh.rank() == 2 ? "Matrix"
                                      : "Array";
  std::vector<std::string> Elems;
  for (int64_t I = 0; I < A.size(); ++I)
    Elems.push_back(A.at(I).str());
  if (Sh.rank() != 2 || A.size() == 0)
    return fmt::format("{} ({}) [{}]", Kind, Dims, fmt::join(Elems, ","));
  size_t Width = 0;
  for (const std::string &E : Elems)
    Width = std::max(Width, E.size());
  std::string S = fmt::format("{} ({})\n  [", Kind, Dims);
  int64_t Cols = Sh.extent(1);
  for (int64_t I = 0; I < A.size(); ++I) {
    bool Last = I + 1 == A.size();
    S += fmt::format(" {:>{}}{}", Elems[size_t(I)], Width, Last ? "]" : ",");
    if (!Last && (I + 1) % Cols == 0)
      S += "\n   ";
  }
  return S;
}
