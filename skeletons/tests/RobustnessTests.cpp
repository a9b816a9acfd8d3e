//===- RobustnessTests.cpp - What a user found from outside, kept fixed ---===//
//
// Each case was a wrong result, a crash or a misleading message found by a
// property test written against the installed package: permute into a
// result of rank 2 or 3, expressions tens of thousands of operations deep,
// a thread count past the limit, mistakes in an LLQ_FN body reported at a
// line the library adds, the mirror boundary on a tiny extent, and integer
// division by zero, which checked mode turns into an ArrayError.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "TestSupport.h"
#include "llquote/Skeletons.h"
#include <cstdint>
#include <doctest/doctest.h>
#include <limits>
#include <numeric>
#include <string>

using namespace llq;

namespace {

Runtime &cpu(unsigned Threads) {
  static Runtime Two([] {
    RuntimeOptions O;
    O.Threads = 2;
    return O;
  }());
  static Runtime Seven([] {
    RuntimeOptions O;
    O.Threads = 7;
    return O;
  }());
  return Threads == 2 ? Two : Seven;
}

Runtime &checked(BackendKind K) {
  static Runtime CPU([] {
    RuntimeOptions O;
    O.Threads = 2;
    O.Checks = true;
    return O;
  }());
  static Runtime Seq([] {
    RuntimeOptions O;
    O.Backend = BackendKind::Sequential;
    O.Checks = true;
    return O;
  }());
  return K == BackendKind::CPU ? CPU : Seq;
}

/// A doctest matcher for text built at run time.
doctest::Contains has(const std::string &S) {
  return doctest::Contains(doctest::String(S.c_str()));
}

/// "RobustnessTests.cpp:L:" for an error at line L of this file.
std::string at(int Line) {
  return "RobustnessTests.cpp:" + std::to_string(Line) + ":";
}

/// "RobustnessTests.cpp:L", as Fn::where() names line L.
std::string where(int Line) {
  std::string S = at(Line);
  return S.substr(0, S.size() - 1);
}

/// The ArrayError that running A gives, or "".
std::string errorOf(Runtime &R, const Acc &A) {
  try {
    R.run(A);
  } catch (const ArrayError &E) {
    return E.what();
  }
  return "";
}

int64_t product(const Extents &Sh) {
  return std::accumulate(Sh.begin(), Sh.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

} // namespace

TEST_CASE("permute into a result of rank 2 and 3, against a C++ loop") {
  // Source element i goes to ((i / 2) mod R, i mod C) of an R x C target,
  // except every fifth, which goes outside (row -1) and is dropped; in 3-D,
  // to (i mod P, (i / P) mod R, i mod C).
  auto Add = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  // Not one atomicrmw: a cmpxchg loop, or per-thread copies.
  auto AddCas = LLQ_FN("i32 (i32 %a, i32 %b)",
                       "%m = mul i32 %b, 1\n %r = add i32 %a, %m");
  auto Max = LLQ_FN("i32 (i32 %a, i32 %b)",
                    "%r = call i32 @llvm.smax.i32(i32 %a, i32 %b)");
  // The projections, written for each target's extents (an index function
  // takes only indices).
  auto Proj2 = [](int64_t Rows, int64_t Cols) {
    std::string N = std::to_string(Rows), M = std::to_string(Cols);
    return Fn("{ i64, i64 } (i64 %i)", R"(
    %h = sdiv i64 %i, 2
    %row = srem i64 %h, )" + N + R"(
    %col = srem i64 %i, )" + M + R"(
    %f = srem i64 %i, 5
    %drop = icmp eq i64 %f, 4
    %row2 = select i1 %drop, i64 -1, i64 %row
    %t = insertvalue { i64, i64 } poison, i64 %row2, 0
    %r = insertvalue { i64, i64 } %t, i64 %col, 1)",
              __FILE__, __LINE__);
  };
  auto Proj3 = [](int64_t Planes, int64_t Rows, int64_t Cols) {
    std::string P = std::to_string(Planes), N = std::to_string(Rows),
                M = std::to_string(Cols);
    return Fn("{ i64, i64, i64 } (i64 %i)", R"(
    %p = srem i64 %i, )" + P + R"(
    %q = sdiv i64 %i, )" + P + R"(
    %row = srem i64 %q, )" + N + R"(
    %col = srem i64 %i, )" + M + R"(
    %t = insertvalue { i64, i64, i64 } poison, i64 %p, 0
    %u = insertvalue { i64, i64, i64 } %t, i64 %row, 1
    %r = insertvalue { i64, i64, i64 } %u, i64 %col, 2)",
              __FILE__, __LINE__);
  };
  struct Case {
    Extents Target;
    int64_t Source;
  };
  // Empty targets, one cell, a target larger than its source, and small
  // targets beside large sources (the per-thread copies).
  std::vector<Case> Cases = {{{1, 1}, 4},      {{0, 5}, 9},      {{5, 0}, 9},
                             {{64, 65}, 1000}, {{64, 65}, 50000}, {{2, 2}, 4},
                             {{8, 8}, 100003}, {{3, 4, 5}, 777}, {{2, 3, 2}, 40000},
                             {{0, 3, 2}, 10}};
  for (const Case &C : Cases) {
    CAPTURE(C.Target.size());
    CAPTURE(C.Target[0]);
    CAPTURE(C.Source);
    int64_t Cells = product(C.Target);
    std::vector<int32_t> Src(static_cast<size_t>(C.Source));
    for (size_t I = 0; I < Src.size(); ++I)
      Src[I] = int32_t(I % 13) - 4;
    // The projection of element i, as a linear target position or -1.
    auto Target = [&](int64_t I) -> int64_t {
      if (C.Target.size() == 2) {
        int64_t Rows = C.Target[0], Cols = C.Target[1];
        if (Rows == 0 || Cols == 0 || I % 5 == 4)
          return -1;
        return (I / 2 % Rows) * Cols + I % Cols;
      }
      int64_t P = C.Target[0], Rows = C.Target[1], Cols = C.Target[2];
      if (P == 0 || Rows == 0 || Cols == 0)
        return -1;
      return ((I % P) * Rows + (I / P) % Rows) * Cols + I % Cols;
    };
    // An extent of 0 is given to the projection as 1 (no division by
    // zero): the target is empty, and every element is dropped anyway.
    auto E = [&](size_t D) { return std::max<int64_t>(C.Target[D], 1); };
    Fn Proj = C.Target.size() == 2 ? Proj2(E(0), E(1)) : Proj3(E(0), E(1), E(2));
    REQUIRE(Proj.ok());
    for (const Fn *Combine : {&Add, &AddCas, &Max}) {
      std::vector<int32_t> Want(static_cast<size_t>(Cells), 3);
      for (int64_t I = 0; I < C.Source; ++I) {
        int64_t T = Target(I);
        if (T < 0)
          continue;
        int32_t X = Src[size_t(I)], &Y = Want[size_t(T)];
        Y = Combine == &Max ? std::max(X, Y) : X + Y;
      }
      for (Runtime *R : {&cpu(2), &cpu(7), &test::seq()}) {
        Acc Out = permute(*Combine, fill(C.Target, int32_t(3)),
                          Proj, fromVector(Src));
        Array<int32_t> Got = R->run<int32_t>(Out);
        CHECK(Got.shape().rank() == C.Target.size());
        CHECK(Got.toVector() == Want);
      }
    }
  }
}

TEST_CASE("permute of tuples into a matrix, under a lock per cell") {
  // (i mod 3, i mod 4) of a 3 x 4 target; fields add up field by field.
  auto Proj = LLQ_FN("{ i64, i64 } (i64 %i)", R"(
    %row = srem i64 %i, 3
    %col = srem i64 %i, 4
    %t = insertvalue { i64, i64 } poison, i64 %row, 0
    %r = insertvalue { i64, i64 } %t, i64 %col, 1)");
  std::vector<int32_t> Ints(1000);
  std::vector<double> Reals(1000);
  std::vector<int32_t> WantI(12, 0);
  std::vector<double> WantR(12, 0.5);
  for (int I = 0; I < 1000; ++I) {
    Ints[size_t(I)] = I;
    Reals[size_t(I)] = 0.25 * (I % 7);
    size_t T = size_t((I % 3) * 4 + I % 4);
    WantI[T] += I;
    WantR[T] += 0.25 * (I % 7); // exact in binary: any order gives these
  }
  Acc Src = fromVectors({1000}, Ints, Reals);
  Acc Init = fill({3, 4}, std::make_tuple(int32_t(0), 0.5));
  for (Runtime *R : {&cpu(2), &test::seq()}) {
    auto Got = R->run<std::tuple<int32_t, double>>(
        permute(test::addPair(), Init, Proj, Src));
    std::vector<std::tuple<int32_t, double>> Want;
    for (size_t T = 0; T < 12; ++T)
      Want.emplace_back(WantI[T], WantR[T]);
    CHECK(Got.toVector() == Want);
  }
}

TEST_CASE("deep expressions: an error past the limit, never a crash") {
  auto Inc = LLQ_FN("i64 (i64 %x)", "%r = add i64 %x, 1");
  // At the limit: fill, then MaxExpressionDepth - 1 maps.
  Acc A = fill({3}, int64_t(0));
  for (unsigned I = 1; I < MaxExpressionDepth; ++I)
    A = map(Inc, A);
  for (Runtime *R : {&cpu(2), &test::seq()})
    CHECK(R->run<int64_t>(A).toVector() ==
          std::vector<int64_t>(3, int64_t(MaxExpressionDepth - 1)));
  // Past it, far past it (20 000 crashed with a stack overflow), and
  // through a function's arrays: an ArrayError that says what to do.
  for (unsigned Depth : {MaxExpressionDepth + 1, 20000u}) {
    Acc B = fill({3}, int64_t(0));
    for (unsigned I = 1; I < Depth; ++I)
      B = map(Inc, B);
    CHECK_THROWS_WITH_AS(cpu(2).run(B),
                         doctest::Contains("MaxExpressionDepth"), ArrayError);
    auto Read = LLQ_FN("i64 (i64 %i, ptr %p, i64 %n)", R"(
      %q = getelementptr i64, ptr %p, i64 %i
      %r = load i64, ptr %q)");
    CHECK_THROWS_WITH_AS(test::seq().run(generate({3}, Read.with({B}))),
                         doctest::Contains("more than 2048 operations deep"),
                         ArrayError);
    // kernelIR walks the same tree.
    auto IR = cpu(2).kernelIR(B);
    CHECK(!IR);
    llvm::consumeError(IR.takeError());
  }
  // Building and destroying an expression of any depth is fine (100 000
  // crashed in the destructors' recursion).
  for (unsigned Depth : {100000u, 250000u}) {
    Acc C = fill({1}, int64_t(0));
    for (unsigned I = 0; I < Depth; ++I)
      C = map(Inc, C);
    CHECK_THROWS_WITH_AS(test::seq().run(C),
                         doctest::Contains("MaxExpressionDepth"), ArrayError);
  }
  // Shared parts are kept while something else holds them.
  Acc Shared = map(Inc, fill({2}, int64_t(5)));
  {
    Acc Deep = Shared;
    for (unsigned I = 0; I < 50000; ++I)
      Deep = zipWith(LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b"),
                     Deep, Shared);
  }
  CHECK(test::seq().run<int64_t>(Shared).toVector() ==
        std::vector<int64_t>{6, 6});
}

TEST_CASE("RuntimeOptions::Threads is checked like LLQ_NUM_THREADS") {
  for (unsigned Bad : {unsigned(-1), 5000u, 1025u}) {
    RuntimeOptions O;
    O.Threads = Bad;
    CHECK_THROWS_WITH_AS(Runtime{O},
                         has("RuntimeOptions::Threads is " + std::to_string(Bad) +
                             ": expected 1 to 1024"),
                         ArrayError);
  }
  RuntimeOptions O;
  O.Threads = 3;
  Runtime R(O);
  CHECK(R.numThreads() == 3);
}

TEST_CASE("a mistake in an LLQ_FN body is reported in the body, with what was expected") {
  // Each LLQ_FN is on the line named in its check.
  int L = __LINE__ + 1;
  auto Open = LLQ_FN("float (float %a)", "%r = fmul float %a,");
  const int OpenLine = L;
  CHECK_FALSE(Open.ok());
  CHECK(Open.error().find(at(L) + "20: error: the body ends in the middle of "
                          "an instruction") != std::string::npos);
  CHECK(Open.error().find("ret") == std::string::npos);

  L = __LINE__ + 1;
  auto NoResult = LLQ_FN("float (float %a)", "%s = fmul float %a, 2.0");
  CHECK(NoResult.error().find(at(L) + "24: error: the body does not assign "
                              "the function's result") != std::string::npos);
  CHECK(NoResult.error().find("of type float") != std::string::npos);

  L = __LINE__ + 1;
  auto WrongType = LLQ_FN("float (float %a)", R"(
    %x = fadd float %a, 1.0
    %r = fptosi float %x to i32)");
  CHECK(WrongType.error().find(at(L + 2) + "5: error: the result %r is i32, "
                               "but the signature says the function returns "
                               "float") != std::string::npos);
  CHECK(WrongType.error().find("%r = fptosi float %x to i32") !=
        std::string::npos);

  L = __LINE__ + 1;
  auto Void = LLQ_FN("void (float %a)", "%r = fadd float %a, 1.0");
  CHECK(Void.error().find(at(L) + " error: a scalar function returns a value") !=
        std::string::npos);

  L = __LINE__ + 1;
  auto Unclosed = LLQ_FN("float (float %a)", R"(
    %r = float %a
    %neg = fcmp olt float %a, 0.0
    if %neg {
      %r = fneg float %a)");
  CHECK(Unclosed.error().find(at(L + 4) + "25: error: the body ends inside a "
                              "block: a '{' is not closed by '}'") !=
        std::string::npos);

  // An error inside the body stays where it is.
  L = __LINE__ + 1;
  auto Undefined = LLQ_FN("float (float %a)", R"(
    %r = fmul float %a, %nothing)");
  CHECK(Undefined.error().find(at(L + 1) + "25: error: use of undefined "
                               "value '%nothing'") != std::string::npos);

  // The operation that is given one reports the same error.
  CHECK_THROWS_WITH_AS(test::seq().run(map(Open, fill({2}, 1.0f))),
                       has(at(OpenLine)), ArrayError);
}

TEST_CASE("mirror on an extent not larger than the radius, as documented") {
  // Five neighbours packed into one number, a digit each.
  auto Digits = LLQ_FN("i64 (i64 %a, i64 %b, i64 %c, i64 %d, i64 %e)", R"(
    %r = i64 %a
    %r = mul i64 %r, 10
    %r = add i64 %r, %b
    %r = mul i64 %r, 10
    %r = add i64 %r, %c
    %r = mul i64 %r, 10
    %r = add i64 %r, %d
    %r = mul i64 %r, 10
    %r = add i64 %r, %e)");
  for (Runtime *R : {&cpu(2), &test::seq()}) {
    auto Run = [&](std::vector<int64_t> Xs) {
      return R->run<int64_t>(stencil(Digits, Boundary::mirror(), fromVector(Xs)))
          .toVector();
    };
    // docs/Skeletons.md: on [1, 2] (as [10, 20]) with k = 5, element 0
    // reads 1 2 1 2 1 and element 1 reads 2 1 2 1 1.
    CHECK(Run({1, 2}) == std::vector<int64_t>{12121, 21211});
    CHECK(Run({7}) == std::vector<int64_t>{77777});
    // An extent larger than the radius: the single reflection.
    CHECK(Run({1, 2, 3}) == std::vector<int64_t>{32123, 21232, 12321});
  }
}

TEST_CASE("checked mode: integer division by zero is an ArrayError, not SIGFPE") {
  int L = __LINE__ + 1;
  auto Div = LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 100, %x");
  auto Rem = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = urem i64 %a, %b");
  auto ByVector = LLQ_FN("i32 (i32 %x)", R"(
    %v = insertelement <2 x i32> <i32 7, i32 9>, i32 %x, i32 1
    %q = udiv <2 x i32> <i32 100, i32 100>, %v
    %r = extractelement <2 x i32> %q, i32 0)");
  auto ByConstant = LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 %x, 7");
  Acc Ok = fromVector(std::vector<int32_t>{1, 2, -5, 50});
  Acc Zero = fromVector(std::vector<int32_t>{1, 2, 0, 50});
  Acc Least = fromVector(std::vector<int32_t>{std::numeric_limits<int32_t>::min()});
  auto MinusOne = LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 %x, -1");
  for (BackendKind K : {BackendKind::CPU, BackendKind::Sequential}) {
    Runtime &R = checked(K);
    CHECK(R.run<int32_t>(map(Div, Ok)).toVector() ==
          std::vector<int32_t>{100, 50, -20, 2});
    std::string E = errorOf(R, map(Div, Zero));
    CHECK(E.find("map: integer division by zero in the function of map (") !=
          std::string::npos);
    CHECK(E.find(where(L) + "); reported because checks are on") !=
          std::string::npos);
    // In a zipWith fused into a fold; in a vector division.
    Acc A = enumFromN({1000}, int64_t(1));
    Acc B = map(LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 500"), A);
    E = errorOf(R, foldAll(LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b"),
                           int64_t(0), zipWith(Rem, A, B)));
    CHECK(E.find("foldAll: integer division by zero in the function of "
                 "zipWith (") != std::string::npos);
    CHECK(E.find(where(L + 1) + ")") != std::string::npos);
    CHECK_THROWS_WITH_AS(R.run(map(ByVector, Zero)),
                         doctest::Contains("integer division by zero"),
                         ArrayError);
    CHECK(R.run<int32_t>(map(ByVector, Ok)).toVector() ==
          std::vector<int32_t>{14, 14, 14, 14});
    // The least value by -1 overflows (and traps on x86, too).
    CHECK_THROWS_WITH_AS(R.run(map(MinusOne, Least)),
                         doctest::Contains("signed integer division overflow"),
                         ArrayError);
    // The runtime goes on; a constant divisor needs no check.
    CHECK(R.run<int32_t>(map(ByConstant, Ok)).toVector() ==
          std::vector<int32_t>{0, 0, 0, 7});
    auto IR = R.kernelIR(map(ByConstant, Ok));
    REQUIRE(IR);
    CHECK(IR->find("llq.zero") == std::string::npos);
    auto Checked = R.kernelIR(map(Div, Ok));
    REQUIRE(Checked);
    CHECK(Checked->find("llq.zero") != std::string::npos);
  }
  // Without checks the same program has no guard.
  auto Plain = cpu(2).kernelIR(map(Div, Ok));
  REQUIRE(Plain);
  CHECK(Plain->find("llq.zero") == std::string::npos);
}

TEST_CASE("LLQ_CHECKS turns checked mode on") {
  const char *Saved = std::getenv("LLQ_CHECKS");
  std::string Old = Saved ? Saved : "";
  setenv("LLQ_CHECKS", "1", 1);
  Runtime R;
  auto Div = LLQ_FN("i64 (i64 %x)", "%r = udiv i64 1, %x");
  CHECK_THROWS_WITH_AS(R.run(map(Div, fill({5}, int64_t(0)))),
                       doctest::Contains("division by zero"), ArrayError);
  RuntimeOptions Off;
  Off.Checks = false; // the option wins over the variable
  Runtime Unchecked(Off);
  auto IR = Unchecked.kernelIR(map(Div, fill({5}, int64_t(0))));
  REQUIRE(IR);
  CHECK(IR->find("llq.zero") == std::string::npos);
  if (Saved)
    setenv("LLQ_CHECKS", Old.c_str(), 1);
  else
    unsetenv("LLQ_CHECKS");
}
