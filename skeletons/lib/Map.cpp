//===- Map.cpp - The materialising skeleton: generate, map, zipWith, ... --===//
//
// Writes every element of a delayed array. The index space is the output's
// linear positions; a piece [lo, hi) is walked row by row, so that the
// outer multi-index is computed once per row and the innermost loop runs
// over consecutive positions of every manifest input: that loop has no
// division in it and vectorizes.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

const Template MapSkeleton = LLQ_SKELETON(R"(
$defs:fns

define internal void @body.map(i64 %lo, i64 %hi, $params:params) alwaysinline {
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
    $instrs:outer
    for i64 %j in %j0 to %j1 {
      %lin = add i64 %rowbase, %j
      $instrs:elem
    }
    %ix = i64 %stop
    %more = icmp slt i64 %ix, %hi
  }
  ret void
}

$defs:entries
)");

class Materialize final : public Skeleton {
public:
  const char *name() const override { return "map"; }

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &P = *G.root().Kids[0];
    unsigned Rank = P.Sh.rank();
    std::string Setup, Outer, Elem;
    Setup = fmt::format("  %inner = i64 {}\n",
                        Rank ? G.extent(P, Rank - 1) : "1");
    std::vector<std::string> Ix;
    if (Rank >= 2) {
      Outer += "  %q = i64 %row\n";
      Ix.resize(Rank);
      for (unsigned D = Rank - 2; D > 0; --D) {
        Ix[D] = fmt::format("%o{}", D);
        Outer += fmt::format("  {0} = srem i64 %q, {1}\n"
                             "  %q = sdiv i64 %q, {1}\n",
                             Ix[D], G.extent(P, D));
      }
      Ix[0] = "%o0";
      Outer += "  %o0 = i64 %q\n";
      Ix[Rank - 1] = "%j";
    } else if (Rank == 1) {
      Ix = {"%j"};
    }
    std::string X = Rank <= 1 ? G.elemLinear(P, "%lin", Elem)
                              : G.elemMulti(P, Ix, Elem);
    G.store(P.Type, G.outBuffers(0, P.Type), X, "%lin", Elem);
    return G.instantiate(MapSkeleton,
                         {{"setup", Setup}, {"outer", Outer}, {"elem", Elem}},
                         {"map"}, Ctx);
  }

  llvm::Error launch(Launch &L) const override {
    const Node &P = *L.root().Kids[0];
    if (llvm::Error E = L.output(P.Type, P.Sh))
      return E;
    return L.run(0, 0, P.Sh.size(), L.backend().grain(4096));
  }
};

} // namespace

const Skeleton &llq::detail::materializeSkeleton() {
  static const Materialize S;
  return S;
}
