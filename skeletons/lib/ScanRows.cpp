//===- ScanRows.cpp - Scans along the innermost dimension of any rank -----===//
//
// scanl, scanl1, scanl', scanr, scanr1 and scanr' of an array of rank 2 or
// more scan each row (the innermost dimension) on its own, as Accelerate's
// scans of `Array (sh :. Int)` do. The rows are the index space: a thread
// scans whole rows, in order, reading each element once through its fused
// producers. Where the element is one field and the function has a vector
// form, a row is scanned eight elements at a time (scanByLanes, as Scan.cpp
// scans a chunk). A scan of a vector is Scan.cpp's, whose chunks share one
// long row among the threads.
//
// Code[0] is the variant, as Scan.cpp's: 0 scanl/scanr (rows of n+1, the
// seed at the start / end), 1 scanl1/scanr1 (rows of n), 2 scanl'/scanr'
// (rows of the n exclusive prefixes, and each row's total in output 1).
//
//===----------------------------------------------------------------------===//

#include "../host/Launchers.h"
#include "llquote/skeletons/Skeleton.h"
#include "llvm/IR/Module.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::detail;

namespace {

const Template ScanRowsSkeleton = LLQ_SKELETON(R"(
$defs:fns
$defs:lanes

define internal void @body.rows(i64 %lo, i64 %hi, $params:params) alwaysinline {
entry:
  %n = i64 $opr:n
  %width = i64 $opr:width
  for i64 %row in %lo to %hi {
    $instrs:outer
    %base = mul i64 %row, %width
    $instrs:body
  }
  ret void
}

$defs:entries
)");

/// Upwards from the seed (scanl: the seed first, each prefix after its
/// last element; scanl': each prefix before its element, the total last).
const Template RowUpFromSeed = LLQ_INSTRS(R"(
  $instrs:seedcode
  %acc = $type:t $opr:seed
  $instrs:atstart
  for i64 %j in 0 to %n {
    %o = add i64 %base, %j
    $instrs:before
    $instrs:elem
    %acc = call $type:t $gid:f($type:t %acc, $type:t %x)
    $instrs:after
  }
  $instrs:atend
)");
/// Downwards from the seed, combining as F(x, acc).
const Template RowDownFromSeed = LLQ_INSTRS(R"(
  $instrs:seedcode
  %acc = $type:t $opr:seed
  $instrs:atstart
  %top = sub i64 %n, 1
  for i64 %j in %top downto -1 {
    %o = add i64 %base, %j
    $instrs:before
    $instrs:elem
    %acc = call $type:t $gid:f($type:t %x, $type:t %acc)
    $instrs:after
  }
  $instrs:atend
)");
/// scanl1 / scanr1: from the row's first (last) element.
const Template RowUp1 = LLQ_INSTRS(R"(
  %acc = $type:t zeroinitializer
  for i64 %j in 0 to %n {
    %o = add i64 %base, %j
    $instrs:elem
    %start = icmp eq i64 %j, 0
    if %start {
      %acc = $type:t %x
    } else {
      %acc = call $type:t $gid:f($type:t %acc, $type:t %x)
    }
    $instrs:after
  }
)");
const Template RowDown1 = LLQ_INSTRS(R"(
  %acc = $type:t zeroinitializer
  %top = sub i64 %n, 1
  for i64 %j in %top downto -1 {
    %o = add i64 %base, %j
    $instrs:elem
    %start = icmp eq i64 %j, %top
    if %start {
      %acc = $type:t %x
    } else {
      %acc = call $type:t $gid:f($type:t %x, $type:t %acc)
    }
    $instrs:after
  }
)");
/// The same rows scanned eight elements at a time where the element is one
/// field and the function has a vector form (scanByLanes, widenLanes):
/// $instrs:scan goes from %from (%n times $const:nscale, plus
/// $const:from: the row's first element in scan order, or for scanl1 and
/// scanr1, which start from that element, the one after it) to the row's
/// end, its last elements one at a time by the loops' bodies above.
const Template RowFromSeedByLanes = LLQ_INSTRS(R"(
  $instrs:seedcode
  %acc = $type:t $opr:seed
  $instrs:atstart
  %from = mul i64 %n, $const:nscale
  %from = add i64 %from, $const:from
  $instrs:scan
  $instrs:atend
)");
const Template Row1ByLanes = LLQ_INSTRS(R"(
  %some = icmp sgt i64 %n, 0
  if %some {
    %j = mul i64 %n, $const:nscale
    %j = add i64 %j, $const:first
    %o = add i64 %base, %j
    $instrs:elem
    %acc = $type:t %x
    $instrs:after
    %from = mul i64 %n, $const:nscale
    %from = add i64 %from, $const:from
    $instrs:scan
  }
)");
/// Element %j of a row scanned into %acc, upwards as F(acc, x) or
/// downwards as F(x, acc) ($id:a, $id:b), and stored; and the stores
/// alone.
const Template RowStep = LLQ_INSTRS(R"(
  %o = add i64 %base, %j
  $instrs:before
  $instrs:elem
  %acc = call $type:t $gid:f($type:t $id:a, $type:t $id:b)
  $instrs:after
)");
const Template RowStores = LLQ_INSTRS(R"(
  %o = add i64 %base, %j
  $instrs:before
  $instrs:after
)");

/// o + 1, and base + n: where scanl writes after element j, and where
/// scanr writes its seed.
const Template Next = LLQ_HYGIENIC_INSTRS(R"(
  %r = add i64 $opr:v, 1
)");
const Template RowEnd = LLQ_HYGIENIC_INSTRS(R"(
  %r = add i64 $opr:base, $opr:n
)");

class ScanRows final : public LibrarySkeleton {
public:
  explicit ScanRows(bool Left)
      : LibrarySkeleton(scanRowsLauncher(Left)), Left(Left) {}

  llvm::Expected<std::unique_ptr<llvm::Module>>
  generate(KernelGen &G, llvm::LLVMContext &Ctx) const override {
    const Node &N = G.root(), &A = *N.Kids[0];
    int Variant = int(N.Code[0]);
    llvm::Type *T = G.type(N.Type);
    unsigned Rank = A.Sh.rank();
    Code Outer, Elem, Body, SeedCode, AtStart, Before, After, AtEnd;
    std::vector<Operand> Ix = G.multiOf(A, "row", Outer, int(Rank) - 1);
    Ix.push_back("j");
    G.assign(Elem, "x", T, G.elemMulti(A, Ix, Elem));
    std::vector<Operand> Out = G.outBuffers(0, N.Type);
    std::string F = G.fn(N.Fns[0]);
    // The rows by lanes (ByLanes), where the element is one field: once
    // Before and After are known.
    Code ByLanes;
    LanesScan L;
    const std::vector<std::string> RowVars = {
        "span", "nvec", "vspan", "acc1", "accv", "k", "lb", "r",
        "from", "o",    "acc",   "x",    "j"};
    auto Lanes = [&] {
      Code Step, Stores;
      Bindings B{{"t", T},           {"f", F},          {"elem", Elem},
                 {"before", Before}, {"after", After},
                 {"a", Left ? "acc" : "x"}, {"b", Left ? "x" : "acc"}};
      G.code(Step, RowStep, B, {"o", "acc", "x", "j"});
      G.code(Stores, RowStores, B, {"o"});
      L = scanByLanes(
          G, T, F, Elem, Step, Left, Variant == 2,
          [&](Code &C) { C.insert(C.end(), Stores.begin(), Stores.end()); },
          Left ? Operand("n") : Operand(-1), LanesAhead{{}, {}, {}, {}, {"o"}});
      return L.Scan;
    };
    if (Variant == 1) {
      G.store(N.Type, Out, "acc", "o", After);
      G.code(Body, Left ? RowUp1 : RowDown1,
             {{"t", T}, {"f", F}, {"elem", Elem}, {"after", After}},
             {"acc", "j", "o", "x", "start", "top"});
      if (lanesFit(N.Type)) {
        std::vector<std::string> Vars = RowVars;
        Vars.push_back("some");
        G.code(ByLanes, Row1ByLanes,
               {{"t", T},
                {"elem", Elem},
                {"after", After},
                {"nscale", Left ? 0 : 1},
                {"first", Left ? 0 : -1},
                {"from", Left ? 1 : -2},
                {"scan", Lanes()}},
               Vars);
      }
    } else {
      Operand Seed = G.constant(N, 0, SeedCode);
      if (Variant == 0) {
        // scanl: the seed at the row's start, element j's prefix at j + 1;
        // scanr: the seed at its end, element j's at j.
        if (Left) {
          G.store(N.Type, Out, "acc", "base", AtStart);
          G.store(N.Type, Out, "acc", G.emit(After, Next, {{"v", "o"}}, "r"),
                  After);
        } else {
          G.store(N.Type, Out, "acc",
                  G.emit(AtStart, RowEnd, {{"base", "base"}, {"n", "n"}}, "r"),
                  AtStart);
          G.store(N.Type, Out, "acc", "o", After);
        }
      } else {
        // scanl', scanr': each prefix before its element joins, and the
        // row's total.
        G.store(N.Type, Out, "acc", "o", Before);
        G.store(N.Type, G.outBuffers(1, N.Type), "acc", "row", AtEnd);
      }
      G.code(Body, Left ? RowUpFromSeed : RowDownFromSeed,
             {{"t", T},
              {"f", F},
              {"seedcode", SeedCode},
              {"seed", Seed},
              {"elem", Elem},
              {"atstart", AtStart},
              {"before", Before},
              {"after", After},
              {"atend", AtEnd}},
             {"acc", "j", "o", "x", "top"});
      if (lanesFit(N.Type))
        G.code(ByLanes, RowFromSeedByLanes,
               {{"t", T},
                {"seedcode", SeedCode},
                {"seed", Seed},
                {"atstart", AtStart},
                {"atend", AtEnd},
                {"nscale", Left ? 0 : 1},
                {"from", Left ? 0 : -1},
                {"scan", Lanes()}},
               RowVars);
    }
    auto Rows = [&](const Code &Rows, Binding Declaration) {
      return G.instantiate(ScanRowsSkeleton,
                           {{"n", G.extent(A, Rank - 1)},
                            {"width", G.extent(N, Rank - 1)},
                            {"outer", Outer},
                            {"body", Rows},
                            {"lanes", std::move(Declaration)}},
                           {"rows"}, Ctx);
    };
    // By lanes where F has a vector form, which only the instantiated
    // module tells.
    if (!ByLanes.empty()) {
      auto M = Rows(ByLanes, std::move(L.Declaration));
      if (!M || widenLanes(**M, F, L.VectorFn))
        return M;
    }
    return Rows(Body, std::vector<Binding>());
  }


private:
  bool Left;
};

const ScanRows LeftRows(true), RightRows(false);

} // namespace

const Skeleton &llq::detail::scanRowsSkeleton(bool Left) {
  return Left ? static_cast<const Skeleton &>(LeftRows)
              : static_cast<const Skeleton &>(RightRows);
}
