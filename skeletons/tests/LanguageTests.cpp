//===- LanguageTests.cpp - The array language past the core skeletons -----===//
//
// Cutting and joining the innermost dimension (take, drop, init, tail,
// concat), the reductions by name (sum ... any), and the fusion switch
// (RuntimeOptions::Fusion). Every result is checked against plain C++ at
// odd sizes, 0 and 1 included, on four Runtimes: every core and one thread,
// each with producers fused and without.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/Skeletons.h"
#include <cmath>
#include <cstdlib>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <limits>
#include <numeric>
#include <random>

using namespace llq;

namespace {

Runtime &runtime(BackendKind K, bool Fusion) {
  auto Make = [](BackendKind K, bool Fusion) {
    RuntimeOptions O;
    O.Backend = K;
    O.Threads = K == BackendKind::CPU ? 2 : 0;
    O.Fusion = Fusion;
    return O;
  };
  static Runtime Cpu(Make(BackendKind::CPU, true));
  static Runtime Seq(Make(BackendKind::Sequential, true));
  static Runtime CpuUnfused(Make(BackendKind::CPU, false));
  static Runtime SeqUnfused(Make(BackendKind::Sequential, false));
  if (K == BackendKind::CPU)
    return Fusion ? Cpu : CpuUnfused;
  return Fusion ? Seq : SeqUnfused;
}

/// The four Runtimes every result is checked on.
std::vector<Runtime *> runtimes() {
  return {&runtime(BackendKind::CPU, true), &runtime(BackendKind::Sequential, true),
          &runtime(BackendKind::CPU, false),
          &runtime(BackendKind::Sequential, false)};
}

const int64_t Sizes[] = {0, 1, 2, 7, 33, 1001, 100003};

std::vector<int32_t> randomInts(int64_t N, unsigned Seed) {
  std::mt19937 G(Seed);
  std::uniform_int_distribution<int32_t> D(-1000, 1000);
  std::vector<int32_t> V(static_cast<size_t>(N));
  for (int32_t &X : V)
    X = D(G);
  return V;
}

Fn plusOne() { return LLQ_FN("i32 (i32 %x)", "%r = add i32 %x, 1"); }

/// Row R of a rows x cols row-major vector, cut to [From, From + Len).
std::vector<int32_t> cutRows(const std::vector<int32_t> &V, int64_t Rows,
                             int64_t Cols, int64_t From, int64_t Len) {
  std::vector<int32_t> Out;
  for (int64_t R = 0; R < Rows; ++R)
    for (int64_t C = From; C < From + Len; ++C)
      Out.push_back(V[size_t(R * Cols + C)]);
  return Out;
}

} // namespace

TEST_CASE("take, drop, init and tail cut the innermost dimension, fused into their consumer") {
  for (Runtime *R : runtimes())
    for (int64_t N : Sizes) {
      CAPTURE(N);
      std::vector<int32_t> Xs = randomInts(N, unsigned(N) + 1);
      Array<int32_t> X = fromVector(Xs);
      for (int64_t K : {int64_t(0), int64_t(1), N / 2, N, N + 5}) {
        CAPTURE(K);
        int64_t Kept = std::min(K, N);
        CHECK(R->run<int32_t>(take(K, X)).toVector() ==
              std::vector<int32_t>(Xs.begin(), Xs.begin() + Kept));
        CHECK(R->run<int32_t>(drop(K, X)).toVector() ==
              std::vector<int32_t>(Xs.begin() + Kept, Xs.end()));
      }
      if (N == 0) {
        CHECK_THROWS_WITH_AS(R->run(init(X)),
                             "init: the innermost dimension of shape [0] is empty",
                             ArrayError);
        continue;
      }
      CHECK(R->run<int32_t>(init(X)).toVector() ==
            std::vector<int32_t>(Xs.begin(), Xs.end() - 1));
      CHECK(R->run<int32_t>(tail(X)).toVector() ==
            std::vector<int32_t>(Xs.begin() + 1, Xs.end()));
      // Fused under a map and a fold: the fold sees the cut rows only.
      std::vector<int32_t> Tail(Xs.begin() + 1, Xs.end());
      int32_t Sum = 0;
      for (int32_t V : Tail)
        Sum += V + 1;
      CHECK(R->run(sum(map(plusOne(), tail(X)))).scalar().get<int32_t>() == Sum);
    }
}

TEST_CASE("cuts of matrices and rank-3 arrays cut every row") {
  for (Runtime *R : runtimes())
    for (int64_t Rows : {1, 3, 17})
      for (int64_t Cols : {1, 2, 9, 130}) {
        CAPTURE(Rows);
        CAPTURE(Cols);
        std::vector<int32_t> Xs = randomInts(Rows * Cols, unsigned(Rows * Cols));
        Array<int32_t> M = fromVector({Rows, Cols}, Xs);
        Array<> T = R->run(take(Cols / 2, M));
        CHECK(T.shape().extent(0) == Rows);
        CHECK(T.shape().extent(1) == Cols / 2);
        CHECK(T.as<int32_t>().toVector() == cutRows(Xs, Rows, Cols, 0, Cols / 2));
        CHECK(R->run<int32_t>(drop(2, M)).toVector() ==
              cutRows(Xs, Rows, Cols, std::min<int64_t>(2, Cols),
                      Cols - std::min<int64_t>(2, Cols)));
        if (Cols >= 2)
          CHECK(R->run<int32_t>(tail(init(M))).toVector() ==
                cutRows(Xs, Rows, Cols, 1, Cols - 2));
        else
          CHECK(tail(init(M)).error() ==
                fmt::format("tail: the innermost dimension of shape [{}, 0] is empty", Rows));
        // Rank 3: the innermost dimension of each of the Rows x 2 rows.
        Acc Cube = reshape({Rows, 1, Cols}, M);
        CHECK(R->run<int32_t>(drop(1, Cube)).toVector() ==
              cutRows(Xs, Rows, Cols, 1, Cols - 1));
      }
}

TEST_CASE("concat joins rows over the intersection of the outer dimensions") {
  for (Runtime *R : runtimes()) {
    for (int64_t N : Sizes)
      for (int64_t M : {int64_t(0), int64_t(1), int64_t(5), N}) {
        CAPTURE(N);
        CAPTURE(M);
        std::vector<int32_t> As = randomInts(N, 7), Bs = randomInts(M, 8);
        std::vector<int32_t> Want = As;
        Want.insert(Want.end(), Bs.begin(), Bs.end());
        Array<int32_t> A = fromVector(As), B = fromVector(Bs);
        CHECK(R->run<int32_t>(concat(A, B)).toVector() == Want);
        // Delayed producers on both sides, and a consumer over the join.
        std::vector<int32_t> Rev(Bs.rbegin(), Bs.rend()), Want2 = As;
        for (int32_t &V : Want2)
          V += 1;
        Want2.insert(Want2.end(), Rev.begin(), Rev.end());
        CHECK(R->run<int32_t>(concat(map(plusOne(), A), reverse(B))).toVector() == Want2);
        CHECK(R->run(sum(concat(A, B))).scalar().get<int32_t>() ==
              std::accumulate(Want.begin(), Want.end(), 0));
      }
    // Matrices: 3 x 4 ++ 5 x 2 is 3 x 6.
    std::vector<int32_t> As = randomInts(12, 1), Bs = randomInts(10, 2);
    Array<> J = R->run(concat(fromVector({3, 4}, As), fromVector({5, 2}, Bs)));
    CHECK(J.shape().extent(0) == 3);
    CHECK(J.shape().extent(1) == 6);
    std::vector<int32_t> Want;
    for (int64_t Row = 0; Row < 3; ++Row) {
      for (int64_t C = 0; C < 4; ++C)
        Want.push_back(As[size_t(Row * 4 + C)]);
      for (int64_t C = 0; C < 2; ++C)
        Want.push_back(Bs[size_t(Row * 2 + C)]);
    }
    CHECK(J.as<int32_t>().toVector() == Want);
    // Tuples: each field joined.
    auto P = fromVectors<int32_t, double>({2}, {1, 2}, {0.5, 1.5});
    auto Q = fromVectors<int32_t, double>({1}, {3}, {2.5});
    auto PQ = R->run(concat(P, Q)).as<std::tuple<int32_t, double>>().toVector();
    REQUIRE(PQ.size() == 3);
    CHECK(PQ[2] == std::tuple<int32_t, double>(3, 2.5));
  }
}

TEST_CASE("the cut's count and the join's split are run-time values: one kernel for all") {
  Runtime &R = runtime(BackendKind::CPU, true);
  Array<int32_t> X = fromVector(randomInts(100, 3));
  R.run(take(5, X));
  R.run(concat(X, X));
  RuntimeStats Before = R.stats();
  CHECK(R.run<int32_t>(take(7, X)).toVector().size() == 7);
  CHECK(R.run<int32_t>(drop(90, X)).toVector().size() == 10);
  CHECK(R.run<int32_t>(tail(X)).toVector().size() == 99);
  CHECK(R.run<int32_t>(concat(fromVector(randomInts(3, 4)), X)).toVector().size() == 103);
  CHECK(R.stats().KernelsBuilt == Before.KernelsBuilt);
}

TEST_CASE("cutting and joining mistakes are errors that say what was wrong") {
  Array<int32_t> X = fromVector(randomInts(4, 1));
  Array<double> D = fromVector(std::vector<double>{1.0});
  Runtime &R = runtime(BackendKind::CPU, true);
  CHECK(take(-1, X).error() == "take: the count -1 is negative");
  CHECK(drop(-3, X).error() == "drop: the count -3 is negative");
  CHECK_THROWS_WITH_AS(R.run(take(-1, X)), "take: the count -1 is negative", ArrayError);
  CHECK(tail(foldAll(LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b"), 0, X)).error() ==
        "tail: needs an array of rank 1 or more, not a scalar");
  CHECK(init(fromVector({3, 0}, std::vector<int32_t>{})).error() ==
        "init: the innermost dimension of shape [3, 0] is empty");
  CHECK(concat(X, D).error() == "concat: the arrays hold i32 and f64");
  CHECK(concat(X, fromVector({1, 4}, randomInts(4, 2))).error() ==
        "concat: needs two arrays of one rank, 1 or more, not shapes [4] and [1, 4]");
  // A mistake below is the one reported.
  CHECK(take(2, concat(X, D)).error() == "concat: the arrays hold i32 and f64");
}

namespace {

template <typename T> std::vector<T> ramp(int64_t N, int Seed) {
  std::mt19937 G{unsigned(Seed)};
  std::vector<T> V(static_cast<size_t>(N));
  for (T &X : V) {
    if constexpr (std::is_floating_point_v<T>)
      X = T(int(G() % 17) - 8) / T(4);
    else if constexpr (std::is_signed_v<T>)
      X = T(int(G() % 7) - 3);
    else
      X = T(G() % 5);
  }
  return V;
}

/// The named reductions of Rows x Cols random elements of type T against a
/// plain loop over each row, on every Runtime.
template <typename T> void checkReductions(int64_t Rows, int64_t Cols) {
  CAPTURE(Rows);
  CAPTURE(Cols);
  std::vector<T> Xs = ramp<T>(Rows * Cols, int(Rows * 31 + Cols));
  Array<T> M = fromVector({Rows, Cols}, Xs);
  std::vector<T> Sum, Prod, Min, Max;
  for (int64_t Row = 0; Row < Rows; ++Row) {
    T S = 0, P = 1, Lo = std::numeric_limits<T>::has_infinity
                             ? std::numeric_limits<T>::infinity()
                             : std::numeric_limits<T>::max(),
        Hi = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    for (int64_t C = 0; C < Cols; ++C) {
      T X = Xs[size_t(Row * Cols + C)];
      S = T(S + X);
      P = T(P * X);
      Lo = std::min(Lo, X);
      Hi = std::max(Hi, X);
    }
    Sum.push_back(S);
    Prod.push_back(P);
    Min.push_back(Lo);
    Max.push_back(Hi);
  }
  for (Runtime *R : runtimes()) {
    Array<> S = R->run(sum(M));
    CHECK(S.shape().rank() == 1);
    CHECK(S.shape().extent(0) == Rows);
    // Floats hold quarters of small integers: exact in any order.
    CHECK(S.as<T>().toVector() == Sum);
    // A long product of floats rounds, and each backend associates it its
    // own way; a short one is exact.
    if (!std::is_floating_point_v<T> || Cols <= 7)
      CHECK(R->run<T>(product(M)).toVector() == Prod);
    CHECK(R->run<T>(minimum(M)).toVector() == Min);
    CHECK(R->run<T>(maximum(M)).toVector() == Max);
  }
}

} // namespace

TEST_CASE("sum, product, minimum and maximum fold each row from their identity") {
  for (int64_t Rows : {1, 3})
    for (int64_t Cols : {0, 1, 7, 1001}) {
      checkReductions<int32_t>(Rows, Cols);
      checkReductions<int64_t>(Rows, Cols);
      checkReductions<uint8_t>(Rows, Cols);
      checkReductions<int16_t>(Rows, Cols);
      checkReductions<uint32_t>(Rows, Cols);
      checkReductions<float>(Rows, Cols);
      checkReductions<double>(Rows, Cols);
    }
  // A vector reduces to a scalar.
  Runtime &R = runtime(BackendKind::CPU, true);
  Array<double> V = fromVector(std::vector<double>{1.5, -2, 4});
  CHECK(R.run(sum(V)).scalar().get<double>() == 3.5);
  CHECK(R.run(maximum(V)).scalar().get<double>() == 4);
  CHECK(R.run(minimum(fromVector(std::vector<float>{}))).scalar().get<float>() ==
        std::numeric_limits<float>::infinity());
}

TEST_CASE("and_, or_, all and any over bools and predicates") {
  auto Positive = LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 0");
  for (Runtime *R : runtimes())
    for (int64_t N : Sizes) {
      CAPTURE(N);
      std::vector<int32_t> Xs = randomInts(N, unsigned(N) + 5);
      // Some rows all positive, some not: the magnitudes of the values.
      std::vector<int32_t> Abs = Xs;
      for (int32_t &X : Abs)
        X = std::abs(X) + 1;
      for (const std::vector<int32_t> *V : {&Xs, &Abs}) {
        bool All = std::all_of(V->begin(), V->end(), [](int32_t X) { return X > 0; });
        bool Any = std::any_of(V->begin(), V->end(), [](int32_t X) { return X > 0; });
        Array<int32_t> A = fromVector(*V);
        CHECK(R->run(all(Positive, A)).scalar().get<bool>() == All);
        CHECK(R->run(any(Positive, A)).scalar().get<bool>() == Any);
        std::vector<bool> Bs;
        for (int32_t X : *V)
          Bs.push_back(X > 0);
        Array<> Flags = R->run(map(Positive, A));
        CHECK(R->run(and_(Flags)).scalar().get<bool>() == All);
        CHECK(R->run(or_(Flags)).scalar().get<bool>() == Any);
      }
    }
}

TEST_CASE("a reduction given the wrong elements says which it needs") {
  Array<int32_t> X = fromVector(randomInts(5, 1));
  auto Positive = LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 0");
  auto Twice = LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 2");
  Acc Flags = map(Positive, X);
  CHECK(sum(Flags).error() == "sum: needs an array of numbers, not of bool");
  CHECK(and_(X).error() == "and_: needs an array of bools, not of i32");
  CHECK(or_(X).error() == "or_: needs an array of bools, not of i32");
  auto P = fromVectors<int32_t, double>({1}, {1}, {2.0});
  CHECK(maximum(P).error() == "maximum: needs an array of numbers, not of (i32, f64)");
  CHECK(product(foldAll(LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b"), 0, X))
            .error() == "product: reduces the innermost dimension, and a scalar has none");
  // The predicate's place in this file, and what it returns.
  std::string E = all(Twice, X).error();
  CHECK(E.find("LanguageTests.cpp:") != std::string::npos);
  CHECK(E.find("all: the predicate returns i32, not i1") != std::string::npos);
  CHECK(any(Twice, X).error().find("any: the predicate returns i32, not i1") !=
        std::string::npos);
  CHECK_THROWS_WITH_AS(runtime(BackendKind::CPU, true).run(sum(Flags)),
                       "sum: needs an array of numbers, not of bool", ArrayError);
}

TEST_CASE("without fusion every producer is a kernel of its own, and a shared one runs once") {
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Half = LLQ_FN("float (float %x)", "%r = fmul float %x, 0.5");
  std::vector<float> Xs(1001), Ys(1001);
  for (size_t I = 0; I < Xs.size(); ++I) {
    Xs[I] = float(I % 13);
    Ys[I] = float(I % 7) - 3;
  }
  Array<float> X = fromVector(Xs), Y = fromVector(Ys);
  float Dot = 0;
  for (size_t I = 0; I < Xs.size(); ++I)
    Dot += Xs[I] * Ys[I];
  for (BackendKind K : {BackendKind::CPU, BackendKind::Sequential}) {
    Runtime &Fused = runtime(K, true), &Unfused = runtime(K, false);
    // dot: a fold of a zipWith. Fused, one kernel; unfused, the zipWith's
    // copy and then the fold.
    Acc E = fold(Add, 0.0f, zipWith(Mul, X, Y));
    RuntimeStats A = Fused.stats();
    CHECK(Fused.run(E).scalar().get<float>() == Dot);
    RuntimeStats B = Fused.stats();
    CHECK(Unfused.run(E).scalar().get<float>() == Dot);
    RuntimeStats C = Unfused.stats();
    CHECK(Unfused.run(fold(Add, 0.0f, X)).scalar().get<float>() ==
          std::accumulate(Xs.begin(), Xs.end(), 0.0f));
    RuntimeStats D = Unfused.stats();
    uint64_t FoldLaunches = D.Launches - C.Launches;
    uint64_t CopyLaunches;
    {
      RuntimeStats Before = Unfused.stats();
      Unfused.run(map(Half, X));
      CopyLaunches = Unfused.stats().Launches - Before.Launches;
    }
    CHECK(CopyLaunches >= 1);
    CHECK(B.Launches - A.Launches == FoldLaunches);
    // The zipWith ran as a copy of its own before the fold.
    RuntimeStats E0 = Unfused.stats();
    Unfused.run(fold(Add, 0.0f, zipWith(Mul, X, Y)));
    CHECK(Unfused.stats().Launches - E0.Launches == FoldLaunches + CopyLaunches);
    // A producer used twice is computed once: map, then the zipWith.
    Acc M = map(Half, X);
    Acc Twice = zipWith(Add, M, M);
    RuntimeStats F0 = Unfused.stats();
    std::vector<float> Got = Unfused.run<float>(Twice).toVector();
    CHECK(Unfused.stats().Launches - F0.Launches == 2 * CopyLaunches);
    CHECK(Got == Fused.run<float>(Twice).toVector());
    CHECK(Got[12] == 12.0f);
    // Nested producers: each a kernel, the result the same.
    Acc Deep = reverse(map(Half, take(500, concat(X, Y))));
    RuntimeStats G0 = Unfused.stats();
    std::vector<float> Un = Unfused.run<float>(Deep).toVector();
    CHECK(Unfused.stats().Launches - G0.Launches == 4 * CopyLaunches);
    CHECK(Un == Fused.run<float>(Deep).toVector());
  }
}

TEST_CASE("LLQ_FUSION=off turns fusion off where the options leave it unset") {
  auto Mul = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = mul i32 %a, %b");
  Array<int32_t> X = fromVector(randomInts(100, 4));
  auto LaunchesOf = [&](Runtime &R) {
    RuntimeStats Before = R.stats();
    R.run(sum(zipWith(Mul, X, X)));
    return R.stats().Launches - Before.Launches;
  };
  RuntimeOptions O;
  O.Backend = BackendKind::Sequential;
  setenv("LLQ_FUSION", "off", 1);
  Runtime Off(O);
  setenv("LLQ_FUSION", "on", 1);
  Runtime On(O);
  O.Fusion = false;
  setenv("LLQ_FUSION", "1", 1);
  Runtime Explicit(O);
  unsetenv("LLQ_FUSION");
  CHECK(LaunchesOf(Off) > LaunchesOf(On));
  CHECK(LaunchesOf(Explicit) == LaunchesOf(Off));
}

namespace {

Fn below(int32_t) { return LLQ_FN("i1 (i32 %x)", "%r = icmp slt i32 %x, 1000"); }
Fn doubled() { return LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 2"); }
Fn addI() { return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b"); }
Fn isPositive() { return LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 0"); }

} // namespace

TEST_CASE("acond computes the condition, then only the branch it chooses") {
  for (Runtime *R : runtimes())
    for (int64_t N : {int64_t(1), int64_t(7), int64_t(1001)}) {
      CAPTURE(N);
      for (int32_t Sign : {1, -1}) {
        std::vector<int32_t> Xs(static_cast<size_t>(N));
        for (int64_t I = 0; I < N; ++I)
          Xs[size_t(I)] = Sign * int32_t(I + 1);
        Array<int32_t> X = fromVector(Xs);
        // The sum's sign chooses: doubled if positive, else plus one.
        Acc E = acond(map(isPositive(), sum(X)), map(doubled(), X), map(plusOne(), X));
        std::vector<int32_t> Want = Xs;
        for (int32_t &V : Want)
          V = Sign > 0 ? V * 2 : V + 1;
        CHECK(R->run<int32_t>(E).toVector() == Want);
        // Only the chosen branch runs: the launches are the condition's and
        // one branch's.
        RuntimeStats A = R->stats();
        R->run(map(isPositive(), sum(X)));
        RuntimeStats B = R->stats();
        R->run(map(doubled(), X));
        RuntimeStats C = R->stats();
        R->run(E);
        CHECK(R->stats().Launches - C.Launches ==
              (B.Launches - A.Launches) + (C.Launches - B.Launches));
      }
    }
}

TEST_CASE("awhile steps its value while the condition holds, compiling its body once") {
  for (Runtime *R : runtimes())
    for (int64_t N : {int64_t(0), int64_t(1), int64_t(7), int64_t(1001), int64_t(100003)}) {
      CAPTURE(N);
      std::vector<int32_t> Xs = randomInts(N, unsigned(N) + 9);
      for (int32_t &X : Xs)
        X = std::abs(X) % 50 + 1;
      Array<int32_t> X = fromVector(Xs);
      // Doubles every element until all are at least 1000.
      auto Cond = [](const Acc &V) { return any(below(0), V); };
      auto Step = [](const Acc &V) { return map(doubled(), V); };
      Acc E = awhile(Cond, Step, X);
      std::vector<int32_t> Want = Xs;
      int Iterations = 0;
      while (std::any_of(Want.begin(), Want.end(), [](int32_t V) { return V < 1000; })) {
        for (int32_t &V : Want)
          V *= 2;
        ++Iterations;
      }
      CHECK((N == 0) == (Iterations == 0));
      RuntimeStats Before = R->stats();
      CHECK(R->run<int32_t>(E).toVector() == Want);
      // Iterations compile nothing: a new loop of the same structure over
      // other data finds every kernel.
      Array<int32_t> Y = fromVector(std::vector<int32_t>(size_t(N), 3));
      RuntimeStats Mid = R->stats();
      std::vector<int32_t> WantY(size_t(N), 3 * 512);
      CHECK(R->run<int32_t>(awhile(Cond, Step, Y)).toVector() == WantY);
      CHECK(R->stats().KernelsBuilt == Mid.KernelsBuilt);
      CHECK(Mid.KernelsBuilt - Before.KernelsBuilt <= 3);
      // The same Acc again, and prepared on other inputs.
      CHECK(R->run<int32_t>(E).toVector() == Want);
      Prepared P = R->prepare(E);
      CHECK(P(Y).as<int32_t>().toVector() == WantY);
    }
}

TEST_CASE("awhile's body reads other arrays, nests, and stops at once when the condition fails") {
  for (Runtime *R : runtimes()) {
    std::vector<int32_t> Xs = {1, 2, 3, 4, 5}, Ds = {5, 4, 3, 2, 1};
    Array<int32_t> X = fromVector(Xs), D = fromVector(Ds);
    // X + k*D until the sum passes 200: the step reads D, which is not the
    // loop's value.
    auto Big = LLQ_FN("i1 (i32 %s)", "%r = icmp slt i32 %s, 200");
    Acc E = awhile([&](const Acc &V) { return map(Big, sum(V)); },
                   [&](const Acc &V) { return zipWith(addI(), V, D); }, X);
    std::vector<int32_t> Want = Xs;
    while (std::accumulate(Want.begin(), Want.end(), 0) < 200)
      for (size_t I = 0; I < Want.size(); ++I)
        Want[I] += Ds[I];
    CHECK(R->run<int32_t>(E).toVector() == Want);
    // A condition false from the start: the initial value, computed.
    CHECK(R->run<int32_t>(awhile([&](const Acc &V) { return map(Big, sum(V)); },
                                 [&](const Acc &V) { return map(doubled(), V); },
                                 map(doubled(), fromVector(std::vector<int32_t>{500}))))
              .toVector() == std::vector<int32_t>{1000});
    // Nested: the outer loop adds D while the sum is below 200; each step
    // first doubles the value while its first element is below 50.
    auto FirstBelow = LLQ_FN("i1 (i32 %x)", "%r = icmp slt i32 %x, 50");
    Acc Nested = awhile(
        [&](const Acc &V) { return map(Big, sum(V)); },
        [&](const Acc &V) {
          Acc Grown = awhile([&](const Acc &W) { return map(FirstBelow, sum(take(1, W))); },
                             [&](const Acc &W) { return map(doubled(), W); }, V);
          return zipWith(addI(), Grown, D);
        },
        X);
    std::vector<int32_t> W = Xs;
    while (std::accumulate(W.begin(), W.end(), 0) < 200) {
      while (W[0] < 50)
        for (int32_t &V : W)
          V *= 2;
      for (size_t I = 0; I < W.size(); ++I)
        W[I] += Ds[I];
    }
    CHECK(R->run<int32_t>(Nested).toVector() == W);
    // Inside an expression: a map over the loop's result, an acond in the
    // step.
    Acc Inner = map(plusOne(),
                    awhile([&](const Acc &V) { return map(Big, sum(V)); },
                           [&](const Acc &V) {
                             return acond(map(isPositive(), sum(V)), map(doubled(), V),
                                          map(plusOne(), V));
                           },
                           X));
    std::vector<int32_t> Q = Xs;
    while (std::accumulate(Q.begin(), Q.end(), 0) < 200)
      for (int32_t &V : Q)
        V *= 2;
    for (int32_t &V : Q)
      V += 1;
    CHECK(R->run<int32_t>(Inner).toVector() == Q);
  }
}

TEST_CASE("acond and awhile mistakes are errors where the expression is built") {
  Array<int32_t> X = fromVector(std::vector<int32_t>{1, 2, 3});
  Array<int32_t> Y = fromVector(std::vector<int32_t>{1, 2});
  Acc Yes = map(isPositive(), sum(X));
  CHECK(acond(X, X, X).error() ==
        "acond: the condition is an array of i32 of shape [3]; it must be a scalar of bool (rank 0)");
  CHECK(acond(sum(X), X, X).error() ==
        "acond: the condition is a scalar of i32; it must be a scalar of bool (rank 0)");
  CHECK(acond(Yes, X, Y).error() ==
        "acond: the branches are an array of i32 of shape [3] and an array of i32 of shape "
        "[2]; they must have one element type and shape");
  auto Id = [](const Acc &V) { return V; };
  CHECK(awhile([](const Acc &V) { return V; }, Id, X).error() ==
        "awhile: the condition gives an array of i32 of shape [3]; it must give a scalar of "
        "bool (rank 0)");
  CHECK(awhile([](const Acc &V) { return any(isPositive(), V); },
               [](const Acc &V) { return take(2, V); }, X)
            .error() == "awhile: the step gives an array of i32 of shape [2] from an array "
                        "of i32 of shape [3]; it must keep the element type and shape");
  // A mistake inside the body is the one reported.
  CHECK(awhile([](const Acc &V) { return any(isPositive(), V); },
               [](const Acc &V) { return take(-1, V); }, X)
            .error() == "take: the count -1 is negative");
  // The loop's value kept past the loop and used elsewhere.
  Acc Leaked;
  Acc Loop = awhile([&](const Acc &V) {
                      Leaked = V;
                      return any(isPositive(), V);
                    },
                    [](const Acc &V) { return V; }, X);
  CHECK_THROWS_WITH_AS(runtime(BackendKind::CPU, true).run(map(plusOne(), Leaked)),
                       "awhile: the loop's value is used outside the loop's condition and step",
                       ArrayError);
  // kernelIR has no single kernel to show.
  auto IR = runtime(BackendKind::CPU, true).kernelIR(Loop);
  REQUIRE(!IR);
  CHECK(llvm::toString(IR.takeError()).find("awhile: runs the kernels of its parts") == 0);
}

TEST_CASE("filter and compact keep the elements a test passes, in order") {
  auto Even = LLQ_FN("i1 (i32 %x)", "%m = srem i32 %x, 2\n %r = icmp eq i32 %m, 0");
  auto Never = LLQ_FN("i1 (i32 %x)", "%r = icmp eq i32 %x, 12345678");
  for (Runtime *R : runtimes())
    for (int64_t N : Sizes) {
      CAPTURE(N);
      std::vector<int32_t> Xs = randomInts(N, unsigned(N) + 21);
      Array<int32_t> X = fromVector(Xs);
      std::vector<int32_t> Evens, Kept, Positive;
      for (int32_t V : Xs) {
        if (V % 2 == 0)
          Evens.push_back(V);
        if ((V + 1) % 2 == 0)
          Kept.push_back(V);
        if (V > 0)
          Positive.push_back(V);
      }
      Array<> F = R->run(filter(Even, X));
      CHECK(F.shape().rank() == 1);
      CHECK(F.as<int32_t>().toVector() == Evens);
      CHECK(R->run<int32_t>(filter(Never, X)).toVector().empty());
      // Fused producers under the test: the test sees x + 1 and keeps it.
      std::vector<int32_t> Plus;
      for (int32_t V : Xs)
        if ((V + 1) % 2 == 0)
          Plus.push_back(V + 1);
      CHECK(R->run<int32_t>(filter(Even, map(plusOne(), X))).toVector() == Plus);
      // compact: flags computed by a fused map; the shorter length rules.
      CHECK(R->run<int32_t>(compact(map(isPositive(), X), X)).toVector() == Positive);
      Array<int32_t> Half = fromVector(std::vector<int32_t>(Xs.begin(), Xs.begin() + N / 2));
      std::vector<int32_t> FirstHalf;
      for (int64_t I = 0; I < N / 2; ++I)
        if (Xs[size_t(I)] > 0)
          FirstHalf.push_back(Xs[size_t(I)]);
      CHECK(R->run<int32_t>(compact(map(isPositive(), Half), X)).toVector() == FirstHalf);
      // Kept elements of tuples, every field.
      std::vector<double> Ds(Xs.begin(), Xs.end());
      auto T = fromVectors<int32_t, double>({N}, Xs, Ds);
      auto FirstEven = LLQ_FN("i1 ({ i32, double } %p)",
                              "%x = extractvalue { i32, double } %p, 0\n"
                              " %m = srem i32 %x, 2\n %r = icmp eq i32 %m, 0");
      auto KT = R->run(filter(FirstEven, T)).as<std::tuple<int32_t, double>>().toVector();
      REQUIRE(KT.size() == Evens.size());
      for (size_t I = 0; I < KT.size(); ++I)
        CHECK(KT[I] == std::tuple<int32_t, double>(Evens[I], double(Evens[I])));
    }
}

TEST_CASE("a filter run again gives the length of the data it finds") {
  auto Even = LLQ_FN("i1 (i32 %x)", "%m = srem i32 %x, 2\n %r = icmp eq i32 %m, 0");
  Runtime &R = runtime(BackendKind::CPU, true);
  std::vector<int32_t> Xs(20000);
  std::iota(Xs.begin(), Xs.end(), 0);
  Array<int32_t> X = fromVector(Xs);
  Acc E = filter(Even, X);
  CHECK(R.run<int32_t>(E).toVector().size() == 10000);
  // The input changed in place: the kept plan finds another length.
  int32_t *D = static_cast<int32_t *>(X.raw().data(0));
  for (int32_t I = 0; I < 20000; ++I)
    D[I] = I < 300 ? 2 * I : 1;
  std::vector<int32_t> Got = R.run<int32_t>(E).toVector();
  REQUIRE(Got.size() == 300);
  CHECK(Got[299] == 598);
  // Prepared, on another input of the same shape: all kept.
  Prepared P = R.prepare(E);
  CHECK(P(fromVector(std::vector<int32_t>(20000, 4))).as<int32_t>().toVector().size() == 20000);
}

TEST_CASE("filter mistakes are errors that say what was wrong") {
  Array<int32_t> X = fromVector(randomInts(6, 3));
  auto Twice = LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 2");
  auto Even = LLQ_FN("i1 (i32 %x)", "%m = srem i32 %x, 2\n %r = icmp eq i32 %m, 0");
  std::string E = filter(Twice, X).error();
  CHECK(E.find("LanguageTests.cpp:") != std::string::npos);
  CHECK(E.find("error: filter needs a function that returns i1, but this one returns i32") !=
        std::string::npos);
  CHECK(filter(Even, fromVector({2, 3}, randomInts(6, 3))).error() ==
        "filter: needs a vector, not an array of shape [2, 3] (reshape it to one)");
  CHECK(compact(X, X).error() == "compact: the flags must be a vector of bool, not i32 of shape [6]");
  CHECK(map(Twice, filter(Even, X)).error() ==
        "map: the result of filter has a length that only a run decides; run it, then use "
        "the array it gives");
  // Run first, then use: fine.
  Array<> Kept = runtime(BackendKind::CPU, true).run(filter(Even, X));
  CHECK(runtime(BackendKind::CPU, true).run<int32_t>(map(Twice, Kept)).toVector().size() ==
        size_t(Kept.size()));
}

TEST_CASE("several results in one run share what they have in common") {
  auto Half = LLQ_FN("float (float %x)", "%r = fmul float %x, 0.5");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  for (Runtime *R : runtimes()) {
    std::vector<float> Xs(1001);
    for (size_t I = 0; I < Xs.size(); ++I)
      Xs[I] = float(int(I % 17) - 8);
    Array<float> X = fromVector(Xs);
    float Sum = 0, Max = -INFINITY;
    for (float V : Xs) {
      Sum += V * 0.5f;
      Max = std::max(Max, V * 0.5f);
    }
    auto LaunchesOf = [&](auto Run) {
      RuntimeStats Before = R->stats();
      Run();
      return R->stats().Launches - Before.Launches;
    };
    uint64_t Copy = LaunchesOf([&] { R->run(map(Half, X)); });
    uint64_t Fold = LaunchesOf([&] { R->run(sum(X)); });
    // A producer two results read: computed once, as an array.
    Acc M = map(Half, X);
    uint64_t Both = LaunchesOf([&] {
      auto [S, Mx] = R->run(sum(M), maximum(M));
      CHECK(S.scalar().get<float>() == Sum);
      CHECK(Mx.scalar().get<float>() == Max);
    });
    CHECK(Both == Copy + 2 * Fold);
    // A consumer two results read runs once; a result may be the shared
    // part itself, or an input.
    Acc S = scanl(Add, 0.0f, X);
    std::vector<Array<>> All = R->runAll({S, map(Half, S), X});
    REQUIRE(All.size() == 3);
    std::vector<float> Scan = All[0].as<float>().toVector();
    REQUIRE(Scan.size() == Xs.size() + 1);
    CHECK(Scan.back() == std::accumulate(Xs.begin(), Xs.end(), 0.0f));
    std::vector<float> Halves = All[1].as<float>().toVector();
    CHECK(Halves.back() == Scan.back() * 0.5f);
    CHECK(All[2].raw().data(0) == X.raw().data(0));
    uint64_t ScanOnce = LaunchesOf([&] { R->run(S); });
    CHECK(LaunchesOf([&] { R->runAll({map(Half, S), S}); }) == ScanOnce + Copy);
    // Results of three expressions, one of them a loop.
    auto [A, B, C] = R->run(sum(X), take(2, M),
                            awhile([](const Acc &V) { return any(LLQ_FN("i1 (float %x)", "%r = fcmp ogt float %x, 1.0"), V); },
                                   [&](const Acc &V) { return map(Half, V); }, fromVector(std::vector<float>{8, 3})));
    CHECK(A.scalar().get<float>() == std::accumulate(Xs.begin(), Xs.end(), 0.0f));
    CHECK(B.as<float>().toVector() == std::vector<float>{Xs[0] * 0.5f, Xs[1] * 0.5f});
    CHECK(C.as<float>().toVector() == std::vector<float>{1, 0.375f});
  }
  // A mistake in any expression is the run's error.
  Array<int32_t> X = fromVector(randomInts(4, 2));
  CHECK_THROWS_WITH_AS(runtime(BackendKind::CPU, true).run(sum(X), take(-2, X)),
                       "take: the count -2 is negative", ArrayError);
  CHECK(runtime(BackendKind::CPU, true).runAll({}).empty());
}

namespace {

/// Where a neighbour's coordinate C of extent E reads under boundary K.
int64_t boundaryAt(Boundary::Kind K, int64_t C, int64_t E, bool &In) {
  if (C >= 0 && C < E)
    return C;
  In = false;
  switch (K) {
  case Boundary::Clamp:
  case Boundary::Constant:
    return std::clamp<int64_t>(C, 0, E - 1);
  case Boundary::Mirror: {
    // Reflected at the bottom edge, what passes the top reflected there,
    // then clamped (docs/Skeletons.md): for extents below the radius.
    int64_t A = C < 0 ? -C : C;
    return std::clamp<int64_t>(A >= E ? 2 * (E - 1) - A : A, 0, E - 1);
  }
  case Boundary::Wrap:
    return ((C % E) + E) % E;
  }
  return 0;
}

/// A function of Count i32 neighbours (and, for stencil2, Count2 more):
/// r = r * 3 + x for each, in order, wrapping.
Fn mixFn(int64_t Count) {
  std::string Sig = "i32 (", Body = "%r = i32 0\n";
  for (int64_t I = 0; I < Count; ++I) {
    Sig += fmt::format("{}i32 %x{}", I ? ", " : "", I);
    Body += fmt::format(" %r = mul i32 %r, 3\n %r = add i32 %r, %x{}\n", I);
  }
  return Fn(Sig + ")", Body, __FILE__, __LINE__);
}

/// The neighbourhood of Ix (sizes Sizes) of the array Xs of extents E,
/// folded into Acc as mixFn does.
uint32_t mixNeighbours(uint32_t Acc, const std::vector<int32_t> &Xs, const Extents &E,
                       const Extents &Sizes, const std::vector<int64_t> &Ix,
                       Boundary::Kind K, int32_t Constant) {
  size_t R = E.size();
  int64_t Count = 1;
  for (int64_t S : Sizes)
    Count *= S;
  for (int64_t N = 0; N < Count; ++N) {
    std::vector<int64_t> At(R);
    bool In = true;
    for (int64_t Q = N, D = int64_t(R) - 1; D >= 0; --D) {
      int64_t S = Sizes[size_t(D)];
      At[size_t(D)] = boundaryAt(K, Ix[size_t(D)] + Q % S - S / 2, E[size_t(D)], In);
      Q /= S;
    }
    int64_t P = 0;
    for (size_t D = 0; D < R; ++D)
      P = P * E[D] + At[D];
    int32_t V = K == Boundary::Constant && !In ? Constant : Xs[size_t(P)];
    Acc = Acc * 3u + uint32_t(V);
  }
  return Acc;
}

std::vector<int64_t> indexOf(int64_t L, const Extents &E) {
  std::vector<int64_t> Ix(E.size());
  for (int64_t D = int64_t(E.size()) - 1; D >= 0; --D) {
    Ix[size_t(D)] = L % E[size_t(D)];
    L /= E[size_t(D)];
  }
  return Ix;
}

} // namespace

TEST_CASE("stencils of any odd size per dimension, every boundary, against C++") {
  struct Case {
    Extents Shape, Sizes;
  };
  std::vector<Case> Cases = {
      {{1}, {1}},         {{17}, {5}},        {{100}, {9}},         {{2}, {7}},
      {{1, 1}, {1, 5}},   {{9, 13}, {5, 1}},  {{12, 40}, {3, 7}},   {{2, 3}, {9, 9}},
      {{30, 7}, {1, 1}},  {{3, 4, 5}, {5, 5, 3}}, {{7, 5, 9}, {1, 3, 5}}, {{2, 2, 2}, {3, 1, 7}}};
  for (Boundary::Kind K : {Boundary::Clamp, Boundary::Mirror, Boundary::Wrap,
                           Boundary::Constant}) {
    Boundary B{K, std::nullopt};
    if (K == Boundary::Constant)
      B = Boundary::constant(int32_t(-1));
    for (const Case &C : Cases) {
      CAPTURE(K);
      CAPTURE(fmt::format("{} {}", fmt::join(C.Shape, "x"), fmt::join(C.Sizes, "x")));
      int64_t Size = 1, Count = 1;
      for (int64_t X : C.Shape)
        Size *= X;
      for (int64_t S : C.Sizes)
        Count *= S;
      std::vector<int32_t> Xs(static_cast<size_t>(Size));
      for (int64_t I = 0; I < Size; ++I)
        Xs[size_t(I)] = int32_t((I * 37) % 11);
      std::vector<int32_t> Want(Xs.size());
      for (int64_t L = 0; L < Size; ++L)
        Want[size_t(L)] = int32_t(mixNeighbours(0, Xs, C.Shape, C.Sizes,
                                                indexOf(L, C.Shape), K, -1));
      Fn F = mixFn(Count);
      for (Runtime *R : runtimes())
        CHECK(R->run<int32_t>(stencil(F, C.Sizes, B, fromVector(C.Shape, Xs))).toVector() ==
              Want);
    }
  }
}

TEST_CASE("stencil2 reads each array through a window of its own") {
  Extents EA = {13, 21}, EB = {11, 25};
  std::vector<int32_t> As(13 * 21), Bs(11 * 25);
  for (size_t I = 0; I < As.size(); ++I)
    As[I] = int32_t(I % 7);
  for (size_t I = 0; I < Bs.size(); ++I)
    Bs[I] = int32_t(I % 5) - 2;
  Extents Out = {11, 21};
  std::vector<int32_t> Want(11 * 21);
  for (int64_t L = 0; L < 11 * 21; ++L) {
    std::vector<int64_t> Ix = indexOf(L, Out);
    uint32_t Acc = mixNeighbours(0, As, EA, {3, 3}, Ix, Boundary::Clamp, 0);
    Want[size_t(L)] = int32_t(mixNeighbours(Acc, Bs, EB, {1, 5}, Ix, Boundary::Constant, 7));
  }
  for (Runtime *R : runtimes())
    CHECK(R->run<int32_t>(stencil2(mixFn(9 + 5), {3, 3}, Boundary::clamp(), fromVector(EA, As),
                                   {1, 5}, Boundary::constant(int32_t(7)), fromVector(EB, Bs)))
              .toVector() == Want);
}

TEST_CASE("stencils of other sizes keep a vectorized interior (-mcpu=haswell)") {
  RuntimeOptions O;
  O.CPU = "haswell";
  Runtime R(O);
  auto Img = fromVector({64, 64}, std::vector<float>(64 * 64, 1.0f));
  for (Extents Sizes : {Extents{1, 5}, Extents{3, 7}, Extents{9, 1}}) {
    int64_t Count = Sizes[0] * Sizes[1];
    std::string Sig = "float (", Body = "%s = float 0.0\n";
    for (int64_t I = 0; I < Count; ++I) {
      Sig += fmt::format("{}float %x{}", I ? ", " : "", I);
      Body += fmt::format(" %s = fadd float %s, %x{}\n", I);
    }
    Fn Sum(Sig + ")", Body + " %r = float %s\n", __FILE__, __LINE__);
    auto IR = R.kernelIR(stencil(Sum, Sizes, Boundary::clamp(), Img), /*Optimized=*/true);
    REQUIRE(IR);
    CAPTURE(fmt::format("{}", fmt::join(Sizes, "x")));
    CHECK(IR->find("load <8 x float>") != std::string::npos);
    CHECK(IR->find("store <8 x float>") != std::string::npos);
  }
}

TEST_CASE("a stencil size that is even, too large or of the wrong count is an error") {
  Array<int32_t> M = fromVector({4, 4}, std::vector<int32_t>(16, 1));
  Fn F = mixFn(9);
  CHECK(stencil(F, {2, 3}, Boundary::clamp(), M).error() ==
        "stencil: the size 2 of dimension 0 must be odd, from 1 to 9");
  CHECK(stencil(F, {3, 11}, Boundary::clamp(), M).error() ==
        "stencil: the size 11 of dimension 1 must be odd, from 1 to 9");
  CHECK(stencil(F, {3}, Boundary::clamp(), M).error() ==
        "stencil: 1 sizes for an array of rank 2");
  CHECK(stencil2(mixFn(12), {3, 3}, Boundary::clamp(), M, {1, 2}, Boundary::clamp(), M).error() ==
        "stencil2: the size 2 of dimension 1 of the second array must be odd, from 1 to 9");
  // A function whose arity does not match the sizes.
  std::string E = stencil(F, {1, 5}, Boundary::clamp(), M).error();
  CHECK(E.find("LanguageTests.cpp:") != std::string::npos);
  CHECK(E.find("stencil needs a function of (i32, i32, i32, i32, i32)") != std::string::npos);
}

namespace {

/// The six scans of each row of Xs (rows x n) with seed Z, in C++.
struct RowScans {
  std::vector<int32_t> L, L1, LP, LT, R, R1, RP, RT;
};
RowScans scanRows(const std::vector<int32_t> &Xs, int64_t Rows, int64_t N, int32_t Z) {
  RowScans S;
  auto Add = [](int32_t A, int32_t B) { return int32_t(uint32_t(A) + uint32_t(B)); };
  for (int64_t Row = 0; Row < Rows; ++Row) {
    const int32_t *X = Xs.data() + Row * N;
    int32_t Acc = Z;
    S.L.push_back(Acc);
    for (int64_t J = 0; J < N; ++J) {
      S.LP.push_back(Acc);
      Acc = Add(Acc, X[J]);
      S.L.push_back(Acc);
      S.L1.push_back(J == 0 ? X[0] : Add(S.L1.back(), X[J]));
    }
    S.LT.push_back(Acc);
    std::vector<int32_t> R(static_cast<size_t>(N + 1)), R1(static_cast<size_t>(N)),
        RP(static_cast<size_t>(N));
    Acc = Z;
    R[size_t(N)] = Z;
    for (int64_t J = N - 1; J >= 0; --J) {
      RP[size_t(J)] = Acc;
      Acc = Add(X[J], Acc);
      R[size_t(J)] = Acc;
      R1[size_t(J)] = J == N - 1 ? X[J] : Add(X[J], R1[size_t(J + 1)]);
    }
    S.RT.push_back(Acc);
    S.R.insert(S.R.end(), R.begin(), R.end());
    S.R1.insert(S.R1.end(), R1.begin(), R1.end());
    S.RP.insert(S.RP.end(), RP.begin(), RP.end());
  }
  return S;
}

} // namespace

TEST_CASE("scans along the innermost dimension of any rank, every variant, against C++") {
  for (Extents Sh : {Extents{1, 1}, Extents{3, 7}, Extents{4, 1001}, Extents{2, 3, 5},
                     Extents{5, 0}, Extents{0, 4}, Extents{3, 1, 9}}) {
    CAPTURE(fmt::format("{}", fmt::join(Sh, "x")));
    int64_t Size = 1;
    for (int64_t E : Sh)
      Size *= E;
    int64_t N = Sh.back(), Rows = N ? Size / N : 0;
    if (!N) {
      Rows = 1;
      for (size_t D = 0; D + 1 < Sh.size(); ++D)
        Rows *= Sh[D];
    }
    std::vector<int32_t> Xs = randomInts(Size, unsigned(Size) + 3);
    RowScans Want = scanRows(Xs, Rows, N, 5);
    Array<int32_t> X = fromVector(Sh, Xs);
    Extents Outer(Sh.begin(), Sh.end() - 1), Plus = Outer, Same = Sh;
    Plus.push_back(N + 1);
    for (Runtime *R : runtimes()) {
      // Fused: the scan reads x through a map that adds nothing.
      Acc In = map(LLQ_FN("i32 (i32 %x)", "%r = add i32 %x, 0"), X);
      Array<> L = R->run(scanl(addI(), 5, In));
      CHECK(Extents(L.shape().extents(), L.shape().extents() + L.shape().rank()) == Plus);
      CHECK(L.as<int32_t>().toVector() == Want.L);
      CHECK(R->run<int32_t>(scanr(addI(), 5, In)).toVector() == Want.R);
      auto [LP, LT] = scanlPrime(addI(), 5, In);
      auto [RP, RT] = scanrPrime(addI(), 5, In);
      auto [GotLP, GotLT, GotRP, GotRT] = R->run(LP, LT, RP, RT);
      CHECK(GotLP.as<int32_t>().toVector() == Want.LP);
      CHECK(GotLT.as<int32_t>().toVector() == Want.LT);
      CHECK(GotLT.shape().rank() == Sh.size() - 1);
      CHECK(GotRP.as<int32_t>().toVector() == Want.RP);
      CHECK(GotRT.as<int32_t>().toVector() == Want.RT);
      if (N == 0 && Rows > 0) {
        CHECK(scanl1(addI(), X).error() ==
              fmt::format("scanl1: the innermost dimension of [{}] is empty, and "
                          "scanl1 has no seed",
                          fmt::join(Sh, ", ")));
        continue;
      }
      CHECK(R->run<int32_t>(scanl1(addI(), In)).toVector() == Want.L1);
      CHECK(R->run<int32_t>(scanr1(addI(), In)).toVector() == Want.R1);
    }
  }
}

TEST_CASE("segmented scans of every row of a matrix and a rank-3 array") {
  for (Extents Sh : {Extents{3, 10}, Extents{1, 10}, Extents{2, 2, 10}, Extents{0, 10}}) {
    CAPTURE(fmt::format("{}", fmt::join(Sh, "x")));
    int64_t Size = 1;
    for (int64_t E : Sh)
      Size *= E;
    int64_t N = Sh.back(), Rows = Size / N;
    std::vector<int32_t> Xs = randomInts(Size, 17);
    std::vector<int32_t> Segs = {3, 0, 6, 1};
    std::vector<int32_t> WantL, WantR;
    for (int64_t Row = 0; Row < Rows; ++Row) {
      int64_t At = Row * N;
      for (int32_t Len : Segs) {
        int32_t Acc = 7;
        WantL.push_back(Acc);
        for (int32_t J = 0; J < Len; ++J)
          WantL.push_back(Acc = int32_t(uint32_t(Acc) + uint32_t(Xs[size_t(At + J)])));
        std::vector<int32_t> R(size_t(Len) + 1);
        Acc = 7;
        R[size_t(Len)] = Acc;
        for (int32_t J = Len - 1; J >= 0; --J)
          R[size_t(J)] = Acc = int32_t(uint32_t(Xs[size_t(At + J)]) + uint32_t(Acc));
        WantR.insert(WantR.end(), R.begin(), R.end());
        At += Len;
      }
    }
    Array<int32_t> X = fromVector(Sh, Xs);
    for (Runtime *R : runtimes()) {
      Array<> L = R->run(scanlSeg(addI(), 7, map(plusOne(), map(LLQ_FN("i32 (i32 %x)", "%r = sub i32 %x, 1"), X)), fromVector(Segs)));
      Extents Want = Sh;
      Want.back() = N + 4;
      CHECK(Extents(L.shape().extents(), L.shape().extents() + L.shape().rank()) == Want);
      CHECK(L.as<int32_t>().toVector() == WantL);
      CHECK(R->run<int32_t>(scanrSeg(addI(), 7, X, fromVector(Segs))).toVector() == WantR);
    }
    // Segments that do not add up to the innermost extent.
    CHECK_THROWS_WITH_AS(
        runtime(BackendKind::CPU, true).run(scanlSeg(addI(), 7, X, fromVector(std::vector<int32_t>{3, 3}))),
        "scanlSeg: the segments add up to 6, but the innermost dimension has 10 elements",
        ArrayError);
  }
}

TEST_CASE("bound parameters: run-time constants that compile nothing when they change") {
  auto Step = LLQ_FN("double (double %x, double %v, double %dt)", R"(
    %d = fmul double %v, %dt
    %r = fadd double %x, %d)");
  std::vector<double> Xs = {1, 2, 3}, Vs = {0.5, -1, 4};
  Array<double> X = fromVector(Xs), V = fromVector(Vs);
  for (Runtime *R : runtimes()) {
    CHECK(R->run<double>(zipWith(Step.bind("dt", 0.5), X, V)).toVector() ==
          std::vector<double>{1.25, 1.5, 5});
    // Another value: the same kernel, found by structure.
    uint64_t Built = R->stats().KernelsBuilt;
    for (double Dt : {0.25, 2.0, -1.0}) {
      std::vector<double> Got = R->run<double>(zipWith(Step.bind("dt", Dt), X, V)).toVector();
      for (size_t I = 0; I < Xs.size(); ++I)
        CHECK(Got[I] == Xs[I] + Vs[I] * Dt);
    }
    CHECK(R->stats().KernelsBuilt == Built);
    // A parameter in the middle, the others given by the operation; two
    // bound at once; bound again, the last value.
    auto Lerp = LLQ_FN("float (float %a, float %t, float %b, float %scale)", R"(
      %d = fsub float %b, %a
      %m = fmul float %d, %t
      %s = fadd float %a, %m
      %r = fmul float %s, %scale)");
    Array<float> A = fromVector(std::vector<float>{0, 10}), B = fromVector(std::vector<float>{4, 20});
    Fn L = Lerp.bind("t", 0.25f).bind("scale", 2.0f).bind("t", 0.5f);
    CHECK(R->run<float>(zipWith(L, A, B)).toVector() == std::vector<float>{4, 30});
    // In a generate, a stencil and a filter.
    auto Ramp = LLQ_FN("i64 (i64 %i, i64 %k)", "%r = mul i64 %i, %k");
    CHECK(R->run<int64_t>(generate({4}, Ramp.bind("k", int64_t(3)))).toVector() ==
          std::vector<int64_t>{0, 3, 6, 9});
    auto Weighted = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c, i32 %w)", R"(
      %s = add i32 %a, %c
      %m = mul i32 %b, %w
      %r = add i32 %s, %m)");
    CHECK(R->run<int32_t>(stencil(Weighted.bind("w", 10), Boundary::constant(0),
                                  fromVector(std::vector<int32_t>{1, 2, 3})))
              .toVector() == std::vector<int32_t>{12, 24, 32});
    auto Above = LLQ_FN("i1 (i32 %x, i32 %t)", "%r = icmp sgt i32 %x, %t");
    Array<int32_t> Ys = fromVector(std::vector<int32_t>{5, 1, 9, 3});
    CHECK(R->run<int32_t>(filter(Above.bind("t", 4), Ys)).toVector() == std::vector<int32_t>{5, 9});
    CHECK(R->run<int32_t>(filter(Above.bind("t", 2), Ys)).toVector() ==
          std::vector<int32_t>{5, 9, 3});
  }
}

TEST_CASE("binding mistakes are errors at the bind's line") {
  auto Step = LLQ_FN("double (double %x, double %dt)", "%r = fmul double %x, %dt");
  Array<double> X = fromVector(std::vector<double>{1});
  Fn Wrong = Step.bind("dt", 1.0f); int WrongLine = __LINE__;
  CHECK(!Wrong.ok());
  CHECK(Wrong.error().find(fmt::format("LanguageTests.cpp:{}: error: bind: parameter %dt of the "
                                       "function of ",
                                       WrongLine)) != std::string::npos);
  CHECK(Wrong.error().find("is double, but the value given is float") != std::string::npos);
  Fn Missing = Step.bind("dtt", 1.0); int MissingLine = __LINE__;
  CHECK(Missing.error().find(fmt::format("LanguageTests.cpp:{}: error: bind: the function of ",
                                         MissingLine)) != std::string::npos);
  CHECK(Missing.error().find("has no parameter %dtt (its parameters: %x, %dt)") !=
        std::string::npos);
  // The operation reports it, with where the function went.
  CHECK_THROWS_WITH_AS(runtime(BackendKind::CPU, true).run(map(Wrong, X)),
                       doctest::Contains("note: the function was given to map"), ArrayError);
  // Not bound at all: the operation says what it needs and what this takes.
  CHECK(map(Step, X).error().find("map needs a function of (double), but this one takes "
                                  "(double, double)") != std::string::npos);
  // A combining function combines elements only.
  auto Add = LLQ_FN("i32 (i32 %a, i32 %b, i32 %k)", "%s = add i32 %a, %b\n %r = add i32 %s, %k");
  Array<int32_t> Y = fromVector(std::vector<int32_t>{1});
  CHECK(fold(Add.bind("k", 1), 0, Y).error().find("fold's function cannot have bound parameters") !=
        std::string::npos);
}

TEST_CASE("zip, unzip, fst, snd and field: tuples built and taken apart, delayed") {
  auto AddD = LLQ_FN("double (i32 %a, double %b)",
                     "%f = sitofp i32 %a to double\n %r = fadd double %f, %b");
  for (Runtime *R : runtimes())
    for (int64_t N : Sizes) {
      CAPTURE(N);
      std::vector<int32_t> Is = randomInts(N, unsigned(N) + 31);
      std::vector<double> Ds(Is.begin(), Is.end());
      for (double &D : Ds)
        D *= 0.5;
      Array<int32_t> I = fromVector(Is);
      Array<double> D = fromVector(Ds);
      // zip of a map and an array, fused; read back field by field.
      auto Z = R->run(zip(map(plusOne(), I), D)).as<std::tuple<int32_t, double>>();
      std::vector<int32_t> Plus = Is;
      for (int32_t &V : Plus)
        V += 1;
      CHECK(Z.field<0>() == Plus);
      CHECK(Z.field<1>() == Ds);
      // fst and snd of a zip, and unzip of a manifest tuple array.
      CHECK(R->run<int32_t>(fst(zip(I, D))).toVector() == Is);
      CHECK(R->run<double>(snd(zip(I, D))).toVector() == Ds);
      std::vector<Acc> Parts = unzip(Z);
      REQUIRE(Parts.size() == 2);
      CHECK(R->run<int32_t>(Parts[0]).toVector() == Plus);
      // A zipWith over the fields of one tuple array.
      std::vector<double> Want(Ds.size());
      for (size_t K = 0; K < Ds.size(); ++K)
        Want[K] = double(Plus[K]) + Ds[K];
      CHECK(R->run<double>(zipWith(AddD, Parts[0], Parts[1])).toVector() == Want);
      // Three and four arrays, shorter ones giving the length.
      auto Z3 = R->run(zip(I, D, take(N / 2, I))).as<std::tuple<int32_t, double, int32_t>>();
      CHECK(Z3.size() == N / 2);
      CHECK(Z3.field<2>() == std::vector<int32_t>(Is.begin(), Is.begin() + N / 2));
      auto Z4 = R->run(field(3, zip(D, D, I, reverse(I))));
      CHECK(Z4.as<int32_t>().toVector() == std::vector<int32_t>(Is.rbegin(), Is.rend()));
    }
}

TEST_CASE("zip and field mistakes are errors") {
  Array<int32_t> I = fromVector(randomInts(3, 1));
  auto P = fromVectors<int32_t, double>({2}, {1, 2}, {0.5, 1.5});
  CHECK(zip(I, P).error() == "zip: the arrays must hold scalars, and one holds (i32, f64); zip "
                             "its fields (unzip) instead");
  CHECK(zip(I, fromVector({1, 3}, randomInts(3, 2))).error() ==
        "zip: the arrays' ranks differ ([3] and [1, 3])");
  CHECK(field(2, P).error() == "field: the elements are (i32, f64), which have no field 2");
  CHECK(fst(I).error() == "field: the elements are i32, which have no field 0");
}

TEST_CASE("replicate and slice by specification, a dimension anywhere") {
  std::vector<int32_t> Ms = randomInts(3 * 4, 5);
  Array<int32_t> M = fromVector({3, 4}, Ms);
  Array<int32_t> V = fromVector(std::vector<int32_t>{7, 8, 9});
  for (Runtime *R : runtimes()) {
    // A new innermost dimension: each element repeated along a row.
    Array<> Cols = R->run(replicate({All, 2}, V));
    CHECK(Cols.shape().extent(0) == 3);
    CHECK(Cols.shape().extent(1) == 2);
    CHECK(Cols.as<int32_t>().toVector() == std::vector<int32_t>{7, 7, 8, 8, 9, 9});
    // A new middle dimension of a matrix.
    std::vector<int32_t> Mid = R->run<int32_t>(replicate({All, 2, All}, M)).toVector();
    REQUIRE(Mid.size() == 24);
    for (int64_t I = 0; I < 3; ++I)
      for (int64_t K = 0; K < 2; ++K)
        for (int64_t J = 0; J < 4; ++J)
          CHECK(Mid[size_t((I * 2 + K) * 4 + J)] == Ms[size_t(I * 4 + J)]);
    // A column and a row of a matrix, fused into a sum; an element.
    CHECK(R->run<int32_t>(slice(M, {All, 2})).toVector() ==
          std::vector<int32_t>{Ms[2], Ms[6], Ms[10]});
    CHECK(R->run<int32_t>(slice(M, {1, All})).toVector() ==
          std::vector<int32_t>(Ms.begin() + 4, Ms.begin() + 8));
    CHECK(R->run(sum(slice(M, {All, 3}))).scalar().get<int32_t>() == Ms[3] + Ms[7] + Ms[11]);
    Array<> E = R->run(slice(M, {2, 1}));
    CHECK(E.shape().rank() == 0);
    CHECK(E.scalar().get<int32_t>() == Ms[9]);
  }
  // The fixed index is a run-time value: another column, no new kernel.
  Runtime &R = runtime(BackendKind::CPU, true);
  R.run(slice(M, {All, 0}));
  uint64_t Built = R.stats().KernelsBuilt;
  CHECK(R.run<int32_t>(slice(M, {All, 1})).toVector() == std::vector<int32_t>{Ms[1], Ms[5], Ms[9]});
  CHECK(R.stats().KernelsBuilt == Built);
  // Mistakes.
  CHECK(slice(M, {All, 4}).error() ==
        "slice: index 4 in Z :. All :. 4 is outside dimension 1 of shape [3, 4]");
  CHECK(slice(M, {All}).error() ==
        "slice: the specification (Z :. All) has 1 dimension of the array, which has rank 2");
  CHECK(replicate({All, -1}, V).error() == "replicate: the new extent -1 in Z :. All :. -1 is negative");
  CHECK(replicate({All, All}, V).error() ==
        "replicate: the specification (Z :. All :. All) has 2 dimensions of the array, which "
        "has rank 1");
}
