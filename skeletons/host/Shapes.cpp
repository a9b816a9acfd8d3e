//===- Shapes.cpp - Shapes of a tree from its leaves, without LLVM --------===//
//
// A kernel depends on an expression's structure, never on its extents. A
// program that runs a compiled plan on arrays of other extents than it was
// built with binds its leaves to them and recomputes every other shape
// here, bottom up, with the rules the operations used when they were
// built (Node.cpp, the skeletons); the consumers' rules are their
// launchers' (Launcher::reshape, Launchers.cpp).
//
//===----------------------------------------------------------------------===//

#include "Launchers.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

rt::Status Launcher::reshape(Node &N) const {
  return failed(fmt::format("{}: this skeleton's kernels run on the extents "
                            "they were built for only",
                            N.Name));
}

rt::Status llq::detail::setShape(Node &N, const std::vector<int64_t> &E) {
  rt::Expected<Shape> Sh = Shape::make(E);
  if (!Sh)
    return failed(fmt::format("{}: {}", N.Name, Sh.message()));
  N.Sh = *Sh;
  return rt::Status();
}

namespace {

/// The shape of a zipWith or zip: Code[0] says whether the kernel was built
/// for arrays of one shape, else the extents are the least of each
/// dimension.
rt::Status zipShape(Node &N) {
  const Shape &First = N.Kids[0]->Sh;
  std::vector<int64_t> E = extentsOf(First);
  size_t Arrays = N.K == Op::Zip ? N.Kids.size() : N.NumInputs;
  for (size_t K = 0; K < Arrays; ++K) {
    const Shape &Sh = N.Kids[K]->Sh;
    if (Sh.rank() != First.rank())
      return failed(fmt::format("{}: the arrays' ranks differ ({} and {})",
                                N.Name, First.str(), Sh.str()));
    if (!N.Code.empty() && N.Code[0] && !(Sh == First))
      return failed(fmt::format(
          "{}: the arrays' shapes differ ({} and {}), and its kernel was "
          "made for arrays of one shape; build the expression with arrays "
          "of different shapes to run it so",
          N.Name, First.str(), Sh.str()));
    for (unsigned D = 0; D < First.rank(); ++D)
      E[D] = std::min(E[D], Sh.extent(D));
  }
  return setShape(N, E);
}

rt::Status reshapeNode(Node &N) {
  switch (N.K) {
  case Op::Use:
    if (N.Data && !(N.Sh == N.Data->shape()))
      N.Sh = N.Data->shape();
    return rt::Status();
  // Their extents are their own, given when they were built.
  case Op::Generate:
  case Op::Fill:
  case Op::EnumFromN:
  case Op::Backpermute:
  case Op::Transform:
    return rt::Status();
  case Op::Reshape:
    // Code {1}: a flattening, whose extent is its array's size.
    if (!N.Code.empty() && N.Code[0] == 1)
      return setShape(N, {N.Kids[0]->Sh.size()});
    if (N.Sh.size() != N.Kids[0]->Sh.size())
      return failed(fmt::format("reshape: shape {} has {} elements, the array "
                                "{} has {}",
                                N.Sh.str(), N.Sh.size(), N.Kids[0]->Sh.str(),
                                N.Kids[0]->Sh.size()));
    return rt::Status();
  case Op::Map:
  case Op::Reverse:
  case Op::Field:
    N.Sh = N.Kids[0]->Sh;
    return rt::Status();
  case Op::ZipWith:
  case Op::IZipWith:
  case Op::Zip:
    return zipShape(N);
  case Op::Transpose:
    return setShape(N, {N.Kids[0]->Sh.extent(1), N.Kids[0]->Sh.extent(0)});
  case Op::Replicate: {
    std::vector<int64_t> E = extentsOf(N.Kids[0]->Sh);
    E.insert(E.begin(), N.Sh.extent(0));
    return setShape(N, E);
  }
  case Op::Slice: {
    const Shape &A = N.Kids[0]->Sh;
    if (A.rank() == 0 || N.Vals[0] < 0 || N.Vals[0] >= A.extent(0))
      return failed(fmt::format("slice: index {} is outside the outermost "
                                "dimension of shape {}",
                                N.Vals[0], A.str()));
    std::vector<int64_t> E = extentsOf(A);
    E.erase(E.begin());
    return setShape(N, E);
  }
  case Op::Select:
    N.Sh = N.Kids[0]->OutShapes.at(size_t(N.Code[0]));
    return rt::Status();
  case Op::Consumer:
    return N.Skel ? N.Skel->reshape(N)
                  : failed(fmt::format("{}: a consumer without a skeleton",
                                       N.Name));
  default:
    return failed(fmt::format("{}: this operation's arrays keep the extents "
                              "the expression was built with",
                              N.Name));
  }
}

} // namespace

rt::Status llq::detail::reshapeTree(Node &Root) {
  // Postorder without recursion: a kid before its parent.
  std::vector<std::pair<Node *, size_t>> Work{{&Root, 0}};
  while (!Work.empty()) {
    auto &[N, Next] = Work.back();
    if (Next < N->Kids.size()) {
      Node *Kid = const_cast<Node *>(N->Kids[Next++].get());
      Work.push_back({Kid, 0});
      continue;
    }
    if (rt::Status S = reshapeNode(*N); !S.ok())
      return S;
    Work.pop_back();
  }
  return rt::Status();
}
