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

/// A row from its seed (scanl, scanr: the seed at the row's start or end,
/// each prefix after its element; scanl', scanr': each prefix before its
/// element, the total in output 1), or from its first element in scan
/// order (scanl1, scanr1; a row of none has nothing to scan).
/// $instrs:scan walks the row from %from (%n times $const:nscale, plus
/// $const:from: the row's first element in scan order, or the one after
/// it where that one starts the scan) to its end: by lanes where the
/// element is one field and the function has a vector form (scanByLanes,
/// widenLanes), else one element at a time (RowWalk).
const Template RowFromSeed = LLQ_INSTRS(R"(
  $instrs:seedcode
  %acc = $type:t $opr:seed
  $instrs:atstart
  %from = mul i64 %n, $const:nscale
  %from = add i64 %from, $const:from
  $instrs:scan
  $instrs:atend
)");
const Template RowFromFirst = LLQ_INSTRS(R"(
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
/// The row from %from to $opr:end (exclusive), $const:dir 1 upwards or -1
/// downwards, one element at a time.
const Template RowWalk = LLQ_INSTRS(R"(
  %span = sub i64 $opr:end, %from
  %span = mul i64 %span, $const:dir
  for i64 %r in 0 to %span {
    %j = mul i64 %r, $const:dir
    %j = add i64 %j, %from
    $instrs:step
  }
)");
/// Element %j of a row at its output position %o: what comes before its
/// combination, the combination ($instrs:combine: RowCombine, or nothing
/// where the lanes combine the elements), and what comes after.
const Template RowStep = LLQ_INSTRS(R"(
  %o = add i64 %base, %j
  $instrs:before
  $instrs:combine
  $instrs:after
)");
/// Element %j read and scanned into %acc, upwards as F(acc, x) or
/// downwards as F(x, acc) ($id:a, $id:b).
const Template RowCombine = LLQ_INSTRS(R"(
  $instrs:elem
  %acc = call $type:t $gid:f($type:t $id:a, $type:t $id:b)
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
    Code Outer, Elem, SeedCode, AtStart, Before, After, AtEnd;
    std::vector<Operand> Ix = G.multiOf(A, "row", Outer, int(Rank) - 1);
    Ix.push_back("j");
    G.assign(Elem, "x", T, G.elemMulti(A, Ix, Elem));
    std::vector<Operand> Out = G.outBuffers(0, N.Type);
    std::string F = G.fn(N.Fns[0]);
    Operand Seed = 0;
    if (Variant == 1) {
      G.store(N.Type, Out, "acc", "o", After);
    } else {
      Seed = G.constant(N, 0, SeedCode);
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
    }
    Code Combine, Step, Stores;
    G.code(Combine, RowCombine,
           {{"t", T}, {"f", F}, {"elem", Elem}, {"a", Left ? "acc" : "x"},
            {"b", Left ? "x" : "acc"}},
           {"acc", "x", "j"});
    G.code(Step, RowStep,
           {{"before", Before}, {"combine", Combine}, {"after", After}},
           {"o", "acc", "x", "j"});
    G.code(Stores, RowStep,
           {{"before", Before}, {"combine", Code()}, {"after", After}}, {"o"});
    Operand End = Left ? Operand("n") : Operand(-1);
    // A row around Scan, its walk from %from.
    auto Rows = [&](const Code &Scan, Binding Declaration,
                    const std::vector<std::string> &ScanVars) {
      std::vector<std::string> Vars = {"from", "o", "acc", "x", "j", "some"};
      Vars.insert(Vars.end(), ScanVars.begin(), ScanVars.end());
      Code Body;
      if (Variant == 1)
        G.code(Body, RowFromFirst,
               {{"t", T},
                {"elem", Elem},
                {"after", After},
                {"nscale", Left ? 0 : 1},
                {"first", Left ? 0 : -1},
                {"from", Left ? 1 : -2},
                {"scan", Scan}},
               Vars);
      else
        G.code(Body, RowFromSeed,
               {{"t", T},
                {"seedcode", SeedCode},
                {"seed", Seed},
                {"atstart", AtStart},
                {"atend", AtEnd},
                {"nscale", Left ? 0 : 1},
                {"from", Left ? 0 : -1},
                {"scan", Scan}},
               Vars);
      return G.instantiate(ScanRowsSkeleton,
                           {{"n", G.extent(A, Rank - 1)},
                            {"width", G.extent(N, Rank - 1)},
                            {"outer", Outer},
                            {"body", Body},
                            {"lanes", std::move(Declaration)}},
                           {"rows"}, Ctx);
    };
    // By lanes where F has a vector form, which only the instantiated
    // module tells.
    if (lanesFit(N.Type)) {
      LanesScan L = scanByLanes(
          G, T, F, Elem, Step, Left, Variant == 2,
          [&](Code &C) { C.insert(C.end(), Stores.begin(), Stores.end()); },
          End, LanesAhead{{}, {}, {}, {}, {"o"}});
      auto M = Rows(L.Scan, std::move(L.Declaration),
                    {"span", "nvec", "vspan", "acc1", "accv", "k", "lb", "r"});
      if (!M || widenLanes(**M, F, L.VectorFn))
        return M;
    }
    Code Walk;
    G.code(Walk, RowWalk, {{"end", End}, {"dir", Left ? 1 : -1}, {"step", Step}},
           {"span", "r", "j", "o", "acc", "x"});
    return Rows(Walk, std::vector<Binding>(), {"span", "r"});
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
