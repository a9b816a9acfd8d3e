//===- FunctionTests.cpp - Scalar functions: preludes and array parameters -===//
//
// What a scalar function can use besides its own text: a prelude's named
// types and helpers (Prelude, LLQ_PRELUDE), and arrays read through typed,
// bounded readers (`array<T, R> %name`, read as `@name(i64 ...)`). Results
// against plain C++, on every core and on one thread; every mistake at the
// C++ line it is on.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/Skeletons.h"
#include <cmath>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <random>

using namespace llq;

namespace {

Runtime &runtime(BackendKind K, bool Checks = false) {
  auto Make = [](BackendKind K, bool Checks) {
    RuntimeOptions O;
    O.Backend = K;
    O.Threads = K == BackendKind::CPU ? 2 : 0;
    O.Checks = Checks;
    return O;
  };
  static Runtime Cpu(Make(BackendKind::CPU, false));
  static Runtime Seq(Make(BackendKind::Sequential, false));
  static Runtime CpuChecked(Make(BackendKind::CPU, true));
  static Runtime SeqChecked(Make(BackendKind::Sequential, true));
  if (K == BackendKind::CPU)
    return Checks ? CpuChecked : Cpu;
  return Checks ? SeqChecked : Seq;
}

std::vector<Runtime *> runtimes() {
  return {&runtime(BackendKind::CPU), &runtime(BackendKind::Sequential),
          &runtime(BackendKind::CPU, true),
          &runtime(BackendKind::Sequential, true)};
}

const int64_t Sizes[] = {0, 1, 2, 7, 33, 1001};

using V3 = std::tuple<double, double, double>;

// Written once; every function below that names it shares it.
const Prelude &vectors() {
  return LLQ_PRELUDE(R"(
  ; a 3-vector, and a body: a position and a mass
  %Body = type { %V3, double }
  %V3 = type { double, double, double }
  define internal %V3 @add(%V3 %a, %V3 %b) {
    %a0 = extractvalue %V3 %a, 0
    %a1 = extractvalue %V3 %a, 1
    %a2 = extractvalue %V3 %a, 2
    %b0 = extractvalue %V3 %b, 0
    %b1 = extractvalue %V3 %b, 1
    %b2 = extractvalue %V3 %b, 2
    %s0 = fadd double %a0, %b0
    %s1 = fadd double %a1, %b1
    %s2 = fadd double %a2, %b2
    %r0 = insertvalue %V3 poison, double %s0, 0
    %r1 = insertvalue %V3 %r0, double %s1, 1
    %r = insertvalue %V3 %r1, double %s2, 2
    ret %V3 %r
  }
  define internal %V3 @scale(double %k, %V3 %a) {
    %a0 = extractvalue %V3 %a, 0
    %a1 = extractvalue %V3 %a, 1
    %a2 = extractvalue %V3 %a, 2
    %s0 = fmul double %k, %a0
    %s1 = fmul double %k, %a1
    %s2 = fmul double %k, %a2
    %r0 = insertvalue %V3 poison, double %s0, 0
    %r1 = insertvalue %V3 %r0, double %s1, 1
    %r = insertvalue %V3 %r1, double %s2, 2
    ret %V3 %r
  }
  define internal double @dot(%V3 %a, %V3 %b) {
    %a0 = extractvalue %V3 %a, 0
    %a1 = extractvalue %V3 %a, 1
    %a2 = extractvalue %V3 %a, 2
    %b0 = extractvalue %V3 %b, 0
    %b1 = extractvalue %V3 %b, 1
    %b2 = extractvalue %V3 %b, 2
    %p0 = fmul double %a0, %b0
    %p1 = fmul double %a1, %b1
    %p2 = fmul double %a2, %b2
    %s = fadd double %p0, %p1
    %r = fadd double %s, %p2
    ret double %r
  }
  ; helpers call helpers and intrinsics
  define internal double @norm(%V3 %a) {
    %d = call double @dot(%V3 %a, %V3 %a)
    %r = call double @llvm.sqrt.f64(double %d)
    ret double %r
  }
)");
}

std::vector<V3> someVectors(int64_t N, double Seed) {
  std::vector<V3> V;
  for (int64_t I = 0; I < N; ++I)
    V.push_back({std::sin(double(I) + Seed), double(I % 7) - 3, Seed * double(I % 5)});
  return V;
}

} // namespace

TEST_CASE("a prelude's types and helpers, in functions of every skeleton") {
  REQUIRE(vectors().ok());
  CHECK(vectors().types() ==
        std::vector<std::pair<std::string, std::string>>{
            {"Body", "{ { double, double, double }, double }"},
            {"V3", "{ double, double, double }"}});
  CHECK(vectors().helpers() == std::vector<std::string>{"add", "scale", "dot", "norm"});
  // Two functions of one prelude, fused into one kernel: v + k * w, then
  // the dot product with w.
  auto Axpy = LLQ_FN(vectors(), "%V3 (%V3 %v, %V3 %w, double %k)", R"(
    %kw = call %V3 @scale(double %k, %V3 %w)
    %r = call %V3 @add(%V3 %v, %V3 %kw))");
  auto Dot = LLQ_FN(vectors(), "double (%V3 %a, %V3 %b)", "%r = call double @dot(%V3 %a, %V3 %b)");
  auto Plus = LLQ_FN(vectors(), "%V3 (%V3 %a, %V3 %b)", "%r = call %V3 @add(%V3 %a, %V3 %b)");
  for (Runtime *R : runtimes())
    for (int64_t N : Sizes) {
      CAPTURE(N);
      std::vector<V3> Vs = someVectors(N, 0.5), Ws = someVectors(N, 1.5);
      Array<V3> V = fromVector(Vs), W = fromVector(Ws);
      std::vector<double> Got =
          R->run<double>(zipWith(Dot, zipWith(Axpy.bind("k", 2.0), V, W), W)).toVector();
      REQUIRE(Got.size() == size_t(N));
      for (size_t I = 0; I < size_t(N); ++I) {
        auto [V0, V1, V2] = Vs[I];
        auto [W0, W1, W2] = Ws[I];
        double Want = (V0 + 2.0 * W0) * W0 + (V1 + 2.0 * W1) * W1 + (V2 + 2.0 * W2) * W2;
        CHECK(Got[I] == doctest::Approx(Want));
      }
      // A helper that calls a helper and an intrinsic.
      auto Norm = LLQ_FN(vectors(), "double (%V3 %a)", "%r = call double @norm(%V3 %a)");
      std::vector<double> Norms = R->run<double>(map(Norm, V)).toVector();
      for (size_t I = 0; I < size_t(N); ++I)
        CHECK(Norms[I] == doctest::Approx(std::sqrt(std::get<0>(Vs[I]) * std::get<0>(Vs[I]) +
                                                    std::get<1>(Vs[I]) * std::get<1>(Vs[I]) +
                                                    std::get<2>(Vs[I]) * std::get<2>(Vs[I]))));
      // A fold whose combining function is a helper of the prelude.
      V3 Sum = R->run(fold(Plus, V3{0, 0, 0}, V)).as<V3>().toVector().at(0);
      double S0 = 0;
      for (const V3 &X : Vs)
        S0 += std::get<0>(X);
      CHECK(std::get<0>(Sum) == doctest::Approx(S0));
    }
}

TEST_CASE("a prelude is copied once into a kernel, and its helpers are inlined") {
  auto Axpy = LLQ_FN(vectors(), "%V3 (%V3 %v, %V3 %w)", "%r = call %V3 @add(%V3 %v, %V3 %w)");
  auto Norm = LLQ_FN(vectors(), "double (%V3 %a)", "%r = call double @dot(%V3 %a, %V3 %a)");
  Array<V3> V = fromVector(someVectors(5, 0.5));
  Runtime &R = runtime(BackendKind::CPU);
  auto IR = R.kernelIR(map(Norm, zipWith(Axpy, V, V)));
  REQUIRE(IR);
  // One copy of each helper, renamed apart from anything else of the kernel.
  size_t Defs = 0;
  for (size_t At = IR->find("define internal { double, double, double } @add.llqp");
       At != std::string::npos;
       At = IR->find("define internal { double, double, double } @add.llqp", At + 1))
    ++Defs;
  CHECK(Defs == 1);
  CHECK(IR->find("%V3") == std::string::npos);
  auto Opt = R.kernelIR(map(Norm, zipWith(Axpy, V, V)), /*Optimized=*/true);
  REQUIRE(Opt);
  CHECK(Opt->find("call double @dot") == std::string::npos);
  CHECK(Opt->find("@add.llqp") == std::string::npos);
  // Two Prelude objects with one text are one prelude.
  Prelude Again(vectors().text(), "again.cpp", 1);
  Fn Twice(Again, "double (%V3 %a)", "%r = call double @dot(%V3 %a, %V3 %a)");
  REQUIRE(Twice.ok());
  auto Both = R.kernelIR(zipWith(LLQ_FN("double (double %a, double %b)", "%r = fadd double %a, %b"),
                                 map(Twice, V), map(Norm, V)));
  REQUIRE(Both);
  size_t DotDefs = 0;
  for (size_t At = Both->find("define internal double @dot.llqp"); At != std::string::npos;
       At = Both->find("define internal double @dot.llqp", At + 1))
    ++DotDefs;
  CHECK(DotDefs == 1);
}

TEST_CASE("prelude mistakes are reported at the prelude's line, by every function") {
  const Prelude &Bad = LLQ_PRELUDE(R"(
    %P = type { double, double }
    define internal double @first(%P %p) {
      %x = extractvalue %P %p, 2
      ret double %x
    }
)"); int BadLine = __LINE__ - 3;
  CHECK(!Bad.ok());
  CHECK(Bad.error().find(fmt::format("FunctionTests.cpp:{}:", BadLine)) != std::string::npos);
  CHECK(Bad.error().find("invalid indices for extractvalue") != std::string::npos);
  // The line as written, %P and all.
  CHECK(Bad.error().find("%x = extractvalue %P %p, 2") != std::string::npos);
  auto User = LLQ_FN(Bad, "double (%P %p)", "%r = call double @first(%P %p)"); int UserLine = __LINE__;
  CHECK(!User.ok());
  CHECK(User.error().find(fmt::format("FunctionTests.cpp:{}:", BadLine)) != std::string::npos);
  CHECK(User.error().find(fmt::format("note: the prelude is named by the function of "
                                      "{}:{}", __FILE__, UserLine)) != std::string::npos);
  Array<double> X = fromVector(std::vector<double>{1});
  CHECK(map(User, X).error().find("invalid indices for extractvalue") != std::string::npos);

  Prelude Loop("%A = type { double, %B }\n%B = type { %A }\n", "p.cpp", 10);
  CHECK(Loop.error().find("p.cpp:10:") == 0);
  CHECK(Loop.error().find("contains itself") != std::string::npos);
  Prelude Unknown("\n%A = type { double, %C }\n", "p.cpp", 10);
  CHECK(Unknown.error().find("p.cpp:11:") == 0);
  CHECK(Unknown.error().find("%A names the type %C, which the prelude does not define") !=
        std::string::npos);
  Prelude Opaque("%A = type opaque\n", "p.cpp", 10);
  CHECK(Opaque.error().find("%A is opaque") != std::string::npos);
  Prelude Declares("declare double @ext(double)\n", "p.cpp", 10);
  CHECK(Declares.error().find("p.cpp:10:") == 0);
  CHECK(Declares.error().find("it declares nothing") != std::string::npos);
  Prelude Twice("%A = type i32\n%A = type i64\n", "p.cpp", 10);
  CHECK(Twice.error().find("p.cpp:11:") == 0);
  CHECK(Twice.error().find("%A is defined twice") != std::string::npos);
}

TEST_CASE("function mistakes with a prelude: unknown types, helpers called wrongly") {
  // A type the prelude does not have, in the signature: at the LLQ_FN's
  // line, on the signature as written.
  auto NoType = LLQ_FN(vectors(), "%V4 (%V3 %a)", "%r = call %V3 @add(%V3 %a, %V3 %a)"); int NoTypeLine = __LINE__;
  CHECK(!NoType.ok());
  INFO(NoType.error());
  CHECK(NoType.error().find(fmt::format("FunctionTests.cpp:{}:", NoTypeLine)) != std::string::npos);
  CHECK(NoType.error().find("V4") != std::string::npos);
  CHECK(NoType.error().find("%V4 (%V3 %a)") != std::string::npos);
  // A helper given a double where it takes %V3: at the body's line, the
  // column of the user's text, the helper's own name.
  auto Wrong = LLQ_FN(vectors(), "double (%V3 %a, double %k)", R"(
    %s = call %V3 @scale(%V3 %a, double %k)
    %r = call double @dot(%V3 %s, %V3 %s))"); int WrongLine = __LINE__ - 1;
  CHECK(!Wrong.ok());
  INFO(Wrong.error());
  CHECK(Wrong.error().find(fmt::format("FunctionTests.cpp:{}:", WrongLine)) != std::string::npos);
  CHECK(Wrong.error().find("%s = call %V3 @scale(%V3 %a, double %k)") != std::string::npos);
  CHECK(Wrong.error().find(".llqp") == std::string::npos);
  // A helper that does not exist.
  auto Missing = LLQ_FN(vectors(), "double (%V3 %a)", R"(
    %r = call double @cross(%V3 %a, %V3 %a))"); int MissingLine = __LINE__;
  CHECK(Missing.error().find(fmt::format("FunctionTests.cpp:{}:", MissingLine)) !=
        std::string::npos);
  CHECK(Missing.error().find("@cross") != std::string::npos);
  // The operation checks the types as LLVM spells them: %V3 is a triple.
  auto Half = LLQ_FN(vectors(), "%V3 (%V3 %a)", "%r = call %V3 @scale(double 0.5, %V3 %a)");
  Array<double> D = fromVector(std::vector<double>{1});
  CHECK(map(Half, D).error().find("map needs a function of (double), but this one takes "
                                  "({ double, double, double })") != std::string::npos);
}

TEST_CASE("array parameters: typed reads of other arrays, any rank, tuples and bools") {
  // A gather through an index array of another rank: out[i] = m[k[i]][i % cols].
  auto Gather = LLQ_FN("double (i64 %i, array<i32> %k, array<double, 2> %m)", R"(
    %row = call i32 @k(i64 %i)
    %r64 = sext i32 %row to i64
    %col = urem i64 %i, %m.n1
    %r = call double @m(i64 %r64, i64 %col))");
  // A tuple array read whole, and a bool array: the weighted sum of the
  // vectors whose flag is on.
  auto Weigh = LLQ_FN(vectors(), "double (%V3 %v, array<%V3> %xs, array<i1> %on)", R"(
    %r = double 0.0
    for i64 %j in 0 to %xs.n0 {
      %use = call i1 @on(i64 %j)
      if %use {
        %x = call %V3 @xs(i64 %j)
        %d = call double @dot(%V3 %v, %V3 %x)
        %r = fadd double %r, %d
      }
    })");
  auto Positive = LLQ_FN("i1 (double %x)", "%r = fcmp ogt double %x, 0.0");
  for (Runtime *R : runtimes())
    for (int64_t N : Sizes) {
      CAPTURE(N);
      int64_t Rows = 3, Cols = 5;
      std::vector<double> Ms;
      for (int64_t I = 0; I < Rows * Cols; ++I)
        Ms.push_back(double(I) * 1.5);
      std::vector<int32_t> Ks;
      for (int64_t I = 0; I < N; ++I)
        Ks.push_back(int32_t((I * 7) % Rows));
      Array<double> M = fromVector({Rows, Cols}, Ms);
      Array<int32_t> K = fromVector(Ks);
      std::vector<double> Got =
          R->run<double>(generate({N}, Gather.with({K, M}))).toVector();
      REQUIRE(Got.size() == size_t(N));
      for (int64_t I = 0; I < N; ++I)
        CHECK(Got[size_t(I)] == Ms[size_t(Ks[size_t(I)] * Cols + I % Cols)]);
      // Tuple arrays and a bool array, read whole.
      std::vector<V3> Vs = someVectors(N, 0.25), Xs = someVectors(9, 2.0);
      std::vector<double> Flags;
      for (const V3 &X : Xs)
        Flags.push_back(std::get<0>(X));
      Array<V3> V = fromVector(Vs), X = fromVector(Xs);
      Array<double> F = fromVector(Flags);
      std::vector<double> Sums =
          R->run<double>(map(Weigh.with({X, map(Positive, F)}), V)).toVector();
      REQUIRE(Sums.size() == size_t(N));
      for (int64_t I = 0; I < N; ++I) {
        double Want = 0;
        for (size_t J = 0; J < Xs.size(); ++J)
          if (Flags[J] > 0)
            Want += std::get<0>(Vs[size_t(I)]) * std::get<0>(Xs[J]) +
                    std::get<1>(Vs[size_t(I)]) * std::get<1>(Xs[J]) +
                    std::get<2>(Vs[size_t(I)]) * std::get<2>(Xs[J]);
        CHECK(Sums[size_t(I)] == doctest::Approx(Want));
      }
    }
}

TEST_CASE("array parameters: an index outside the array is an error in the checked mode") {
  // Reads k[i + shift]: inside for shift 0, past the end for shift 1.
  auto Shifted = LLQ_FN("i32 (i64 %i, i64 %shift, array<i32> %k)", R"(
    %j = add i64 %i, %shift
    %r = call i32 @k(i64 %j))"); int ShiftedLine = __LINE__ - 2;
  std::vector<int32_t> Ks = {4, 5, 6, 7, 8};
  Array<int32_t> K = fromVector(Ks);
  for (BackendKind B : {BackendKind::CPU, BackendKind::Sequential}) {
    Runtime &Checked = runtime(B, true);
    CHECK(Checked.run<int32_t>(generate({5}, Shifted.bind("shift", int64_t(0)).with({K})))
              .toVector() == Ks);
    CHECK_THROWS_WITH_AS(
        Checked.run(generate({5}, Shifted.bind("shift", int64_t(1)).with({K}))),
        doctest::Contains(fmt::format("the function of generate ({}:{}) read its array %k of "
                                      "shape [5] at an index outside it; reported because "
                                      "checks are on",
                                      __FILE__, ShiftedLine)
                              .c_str()),
        ArrayError);
    // A two-dimensional read outside one dimension only.
    auto Corner = LLQ_FN("double (i64 %i, i64 %j, array<double, 2> %m)",
                         "%r = call double @m(i64 %j, i64 %i)");
    Array<double> M = fromVector({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
    CHECK(Checked.run<double>(generate({3, 2}, Corner.with({M}))).toVector() ==
          std::vector<double>{1, 4, 2, 5, 3, 6});
    CHECK_THROWS_WITH_AS(Checked.run(generate({2, 3}, Corner.with({M}))),
                         doctest::Contains("read its array %m of shape [2, 3] at an index "
                                           "outside it"),
                         ArrayError);
  }
  // Unchecked, a read inside costs a load: no test, no branch is left.
  auto IR = runtime(BackendKind::CPU).kernelIR(
      generate({5}, Shifted.bind("shift", int64_t(0)).with({K})), /*Optimized=*/true);
  REQUIRE(IR);
  CHECK(IR->find("llq.read.fault") == std::string::npos);
  auto CheckedIR = runtime(BackendKind::CPU, true)
                       .kernelIR(generate({5}, Shifted.bind("shift", int64_t(0)).with({K})));
  REQUIRE(CheckedIR);
  CHECK(CheckedIR->find("store atomic i64 2199023255552") != std::string::npos);
}

TEST_CASE("array parameter mistakes: at the function's line, saying what was expected") {
  auto Sum = LLQ_FN("double (i64 %i, array<double> %xs)", "%r = call double @xs(i64 %i)"); int SumLine = __LINE__;
  Array<double> X = fromVector(std::vector<double>{1, 2});
  Array<float> F = fromVector(std::vector<float>{1, 2});
  Array<double> M = fromVector({1, 2}, std::vector<double>{1, 2});
  // None given, another type, another rank, two for one.
  CHECK(generate({2}, Sum).error() ==
        fmt::format("{}:{}: error: generate: the function reads 1 array (%xs), but none is given "
                    "to it with Fn::with",
                    __FILE__, SumLine));
  CHECK(generate({2}, Sum.with({F})).error().find(
            "generate: the function reads %xs as array<double, 1>, but the array given is "
            "array<float, 1>") != std::string::npos);
  CHECK(generate({2}, Sum.with({M})).error().find(
            "the array given is array<double, 2>") != std::string::npos);
  CHECK(generate({2}, Sum.with({X, X})).error().find("but 2 are given") != std::string::npos);
  // The signature's own mistakes.
  Fn Order("double (array<double> %xs, i64 %i)", "%r = fadd double 0.0, 0.0", "s.cpp", 3);
  CHECK(Order.error() == "s.cpp:3: error: 'i64 %i' follows an array parameter; array parameters "
                         "come after the others, as Fn::with gives them");
  Fn Rank("double (i64 %i, array<double, x> %xs)", "%r = fadd double 0.0, 0.0", "s.cpp", 3);
  CHECK(Rank.error().find("its rank is 'x', not a number from 0 to 16") != std::string::npos);
  Fn Nested("double (i64 %i, array<{ { double }, i32 }> %xs)", "%r = fadd double 0.0, 0.0",
            "s.cpp", 3);
  CHECK(Nested.error().find("arrays hold scalars or structs of scalars, not { { double }, i32 }") !=
        std::string::npos);
  Fn NoName("double (i64 %i, array<double>)", "%r = fadd double 0.0, 0.0", "s.cpp", 3);
  CHECK(NoName.error().find("it has no name") != std::string::npos);
  // A reader called with the wrong indices: at the call, with how to call it.
  Fn TwoIx("double (i64 %i, array<double> %xs)", "\n  %r = call double @xs(i64 %i, i64 %i)",
           "s.cpp", 3);
  CHECK(TwoIx.error().find("s.cpp:4:") == 0);
  CHECK(TwoIx.error().find("@xs reads the array %xs of rank 1: it takes 1 index and returns "
                           "double, as in 'call double @xs(i64 %i0)'") != std::string::npos);
  CHECK(TwoIx.error().find("%r = call double @xs(i64 %i, i64 %i)") != std::string::npos);
}

TEST_CASE("a struct variable summed over a loop vectorizes like scalars (-mcpu=haswell)") {
  // Without splitting its phi into a phi per field, the j loop below runs
  // one element at a time: LLVM's vectorizer takes no aggregate reduction.
  RuntimeOptions O;
  O.CPU = "haswell";
  Runtime R(O);
  auto Sum = LLQ_FN(vectors(), "%V3 (i64 %i, array<%V3> %xs)", R"(
    %a = %V3 zeroinitializer
    for i64 %j in 0 to %xs.n0 {
      %x = call %V3 @xs(i64 %j)
      %a = call %V3 @add(%V3 %a, %V3 %x)
    }
    %r = %V3 %a)");
  Array<V3> X = fromVector(someVectors(100, 0.5));
  auto Raw = R.kernelIR(generate({4}, Sum.with({X})));
  REQUIRE(Raw);
  CHECK(Raw->find("phi { double, double, double }") == std::string::npos);
  auto Fast = LLQ_FN(vectors(), "%V3 (i64 %i, array<%V3> %xs)", R"(
    %a = %V3 zeroinitializer
    for i64 %j in 0 to %xs.n0 {
      %x = call %V3 @xs(i64 %j)
      %x0 = extractvalue %V3 %x, 0
      %a0 = extractvalue %V3 %a, 0
      %s0 = fadd reassoc double %a0, %x0
      %a = insertvalue %V3 %a, double %s0, 0
    }
    %r = %V3 %a)");
  auto IR = R.kernelIR(generate({4}, Fast.with({X})), /*Optimized=*/true);
  REQUIRE(IR);
  // A reduction phi of vectors: the j loop is vectorized.
  CHECK(IR->find("= phi <4 x double>") != std::string::npos);
  // The results are those of C++.
  std::vector<V3> Xs = someVectors(100, 0.5);
  V3 Want{0, 0, 0};
  for (const V3 &V : Xs)
    Want = {std::get<0>(Want) + std::get<0>(V), std::get<1>(Want) + std::get<1>(V),
            std::get<2>(Want) + std::get<2>(V)};
  for (const V3 &Got : R.run(generate({4}, Sum.with({X}))).as<V3>().toVector()) {
    CHECK(std::get<0>(Got) == doctest::Approx(std::get<0>(Want)));
    CHECK(std::get<2>(Got) == doctest::Approx(std::get<2>(Want)));
  }
}

TEST_CASE("mangled preludes and signatures are errors or work, never a crash") {
  // Random edits of a good prelude and function: deleted, doubled and
  // swapped bytes, and bytes from the dialect's punctuation. Every result
  // is either ok and runs, or an error with a location.
  std::mt19937 G(7);
  const std::string Good = vectors().text();
  const std::string Sig = "double (%V3 %v, array<%V3, 1> %xs)";
  const std::string Body = R"(
    %a = double 0.0
    for i64 %j in 0 to %xs.n0 {
      %x = call %V3 @xs(i64 %j)
      %d = call double @dot(%V3 %v, %V3 %x)
      %a = fadd double %a, %d
    }
    %r = double %a)";
  const char Alphabet[] = "%@<>{}[](),=; \n\"xV3array$0";
  auto Mangle = [&](std::string S) {
    std::uniform_int_distribution<int> Edits(1, 4);
    for (int E = Edits(G); E > 0 && !S.empty(); --E) {
      size_t At = std::uniform_int_distribution<size_t>(0, S.size() - 1)(G);
      switch (G() % 4) {
      case 0: S.erase(At, 1 + G() % 3); break;
      case 1: S.insert(At, S.substr(At, 1 + G() % 4)); break;
      case 2: S[At] = Alphabet[G() % (sizeof(Alphabet) - 1)]; break;
      default: std::swap(S[At], S[(At + 1) % S.size()]); break;
      }
    }
    return S;
  };
  Array<V3> X = fromVector(someVectors(3, 0.5));
  int Ok = 0, Failed = 0;
  for (int I = 0; I < 400; ++I) {
    Prelude P(I % 2 ? Mangle(Good) : Good, "m.cpp", 1);
    Fn F(P, I % 3 ? Mangle(Sig) : Sig, I % 5 ? Mangle(Body) : Body, "m.cpp", 100);
    if (!F.ok()) {
      ++Failed;
      CHECK(F.error().find("m.cpp:") == 0);
      continue;
    }
    Acc A = map(F.with({X}), X);
    if (!A.error().empty()) {
      ++Failed;
      continue;
    }
    ++Ok;
    try {
      runtime(BackendKind::Sequential, true).run(A);
    } catch (const ArrayError &) {
      // A mangled reader index may fault: that is the checked mode's job.
    }
  }
  CHECK(Ok > 0);
  CHECK(Failed > 0);
}

TEST_CASE("a prelude's constant table, read by its helper") {
  static const Prelude Table(R"(
  @squares = internal constant [4 x i32] [i32 0, i32 1, i32 4, i32 9]
  define internal i32 @square(i32 %k) {
    %m = and i32 %k, 3
    %i = zext i32 %m to i64
    %p = getelementptr [4 x i32], ptr @squares, i64 0, i64 %i
    %r = load i32, ptr %p
    ret i32 %r
  }
)", __FILE__, __LINE__);
  REQUIRE(Table.ok());
  CHECK(Table.helpers() == std::vector<std::string>{"squares", "square"});
  Fn Sq(Table, "i32 (i32 %x)", "%r = call i32 @square(i32 %x)", __FILE__, __LINE__);
  for (Runtime *R : runtimes())
    CHECK(R->run<int32_t>(map(Sq, fromVector(std::vector<int32_t>{0, 1, 2, 3, 6, 7})))
              .toVector() == std::vector<int32_t>{0, 1, 4, 9, 4, 9});
}
