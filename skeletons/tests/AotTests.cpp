//===- AotTests.cpp - The ahead-of-time compiler's files and mistakes -----===//
//
// What llq::aot::Pipeline writes, and that each mistake in a generator is
// an ArrayError at the generator's C++ line (the pipeline's, its output's,
// or the LLQ_FN's), never a crash or a file half written. Running the
// compiled code is the example's test (skeletons/examples/aot).
//
//===----------------------------------------------------------------------===//

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/Aot.h"
#include <doctest/doctest.h>
#include <fstream>
#include <sstream>

using namespace llq;

namespace {

std::string dir(const char *Name) {
  return std::string(LLQ_TEST_OUT) + "/" + Name;
}

std::string slurp(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The message compile() throws, or "" when it throws none.
std::string errorOf(const aot::Pipeline &P, const std::string &Dir) {
  try {
    P.compile(Dir);
  } catch (const ArrayError &E) {
    return E.what();
  }
  return "";
}

const Fn &add() {
  static const Fn F =
      LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  return F;
}

} // namespace

TEST_CASE("a_pipeline_writes_its_library_plan_and_header") {
  aot::Pipeline P("sum_rows");
  Acc X = P.input<float>("x", 2);
  P.output(fold(add(), 0.0f, X));
  std::string Out = dir("sum_rows");
  P.compile(Out);
  CHECK(slurp(Out + "/sum_rows.h").find(
            "llq::Array<float> sum_rows(const llq::Array<float> &x);") !=
        std::string::npos);
  std::string Source = slurp(Out + "/sum_rows.cpp");
  CHECK(Source.find("void llq_aot_sum_rows_k0_part(int64_t, int64_t, void *);") !=
        std::string::npos);
  CHECK(Source.find("\"fold\"") != std::string::npos);
  CHECK(slurp(Out + "/sum_rows.a").rfind("!<arch>\n", 0) == 0);
}

TEST_CASE("generator_mistakes_are_errors_at_the_generator_line") {
  SUBCASE("a name that is not an identifier") {
    int Line = __LINE__ + 1;
    aot::Pipeline P("sum rows");
    P.output(P.input<float>("x", 1));
    std::string E = errorOf(P, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}: error: pipeline 'sum "
                                     "rows': a pipeline's name names a C++ "
                                     "function",
                                     Line)) != std::string::npos,
                  E);
  }
  SUBCASE("no output") {
    int Line = __LINE__ + 1;
    aot::Pipeline P("nothing");
    std::string E = errorOf(P, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}: error: pipeline "
                                     "'nothing': no output",
                                     Line)) != std::string::npos,
                  E);
  }
  SUBCASE("an array captured at build time") {
    aot::Pipeline P("captured");
    Acc X = P.input<float>("x", 1);
    Acc C = fromVector(std::vector<float>{1, 2, 3});
    int Line = __LINE__ + 1;
    P.output(zipWith(add(), X, C));
    std::string E = errorOf(P, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}: error: pipeline "
                                     "'captured': the output reads an array "
                                     "that is not one of the pipeline's "
                                     "inputs",
                                     Line)) != std::string::npos,
                  E);
  }
  SUBCASE("an operation not compiled ahead of time yet") {
    aot::Pipeline P("joined");
    Acc X = P.input<float>("x", 1);
    int Line = __LINE__ + 1;
    P.output(concat(X, X));
    std::string E = errorOf(P, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}: error: pipeline "
                                     "'joined': concat: ",
                                     Line)) != std::string::npos,
                  E);
    CHECK(E.find("ahead-of-time pipelines do not take this operation yet") !=
          std::string::npos);
  }
  SUBCASE("a scalar function's mistake, at its LLQ_FN") {
    aot::Pipeline P("typo");
    Acc X = P.input<float>("x", 1);
    int Line = __LINE__ + 1;
    auto Bad = LLQ_FN("float (float %a)", "%r = fadd float %a, %nosuch");
    P.output(map(Bad, X));
    std::string E = errorOf(P, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}:", Line)) !=
                      std::string::npos,
                  E);
  }
  SUBCASE("an input named twice, and one of rank 0") {
    aot::Pipeline P("twice");
    Acc X = P.input<float>("x", 1);
    int Line = __LINE__ + 1;
    Acc Y = P.input<float>("x", 1);
    P.output(zipWith(add(), X, Y));
    std::string E = errorOf(P, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}: error: pipeline "
                                     "'twice': input 'x' is named twice",
                                     Line)) != std::string::npos,
                  E);
    aot::Pipeline Q("scalar");
    Line = __LINE__ + 1;
    Q.output(Q.input<float>("s", 0));
    E = errorOf(Q, dir("bad"));
    CHECK_MESSAGE(E.find(fmt::format("AotTests.cpp:{}: error: pipeline "
                                     "'scalar': input 's' has rank 0",
                                     Line)) != std::string::npos,
                  E);
  }
  SUBCASE("a target this LLVM does not know") {
    aot::Pipeline P("elsewhere");
    P.output(map(LLQ_FN("float (float %a)", "%r = fmul float %a, %a"),
                 P.input<float>("x", 1)));
    try {
      P.compile(dir("bad"), {"x86_64-linux-gnu", "znver99", "", 3});
      FAIL("no error");
    } catch (const ArrayError &E) {
      CHECK(std::string(E.what()).find("ObjectTarget::CPU='znver99'") !=
            std::string::npos);
    }
  }
}
