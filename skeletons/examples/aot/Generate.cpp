//===- Generate.cpp - The example's generator -------------===//
//
// Nine pipelines. Run at build time by llquote_add_pipeline (CMakeLists.txt): describes
// each pipeline over placeholders and compiles it into the directory --out
// names, for the machine --triple and --cpu name (default: this one).
//
//===----------------------------------------------------------------------===//

#include "Programs.h"
#include "llquote/Aot.h"
#include <cstdio>

int main(int Argc, char **Argv) {
  llq::aot::Options O = llq::aot::parseOptions(Argc, Argv);
  try {
    // Inputs are the function's parameters in the order they are declared:
    // one statement each (a call's arguments have no order in C++).
    llq::aot::Pipeline Dot("dot");
    llq::Acc X = Dot.input<float>("x", 1);
    llq::Acc Y = Dot.input<float>("y", 1);
    Dot.output(aotex::dot(X, Y));
    Dot.compile(O.Dir, O.T);

    llq::aot::Pipeline Sum("prefix_sum");
    Sum.output(aotex::prefixSum(Sum.input<int64_t>("x", 1)));
    Sum.compile(O.Dir, O.T);

    llq::aot::Pipeline Segs("segment_sums");
    llq::Acc Values = Segs.input<float>("x", 1);
    llq::Acc Lengths = Segs.input<int32_t>("lengths", 1);
    Segs.output(aotex::segmentSums(Values, Lengths));
    Segs.compile(O.Dir, O.T);

    llq::aot::Pipeline Positives("positives");
    Positives.output(aotex::positives(Positives.input<float>("x", 1)));
    Positives.compile(O.Dir, O.T);

    llq::aot::Pipeline Rows("normalize_rows");
    Rows.output(aotex::normalizeRows(Rows.input<float>("m", 2)));
    Rows.compile(O.Dir, O.T);

    llq::aot::Pipeline Halve("halve_until_small");
    Halve.output(aotex::halveUntilSmall(Halve.input<float>("x", 1)));
    Halve.compile(O.Dir, O.T);

    llq::aot::Pipeline Flip("flip_if_positive");
    Flip.output(aotex::flipIfPositive(Flip.input<float>("x", 1)));
    Flip.compile(O.Dir, O.T);

    llq::aot::Pipeline Edges("blur_sobel");
    Edges.output(aotex::blurSobel(Edges.input<float>("img", 2)));
    Edges.compile(O.Dir, O.T);

    llq::aot::Pipeline Bodies("accelerations");
    llq::Acc Pos = Bodies.input<std::tuple<float, float, float>>("pos", 1);
    llq::Acc Mass = Bodies.input<float>("mass", 1);
    Bodies.output(aotex::accelerations(Pos, Mass));
    Bodies.compile(O.Dir, O.T);
  } catch (const llq::ArrayError &E) {
    std::fprintf(stderr, "%s\n", E.what());
    return 1;
  }
  return 0;
}
