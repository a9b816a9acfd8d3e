//===- Filter.cpp - filter and compact: the elements a test keeps, in order ===//
//
// filter(p, a) keeps the elements of the vector a for which p holds, and
// compact(flags, a) those whose flag is set, in index order. The vector is
// cut into chunks, a few per thread. The first phase counts what each chunk
// keeps, evaluating the fused producers of the test; the host turns the
// chunk counts (a few numbers, not the data) into each chunk's first output
// position and allocates the result, whose length only now is known; the
// second phase tests again and writes each kept element at its chunk's next
// position. The input is read, and the test evaluated, twice: once to
// count, once to write (a one-pass filter, writing each chunk once its
// predecessors have published their counts as Scan.cpp's stream scan does,
// would need the result's storage before its length is known).
//
// The result's length depends on the data: a filter may be run, and its
// result used in later runs, but not used inside another expression
// (Node::LengthAfterRun; makeNode refuses it).
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

const Template FilterSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.count(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %n = i64 $opr:n
  %chunk = i64 $opr:chunk
  %counts = ptr $opr:counts
  for i64 %c in %lo to %hi {
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %short = icmp slt i64 %last0, %n
    %last = select i1 %short, i64 %last0, i64 %n
    %k = i64 0
    for i64 %j in %first to %last {
      $instrs:test
      %one = zext i1 $opr:keep to i64
      %k = add i64 %k, %one
    }
    %cp = getelementptr i64, ptr %counts, i64 %c
    store i64 %k, ptr %cp
  }
  ret void
}

define internal void @body.write(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %n = i64 $opr:n
  %chunk = i64 $opr:chunk
  %counts = ptr $opr:counts
  for i64 %c in %lo to %hi {
    %first = mul i64 %c, %chunk
    %last0 = add i64 %first, %chunk
    %short = icmp slt i64 %last0, %n
    %last = select i1 %short, i64 %last0, i64 %n
    %op = getelementptr i64, ptr %counts, i64 %c
    %o = load i64, ptr %op
    for i64 %j in %first to %last {
      $instrs:test
      if $opr:keep {
        $instrs:elem
        $instrs:store
        %o = add i64 %o, 1
      }
    }
  }
  ret void
}

$defs:entries
)");

class Filter final : public LibrarySkeleton {
public:
  Filter() : LibrarySkeleton(filterLauncher()) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    Code Test, Elem, Store;
    // compact: the flag decides, and the element is read only when kept;
    // filter: the test reads the element.
    bool Compact = N.Code[0] != 0;
    Operand X = G.elemMulti(A, {"j"}, Compact ? Elem : Test);
    Operand Keep = Compact ? G.elemMulti(*N.Kids[1], {"j"}, Test)
                           : G.call(N, 0, {{G.type(A.Type), X}}, Test);
    G.store(N.Type, G.outBuffers(0, N.Type), X, "o", Store);
    return G.instantiate(FilterSkeleton,
                         {{"n", G.hostInt(0)},
                          {"chunk", G.hostInt(1)},
                          {"counts", G.hostPtr(2)},
                          {"test", Test},
                          {"keep", Keep},
                          {"elem", Elem},
                          {"store", Store}},
                         {"count", "write"}, Ctx);
  }

};

const Filter FilterSkel;

/// The node of filter or compact over the vector A, keeping what P or
/// Flags says.
Acc makeFilter(const char *Name, const Fn *P, const Acc *Flags, const Acc &A) {
  std::vector<NodeRef> Kids{A.node()};
  if (Flags)
    Kids.push_back(Flags->node());
  auto N = makeConsumer(FilterSkel, Name, Kids);
  if (P)
    useFns(*N, {*P});
  // Structural, and read by the launcher, which has no functions: 1 where
  // an array of flags chooses the elements (compact).
  N->Code = {P ? 0 : 1};
  if (!N->Error.empty())
    return Acc(N);
  N->Type = A.type();
  N->LengthAfterRun = true;
  if (A.shape().rank() != 1) {
    N->Error = fmt::format("{}: needs a vector, not an array of shape {} "
                           "(reshape it to one)",
                           Name, A.shape().str());
    return Acc(N);
  }
  int64_t Len = A.shape().extent(0);
  if (P) {
    N->Error = checkFn(*P, Name, {irType(A.type())}, "i1");
  } else if (Flags->shape().rank() != 1 ||
             Flags->type() != ElemType::scalar(ScalarKind::Bool)) {
    N->Error = fmt::format("{}: the flags must be a vector of bool, not {} of "
                           "shape {}",
                           Name, Flags->type().str(), Flags->shape().str());
    return Acc(N);
  } else {
    Len = std::min(Len, Flags->shape().extent(0));
  }
  N->Sh = *Shape::make({Len});
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  return Acc(N);
}

} // namespace

Acc llq::filter(const Fn &P, const Acc &A) {
  return makeFilter("filter", &P, nullptr, A);
}

Acc llq::compact(const Acc &Flags, const Acc &A) {
  return makeFilter("compact", nullptr, &Flags, A);
}
