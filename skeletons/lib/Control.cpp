//===- Control.cpp - acond and awhile: a choice and a loop in one run -----===//
//
// Builds the nodes of Accelerate's two control operations. Neither is a
// kernel: a run records the condition, the branches and the loop's body as
// plans of their own inside the expression's plan (Runtime.cpp), compiled
// once, and executes them as the condition says, reading one bool back per
// decision. Here their types and shapes are checked, so that a mistake is
// found where the expression is built, like any other.
//
// awhile's condition and step are C++ functions from an Acc to an Acc: they
// are called once, on a stand-in for the loop's value (a Use of no array,
// Node::LoopValue), and the expressions they return are kept.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Node.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

/// "an array of i32 of shape [3]", "a scalar of f64".
std::string describeArray(const Acc &A) {
  if (A.shape().rank() == 0)
    return "a scalar of " + A.type().str();
  return fmt::format("an array of {} of shape {}", A.type().str(),
                     A.shape().str());
}

bool isScalarBool(const Acc &A) {
  return A.shape().rank() == 0 && A.type() == ElemType::scalar(ScalarKind::Bool);
}

void fail(Node &N, std::string Message) {
  if (N.Error.empty())
    N.Error = std::move(Message);
}

} // namespace

Acc llq::acond(const Acc &P, const Acc &A, const Acc &B) {
  auto N = makeNode(Op::Cond, "acond", {P.node(), A.node(), B.node()});
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  N->Sh = A.shape();
  if (!isScalarBool(P))
    fail(*N, fmt::format("acond: the condition is {}; it must be a scalar of "
                         "bool (rank 0)",
                         describeArray(P)));
  else if (A.type() != B.type() || A.shape() != B.shape())
    fail(*N, fmt::format("acond: the branches are {} and {}; they must have "
                         "one element type and shape",
                         describeArray(A), describeArray(B)));
  return Acc(N);
}

Acc llq::awhile(const std::function<Acc(const Acc &)> &Cond,
                const std::function<Acc(const Acc &)> &Step, const Acc &Init) {
  if (!Init.node() || !Init.error().empty() || !Cond || !Step) {
    auto N = makeNode(Op::While, "awhile", {Init.node()});
    fail(*N, "awhile: an empty condition or step function");
    return Acc(N);
  }
  auto X = std::make_shared<Node>();
  X->K = Op::Use;
  X->Name = "awhile's value";
  X->LoopValue = true;
  X->Type = Init.type();
  X->Sh = Init.shape();
  Acc Value(X);
  Acc C = Cond(Value), S = Step(Value);
  auto N = makeNode(Op::While, "awhile", {Init.node(), C.node(), S.node(), X});
  if (!N->Error.empty())
    return Acc(N);
  N->NumInputs = 1;
  N->Type = Init.type();
  N->Sh = Init.shape();
  if (!isScalarBool(C))
    fail(*N, fmt::format("awhile: the condition gives {}; it must give a "
                         "scalar of bool (rank 0)",
                         describeArray(C)));
  else if (S.type() != Init.type() || S.shape() != Init.shape())
    fail(*N, fmt::format("awhile: the step gives {} from {}; it must keep the "
                         "element type and shape",
                         describeArray(S), describeArray(Init)));
  return Acc(N);
}
