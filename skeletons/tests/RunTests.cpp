//===- RunTests.cpp - Running an expression again: plans and Prepared -----===//
//
// run() of the very same Acc reuses the plan of its last run (no walk, no
// key); Runtime::prepare gives that plan to the caller, to run on the
// arrays the expression was built over or on others of their types and
// shapes. What these must keep: results equal to a fresh run's, inputs read
// as they are now, a result the caller holds never written again, new
// expressions at a freed expression's address never mistaken for it, and
// calls from several threads at once. Also built under ThreadSanitizer
// (.ci/test).
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/Skeletons.h"
#include <doctest/doctest.h>
#include <numeric>
#include <string>
#include <thread>

using namespace llq;

namespace {

Runtime &cpu() {
  static Runtime R;
  return R;
}

Fn twiceFn() {
  return LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 2");
}
Fn addFn() { return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b"); }

std::vector<int32_t> iota(int64_t N, int32_t From = 0) {
  std::vector<int32_t> V(static_cast<size_t>(N));
  std::iota(V.begin(), V.end(), From);
  return V;
}

int32_t *dataOf(const detail::ArrayHandle &A) {
  return static_cast<int32_t *>(A.raw().data(0));
}

/// The message of the ArrayError that Call throws, or "" if it throws none.
template <typename CallT> std::string messageOf(CallT &&Call) {
  try {
    Call();
  } catch (const ArrayError &E) {
    return E.what();
  }
  return "";
}

} // namespace

TEST_CASE("run of the same Acc reuses its plan and reads its inputs as they are now") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(1000));
  Acc E = map(twiceFn(), X);
  CHECK(R.run<int32_t>(E).toVector()[999] == 1998);
  RuntimeStats Before = R.stats();
  // The input changed in place: the plan holds no data, so the run reads it.
  dataOf(X)[999] = 7;
  CHECK(R.run<int32_t>(E).toVector()[999] == 14);
  RuntimeStats After = R.stats();
  CHECK(After.PlanHits == Before.PlanHits + 1);
  CHECK(After.KernelHits == Before.KernelHits);
  CHECK(After.KernelsBuilt == Before.KernelsBuilt);
  // An equal expression built again is found by structure, not by plan.
  CHECK(R.run<int32_t>(map(twiceFn(), X)).toVector()[999] == 14);
  CHECK(R.stats().KernelHits == After.KernelHits + 1);
  CHECK(R.stats().PlanHits == After.PlanHits);
}

TEST_CASE("a result the caller holds is never written by a later run") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(64));
  Acc E = map(twiceFn(), X);
  Array<int32_t> First = R.run<int32_t>(E);
  dataOf(X)[0] = 100;
  Array<int32_t> Second = R.run<int32_t>(E);
  dataOf(X)[0] = 200;
  Array<int32_t> Third = R.run<int32_t>(E);
  CHECK(First.toVector()[0] == 0);
  CHECK(Second.toVector()[0] == 200);
  CHECK(Third.toVector()[0] == 400);
  CHECK(dataOf(First) != dataOf(Second));
  CHECK(dataOf(Second) != dataOf(Third));
  CHECK(dataOf(First) != dataOf(Third));
}

TEST_CASE("a loop that drops its results runs into the same storage") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(256));
  Acc E = map(twiceFn(), X);
  for (int I = 0; I < 3; ++I)
    R.run(E);
  const void *Was = R.run(E).raw().data(0);
  Array<int32_t> Again = R.run<int32_t>(E);
  CHECK(Again.raw().data(0) == Was);
  CHECK(Again.toVector()[255] == 510);
  // The same for an expression built anew each time.
  auto Thrice = LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 3");
  for (int I = 0; I < 3; ++I)
    R.run(map(Thrice, X));
  const void *Built = R.run(map(Thrice, X)).raw().data(0);
  Array<int32_t> Rebuilt = R.run<int32_t>(map(Thrice, X));
  CHECK(Rebuilt.raw().data(0) == Built);
  CHECK(Rebuilt.toVector()[255] == 765);
}

TEST_CASE("new expressions at a freed expression's address are not mistaken for it") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(100));
  auto Thrice = LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 3");
  for (int I = 0; I < 200; ++I) {
    // Each expression is destroyed before the next is built, so that the
    // allocator hands out the same addresses again.
    bool Two = I % 2 == 0;
    int32_t Got = R.run<int32_t>(map(Two ? twiceFn() : Thrice, X))
                      .toVector()[99];
    REQUIRE(Got == (Two ? 198 : 297));
  }
}

TEST_CASE("prepare: runs on the arrays it was built over, or on new ones") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(1001)), Y = fromVector(iota(1001, 5));
  Prepared P = R.prepare(zipWith(addFn(), X, map(twiceFn(), Y)));
  REQUIRE(P.numInputs() == 2);
  CHECK(P.inputs()[0].raw().data(0) == X.raw().data(0));
  CHECK(P.inputs()[1].raw().data(0) == Y.raw().data(0));
  CHECK(P().as<int32_t>().toVector()[1000] == 1000 + 2 * 1005);
  // Inputs in order: X's place, then Y's.
  Array<int32_t> Ones = fromVector(std::vector<int32_t>(1001, 1));
  CHECK(P(Ones, Y).as<int32_t>().toVector()[1000] == 1 + 2 * 1005);
  CHECK(P(X, Ones).as<int32_t>().toVector()[1000] == 1000 + 2);
  // The default inputs are still X and Y.
  CHECK(P().as<int32_t>().toVector()[0] == 10);

  // An array used twice is one input.
  Prepared Sq = R.prepare(zipWith(addFn(), X, X));
  CHECK(Sq.numInputs() == 1);
  CHECK(Sq(Ones).as<int32_t>().toVector()[7] == 2);
}

TEST_CASE("prepare: several kernels, in order, with their intermediates") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(500));
  // A fold whose result a second kernel reads through a backpermute, and
  // a scan whose two results are both consumers' outputs.
  Acc Total = foldAll(addFn(), int32_t(0), X);
  auto Zero = LLQ_FN("i64 (i64 %i)", "%r = i64 0");
  Acc Spread = zipWith(addFn(), X, backpermute({500}, Zero, reshape({1}, Total)));
  Prepared P = R.prepare(Spread);
  int32_t Sum = 499 * 500 / 2;
  CHECK(P().as<int32_t>().toVector()[3] == 3 + Sum);
  Array<int32_t> Twos = fromVector(std::vector<int32_t>(500, 2));
  CHECK(P(Twos).as<int32_t>().toVector()[3] == 2 + 1000);
  CHECK(R.run<int32_t>(Spread).toVector()[499] == 499 + Sum);

  auto [Prefix, All] = scanlPrime(addFn(), int32_t(0), X);
  Prepared PP = R.prepare(Prefix), PA = R.prepare(All);
  CHECK(PP(Twos).as<int32_t>().toVector()[10] == 20);
  CHECK(PA(Twos).as<int32_t>().scalar() == 1000);
  CHECK(PA().as<int32_t>().scalar() == Sum);
}

TEST_CASE("prepare: into a buffer of the caller's, unless it is an input") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(300));
  Prepared P = R.prepare(map(twiceFn(), X));
  Array<int32_t> Out = fromVector(std::vector<int32_t>(300, -1));
  Array<> Got = P.runInto(Out);
  CHECK(Got.raw().data(0) == Out.raw().data(0));
  CHECK(Out.toVector()[299] == 598);
  // Into is the input: a new array, the input untouched.
  Array<> Fresh = P.runInto(X, X);
  CHECK(Fresh.raw().data(0) != X.raw().data(0));
  CHECK(X.toVector()[299] == 299);
  // Into of another shape: a new array.
  Array<int32_t> Small = fromVector(iota(3));
  CHECK(P.runInto(Small).raw().data(0) != Small.raw().data(0));
  // An expression that is only an array returns it.
  Prepared Id = R.prepare(Acc(X));
  CHECK(Id().raw().data(0) == X.raw().data(0));
}

TEST_CASE("prepare: mistakes are errors that say what was expected") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(10));
  Prepared P = R.prepare(map(twiceFn(), X));
  Array<int32_t> Longer = fromVector(iota(11));
  Array<float> Floats = fromVector(std::vector<float>(10, 1.0f));
  // Other extents are taken; another rank is not.
  CHECK(P(Longer).as<int32_t>().toVector() ==
        std::vector<int32_t>{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20});
  Array<int32_t> Matrix = fromVector({2, 5}, iota(10));
  std::string M = messageOf([&] { P(Matrix); });
  CHECK(M.find("input 0 is i32 [2, 5]") != std::string::npos);
  CHECK(M.find("prepared with i32 [10]") != std::string::npos);
  CHECK(M.find("element types and ranks it was prepared with, of any "
               "extents") != std::string::npos);
  M = messageOf([&] { P(Floats); });
  CHECK(M.find("input 0 is float [10]") != std::string::npos);
  M = messageOf([&] { P(X, X); });
  CHECK(M.find("given 2 input arrays, expected 1") != std::string::npos);
  M = messageOf([&] { Prepared().run({}); });
  CHECK(M.find("no Runtime::prepare made") != std::string::npos);
  // A mistake in the expression is found at prepare, as run finds it.
  auto Bad = LLQ_FN("float (float %x)", "%r = fadd float %x, 1.0");
  M = messageOf([&] { R.prepare(map(Bad, X)); });
  CHECK(!M.empty());
  CHECK(M == messageOf([&] { R.run(map(Bad, X)); }));
  auto Failed = R.tryPrepare(map(Bad, X));
  CHECK(!Failed);
  llvm::consumeError(Failed.takeError());
}

TEST_CASE("prepare: inputs of other extents, every shape following theirs") {
  Runtime &R = cpu();
  auto Blur = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c)", R"(
    %s = add i32 %a, %b
    %r = add i32 %s, %c)");
  auto Shape = [](int64_t Rows, int64_t Cols) {
    std::vector<int32_t> V(static_cast<size_t>(Rows * Cols));
    for (size_t I = 0; I < V.size(); ++I)
      V[I] = int32_t(I % 13) - 6;
    return fromVector({Rows, Cols}, V);
  };
  // Three kernels: a stencil of rows, its rows' sums (a fold), their prefix
  // sums (a scan, one longer than its input).
  auto Program = [&](const Acc &M) {
    return scanl(addFn(), int32_t(0),
                 fold(addFn(), int32_t(0),
                      stencil(Blur, {1, 3}, Boundary::clamp(), M)));
  };
  Prepared P = R.prepare(Program(Shape(4, 5)));
  for (auto [Rows, Cols] : {std::pair<int64_t, int64_t>{1, 1}, {7, 3},
                            {4, 5}, {131, 1027}, {2, 9}}) {
    Array<int32_t> M = Shape(Rows, Cols);
    // Three runs at each shape: through the launchers, recorded, repeated.
    for (int Run = 0; Run < 3; ++Run) {
      Array<> Got = P(M);
      CHECK(Got.shape().extent(0) == Rows + 1);
      CHECK(Got.as<int32_t>().toVector() ==
            R.run<int32_t>(Program(M)).toVector());
      dataOf(M)[0] += 1;
    }
  }
  // A zipWith made for arrays of one shape refuses two, and says so.
  Array<int32_t> A = fromVector(iota(5)), B = fromVector(iota(5));
  Prepared Z = R.prepare(zipWith(addFn(), A, B));
  CHECK(Z(fromVector(iota(8)), fromVector(iota(8))).as<int32_t>().toVector()[7] ==
        14);
  try {
    Z(fromVector(iota(8)), fromVector(iota(6)));
    FAIL("no error");
  } catch (const ArrayError &E) {
    CHECK(std::string(E.what()).find("zipWith: the arrays' shapes differ ([8] "
                                     "and [6])") != std::string::npos);
  }
}

TEST_CASE("one Acc and one Prepared run from several threads at once") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(5000));
  Acc E = map(twiceFn(), X);
  Prepared P = R.prepare(fold(addFn(), int32_t(0), X));
  int32_t Sum = 4999 * 5000 / 2;
  std::atomic<int> Wrong{0};
  auto Work = [&] {
    for (int I = 0; I < 100; ++I) {
      Array<int32_t> A = R.run<int32_t>(E);
      if (A.toVector()[4999] != 9998)
        ++Wrong;
      if (P().as<int32_t>().scalar() != Sum)
        ++Wrong;
    }
  };
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back(Work);
  for (std::thread &T : Threads)
    T.join();
  CHECK(Wrong.load() == 0);
}

TEST_CASE("kernelIR still shows the kernel of an array, a select and a chain") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(8));
  auto IR = R.kernelIR(Acc(X));
  REQUIRE(bool(IR));
  CHECK(IR->find("define") != std::string::npos);
  auto [Prefix, All] = scanlPrime(addFn(), int32_t(0), X);
  auto SIR = R.kernelIR(All), PIR = R.kernelIR(Prefix);
  REQUIRE(bool(SIR));
  REQUIRE(bool(PIR));
  // Both results are the one scan kernel's.
  CHECK(SIR->find("define") != std::string::npos);
  CHECK(*SIR == *PIR);
  CHECK(*SIR != *IR);
}

TEST_CASE("a Prepared keeps its kernels under a bound of one kernel") {
  RuntimeOptions O;
  O.MaxKernels = 1;
  O.DiskCache = false;
  Runtime R(O);
  Array<int32_t> X = fromVector(iota(100));
  Prepared P = R.prepare(map(twiceFn(), X));
  for (int K = 0; K < 5; ++K) {
    Fn AddK("i32 (i32 %x)", "%r = add i32 %x, " + std::to_string(K));
    CHECK(R.run<int32_t>(map(AddK, X)).toVector()[99] == 99 + K);
  }
  CHECK(R.stats().KernelsEvicted > 0);
  CHECK(P().as<int32_t>().toVector()[99] == 198);
  CHECK(R.stats().KernelsBuilt == 6);
}

//===-- Repeated launches and Bound ---------------------------------------===//

namespace {

/// Fills X with values that differ from round to round.
void scramble(Array<int32_t> &X, int Round) {
  int32_t *P = dataOf(X);
  for (int64_t I = 0; I < X.size(); ++I)
    P[I] = int32_t((I * 7 + Round * 13) % 29) - 9;
}

/// Two pairs of vectors of N elements: the arrays an expression is built
/// over, and others of the same shapes to run it on in their places.
struct TwoPairs {
  explicit TwoPairs(int64_t N)
      : X(fromVector(iota(N))), Y(fromVector(iota(N, 3))),
        X2(fromVector(iota(N))), Y2(fromVector(iota(N, 3))) {}
  /// New contents for all four, different in every round.
  void scrambleAll(int Round) {
    scramble(X, Round);
    scramble(Y, Round + 1);
    scramble(X2, Round + 5);
    scramble(Y2, Round + 6);
  }
  Array<int32_t> X, Y, X2, Y2;
};

/// Programs over two vectors of one length N, one of each kind of launch
/// that records its launches, with the sizes at which they take their
/// different paths (the calling thread, the gang, the streaming scan, a
/// privatised scatter).
struct Program {
  std::string Name;
  int64_t N;
  std::function<Acc(const Acc &, const Acc &)> Build;
};

std::vector<Program> repeatablePrograms() {
  auto Keys = LLQ_FN("i64 (i64 %i, array<i32> %k)", R"(
    %v = call i32 @k(i64 %i)
    %m = and i32 %v, 15
    %r = zext i32 %m to i64)");
  auto Blur = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c)", R"(
    %s = add i32 %a, %b
    %r = add i32 %s, %c)");
  auto Mirror = LLQ_FN("i64 (i64 %i, i64 %n)", R"(
    %m = sub i64 %n, 1
    %r = sub i64 %m, %i)");
  std::vector<Program> Ps;
  for (int64_t N : {int64_t(1024), int64_t(1) << 20}) {
    Ps.push_back({"map", N, [](const Acc &X, const Acc &) {
                    return map(twiceFn(), X);
                  }});
    Ps.push_back({"zipWith", N, [](const Acc &X, const Acc &Y) {
                    return zipWith(addFn(), X, map(twiceFn(), Y));
                  }});
    Ps.push_back({"reverse", N, [](const Acc &X, const Acc &) {
                    return reverse(X);
                  }});
    Ps.push_back({"backpermute", N, [N, Mirror](const Acc &X, const Acc &) {
                    return backpermute({N}, Mirror.bind("n", int64_t(N)), X);
                  }});
    Ps.push_back({"foldAll", N, [](const Acc &X, const Acc &Y) {
                    return foldAll(addFn(), int32_t(0), zipWith(addFn(), X, Y));
                  }});
    Ps.push_back({"fold", N, [N](const Acc &X, const Acc &) {
                    return fold(addFn(), int32_t(1), reshape({N / 8, 8}, X));
                  }});
    Ps.push_back({"scanl", N, [](const Acc &X, const Acc &) {
                    return scanl(addFn(), int32_t(3), X);
                  }});
    Ps.push_back({"scanr1 rows", N, [N](const Acc &X, const Acc &) {
                    return scanr1(addFn(), reshape({N / 8, 8}, X));
                  }});
    Ps.push_back({"permute", N, [N, Keys](const Acc &X, const Acc &Y) {
                    return permute(addFn(), fill({16}, int32_t(0)),
                                   Keys.with({Y}), X);
                  }});
    Ps.push_back({"stencil", N, [N, Blur](const Acc &X, const Acc &) {
                    return stencil(Blur, {1, 3}, Boundary::clamp(),
                                   reshape({N / 8, 8}, X));
                  }});
    Ps.push_back({"transpose", N, [N](const Acc &X, const Acc &) {
                    return transpose(reshape({N / 64, 64}, X));
                  }});
  }
  return Ps;
}

/// P run on X, and Y if P reads two arrays, into Into if given.
Array<> callOn(const Prepared &P, const Array<int32_t> &X,
               const Array<int32_t> &Y, const Array<> *Into = nullptr) {
  std::vector<detail::ArrayHandle> In{X};
  if (P.numInputs() == 2)
    In.push_back(Y);
  return P.run(In, Into);
}

} // namespace

TEST_CASE("a run repeated: the last run's launches, on the inputs as they are now") {
  Runtime &R = cpu();
  for (const Program &Pr : repeatablePrograms()) {
    CAPTURE(Pr.Name);
    CAPTURE(Pr.N);
    TwoPairs In(Pr.N);
    auto &[X, Y, X2, Y2] = In;
    Acc E = Pr.Build(X, Y);
    Prepared P = R.prepare(E);
    Array<> Out, PreparedOut;
    for (int Round = 0; Round < 5; ++Round) {
      CAPTURE(Round);
      In.scrambleAll(Round);
      // An equal expression built anew runs through its launcher.
      std::vector<int32_t> Want = R.run<int32_t>(Pr.Build(X, Y)).toVector();
      Array<> Got = Round % 2 ? R.run(E, Out) : R.run(E);
      REQUIRE(Got.as<int32_t>().toVector() == Want);
      if (Round % 2)
        CHECK(Got.raw().data(0) == Out.raw().data(0));
      Out = Got;
      // A Prepared given other arrays of the same shapes, in turn.
      std::vector<int32_t> Want2 =
          R.run<int32_t>(Pr.Build(X2, Y2)).toVector();
      REQUIRE(callOn(P, X2, Y2).as<int32_t>().toVector() == Want2);
      REQUIRE(callOn(P, X, Y).as<int32_t>().toVector() == Want);
      PreparedOut = callOn(P, X2, Y2, &PreparedOut);
      REQUIRE(PreparedOut.as<int32_t>().toVector() == Want2);
    }
  }
}

TEST_CASE("a run repeated counts the launches a run through the launcher does") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(5000));
  Acc E = scanl(addFn(), int32_t(0), X);
  R.run(E);
  uint64_t A = R.stats().Launches;
  R.run(E); // recorded
  uint64_t B = R.stats().Launches;
  R.run(E); // repeated
  uint64_t C = R.stats().Launches;
  CHECK(B - A > 0);
  CHECK(C - B == B - A);
  // A Bound's calls count too, while it lives and after.
  Prepared P = R.prepare(E);
  Array<> Out = P();
  uint64_t D = R.stats().Launches;
  {
    Bound Call = P.bind(Out); // runs once
    Call();
    Call();
    CHECK(R.stats().Launches - D == 3 * (B - A));
  }
  CHECK(R.stats().Launches - D == 3 * (B - A));
}

TEST_CASE("a run repeated that faults is described as a first run's fault") {
  RuntimeOptions O;
  O.Checks = true;
  Runtime R(O);
  auto Div = LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 100, %x");
  Array<int32_t> X = fromVector(std::vector<int32_t>(300, 5));
  Acc E = map(Div, X);
  Prepared P = R.prepare(E);
  Array<int32_t> Out = fromVector(std::vector<int32_t>(300, 0));
  Bound Call = P.bind(Out);
  CHECK(Call.repeatsLaunches());
  for (int I = 0; I < 3; ++I) {
    CHECK(R.run<int32_t>(E).toVector()[7] == 20);
    Call();
    CHECK(Out.toVector()[7] == 20);
  }
  dataOf(X)[123] = 0;
  std::string Fresh = messageOf([&] { R.run(map(Div, X)); });
  std::string Repeated = messageOf([&] { R.run(E); });
  std::string FromBound = messageOf([&] { Call(); });
  CHECK(Fresh.find("integer division by zero in the function of map") !=
        std::string::npos);
  CHECK(Repeated == Fresh);
  CHECK(FromBound == Fresh);
  // Mended, they run again.
  dataOf(X)[123] = 4;
  CHECK(R.run<int32_t>(E).toVector()[123] == 25);
  Call();
  CHECK(Out.toVector()[123] == 25);
}

TEST_CASE("bind: calls write the bound output from the inputs as they are now") {
  Runtime &R = cpu();
  for (const Program &Pr : repeatablePrograms()) {
    CAPTURE(Pr.Name);
    CAPTURE(Pr.N);
    TwoPairs In(Pr.N);
    auto &[X, Y, X2, Y2] = In;
    Prepared P = R.prepare(Pr.Build(X, Y));
    Array<> Out = P(), Out2 = P();
    std::vector<detail::ArrayHandle> In2{X2};
    if (P.numInputs() == 2)
      In2.push_back(Y2);
    Bound Call = P.bind(Out), Other = P.bindTo(Out2, In2);
    CHECK(Call.repeatsLaunches());
    CHECK(Call.output().raw().data(0) == Out.raw().data(0));
    for (int Round = 0; Round < 4; ++Round) {
      CAPTURE(Round);
      In.scrambleAll(Round);
      Call();
      Other();
      REQUIRE(Out.as<int32_t>().toVector() ==
              R.run<int32_t>(Pr.Build(X, Y)).toVector());
      REQUIRE(Out2.as<int32_t>().toVector() ==
              R.run<int32_t>(Pr.Build(X2, Y2)).toVector());
    }
  }
}

TEST_CASE("bind: several kernels and their intermediates; what cannot repeat still runs") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(4096));
  // A fold feeding a zipWith through a backpermute: two kernels.
  auto Zero = LLQ_FN("i64 (i64 %i)", "%r = i64 0");
  auto Spread = [&](const Acc &A) {
    return zipWith(addFn(), A,
                   backpermute({4096}, Zero,
                               reshape({1}, foldAll(addFn(), int32_t(0), A))));
  };
  Prepared P = R.prepare(Spread(X));
  Array<> Out = P();
  Bound Call = P.bind(Out);
  CHECK(Call.repeatsLaunches());
  // A filter's launches depend on its array's contents: it runs as a
  // Prepared does.
  auto Positive = LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 0");
  Prepared F = R.prepare(filter(Positive, X));
  Array<> FOut = F();
  Bound FCall = F.bind(FOut);
  CHECK(!FCall.repeatsLaunches());
  for (int Round = 0; Round < 3; ++Round) {
    scramble(X, Round);
    Call();
    CHECK(Out.as<int32_t>().toVector() == R.run<int32_t>(Spread(X)).toVector());
  }
  // As many kept: the bound output holds them.
  std::vector<int32_t> Flipped(4096);
  for (size_t I = 0; I < Flipped.size(); ++I)
    Flipped[I] = I < 4095 ? 4095 - int32_t(I) : 0;
  std::copy(Flipped.begin(), Flipped.end(), dataOf(X));
  FCall();
  CHECK(FOut.as<int32_t>().toVector() ==
        R.run<int32_t>(filter(Positive, X)).toVector());
  CHECK(FOut.as<int32_t>().toVector()[0] == 4095);
  // One more kept than the output holds: an error.
  dataOf(X)[4095] = 1;
  CHECK_THROWS_WITH_AS(FCall(),
                       "bound call: the result is i32 [4096] this time, which "
                       "the bound output (i32 [4095]) cannot hold",
                       ArrayError);
}

TEST_CASE("a segmented operation repeated reads its segment lengths as they are now") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(4096));
  // 64 segments; their lengths change from call to call, their number not.
  Array<int32_t> Segs = fromVector(std::vector<int32_t>(64, 64));
  auto Relength = [&](int Round) {
    int32_t *L = dataOf(Segs);
    int32_t Left = 4096;
    for (int I = 0; I < 63; ++I) {
      L[I] = (I * 5 + Round * 11) % 97 + (Round % 2 ? 0 : 1); // some empty
      Left -= L[I];
    }
    L[63] = Left;
  };
  for (bool Scan : {false, true}) {
    CAPTURE(Scan);
    auto Build = [&] {
      return Scan ? scanlSeg(addFn(), int32_t(2), X, Segs)
                  : foldSeg(addFn(), int32_t(2), X, Segs);
    };
    Acc E = Build();
    Prepared P = R.prepare(E);
    Array<> Out = P();
    Bound Call = P.bind(Out);
    CHECK(Call.repeatsLaunches());
    for (int Round = 0; Round < 6; ++Round) {
      CAPTURE(Round);
      Relength(Round);
      scramble(X, Round);
      std::vector<int32_t> Want = R.run<int32_t>(Build()).toVector();
      CHECK(R.run<int32_t>(E).toVector() == Want);
      Call();
      CHECK(Out.as<int32_t>().toVector() == Want);
    }
    // Lengths that no longer add up: the error of a first run, from each.
    dataOf(Segs)[0] += 1;
    std::string First = messageOf([&] { R.run(Build()); });
    CHECK(First.find("the segments add up to 4097") != std::string::npos);
    CHECK(messageOf([&] { R.run(E); }) == First);
    CHECK(messageOf([&] { Call(); }) == First);
    dataOf(Segs)[0] = -1;
    First = messageOf([&] { R.run(Build()); });
    CHECK(First.find("segment 0 has length -1") != std::string::npos);
    CHECK(messageOf([&] { Call(); }) == First);
    CHECK(messageOf([&] { R.run(E); }) == First);
    Relength(0);
    Call();
    CHECK(Out.as<int32_t>().toVector() == R.run<int32_t>(Build()).toVector());
  }
}

TEST_CASE("bind: mistakes are errors that say what was expected") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(10));
  Prepared P = R.prepare(map(twiceFn(), X));
  Array<int32_t> Short = fromVector(iota(9));
  CHECK(messageOf([&] { P.bind(Short); }) ==
        "bind: the output is i32 [9], where the result is i32 [10]; bind an "
        "array of the result's element type and shape");
  Array<float> Floats = fromVector(std::vector<float>(10, 1.0f));
  CHECK(messageOf([&] { P.bind(Floats); }).find("the output is float [10]") !=
        std::string::npos);
  CHECK(messageOf([&] { P.bind(X); }) ==
        "bind: the output is one of the expression's inputs; bind an array of "
        "its own");
  CHECK(messageOf([&] { P.bind(Array<int32_t>()); }) ==
        "bind: the output is an empty Array");
  Array<int32_t> Out = fromVector(iota(10));
  CHECK(messageOf([&] { P.bind(Out, X, X); })
            .find("given 2 input arrays, expected 1") != std::string::npos);
  CHECK(messageOf([&] { Prepared().bind(Out); }).find("no Runtime::prepare made") !=
        std::string::npos);
  CHECK(messageOf([&] { Bound()(); }).find("no Prepared::bind made") !=
        std::string::npos);
  CHECK(messageOf([&] { R.prepare(Acc(X)).bind(Out); })
            .find("the expression is one of its input arrays") !=
        std::string::npos);
  // The output was written by neither failed bind.
  CHECK(Out.toVector() == iota(10));
}

TEST_CASE("bind: one Bound per thread, from one Prepared, at once") {
  Runtime &R = cpu();
  constexpr int Threads = 4;
  Array<int32_t> X = fromVector(iota(1 << 16));
  Prepared P = R.prepare(scanl(addFn(), int32_t(0), map(twiceFn(), X)));
  std::vector<int32_t> Want = P().as<int32_t>().toVector();
  std::atomic<int> Wrong{0};
  auto Work = [&] {
    Array<> Out = P();
    Bound Call = P.bind(Out);
    for (int I = 0; I < 50; ++I) {
      Call();
      if (Out.as<int32_t>().toVector() != Want)
        ++Wrong;
    }
  };
  std::vector<std::thread> Ts;
  for (int T = 0; T < Threads; ++T)
    Ts.emplace_back(Work);
  for (std::thread &T : Ts)
    T.join();
  CHECK(Wrong.load() == 0);
}

TEST_CASE("bind: a result no kernel writes in place is copied into the output") {
  Runtime &R = cpu();
  Array<int32_t> X = fromVector(iota(100));
  auto Positive = LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 0");
  std::vector<std::function<Acc(const Acc &)>> Programs = {
      // The second output of a scanl': its total.
      [](const Acc &A) { return scanlPrime(addFn(), int32_t(0), A).second; },
      // A reshape of a map: a view of the array its kernel writes.
      [](const Acc &A) { return reshape({10, 10}, map(twiceFn(), A)); },
      // An acond: a branch's own result.
      [&](const Acc &A) {
        return acond(map(Positive, reshape({}, foldAll(addFn(), int32_t(0), A))),
                     map(twiceFn(), A), A);
      },
  };
  for (size_t K = 0; K < Programs.size(); ++K) {
    CAPTURE(K);
    std::vector<int32_t> Start = iota(100);
    std::copy(Start.begin(), Start.end(), dataOf(X));
    Prepared P = R.prepare(Programs[K](X));
    Array<> Out = P();
    Bound Call = P.bind(Out);
    CHECK(Call.output().raw().data(0) == Out.raw().data(0));
    for (int Round = 0; Round < 3; ++Round) {
      scramble(X, Round);
      Call();
      CHECK(Out.as<int32_t>().toVector() ==
            R.run<int32_t>(Programs[K](X)).toVector());
    }
  }
}
