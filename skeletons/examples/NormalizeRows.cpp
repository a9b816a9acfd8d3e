//===- NormalizeRows.cpp - A skeleton written outside the library ----------===//
//
// The worked example of docs/SkeletonAuthoring.md: a consumer that divides
// every row of a float matrix by the row's sum, in one kernel that reads
// each row twice (the library would need a fold and a zipWith). It is a
// Skeleton: a dialect template, the code that fills it, and a launch. The
// input is fused, as into any consumer of the library.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <cmath>

using namespace llq::authoring;

namespace {

const llq::Template RowsSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.rows(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %n = i64 $opr:n
  for i64 %row in %lo to %hi {
    %sum = float 0.0
    for i64 %j in 0 to %n {
      $instrs:elem
      %sum = fadd float %sum, $opr:x
    }
    for i64 %j in 0 to %n {
      $instrs:elem
      %y = fdiv float $opr:x, %sum
      $instrs:store
    }
  }
  ret void
}

$defs:entries
)");

class NormalizeRows final : public Skeleton {
public:
  const char *name() const override { return "normalizeRows"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    // The element (%row, %j) of the input, with its producers fused: the
    // code computing it, and the value it leaves.
    Code Elem, Store;
    Operand X = G.elemMulti(A, {"row", "j"}, Elem);
    // %y stored at (%row, %j) of the output.
    Operand L = G.linearOf(N, {"row", "j"}, Store);
    G.store(N.Type, G.outBuffers(0, N.Type), "y", L, Store);
    return G.instantiate(RowsSkeleton,
                         {{"n", G.extent(A, 1)},
                          {"elem", Elem},
                          {"x", X},
                          {"store", Store}},
                         {"rows"}, Ctx);
  }

  llq::rt::Status launch(Launch &L) const override {
    const Node &N = L.root();
    if (llq::rt::Status E = L.output(N.Type, N.Sh); !E.ok())
      return E;
    return L.run(0, 0, N.Sh.extent(0), 1);
  }
};

const NormalizeRows NormalizeRowsSkel;

/// The operation: checks its input and builds the consumer node.
llq::Acc normalizeRows(const llq::Acc &A) {
  auto N = makeConsumer(NormalizeRowsSkel, "normalizeRows", {A.node()});
  if (!N->Error.empty())
    return llq::Acc(N);
  if (A.type() != llq::ElemType::of<float>() || A.shape().rank() != 2) {
    N->Error = "normalizeRows: needs a matrix of float, not " +
               A.type().str() + " of shape " + A.shape().str();
    return llq::Acc(N);
  }
  N->Type = A.type();
  N->Sh = A.shape();
  N->OutTypes = {N->Type};
  N->OutShapes = {N->Sh};
  return llq::Acc(N);
}

} // namespace

static int example(const Options &O) {
  int64_t H = O.get("height", O.get("n", 100)), W = O.get("width", 37);
  std::vector<float> Xs(static_cast<size_t>(H * W));
  for (size_t I = 0; I < Xs.size(); ++I)
    Xs[I] = float(I % 9) + 1.0f;
  llq::Runtime R = O.make();
  auto Sq = LLQ_FN("float (float %a)", "%r = fmul float %a, %a");
  // The map is fused into the new skeleton's kernel.
  auto Got = R.run<float>(normalizeRows(llq::map(Sq, llq::fromVector({H, W}, Xs))))
                 .toVector();
  bool Ok = true;
  for (int64_t I = 0; I < H; ++I) {
    float Sum = 0;
    for (int64_t J = 0; J < W; ++J)
      Sum += Xs[size_t(I * W + J)] * Xs[size_t(I * W + J)];
    for (int64_t J = 0; J < W; ++J) {
      float V = Xs[size_t(I * W + J)];
      Ok = Ok && Got[size_t(I * W + J)] == (V * V) / Sum;
    }
  }
  fmt::print("normalizeRows of a {}x{} matrix: {}\n", H, W, Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
