//===- SkeletonTests.cpp - The array skeletons against plain C++ loops ----===//
//
// Every skeleton runs on the CPU backend (all cores, chunked) and on the
// sequential backend, over random sizes (empty, 1, primes, sizes that are
// not multiples of a chunk, more than a million), and is compared with a
// plain C++ loop: integers bit-exact, floats within a stated bound.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "TestSupport.h"
#include "llquote/Skeletons.h"
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <doctest/doctest.h>
#include <numeric>
#include <random>
#include "llvm/Support/FileSystem.h"
#include "llvm/TargetParser/Host.h"

using namespace llq;

namespace {

Runtime &cpu() {
#ifdef LLQ_TEST_COUNTING_BACKEND
  // The whole suite again, on a backend defined outside the library.
  static Runtime R(RuntimeOptions(),
                   test::CountingBackend::factory(test::countedLaunches()));
#else
  static Runtime R;
#endif
  return R;
}
using test::seq;

const std::vector<int64_t> Sizes = {0, 1, 2, 7, 97, 1009, 16384, 16385,
                                    100003, (1 << 20) + 3};

template <typename T> std::vector<T> randomVector(int64_t N, unsigned Seed) {
  std::mt19937_64 G(Seed);
  std::vector<T> V(static_cast<size_t>(N));
  for (auto &X : V) {
    if constexpr (std::is_floating_point_v<T>)
      X = T(std::uniform_real_distribution<double>(-1, 1)(G));
    else
      X = T(G() % 100);
  }
  return V;
}

/// Floats: a sum of n terms of magnitude <= 1 in any association differs
/// from the sequential sum by at most n * eps * sum|x|; we allow that.
template <typename T> bool close(T Got, T Want, int64_t N, double Scale) {
  if constexpr (std::is_floating_point_v<T>) {
    double Tol = double(std::numeric_limits<T>::epsilon()) * double(N + 1) *
                 std::max(1.0, Scale);
    return std::fabs(double(Got) - double(Want)) <= Tol;
  } else {
    return Got == Want;
  }
}
template <typename T> void checkClose(T Got, T Want, int64_t N, double Scale) {
  CHECK(close(Got, Want, N, Scale));
}

} // namespace

TEST_CASE("dot product: fold of zipWith, one kernel") {
  std::vector<float> Xs(1000), Ys(1000);
  for (int I = 0; I < 1000; ++I) {
    Xs[I] = float(I % 7);
    Ys[I] = 2;
  }
  Array<float> X = fromVector(Xs), Y = fromVector(Ys);
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  uint64_t Built = cpu().stats().KernelsBuilt;
  float Dot = cpu().run(fold(Add, 0.0f, zipWith(Mul, X, Y))).scalar();
  float Want = 0;
  for (int I = 0; I < 1000; ++I)
    Want += Xs[I] * Ys[I];
  CHECK(Dot == Want);
  CHECK(cpu().stats().KernelsBuilt - Built <= 1);
  // Again: found by structure, nothing instantiated.
  uint64_t Hits = cpu().stats().KernelHits;
  float Again = cpu().run(fold(Add, 0.0f, zipWith(Mul, X, Y))).scalar();
  CHECK(Again == Want);
  CHECK(cpu().stats().KernelHits == Hits + 1);
}

TEST_CASE("fusion: dot, SAXPY and RMSE compile to one kernel without a temporary") {
  Array<float> X = fromVector(std::vector<float>(100, 1.0f));
  Array<float> Y = fromVector(std::vector<float>(100, 2.0f));
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Axpy = LLQ_FN("float (float %x, float %y)",
                     "%ax = fmul float 2.0, %x\n %r = fadd float %ax, %y");
  auto Sq = LLQ_FN("float (float %a, float %b)",
                   "%d = fsub float %a, %b\n %r = fmul float %d, %d");
  for (const Acc &A : {fold(Add, 0.0f, zipWith(Mul, X, Y)), zipWith(Axpy, X, Y),
                       foldAll(Add, 0.0f, zipWith(Sq, X, Y))}) {
    auto IR = cpu().kernelIR(A);
    REQUIRE(IR);
    // One module; its only buffers are the two inputs, the output and the
    // fold's partials: no intermediate array is written and read back.
    size_t Loads = 0, Pos = 0;
    while ((Pos = IR->find("load ptr", Pos)) != std::string::npos) {
      ++Loads;
      ++Pos;
    }
    unsigned Phases = 0;
    for (const char *P : {"define void @kernel.map(", "define void @kernel.part(",
                          "define void @kernel.final("})
      Phases += IR->find(P) != std::string::npos;
    CHECK(IR->find("call float @f0") != std::string::npos);
    if (IR->find("@kernel.map") != std::string::npos) {
      CHECK(Phases == 1);
      CHECK(Loads == 3); // X, Y, the output: once per entry
    } else {
      CHECK(Phases == 2);
      CHECK(Loads == 2 * 4); // X, Y, the output, the partials; per phase
    }
  }
  float Rmse = std::sqrt(cpu().run(foldAll(Add, 0.0f, zipWith(Sq, X, Y))).scalar().get<float>() / 100);
  CHECK(Rmse == 1.0f);
}

TEST_CASE_TEMPLATE("map, zipWith, fold and scans against C++ loops", T, int8_t,
                   int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                   uint64_t, float, double) {
  std::string Ty = llq::detail::irTypeOf<T>();
  bool FP = std::is_floating_point_v<T>;
  Fn Add(Ty + " (" + Ty + " %a, " + Ty + " %b)",
         std::string("%r = ") + (FP ? "fadd " : "add ") + Ty + " %a, %b");
  Fn Twice(Ty + " (" + Ty + " %a)",
           std::string("%r = ") + (FP ? "fadd " : "add ") + Ty + " %a, %a");
  // Every type at every size but the largest, which three types cover (and
  // which costs minutes under the sanitizers otherwise).
  bool Large = std::is_same_v<T, int32_t> || std::is_same_v<T, float> ||
               std::is_same_v<T, double>;
  for (int64_t N : Sizes) {
    if (N > 200000 && !Large)
      continue;
    CAPTURE(N);
    std::vector<T> Xs = randomVector<T>(N, unsigned(N));
    Array<T> X = fromVector(Xs);
    double Abs = 0;
    for (T V : Xs)
      Abs += std::fabs(double(V));
    // map
    std::vector<T> M = cpu().run(map(Twice, X)).template toVector<T>();
    std::vector<T> WantM;
    for (T V : Xs)
      WantM.push_back(T(V + V));
    CHECK(M == WantM);
    // fold on both backends
    T Want = 0;
    for (T V : Xs)
      Want = T(Want + V);
    for (Runtime *R : {&cpu(), &seq()}) {
      T Got = R->run(fold(Add, T(0), X)).scalar().template get<T>();
      checkClose(Got, Want, N, Abs);
    }
    // scanl, scanr and scanl'
    std::vector<T> L = cpu().run(scanl(Add, T(0), X)).template toVector<T>();
    std::vector<T> R = cpu().run(scanr(Add, T(0), X)).template toVector<T>();
    auto [Pre, Tot] = scanlPrime(Add, T(0), X);
    std::vector<T> P = cpu().run(Pre).template toVector<T>();
    T Total = cpu().run(Tot).scalar().template get<T>();
    REQUIRE(L.size() == Xs.size() + 1);
    REQUIRE(R.size() == Xs.size() + 1);
    REQUIRE(P.size() == Xs.size());
    T Acc = 0;
    size_t Bad = 0;
    for (size_t I = 0; I < Xs.size(); ++I) {
      Bad += !close(P[I], Acc, N, Abs);
      Acc = T(Acc + Xs[I]);
      Bad += !close(L[I + 1], Acc, N, Abs);
    }
    checkClose(Total, Acc, N, Abs);
    CHECK(L[0] == T(0));
    T RAcc = 0;
    for (size_t I = Xs.size(); I-- > 0;) {
      RAcc = T(Xs[I] + RAcc);
      Bad += !close(R[I], RAcc, N, Abs);
    }
    CHECK(Bad == 0);
    if (N > 0) {
      std::vector<T> L1 = seq().run(scanl1(Add, X)).template toVector<T>();
      std::vector<T> L1c = cpu().run(scanl1(Add, X)).template toVector<T>();
      std::vector<T> R1 = cpu().run(scanr1(Add, X)).template toVector<T>();
      checkClose(L1.back(), Acc, N, Abs);
      checkClose(L1c.back(), Acc, N, Abs);
      checkClose(R1.front(), RAcc, N, Abs);
    }
  }
}

/// Affine maps x -> a*x + b as pairs (a, b), composed "f, then g": an
/// associative function that does not commute, to check that folds and
/// scans keep the order of their elements; then() is the same in C++.
namespace {
using Affine = std::tuple<int64_t, int64_t>;
Fn affineCompose() {
  return LLQ_FN("{ i64, i64 } ({ i64, i64 } %f, { i64, i64 } %g)",
                "%fa = extractvalue { i64, i64 } %f, 0\n"
                " %fb = extractvalue { i64, i64 } %f, 1\n"
                " %ga = extractvalue { i64, i64 } %g, 0\n"
                " %gb = extractvalue { i64, i64 } %g, 1\n"
                " %a = mul i64 %fa, %ga\n %b0 = mul i64 %fb, %ga\n"
                " %b = add i64 %b0, %gb\n"
                " %t = insertvalue { i64, i64 } poison, i64 %a, 0\n"
                " %r = insertvalue { i64, i64 } %t, i64 %b, 1");
}
Affine then(Affine F, Affine G) {
  return {std::get<0>(F) * std::get<0>(G),
          std::get<1>(F) * std::get<0>(G) + std::get<1>(G)};
}
} // namespace

TEST_CASE("foldSeg and fold1Seg keep the order of a non-commutative function in every segment length") {
  // Affine maps x -> a*x + b compose associatively, not commutatively; the
  // lengths 0 to 40 cover segments with no quarters, quarters with every
  // remainder, and the seed or the first element before them.
  Fn Compose = affineCompose();
  using P = Affine;
  std::vector<int64_t> Lens;
  for (int64_t L = 0; L <= 40; ++L)
    Lens.push_back(L);
  int64_t N = std::accumulate(Lens.begin(), Lens.end(), int64_t(0));
  std::vector<int64_t> As(static_cast<size_t>(N)), Bs(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I) {
    As[size_t(I)] = (I % 3 == 0) ? -1 : 1;
    Bs[size_t(I)] = I % 7;
  }
  auto X = fromVectors<int64_t, int64_t>({N}, As, Bs);
  Array<int64_t> Segs = fromVector(Lens);
  Array<int64_t> NonEmpty =
      fromVector(std::vector<int64_t>(Lens.begin() + 1, Lens.end()));
  P Seed{2, 3};
  for (Runtime *R : {&cpu(), &seq()}) {
    auto Got = R->run(foldSeg(Compose, Seed, X, Segs)).as<P>().toVector();
    auto Got1 = R->run(fold1Seg(Compose, X, NonEmpty)).as<P>().toVector();
    REQUIRE(Got.size() == Lens.size());
    REQUIRE(Got1.size() == Lens.size() - 1);
    int64_t At = 0;
    for (size_t S = 0; S < Lens.size(); ++S) {
      CAPTURE(S);
      P Want = Seed;
      for (int64_t J = At; J < At + Lens[S]; ++J)
        Want = then(Want, P{As[size_t(J)], Bs[size_t(J)]});
      CHECK(Got[S] == Want);
      if (Lens[S] > 0) {
        P Want1{As[size_t(At)], Bs[size_t(At)]};
        for (int64_t J = At + 1; J < At + Lens[S]; ++J)
          Want1 = then(Want1, P{As[size_t(J)], Bs[size_t(J)]});
        CHECK(Got1[S - 1] == Want1);
      }
      At += Lens[S];
    }
  }
}

TEST_CASE("fold of a matrix, foldSeg with empty segments, fold1 errors") {
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  std::vector<int64_t> Xs(7 * 1009);
  for (size_t I = 0; I < Xs.size(); ++I)
    Xs[I] = int64_t(I);
  Array<int64_t> M = fromVector({7, 1009}, Xs);
  std::vector<int64_t> Rows = cpu().run(fold(Add, int64_t(1), M)).toVector<int64_t>();
  REQUIRE(Rows.size() == 7);
  for (int64_t R = 0; R < 7; ++R) {
    int64_t S = 1;
    for (int64_t C = 0; C < 1009; ++C)
      S += Xs[size_t(R * 1009 + C)];
    CHECK(Rows[size_t(R)] == S);
  }
  Array<int32_t> Segs = fromVector(std::vector<int32_t>{0, 9, 0, 1000, 0});
  std::vector<int64_t> Seg =
      cpu().run(foldSeg(Add, int64_t(0), M, Segs)).toVector<int64_t>();
  REQUIRE(Seg.size() == 7 * 5);
  CHECK(Seg[0] == 0);
  CHECK(Seg[1] == 36);
  CHECK(Seg[2] == 0);
  CHECK(Seg[5 + 1] == 1009 * 9 + 36);
  // Mistakes: a clear error, never a crash.
  Array<int32_t> Bad = fromVector(std::vector<int32_t>{5, 5});
  CHECK_THROWS_WITH_AS(cpu().run(foldSeg(Add, int64_t(0), M, Bad)),
                       doctest::Contains("the segments add up to 10"), ArrayError);
  CHECK_THROWS_WITH_AS(cpu().run(fold1(Add, fromVector(std::vector<int64_t>{}))),
                       doctest::Contains("fold1"), ArrayError);
  auto F32 = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  CHECK_THROWS_WITH_AS(cpu().run(fold(F32, int64_t(0), M)),
                       doctest::Contains("fold needs a function of (i64, i64)"),
                       ArrayError);
  // A mistake in a body is reported at the C++ line that holds it; one in
  // the signature at the LLQ_FN's line, on the signature as written.
  std::string BrokenAt = "SkeletonTests.cpp:" + std::to_string(__LINE__ + 1) + ":";
  auto Broken = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %c");
  CHECK_THROWS_WITH_AS(cpu().run(fold(Broken, int64_t(0), M)),
                       doctest::Contains(BrokenAt.c_str()), ArrayError);
  std::string BodyAt = "SkeletonTests.cpp:" + std::to_string(__LINE__ + 3) + ":";
  auto BodyLines = LLQ_FN("i64 (i64 %a, i64 %b)", R"(
    %s = add i64 %a, %b
    %r = mul i64 %s, %q)");
  CHECK_THROWS_WITH_AS(cpu().run(fold(BodyLines, int64_t(0), M)),
                       doctest::Contains(BodyAt.c_str()), ArrayError);
  std::string SigAt = "SkeletonTests.cpp:" + std::to_string(__LINE__ + 1) + ":";
  auto BadSig = LLQ_FN("i64 (i64 %a, i46x %b)", "%r = add i64 %a, %b");
  try {
    cpu().run(fold(BadSig, int64_t(0), M));
    FAIL("a misspelt type in the signature was accepted");
  } catch (const ArrayError &E) {
    std::string What = E.what();
    CHECK(What.find(SigAt) != std::string::npos);
    CHECK(What.find("in the function's signature") != std::string::npos);
    CHECK(What.find("i64 (i64 %a, i46x %b)") != std::string::npos);
    CHECK(What.find("$gid") == std::string::npos);
  }
  CHECK_THROWS_WITH_AS(cpu().run(zipWith(Add, M, fromVector(std::vector<int64_t>{1}))),
                       doctest::Contains("ranks differ"), ArrayError);
}

TEST_CASE("transposes are written in tiles: every shape, partial tiles, fused producers") {
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  auto Neg = LLQ_FN("i64 (i64 %a)", "%r = sub i64 0, %a");
  std::mt19937_64 G(7);
  // Tiles are 32 x 32: shapes below, at and across tile edges; from 4 MiB
  // of output (2^19 of these i64) they are 64 x 64: {727, 731} and
  // {1, 600000} have partial ones, {768, 704} none.
  std::vector<std::pair<int64_t, int64_t>> Shapes{
      {1, 1},    {1, 70},     {70, 1},     {31, 33},     {32, 32},
      {64, 96},  {97, 45},    {727, 731},  {768, 704},   {1, 600000}};
  for (int K = 0; K < 5; ++K)
    Shapes.push_back({int64_t(G() % 130 + 1), int64_t(G() % 130 + 1)});
  for (const auto &Sh : Shapes) {
    int64_t R = Sh.first, C = Sh.second;
    CAPTURE(R);
    CAPTURE(C);
    std::vector<int64_t> A(size_t(R * C)), B(size_t(R * C));
    for (auto &V : A)
      V = int64_t(G() % 1000);
    for (auto &V : B)
      V = int64_t(G() % 1000);
    Acc MA = reshape({R, C}, fromVector(A));
    Acc MB = reshape({C, R}, fromVector(B));
    // A transpose alone, under a map, and zipped with an untransposed array.
    std::vector<int64_t> T = cpu().run(transpose(MA)).toVector<int64_t>();
    std::vector<int64_t> N = cpu().run(map(Neg, transpose(MA))).toVector<int64_t>();
    std::vector<int64_t> Z = cpu().run(zipWith(Add, transpose(MA), MB)).toVector<int64_t>();
    REQUIRE(T.size() == size_t(R * C));
    auto IR = cpu().kernelIR(transpose(MA), false);
    REQUIRE(IR);
    CHECK(IR->find("%trows") != std::string::npos);
    for (int64_t I = 0; I < C; ++I)
      for (int64_t J = 0; J < R; ++J) {
        int64_t Out = I * R + J, In = J * C + I;
        REQUIRE(T[size_t(Out)] == A[size_t(In)]);
        REQUIRE(N[size_t(Out)] == -A[size_t(In)]);
        REQUIRE(Z[size_t(Out)] == A[size_t(In)] + B[size_t(Out)]);
      }
  }
}

TEST_CASE_TEMPLATE("a plain transpose moves 8 x 8 blocks through registers", T,
                   int8_t, int16_t, int32_t, int64_t, float, double) {
  // Full tiles only, full and partial tiles, and no full tile at all.
  std::vector<std::pair<int64_t, int64_t>> Shapes{
      {32, 32}, {64, 96}, {96, 64}, {72, 40}, {33, 65}, {8, 8}, {1, 64}};
  for (const auto &Sh : Shapes) {
    int64_t R = Sh.first, C = Sh.second;
    CAPTURE(R);
    CAPTURE(C);
    std::vector<T> A = randomVector<T>(R * C, unsigned(R * 131 + C));
    Array<T> M = fromVector({R, C}, A);
    std::vector<T> Got = cpu().run(transpose(M)).template toVector<T>();
    REQUIRE(Got.size() == A.size());
    for (int64_t I = 0; I < C; ++I)
      for (int64_t J = 0; J < R; ++J)
        REQUIRE(Got[size_t(I * R + J)] == A[size_t(J * C + I)]);
    // A transposed reshape is a plain transpose too.
    std::vector<T> Re =
        cpu().run(transpose(reshape({C, R}, M))).template toVector<T>();
    for (int64_t I = 0; I < R; ++I)
      for (int64_t J = 0; J < C; ++J)
        REQUIRE(Re[size_t(I * C + J)] == A[size_t(J * R + I)]);
  }
  auto Plain = cpu().kernelIR(transpose(fromVector({64, 64}, randomVector<T>(4096, 1))));
  REQUIRE(Plain);
  CHECK(Plain->find("shufflevector") != std::string::npos);
  // Large tiles fetch the next tile's source lines (Map.cpp, FetchSource).
  CHECK(Plain->find("call void @llvm.prefetch") != std::string::npos);
}

TEST_CASE("a transpose with a function fused over it, or of tuples, keeps its meaning") {
  auto Neg = LLQ_FN("i32 (i32 %a)", "%r = sub i32 0, %a");
  const int64_t R = 64, C = 40;
  std::vector<int32_t> A = randomVector<int32_t>(R * C, 9);
  std::vector<double> D(size_t(R * C));
  for (size_t K = 0; K < D.size(); ++K)
    D[K] = double(K) / 4;
  Array<int32_t> M = fromVector({R, C}, A);
  // Fused: the element loop, no blocks.
  auto Fused = cpu().kernelIR(map(Neg, transpose(M)));
  REQUIRE(Fused);
  CHECK(Fused->find("shufflevector") == std::string::npos);
  CHECK(Fused->find("llvm.prefetch") == std::string::npos);
  std::vector<int32_t> N = cpu().run(map(Neg, transpose(M))).toVector<int32_t>();
  // Tuples: a block per field.
  auto P = fromVectors<int32_t, double>({R, C}, A, D);
  auto TP = cpu().run(transpose(P)).as<std::tuple<int32_t, double>>().toVector();
  auto Blocks = cpu().kernelIR(transpose(P));
  REQUIRE(Blocks);
  CHECK(Blocks->find("shufflevector <8 x double>") != std::string::npos);
  // Each field's source lines are fetched ahead.
  size_t Fetches = 0;
  for (size_t At = Blocks->find("call void @llvm.prefetch"); At != std::string::npos;
       At = Blocks->find("call void @llvm.prefetch", At + 1))
    ++Fetches;
  CHECK(Fetches == 2);
  for (int64_t I = 0; I < C; ++I)
    for (int64_t J = 0; J < R; ++J) {
      size_t Out = size_t(I * R + J), In = size_t(J * C + I);
      REQUIRE(N[Out] == -A[In]);
      REQUIRE(std::get<0>(TP[Out]) == A[In]);
      REQUIRE(std::get<1>(TP[Out]) == D[In]);
    }
}

TEST_CASE("producers: generate, backpermute, reverse, transpose, enumFromN, tuples") {
  auto Gen = LLQ_FN("i32 (i64 %i, i64 %j)",
                    "%a = mul i64 %i, 10\n %b = add i64 %a, %j\n %r = trunc i64 %b to i32");
  std::vector<int32_t> G = cpu().run(generate({3, 4}, Gen)).toVector<int32_t>();
  REQUIRE(G.size() == 12);
  CHECK(G[5] == 11);
  std::vector<int32_t> T = cpu().run(transpose(generate({3, 4}, Gen))).toVector<int32_t>();
  CHECK(T[1] == 10); // (0,1) of the transpose is (1,0)
  std::vector<int64_t> E = cpu().run(reverse(enumFromN({5}, int64_t(10)))).toVector<int64_t>();
  CHECK(E == std::vector<int64_t>{14, 13, 12, 11, 10});
  auto Swap = LLQ_FN("{ float, i32 } ({ i32, float } %p)",
                     "%a = extractvalue { i32, float } %p, 0\n"
                     " %b = extractvalue { i32, float } %p, 1\n"
                     " %t = insertvalue { float, i32 } poison, float %b, 0\n"
                     " %r = insertvalue { float, i32 } %t, i32 %a, 1");
  auto P = fromVectors<int32_t, float>({3}, {1, 2, 3}, {0.5f, 1.5f, 2.5f});
  auto S = cpu().run(map(Swap, P)).as<std::tuple<float, int32_t>>();
  CHECK(std::get<0>(S.toVector()[2]) == 2.5f);
  CHECK(std::get<1>(S.toVector()[2]) == 3);
}

TEST_CASE("an index function that leaves its source is an error, not a wild read") {
  auto Shift = LLQ_FN("i64 (i64 %i)", "%r = add i64 %i, 3");
  auto Neg = LLQ_FN("{ i64, i64 } (i64 %i, i64 %j)",
                    "%m = sub i64 %j, 1\n"
                    " %t = insertvalue { i64, i64 } poison, i64 %i, 0\n"
                    " %r = insertvalue { i64, i64 } %t, i64 %m, 1");
  auto Twice = LLQ_FN("i64 (i64 %x)", "%r = mul i64 %x, 2");
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  Acc V = enumFromN({100}, int64_t(0));
  Acc M = reshape({10, 10}, V);
  for (Runtime *R : {&cpu(), &seq()}) {
    // In range: the elements, shifted.
    CHECK(R->run(backpermute({97}, Shift, V)).toVector<int64_t>()[96] == 99);
    // Out of range, read directly, through transform, fused into a fold,
    // and from an empty source.
    CHECK_THROWS_WITH_AS(R->run(backpermute({98}, Shift, V)),
                         doctest::Contains("outside the shape [100]"), ArrayError);
    CHECK_THROWS_WITH_AS(R->run(transform({10, 10}, Neg, Twice, M)),
                         doctest::Contains("SkeletonTests.cpp"), ArrayError);
    CHECK_THROWS_WITH_AS(R->run(fold(Add, int64_t(0), backpermute({10, 10}, Neg, M))),
                         doctest::Contains("outside the shape [10, 10]"), ArrayError);
    CHECK_THROWS_AS(R->run(backpermute({1}, Shift, enumFromN({0}, int64_t(0)))),
                    ArrayError);
    // The runtime goes on.
    CHECK(R->run(foldAll(Add, int64_t(0), V)).scalar().get<int64_t>() == 4950);
  }
}

TEST_CASE("permute: histogram with atomicrmw, a cmpxchg loop, and tuples under locks") {
  const int64_t N = 100003, Bins = 17;
  std::vector<int32_t> Xs = randomVector<int32_t>(N, 3);
  Array<int32_t> X = fromVector(Xs);
  auto Add = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  // Not one atomicrmw: old * 1 + new, so a cmpxchg loop.
  auto AddSlow = LLQ_FN("i32 (i32 %a, i32 %b)",
                        "%m = mul i32 %b, 1\n %r = add i32 %a, %m");
  auto Bin = LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 17");
  std::vector<int32_t> Want(Bins, 0);
  for (int64_t I = 0; I < N; ++I)
    Want[size_t(I % Bins)] += Xs[size_t(I)];
  for (Runtime *R : {&cpu(), &seq()})
    for (const Fn &C : {Add, AddSlow}) {
      auto H = R->run(permute(C, fill({Bins}, int32_t(0)), Bin, X));
      CHECK(H.toVector<int32_t>() == Want);
    }
  // Out of range targets are dropped.
  auto Drop = LLQ_FN("i64 (i64 %i)", "%r = sub i64 -1, %i");
  auto H = cpu().run(permute(Add, fill({Bins}, int32_t(7)), Drop, X));
  CHECK(H.toVector<int32_t>() == std::vector<int32_t>(Bins, 7));
  // Tuples: a lock per cell.
  auto Pair = fromVectors<int32_t, double>({N}, Xs, std::vector<double>(size_t(N), 0.5));
  Fn AddPair = test::addPair();
  auto HP = cpu().run(permute(AddPair, fill({Bins}, std::make_tuple(int32_t(0), 0.0)), Bin, Pair))
                .as<std::tuple<int32_t, double>>()
                .toVector();
  for (int64_t B = 0; B < Bins; ++B)
    CHECK(std::get<0>(HP[size_t(B)]) == Want[size_t(B)]);
}

namespace {
std::mutex MeetLock;
std::condition_variable MeetCV;
int Arrived = 0;
} // namespace

/// Called from kernel code by two elements: each waits up to 10 s for the
/// other, so both return 1 only if they ran at the same time.
extern "C" int32_t llqTestMeet() {
  std::unique_lock<std::mutex> Lock(MeetLock);
  ++Arrived;
  MeetCV.notify_all();
  return MeetCV.wait_for(Lock, std::chrono::seconds(10),
                         [] { return Arrived >= 2; })
             ? 1
             : 0;
}

TEST_CASE("elements whose function loops are shared among threads even when few") {
  // 64 elements: far below the 4096 a range of cheap elements must reach
  // before it is divided. The function loops, so the range is divided, and
  // elements 0 and 63 run at once on two threads; run on one, the first
  // would wait for the last in vain.
  RuntimeOptions O;
  O.Threads = 2;
  Runtime Two(O);
  auto Meet = Fn("i32 (i64 %i)", fmt::format(R"(
    %s = i64 0
    for i64 %k in 0 to %i {{
      %s = add i64 %s, %k
    }}
    %first = icmp eq i64 %i, 0
    %last = icmp eq i64 %i, 63
    %edge = or i1 %first, %last
    %r = i32 1
    if %edge {{
      %meet = inttoptr i64 {} to ptr
      %r = call i32 %meet()
    }}
    %t = trunc i64 %s to i32
    %r = add i32 %r, %t)",
                                              reinterpret_cast<uintptr_t>(&llqTestMeet)));
  REQUIRE(Meet.ok());
  Arrived = 0;
  std::vector<int32_t> Got = Two.run(generate({64}, Meet)).toVector<int32_t>();
  CHECK(Got[0] == 1);
  CHECK(Got[63] == 1 + 63 * 62 / 2);
  CHECK(Got[10] == 1 + 45);
}

TEST_CASE("permute: a small output is combined through per-thread copies") {
  // Four threads, few cells, many elements: each thread's part goes into a
  // copy of its own, merged at the end. A source too small for that takes
  // the atomic path; both must give the sequential backend's result.
  RuntimeOptions O;
  O.Threads = 4;
  Runtime Four(O);
  auto Bin = LLQ_FN("i64 (i64 %i)", "%m = mul i64 %i, 7\n %r = srem i64 %m, 13");
  auto Drop = LLQ_FN("i64 (i64 %i)", "%m = srem i64 %i, 5\n"
                     " %odd = icmp eq i64 %m, 3\n"
                     " %b = srem i64 %i, 13\n"
                     " %r = select i1 %odd, i64 -1, i64 %b");
  auto AddI = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  auto AddSlow = LLQ_FN("i8 (i8 %a, i8 %b)",
                        "%m = mul i8 %b, 1\n %r = add i8 %a, %m");
  auto AddF = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Or = LLQ_FN("i1 (i1 %a, i1 %b)", "%r = or i1 %a, %b");
  // Copies that start as zeros (add above, xor, unsigned max) and copies
  // with reached bytes (and, signed max: zero is not their identity).
  auto XorI = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = xor i32 %a, %b");
  auto UMax = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = call i32 @llvm.umax.i32(i32 %a, i32 %b)");
  auto AndI = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = and i32 %a, %b");
  auto SMax = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = call i32 @llvm.smax.i32(i32 %a, i32 %b)");
  // Empty: no cells, no elements, or neither.
  auto None = fromVector(std::vector<int32_t>{});
  auto Some = fromVector(std::vector<int32_t>(100, 1));
  CHECK(Four.run(permute(AddI, fill({0}, int32_t(1)), Bin, None)).size() == 0);
  CHECK(Four.run(permute(AddI, fill({0}, int32_t(1)), Bin, Some)).size() == 0);
  CHECK(Four.run(permute(AddI, fill({13}, int32_t(1)), Bin, None))
            .toVector<int32_t>() == std::vector<int32_t>(13, 1));
  for (int64_t N : {int64_t(50), int64_t(1000003)}) {
    std::vector<int32_t> Is = randomVector<int32_t>(N, 5);
    std::vector<int8_t> Bs(static_cast<size_t>(N));
    std::vector<float> Fs(static_cast<size_t>(N));
    std::vector<bool> Ls(static_cast<size_t>(N));
    for (int64_t I = 0; I < N; ++I) {
      Bs[size_t(I)] = int8_t(Is[size_t(I)] % 7);
      Fs[size_t(I)] = float(Is[size_t(I)] % 9);
      Ls[size_t(I)] = I % 1009 == 0;
    }
    for (const Fn &P : {Bin, Drop}) {
      CHECK(Four.run(permute(AddI, fill({13}, int32_t(1)), P, fromVector(Is)))
                .toVector<int32_t>() ==
            seq().run(permute(AddI, fill({13}, int32_t(1)), P, fromVector(Is)))
                .toVector<int32_t>());
      CHECK(Four.run(permute(AddSlow, fill({13}, int8_t(0)), P, fromVector(Bs)))
                .toVector<int8_t>() ==
            seq().run(permute(AddSlow, fill({13}, int8_t(0)), P, fromVector(Bs)))
                .toVector<int8_t>());
      CHECK(Four.run(permute(AddF, fill({13}, 0.5f), P, fromVector(Fs)))
                .toVector<float>() ==
            seq().run(permute(AddF, fill({13}, 0.5f), P, fromVector(Fs)))
                .toVector<float>());
      for (const Fn &C : {XorI, UMax, AndI, SMax})
        CHECK(Four.run(permute(C, fill({13}, int32_t(-3)), P, fromVector(Is)))
                  .toVector<int32_t>() ==
              seq().run(permute(C, fill({13}, int32_t(-3)), P, fromVector(Is)))
                  .toVector<int32_t>());
      CHECK(Four.run(permute(Or, fill({13}, false), P, fromVector(Ls)))
                .toVector<bool>() ==
            seq().run(permute(Or, fill({13}, false), P, fromVector(Ls)))
                .toVector<bool>());
    }
  }
}

TEST_CASE("arrays print through fmt in Accelerate's layout") {
  auto A = fromVector({2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 60});
  CHECK(fmt::format("{}", A) == "Matrix (Z :. 2 :. 3)\n  [  1,  2,  3,\n     4,  5, 60]");
  CHECK(fmt::format("{}", fromVector(std::vector<float>{1.5f, 2})) ==
        "Vector (Z :. 2) [1.5,2]");
}

namespace {
/// The reference stencil: a weighted sum of the 3x3 neighbourhood, with
/// the boundary applied per coordinate.
int64_t boundaryCoord(Boundary::Kind K, int64_t C, int64_t E, bool &In) {
  if (C >= 0 && C < E)
    return C;
  In = false;
  switch (K) {
  case Boundary::Clamp:
  case Boundary::Constant:
    return std::clamp<int64_t>(C, 0, E - 1);
  case Boundary::Mirror:
    return std::clamp<int64_t>(C < 0 ? -C : 2 * (E - 1) - C, 0, E - 1);
  case Boundary::Wrap:
    return ((C % E) + E) % E;
  }
  return 0;
}
} // namespace

TEST_CASE("stencil: every boundary on ranks 1, 2 and 3 against C++") {
  auto S3 = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c)",
                   "%x = mul i32 %a, 100\n %y = mul i32 %b, 10\n"
                   " %s = add i32 %x, %y\n %r = add i32 %s, %c");
  auto S9 = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c, i32 %d, i32 %e, i32 %f, i32 %g, i32 %h, i32 %i)",
                   "%r = i32 0\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %a\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %b\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %c\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %d\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %e\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %f\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %g\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %h\n"
                   " %r = mul i32 %r, 3\n %r = add i32 %r, %i");
  std::string Sum27Body = "%r = i32 0\n";
  std::string Sum27Sig = "i32 (";
  for (int I = 0; I < 27; ++I) {
    Sum27Sig += fmt::format("{}i32 %x{}", I ? ", " : "", I);
    Sum27Body += fmt::format(" %r = mul i32 %r, 3\n %r = add i32 %r, %x{}\n", I);
  }
  Fn S27(Sum27Sig + ")", Sum27Body);
  for (Boundary::Kind K : {Boundary::Clamp, Boundary::Mirror, Boundary::Wrap,
                           Boundary::Constant}) {
    Boundary B{K, std::nullopt};
    if (K == Boundary::Constant)
      B = Boundary::constant(int32_t(-1));
    for (std::vector<int64_t> E : std::vector<std::vector<int64_t>>{
             {1}, {2}, {17}, {1, 1}, {2, 3}, {9, 13}, {3, 4, 5}, {2, 2, 2}}) {
      CAPTURE(K);
      CAPTURE(E.size());
      int64_t Size = 1;
      for (int64_t X : E)
        Size *= X;
      std::vector<int32_t> Xs(static_cast<size_t>(Size));
      for (int64_t I = 0; I < Size; ++I)
        Xs[size_t(I)] = int32_t((I * 37) % 11);
      auto A = fromVector(E, Xs);
      const Fn &F = E.size() == 1 ? S3 : E.size() == 2 ? S9 : S27;
      std::vector<int32_t> Got = cpu().run(stencil(F, B, A)).toVector<int32_t>();
      std::vector<int32_t> Seq = seq().run(stencil(F, B, A)).toVector<int32_t>();
      std::vector<int32_t> Want(Xs.size());
      unsigned R = unsigned(E.size());
      for (int64_t L = 0; L < Size; ++L) {
        std::vector<int64_t> Ix(R);
        for (int64_t Q = L, D = R - 1; D >= 0; --D) {
          Ix[size_t(D)] = Q % E[size_t(D)];
          Q /= E[size_t(D)];
        }
        int64_t Count = R == 1 ? 3 : R == 2 ? 9 : 27;
        int32_t Acc = 0;
        for (int64_t N = 0; N < Count; ++N) {
          std::vector<int64_t> At(R);
          bool In = true;
          for (int64_t Q = N, D = R - 1; D >= 0; --D) {
            At[size_t(D)] = boundaryCoord(K, Ix[size_t(D)] + Q % 3 - 1, E[size_t(D)], In);
            Q /= 3;
          }
          int64_t P = 0;
          for (unsigned D = 0; D < R; ++D)
            P = P * E[D] + At[D];
          int32_t V = (K == Boundary::Constant && !In) ? -1 : Xs[size_t(P)];
          // i32 arithmetic in LLVM wraps; so does uint32_t's in C++.
          Acc = int32_t(R == 1 ? uint32_t(Acc) * 10u + uint32_t(V)
                               : uint32_t(Acc) * 3u + uint32_t(V));
        }
        if (R == 1) // a*100 + b*10 + c
          Want[size_t(L)] = Acc;
        else
          Want[size_t(L)] = Acc;
      }
      CHECK(Got == Want);
      CHECK(Seq == Want);
    }
  }
}

TEST_CASE("stencil: the interior loop vectorizes (-mcpu=haswell)") {
  RuntimeOptions O;
  O.CPU = "haswell";
  Runtime R(O);
  auto Blur = LLQ_FN("float (float %a, float %b, float %c, float %d, float %e, float %f, float %g, float %h, float %i)",
                     "%s1 = fadd float %a, %b\n %s2 = fadd float %s1, %c\n"
                     " %s3 = fadd float %s2, %d\n %s4 = fadd float %s3, %e\n"
                     " %s5 = fadd float %s4, %f\n %s6 = fadd float %s5, %g\n"
                     " %s7 = fadd float %s6, %h\n %s8 = fadd float %s7, %i\n"
                     " %r = fmul float %s8, 0x3FBC71C720000000");
  auto Img = fromVector({64, 64}, std::vector<float>(64 * 64, 1.0f));
  auto IR = R.kernelIR(stencil(Blur, Boundary::clamp(), Img), /*Optimized=*/true);
  REQUIRE(IR);
  CHECK(IR->find("load <8 x float>") != std::string::npos);
  CHECK(IR->find("store <8 x float>") != std::string::npos);
}

TEST_CASE("functions read arrays: a histogram is permute over keys read by the projection") {
  const int64_t N = 50021, Bins = 33;
  std::vector<int32_t> Keys(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    Keys[size_t(I)] = int32_t((I * 2654435761u) % Bins);
  auto K = fromVector(Keys);
  auto Add = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  auto ByKey = LLQ_FN("i64 (i64 %i, ptr %keys, i64 %n)",
                      "%p = getelementptr i32, ptr %keys, i64 %i\n"
                      " %k = load i32, ptr %p\n %r = sext i32 %k to i64");
  std::vector<int32_t> Want(static_cast<size_t>(Bins), 0);
  for (int32_t Key : Keys)
    ++Want[size_t(Key)];
  for (Runtime *R : {&cpu(), &seq()}) {
    auto H = R->run(permute(Add, fill({Bins}, int32_t(0)), ByKey.with({K}),
                            fill({N}, int32_t(1))));
    CHECK(H.toVector<int32_t>() == Want);
  }
  // The signature must list what the arrays add.
  auto Short = LLQ_FN("i64 (i64 %i)", "%r = i64 %i");
  CHECK_THROWS_WITH_AS(cpu().run(permute(Add, fill({Bins}, int32_t(0)), Short.with({K}),
                                         fill({N}, int32_t(1)))),
                       doctest::Contains("permute needs a function of (i64, ptr, i64)"),
                       ArrayError);
}

TEST_CASE("segmented scans: each segment restarts from the seed, empty ones too") {
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  auto Sub = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = sub i64 %a, %b");
  std::vector<int64_t> Xs{1, 2, 3, 4, 5, 6};
  auto X = fromVector(Xs);
  auto Segs = fromVector(std::vector<int32_t>{2, 0, 3, 1});
  for (Runtime *R : {&cpu(), &seq()}) {
    CHECK(R->run(scanlSeg(Add, int64_t(10), X, Segs)).toVector<int64_t>() ==
          std::vector<int64_t>{10, 11, 13, 10, 10, 13, 17, 22, 10, 16});
    // Right scans combine as f(x, acc): a non-commutative function shows it.
    CHECK(R->run(scanrSeg(Sub, int64_t(0), X, Segs)).toVector<int64_t>() ==
          std::vector<int64_t>{-1, 2, 0, 0, 4, -1, 5, 0, 6, 0});
  }
  CHECK_THROWS_WITH_AS(cpu().run(scanlSeg(Add, int64_t(0), X, fromVector(std::vector<int32_t>{7}))),
                       doctest::Contains("add up to 7"), ArrayError);
}

TEST_CASE("scans keep the order of a non-commutative function across chunks") {
  // Subtraction is not associative either, so use string-like composition:
  // affine maps x -> a*x + b compose associatively, not commutatively.
  Fn Compose = affineCompose();
  const int64_t N = 100003;
  std::vector<int64_t> As(static_cast<size_t>(N)), Bs(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I) {
    As[size_t(I)] = (I % 3 == 0) ? -1 : 1;
    Bs[size_t(I)] = I % 5;
  }
  auto X = fromVectors<int64_t, int64_t>({N}, As, Bs);
  using P = Affine;
  auto Seq = seq().run(scanl1(Compose, X)).as<P>().toVector();
  auto Par = cpu().run(scanl1(Compose, X)).as<P>().toVector();
  auto RSeq = seq().run(scanr1(Compose, X)).as<P>().toVector();
  auto RPar = cpu().run(scanr1(Compose, X)).as<P>().toVector();
  CHECK(Seq == Par);
  CHECK(RSeq == RPar);
  P Acc = {As[0], Bs[0]};
  bool Ok = Seq[0] == Acc;
  for (int64_t I = 1; I < N; ++I) {
    Acc = then(Acc, P{As[size_t(I)], Bs[size_t(I)]});
    Ok = Ok && Seq[size_t(I)] == Acc;
  }
  CHECK(Ok);
  auto F = cpu().run(fold1All(Compose, X)).as<P>().scalar();
  CHECK(F == Acc);
  // scanr1 against its definition: element i is x_i, then x_i+1, ...
  P RAcc = {As[size_t(N - 1)], Bs[size_t(N - 1)]};
  bool ROk = RSeq[size_t(N - 1)] == RAcc;
  for (int64_t I = N - 2; I >= 0; --I) {
    RAcc = then(P{As[size_t(I)], Bs[size_t(I)]}, RAcc);
    ROk = ROk && RSeq[size_t(I)] == RAcc;
  }
  CHECK(ROk);
  // A last chunk of 2 elements (chunks of pairs of i64 hold 8192), too
  // short to fold as four quarters.
  const int64_t M = 8194;
  auto Y = fromVectors<int64_t, int64_t>(
      {M}, std::vector<int64_t>(As.begin(), As.begin() + M),
      std::vector<int64_t>(Bs.begin(), Bs.begin() + M));
  auto Short = cpu().run(scanl1(Compose, Y)).as<P>().toVector();
  CHECK(std::equal(Short.begin(), Short.end(), Seq.begin()));
}

TEST_CASE("vector scans of every variant, at lengths that leave chunks every tail of eight") {
  // The streaming phase folds a chunk as eight chains (halves of quarters)
  // and scans it again as four, the 0 to 7 elements left over going to the
  // last of each; chunks of i32 hold 16384 elements at these lengths, so
  // the last chunk's length (1 to 15) is set here.
  Fn Add("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  for (int64_t N : {int64_t(1), int64_t(7), int64_t(8), int64_t(9), int64_t(15),
                    int64_t(32768), int64_t(32768 * 3 + 1), int64_t(32768 * 3 + 6),
                    int64_t(32768 * 4 + 7), int64_t(32768 * 5 + 12),
                    int64_t(32768 * 6 + 15)}) {
    CAPTURE(N);
    std::vector<int32_t> Xs(static_cast<size_t>(N));
    for (int64_t I = 0; I < N; ++I)
      Xs[size_t(I)] = int32_t((I * 7919) % 23) - 11;
    Array<int32_t> X = fromVector(Xs);
    auto L = cpu().run(scanl(Add, int32_t(3), X)).toVector<int32_t>();
    auto L1 = cpu().run(scanl1(Add, X)).toVector<int32_t>();
    auto R = cpu().run(scanr(Add, int32_t(3), X)).toVector<int32_t>();
    auto R1 = cpu().run(scanr1(Add, X)).toVector<int32_t>();
    auto [LP, LT] = scanlPrime(Add, int32_t(3), X);
    auto [RP, RT] = scanrPrime(Add, int32_t(3), X);
    auto [GotLP, GotLT, GotRP, GotRT] = cpu().run(LP, LT, RP, RT);
    std::vector<int32_t> Pl = GotLP.as<int32_t>().toVector();
    std::vector<int32_t> Pr = GotRP.as<int32_t>().toVector();
    REQUIRE(L.size() == size_t(N + 1));
    REQUIRE(R.size() == size_t(N + 1));
    REQUIRE(L1.size() == size_t(N));
    REQUIRE(R1.size() == size_t(N));
    REQUIRE(Pl.size() == size_t(N));
    REQUIRE(Pr.size() == size_t(N));
    size_t Bad = (L[0] != 3) + (R[size_t(N)] != 3);
    int32_t Acc = 3, Acc1 = 0;
    for (int64_t I = 0; I < N; ++I) {
      Bad += Pl[size_t(I)] != Acc;
      Acc += Xs[size_t(I)];
      Acc1 += Xs[size_t(I)];
      Bad += L[size_t(I + 1)] != Acc;
      Bad += L1[size_t(I)] != Acc1;
    }
    CHECK(GotLT.as<int32_t>().scalar() == Acc);
    int32_t RAcc = 3, RAcc1 = 0;
    for (int64_t I = N - 1; I >= 0; --I) {
      Bad += Pr[size_t(I)] != RAcc;
      RAcc += Xs[size_t(I)];
      RAcc1 += Xs[size_t(I)];
      Bad += R[size_t(I)] != RAcc;
      Bad += R1[size_t(I)] != RAcc1;
    }
    CHECK(GotRT.as<int32_t>().scalar() == RAcc);
    CHECK(Bad == 0);
  }
}

/// Affine maps x -> a*x + b modulo 2^32 packed in one i64 (a high, b low):
/// composing them (first p, then q) is associative and not commutative, on
/// one field, so that the vector scan (Scan.cpp, scanLanes) takes them.
static uint64_t thenPacked(uint64_t P, uint64_t Q) {
  uint64_t A = (Q >> 32) * (P >> 32), B = (Q >> 32) * (P & 0xffffffffu) + (Q & 0xffffffffu);
  return A << 32 | (B & 0xffffffffu);
}

/// thenPacked as a function of the dialect.
static Fn packedThen() {
  return Fn("i64 (i64 %p, i64 %q)", R"(
    %pa = lshr i64 %p, 32
    %pb = and i64 %p, 4294967295
    %qa = lshr i64 %q, 32
    %qb = and i64 %q, 4294967295
    %ra = mul i64 %qa, %pa
    %rb = mul i64 %qa, %pb
    %rb = add i64 %rb, %qb
    %rb = and i64 %rb, 4294967295
    %rh = shl i64 %ra, 32
    %r = or i64 %rh, %rb)", __FILE__, __LINE__);
}

/// The element Off past the first cache line in Store (the library's
/// arrays start on a line; a std::vector's data does not).
template <typename T> T *pastLine(std::vector<T> &Store, size_t Off) {
  auto At = reinterpret_cast<uintptr_t>(Store.data());
  return reinterpret_cast<T *>((At + 63) / 64 * 64) + Off;
}

/// The data at P, inside Store, wrapped with shape Extents.
template <typename T>
Acc wrapAt(std::vector<T> &Store, T *P, const std::vector<int64_t> &Extents) {
  REQUIRE(P + Shape::make(Extents)->size() <= Store.data() + Store.size());
  rt::Expected<rt::Array> A = rt::Array::wrap<T>(*Shape::make(Extents), P);
  REQUIRE(A);
  return use(std::make_shared<rt::Array>(std::move(*A)));
}

TEST_CASE("fold reads its input in order from any offset to a cache line") {
  // A chunk's loop is cut where the input starts a line (Fold.cpp,
  // LineStart): an element skipped or taken twice there, or taken out of
  // order, shows in a non-commutative fold and in a sum of distinct values.
  Fn Then = packedThen();
  Fn AddR("float (float %a, float %b)", "%r = fadd reassoc float %a, %b",
          __FILE__, __LINE__);
  const uint64_t Seed = uint64_t(3) << 32 | 7;
  // The cut is made where there is an input read at the fold's positions,
  // and not over a generated array.
  auto Cut = cpu().kernelIR(foldAll(AddR, 0.0f, fromVector(std::vector<float>(100, 1.0f))));
  REQUIRE(Cut);
  CHECK(Cut->find("ptrtoint") != std::string::npos);
  auto NoCut = cpu().kernelIR(
      foldAll(AddR, 0.0f, generate({100}, Fn("float (i64 %i)", "%r = sitofp i64 %i to float",
                                             __FILE__, __LINE__))));
  REQUIRE(NoCut);
  CHECK(NoCut->find("ptrtoint") == std::string::npos);
  for (int64_t N : {int64_t(1), int64_t(2), int64_t(17), int64_t(1000),
                    int64_t(16384 * 5 + 9)}) {
    std::vector<int64_t> Ints(size_t(N) + 16);
    std::vector<float> Floats(size_t(N) + 32);
    for (size_t Off = 0; Off < 16; ++Off) {
      CAPTURE(N);
      CAPTURE(Off);
      if (Off < 8) {
        int64_t *Xs = pastLine(Ints, Off);
        for (int64_t I = 0; I < N; ++I)
          Xs[I] = int64_t(uint64_t(1 + 2 * (I % 5)) << 32 | uint64_t(I % 13));
        uint64_t Want = Seed;
        for (int64_t I = 0; I < N; ++I)
          Want = thenPacked(Want, uint64_t(Xs[I]));
        Acc X = wrapAt(Ints, Xs, {N});
        CHECK(uint64_t(cpu().run(fold(Then, int64_t(Seed), X)).as<int64_t>().scalar()) ==
              Want);
        // Rows of a matrix: each row's loop is cut at its own line.
        if (N % 17 == 0 || N % 2 == 1) {
          int64_t Rows = N % 17 == 0 ? 17 : 1, Cols = N / Rows;
          auto Got = cpu().run(fold(Then, int64_t(Seed), wrapAt(Ints, Xs, {Rows, Cols})))
                         .as<int64_t>()
                         .toVector();
          REQUIRE(Got.size() == size_t(Rows));
          size_t Bad = 0;
          for (int64_t R = 0; R < Rows; ++R) {
            uint64_t W = Seed;
            for (int64_t C = 0; C < Cols; ++C)
              W = thenPacked(W, uint64_t(Xs[R * Cols + C]));
            Bad += uint64_t(Got[size_t(R)]) != W;
          }
          CHECK(Bad == 0);
        }
      }
      float *Fs = pastLine(Floats, Off);
      double Want = 0;
      for (int64_t I = 0; I < N; ++I) {
        Fs[I] = float(1 + I % 13);
        Want += Fs[I];
      }
      CHECK(cpu().run(foldAll(AddR, 0.0f, wrapAt(Floats, Fs, {N}))).as<float>().scalar() ==
            float(Want));
    }
  }
}

/// The larger of two i32, written with a branch: a function of more than
/// one block, which has no vector form (WidenLanes.cpp).
static Fn branchyMax() {
  return Fn("i32 (i32 %a, i32 %b)", R"(
    %r = i32 %b
    %gt = icmp sgt i32 %a, %b
    if %gt {
      %r = i32 %a
    })", __FILE__, __LINE__);
}

TEST_CASE("vector scans keep the order of a non-commutative function, every variant and tail") {
  // Eight elements at once, scanned within the vector in rounds and
  // combined with the carry; the next chunk folded meanwhile. A function
  // that is not commutative shows a lane or chunk taken out of order.
  Fn Then = packedThen();
  auto IR = cpu().kernelIR(scanl1(Then, fromVector(std::vector<int64_t>(5000, 1))));
  REQUIRE(IR);
  CHECK(IR->find(".lanes(<8 x i64>") != std::string::npos);
  const uint64_t Seed = uint64_t(3) << 32 | 7;
  for (int64_t N : {int64_t(1), int64_t(9), int64_t(16389), int64_t(131072 * 2 + 5),
                    int64_t(131072 * 5 + 7), int64_t(131072 * 17 + 3)}) {
    CAPTURE(N);
    std::vector<int64_t> Xs(static_cast<size_t>(N));
    for (int64_t I = 0; I < N; ++I)
      Xs[size_t(I)] = int64_t(uint64_t(1 + 2 * (I % 5)) << 32 | uint64_t(I % 13));
    Array<int64_t> X = fromVector(Xs);
    auto L = cpu().run(scanl(Then, int64_t(Seed), X)).toVector<int64_t>();
    auto L1 = cpu().run(scanl1(Then, X)).toVector<int64_t>();
    auto R = cpu().run(scanr(Then, int64_t(Seed), X)).toVector<int64_t>();
    auto R1 = cpu().run(scanr1(Then, X)).toVector<int64_t>();
    auto [LP, LT] = scanlPrime(Then, int64_t(Seed), X);
    auto [RP, RT] = scanrPrime(Then, int64_t(Seed), X);
    auto [GotLP, GotLT, GotRP, GotRT] = cpu().run(LP, LT, RP, RT);
    auto Pl = GotLP.as<int64_t>().toVector();
    auto Pr = GotRP.as<int64_t>().toVector();
    REQUIRE(L.size() == size_t(N + 1));
    REQUIRE(R.size() == size_t(N + 1));
    REQUIRE(Pl.size() == size_t(N));
    REQUIRE(Pr.size() == size_t(N));
    size_t Bad = (uint64_t(L[0]) != Seed) + (uint64_t(R[size_t(N)]) != Seed);
    uint64_t Acc = Seed, Acc1 = uint64_t(Xs[0]);
    Bad += uint64_t(L1[0]) != Acc1;
    for (int64_t I = 0; I < N; ++I) {
      Bad += uint64_t(Pl[size_t(I)]) != Acc;
      Acc = thenPacked(Acc, uint64_t(Xs[size_t(I)]));
      Bad += uint64_t(L[size_t(I + 1)]) != Acc;
      if (I > 0) {
        Acc1 = thenPacked(Acc1, uint64_t(Xs[size_t(I)]));
        Bad += uint64_t(L1[size_t(I)]) != Acc1;
      }
    }
    CHECK(uint64_t(GotLT.as<int64_t>().scalar()) == Acc);
    uint64_t RAcc = Seed, RAcc1 = uint64_t(Xs[size_t(N - 1)]);
    Bad += uint64_t(R1[size_t(N - 1)]) != RAcc1;
    for (int64_t I = N - 1; I >= 0; --I) {
      Bad += uint64_t(Pr[size_t(I)]) != RAcc;
      RAcc = thenPacked(uint64_t(Xs[size_t(I)]), RAcc);
      Bad += uint64_t(R[size_t(I)]) != RAcc;
      if (I < N - 1) {
        RAcc1 = thenPacked(uint64_t(Xs[size_t(I)]), RAcc1);
        Bad += uint64_t(R1[size_t(I)]) != RAcc1;
      }
    }
    CHECK(uint64_t(GotRT.as<int64_t>().scalar()) == RAcc);
    CHECK(Bad == 0);
  }
}

TEST_CASE("row scans by lanes keep the order of a non-commutative function") {
  // Each row of a matrix is scanned eight elements at a time (ScanRows.cpp,
  // scanByLanes); rows of lengths around the vectors' and of one.
  Fn Then = packedThen();
  const uint64_t Seed = uint64_t(5) << 32 | 3;
  for (auto [Rows, N] : {std::pair<int64_t, int64_t>{3, 1001}, {4, 17}, {2, 8}, {5, 1}}) {
    CAPTURE(Rows);
    CAPTURE(N);
    std::vector<int64_t> Xs(static_cast<size_t>(Rows * N));
    for (size_t I = 0; I < Xs.size(); ++I)
      Xs[I] = int64_t(uint64_t(1 + 2 * (I % 7)) << 32 | uint64_t(I % 11));
    Array<int64_t> X = fromVector({Rows, N}, Xs);
    auto IR = cpu().kernelIR(scanl(Then, int64_t(Seed), X));
    REQUIRE(IR);
    CHECK(IR->find(".lanes(<8 x i64>") != std::string::npos);
    auto L = cpu().run(scanl(Then, int64_t(Seed), X)).toVector<int64_t>();
    auto L1 = cpu().run(scanl1(Then, X)).toVector<int64_t>();
    auto R = cpu().run(scanr(Then, int64_t(Seed), X)).toVector<int64_t>();
    auto R1 = cpu().run(scanr1(Then, X)).toVector<int64_t>();
    auto [LP, LT] = scanlPrime(Then, int64_t(Seed), X);
    auto [RP, RT] = scanrPrime(Then, int64_t(Seed), X);
    auto [GotLP, GotLT, GotRP, GotRT] = cpu().run(LP, LT, RP, RT);
    auto Pl = GotLP.as<int64_t>().toVector(), Tl = GotLT.as<int64_t>().toVector();
    auto Pr = GotRP.as<int64_t>().toVector(), Tr = GotRT.as<int64_t>().toVector();
    REQUIRE(L.size() == size_t(Rows * (N + 1)));
    REQUIRE(R.size() == size_t(Rows * (N + 1)));
    size_t Bad = 0;
    for (int64_t Row = 0; Row < Rows; ++Row) {
      auto At = [&](int64_t J) { return uint64_t(Xs[size_t(Row * N + J)]); };
      uint64_t Acc = Seed, Acc1 = At(0);
      Bad += uint64_t(L[size_t(Row * (N + 1))]) != Seed;
      Bad += uint64_t(L1[size_t(Row * N)]) != Acc1;
      for (int64_t J = 0; J < N; ++J) {
        Bad += uint64_t(Pl[size_t(Row * N + J)]) != Acc;
        Acc = thenPacked(Acc, At(J));
        Bad += uint64_t(L[size_t(Row * (N + 1) + J + 1)]) != Acc;
        if (J > 0)
          Bad += uint64_t(L1[size_t(Row * N + J)]) != (Acc1 = thenPacked(Acc1, At(J)));
      }
      Bad += uint64_t(Tl[size_t(Row)]) != Acc;
      uint64_t RAcc = Seed, RAcc1 = At(N - 1);
      Bad += uint64_t(R[size_t(Row * (N + 1) + N)]) != Seed;
      Bad += uint64_t(R1[size_t(Row * N + N - 1)]) != RAcc1;
      for (int64_t J = N - 1; J >= 0; --J) {
        Bad += uint64_t(Pr[size_t(Row * N + J)]) != RAcc;
        RAcc = thenPacked(At(J), RAcc);
        Bad += uint64_t(R[size_t(Row * (N + 1) + J)]) != RAcc;
        if (J < N - 1)
          Bad += uint64_t(R1[size_t(Row * N + J)]) != (RAcc1 = thenPacked(At(J), RAcc1));
      }
      Bad += uint64_t(Tr[size_t(Row)]) != RAcc;
    }
    CHECK(Bad == 0);
  }
}

TEST_CASE("row scans of a function with no vector form walk each row, every variant") {
  // A function with a branch keeps the element-at-a-time walk of a row
  // (ScanRows.cpp, RowWalk): no .lanes function, and the rows' results.
  Fn Max = branchyMax();
  for (auto [Rows, N] : {std::pair<int64_t, int64_t>{3, 37}, {2, 1}, {2, 0}}) {
    CAPTURE(Rows);
    CAPTURE(N);
    std::vector<int32_t> Xs(static_cast<size_t>(Rows * N));
    for (size_t I = 0; I < Xs.size(); ++I)
      Xs[I] = int32_t((I * 7919) % 1009) - 500;
    Array<int32_t> X = fromVector({Rows, N}, Xs);
    auto IR = cpu().kernelIR(scanl(Max, int32_t(-1000), X));
    REQUIRE(IR);
    CHECK(IR->find(".lanes") == std::string::npos);
    auto L = cpu().run(scanl(Max, int32_t(-1000), X)).toVector<int32_t>();
    auto R = cpu().run(scanr(Max, int32_t(-1000), X)).toVector<int32_t>();
    auto [LP, LT] = scanlPrime(Max, int32_t(-1000), X);
    auto [GotLP, GotLT] = cpu().run(LP, LT);
    auto Pl = GotLP.as<int32_t>().toVector(), Tl = GotLT.as<int32_t>().toVector();
    REQUIRE(L.size() == size_t(Rows * (N + 1)));
    REQUIRE(R.size() == size_t(Rows * (N + 1)));
    size_t Bad = 0;
    for (int64_t Row = 0; Row < Rows; ++Row) {
      int32_t Acc = -1000;
      Bad += L[size_t(Row * (N + 1))] != Acc;
      for (int64_t J = 0; J < N; ++J) {
        Bad += Pl[size_t(Row * N + J)] != Acc;
        Acc = std::max(Acc, Xs[size_t(Row * N + J)]);
        Bad += L[size_t(Row * (N + 1) + J + 1)] != Acc;
      }
      Bad += Tl[size_t(Row)] != Acc;
      Acc = -1000;
      Bad += R[size_t(Row * (N + 1) + N)] != Acc;
      for (int64_t J = N - 1; J >= 0; --J) {
        Acc = std::max(Acc, Xs[size_t(Row * N + J)]);
        Bad += R[size_t(Row * (N + 1) + J)] != Acc;
      }
    }
    if (N > 0) {
      auto L1 = cpu().run(scanl1(Max, X)).toVector<int32_t>();
      auto R1 = cpu().run(scanr1(Max, X)).toVector<int32_t>();
      for (int64_t Row = 0; Row < Rows; ++Row) {
        int32_t Acc = Xs[size_t(Row * N)];
        for (int64_t J = 0; J < N; ++J)
          Bad += L1[size_t(Row * N + J)] != (Acc = std::max(Acc, Xs[size_t(Row * N + J)]));
        Acc = Xs[size_t(Row * N + N - 1)];
        for (int64_t J = N - 1; J >= 0; --J)
          Bad += R1[size_t(Row * N + J)] != (Acc = std::max(Acc, Xs[size_t(Row * N + J)]));
      }
    }
    CHECK(Bad == 0);
  }
}

TEST_CASE("a scan whose function has no vector form scans by quarters, and a fused one by lanes") {
  // widenLanes takes one block without memory or integer division; a
  // function with a branch keeps the four quarters (no .lanes function),
  // and both give the sequential backend's result. A map fused into the
  // scan is computed lane by lane.
  Fn Max = branchyMax();
  Fn Add("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  Fn Twice("i32 (i32 %a)", "%r = mul i32 %a, 2");
  const int64_t N = 131072 * 3 + 11;
  std::vector<int32_t> Xs(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    Xs[size_t(I)] = int32_t((I * 7919) % 100003) - 50000;
  Array<int32_t> X = fromVector(Xs);
  auto MaxIR = cpu().kernelIR(scanl1(Max, X));
  auto AddIR = cpu().kernelIR(scanr(Add, int32_t(5), map(Twice, X)));
  REQUIRE(MaxIR);
  REQUIRE(AddIR);
  CHECK(MaxIR->find(".lanes") == std::string::npos);
  CHECK(AddIR->find(".lanes(<8 x i32>") != std::string::npos);
  auto GotMax = cpu().run(scanl1(Max, X)).toVector<int32_t>();
  auto GotAdd = cpu().run(scanr(Add, int32_t(5), map(Twice, X))).toVector<int32_t>();
  auto WantMax = seq().run(scanl1(Max, X)).toVector<int32_t>();
  auto WantAdd = seq().run(scanr(Add, int32_t(5), map(Twice, X))).toVector<int32_t>();
  CHECK(GotMax == WantMax);
  CHECK(GotAdd == WantAdd);
  int32_t M = Xs[0];
  for (int32_t V : Xs)
    M = std::max(M, V);
  CHECK(GotMax.back() == M);
}

/// Whether the CPU backend writes large outputs non-temporally on this host
/// (CpuBackends.cpp: not on an x86 without SSE4a).
static bool hostNonTemporalStores() {
#if defined(__x86_64__) || defined(__i386__)
  return llvm::sys::getHostCPUFeatures().lookup("sse4a");
#else
  return true;
#endif
}

/// Whether the host's scans write their outputs non-temporally
/// (CpuBackends.cpp: on AMD's x86, from Zen 4 on).
static bool hostNonTemporalStreams() {
#if defined(__x86_64__) || defined(__i386__)
  llvm::StringMap<bool> F = llvm::sys::getHostCPUFeatures();
  return F.lookup("sse4a") && F.lookup("avx512f");
#else
  return true;
#endif
}

TEST_CASE("scans of outputs too large for the caches, written non-temporally") {
  // Outputs of 16 MiB or more take the non-temporal stores (Scan.cpp,
  // NonTemporalBytes); these straddle the bound, in long chunks.
  Fn Compose = affineCompose();
  using P = Affine;
  for (int64_t N : {int64_t(1) << 20, (int64_t(1) << 20) + 4099}) {
    CAPTURE(N);
    std::vector<int64_t> As(static_cast<size_t>(N)), Bs(static_cast<size_t>(N));
    for (int64_t I = 0; I < N; ++I) {
      As[size_t(I)] = (I % 7 == 0) ? -1 : 1;
      Bs[size_t(I)] = I % 11 - 5;
    }
    auto X = fromVectors<int64_t, int64_t>({N}, As, Bs);
    auto IR = cpu().kernelIR(scanl1(Compose, X), false);
    REQUIRE(IR);
    CHECK((IR->find("!nontemporal") != std::string::npos) ==
          hostNonTemporalStreams());
    auto L = cpu().run(scanl1(Compose, X)).as<P>().toVector();
    auto R = cpu().run(scanr1(Compose, X)).as<P>().toVector();
    REQUIRE(L.size() == size_t(N));
    REQUIRE(R.size() == size_t(N));
    P Acc = {As[0], Bs[0]};
    size_t Bad = L[0] != Acc;
    for (int64_t I = 1; I < N; ++I) {
      Acc = then(Acc, P{As[size_t(I)], Bs[size_t(I)]});
      Bad += L[size_t(I)] != Acc;
    }
    P RAcc = {As[size_t(N - 1)], Bs[size_t(N - 1)]};
    Bad += R[size_t(N - 1)] != RAcc;
    for (int64_t I = N - 2; I >= 0; --I) {
      RAcc = then(P{As[size_t(I)], Bs[size_t(I)]}, RAcc);
      Bad += R[size_t(I)] != RAcc;
    }
    CHECK(Bad == 0);
  }
  // Seeded scans of i32, 4 bytes an element: 2^22 + 5 of them.
  Fn Add("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  const int64_t N = (int64_t(1) << 22) + 5;
  std::vector<int32_t> Xs(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    Xs[size_t(I)] = int32_t(I % 13) - 6;
  Array<int32_t> X = fromVector(Xs);
  auto L = cpu().run(scanl(Add, int32_t(3), X)).toVector<int32_t>();
  auto R = cpu().run(scanr(Add, int32_t(3), X)).toVector<int32_t>();
  auto [Pre, Tot] = scanlPrime(Add, int32_t(3), X);
  auto Pr = cpu().run(Pre).toVector<int32_t>();
  int32_t Total = cpu().run(Tot).scalar().get<int32_t>();
  REQUIRE(L.size() == size_t(N + 1));
  REQUIRE(R.size() == size_t(N + 1));
  REQUIRE(Pr.size() == size_t(N));
  int32_t Acc = 3;
  size_t Bad = L[0] != 3;
  for (int64_t I = 0; I < N; ++I) {
    Bad += Pr[size_t(I)] != Acc;
    Acc += Xs[size_t(I)];
    Bad += L[size_t(I + 1)] != Acc;
  }
  CHECK(Total == Acc);
  int32_t RAcc = 3;
  Bad += R[size_t(N)] != 3;
  for (int64_t I = N - 1; I >= 0; --I) {
    RAcc += Xs[size_t(I)];
    Bad += R[size_t(I)] != RAcc;
  }
  CHECK(Bad == 0);
}

TEST_CASE("a scan's non-temporal stores are a Zen 4's, not a Zen 3's (IR only)") {
  // A Zen 3 writes two interleaved streams of non-temporal stores at a
  // hundredth of memory speed; a Zen 4 or 5 takes them (CpuBackends.cpp).
  // The kernels are only generated, not run: the host may be neither.
  int64_t N = int64_t(1) << 22;
  auto X = fromVector(std::vector<float>(size_t(N), 1.0f));
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  for (const char *CPU : {"znver3", "znver4"}) {
    CAPTURE(CPU);
    RuntimeOptions O;
    O.CPU = CPU;
    Runtime R(O);
    auto IR = R.kernelIR(scanl1(Add, X), false);
    REQUIRE(IR);
    CHECK((IR->find("!nontemporal") != std::string::npos) ==
          (std::string(CPU) == "znver4"));
  }
}

TEST_CASE("element-wise outputs too large for the caches are written non-temporally") {
  // From 32 MiB of output (Map.cpp, NonTemporalMapBytes) the kernel's
  // stores say !nontemporal where they pay (CpuBackends.cpp: not on an
  // x86 without SSE4a); below, they do not. Both compute the same.
  bool Pays = hostNonTemporalStores();
  Fn Step("i32 (i32 %a)", "%r = mul i32 %a, 3\n%r = add i32 %r, 1");
  for (int64_t N : {int64_t(1000), (int64_t(1) << 23) + 17}) {
    CAPTURE(N);
    std::vector<int32_t> Xs(static_cast<size_t>(N));
    for (int64_t I = 0; I < N; ++I)
      Xs[size_t(I)] = int32_t(I % 1001) - 500;
    Array<int32_t> X = fromVector(Xs);
    Acc E = map(Step, X);
    auto IR = cpu().kernelIR(E, false);
    REQUIRE(IR);
    bool Large = Pays && N * 4 >= (int64_t(32) << 20);
    CHECK((IR->find("!nontemporal") != std::string::npos) == Large);
    std::vector<int32_t> Got = cpu().run(E).toVector<int32_t>();
    REQUIRE(Got.size() == size_t(N));
    size_t Bad = 0;
    for (int64_t I = 0; I < N; ++I)
      Bad += Got[size_t(I)] != Xs[size_t(I)] * 3 + 1;
    CHECK(Bad == 0);
    // A tuple of two fields: 8 bytes an element, each field its stream.
    using P = std::tuple<int32_t, int32_t>;
    auto Pairs = cpu().run(zip(map(Step, X), X)).as<P>().toVector();
    REQUIRE(Pairs.size() == size_t(N));
    size_t BadPairs = 0;
    for (int64_t I = 0; I < N; ++I)
      BadPairs += Pairs[size_t(I)] != P{Got[size_t(I)], Xs[size_t(I)]};
    CHECK(BadPairs == 0);
  }
  // An element too costly to keep up with memory one at a time (a call of
  // exp) keeps plain stores, which LLVM vectorizes, however large.
  Fn Exp("float (float %a)", "%r = call float @llvm.exp.f32(float %a)");
  const int64_t N = (int64_t(1) << 23) + 17;
  std::vector<float> Fs(static_cast<size_t>(N), 0.5f);
  Acc E = map(Exp, fromVector(Fs));
  auto IR = cpu().kernelIR(E, false);
  REQUIRE(IR);
  CHECK(IR->find("!nontemporal") == std::string::npos);
  std::vector<float> Got = cpu().run(E).toVector<float>();
  REQUIRE(Got.size() == size_t(N));
  CHECK(Got.front() == doctest::Approx(std::exp(0.5f)));
  CHECK(Got.back() == doctest::Approx(std::exp(0.5f)));
}

TEST_CASE("scans and segmented folds of a reshaped matrix producer") {
  // The producer's index code (a linear index split into row and column)
  // is spliced as text among the quarter scan's own names. Its names once
  // were `%q1`, `%i0`, ..., and `%q1` was also a quarter's start: the
  // variable was reassigned, and the scan read and wrote out of bounds.
  // Found by fuzz.arrays.
  Fn Gen = LLQ_FN("i64 (i64 %i, i64 %j)",
                  "%m = mul i64 %i, 100\n %r = add i64 %m, %j");
  Fn Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  for (std::pair<int64_t, int64_t> Shape :
       {std::pair<int64_t, int64_t>{6, 7}, {1, 42}, {42, 1}, {3, 5}, {100, 37}}) {
    int64_t Rows = Shape.first, Cols = Shape.second;
    CAPTURE(Rows);
    CAPTURE(Cols);
    int64_t N = Rows * Cols;
    std::vector<int64_t> X(static_cast<size_t>(N));
    for (int64_t K = 0; K < N; ++K)
      X[size_t(K)] = 100 * (K / Cols) + K % Cols;
    Acc A = reshape({N}, generate({Rows, Cols}, Gen));
    // Scans need an associative function; + shows every element's place.
    std::vector<int64_t> L{2}, L1, R(static_cast<size_t>(N + 1));
    for (int64_t V : X) {
      L.push_back(L.back() + V);
      L1.push_back(L1.empty() ? V : L1.back() + V);
    }
    R[size_t(N)] = 2;
    for (int64_t K = N - 1; K >= 0; --K)
      R[size_t(K)] = X[size_t(K)] + R[size_t(K + 1)];
    CHECK(cpu().run(scanl(Add, int64_t(2), A)).toVector<int64_t>() == L);
    CHECK(cpu().run(scanl1(Add, A)).toVector<int64_t>() == L1);
    CHECK(cpu().run(scanr(Add, int64_t(2), A)).toVector<int64_t>() == R);
    CHECK(seq().run(scanr(Add, int64_t(2), A)).toVector<int64_t>() == R);
    // Segments of 1, 2, 3, ... elements, the last one shorter.
    std::vector<int32_t> Lens;
    for (int64_t Left = N, Len = 1; Left > 0; Left -= Len, ++Len)
      Lens.push_back(int32_t(std::min(Len, Left)));
    std::vector<int64_t> Sums;
    for (int64_t K = 0, S = 0; S < int64_t(Lens.size()); ++S) {
      int64_t Sum = 0;
      for (int32_t I = 0; I < Lens[size_t(S)]; ++I)
        Sum += X[size_t(K++)];
      Sums.push_back(Sum);
    }
    CHECK(cpu().run(foldSeg(Add, int64_t(0), A, fromVector(Lens)))
              .toVector<int64_t>() == Sums);
  }
}

TEST_CASE("run into a caller's array: reused when it fits and is not read") {
  auto Inc = LLQ_FN("i32 (i32 %a)", "%r = add i32 %a, 1");
  auto X = fromVector(std::vector<int32_t>{1, 2, 3});
  auto Into = cpu().run(map(Inc, X));
  auto Again = cpu().run(map(Inc, map(Inc, X)), Into);
  CHECK(Again.raw().data(0) == Into.raw().data(0));
  CHECK(Into.as<int32_t>().toVector() == std::vector<int32_t>{3, 4, 5});
  // Reading Into: a new array, Into unchanged.
  auto Read = cpu().run(map(Inc, Into), Into);
  CHECK(Read.raw().data(0) != Into.raw().data(0));
  CHECK(Read.as<int32_t>().toVector() == std::vector<int32_t>{4, 5, 6});
  // Another shape: a new array.
  auto Other = cpu().run(map(Inc, fromVector(std::vector<int32_t>{9})), Into);
  CHECK(Other.raw().data(0) != Into.raw().data(0));
}

TEST_CASE("bad sizes are errors, not crashes: overflowing extents, failed allocations") {
  int64_t Big = int64_t(1) << 32;
  CHECK_THROWS_WITH_AS(cpu().run(fill({Big, Big}, 1.0f)),
                       doctest::Contains("has more than 2^63-1 elements"), ArrayError);
  // 2^61 floats: no allocator gives 8 EiB.
  CHECK_THROWS_WITH_AS(cpu().run(fill({int64_t(1) << 61}, 1.0f)),
                       doctest::Contains("bytes"), ArrayError);
  auto Inc = LLQ_FN("i32 (i32 %a)", "%r = add i32 %a, 1");
  CHECK_THROWS_WITH_AS(cpu().run(map(Inc, fill({3}, 1.0f))),
                       doctest::Contains("map needs a function of (float), but this one takes (i32)"),
                       ArrayError);
  CHECK_THROWS_WITH_AS(cpu().run(reshape({4}, fill({3}, 1.0f))),
                       doctest::Contains("reshape"), ArrayError);
  CHECK_THROWS_WITH_AS(cpu().run(scanl1(LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b"),
                                        fill({0}, 1.0f))),
                       doctest::Contains("scanl1 of an empty vector"), ArrayError);
  auto Bad = cpu().tryRun(slice(fill({2, 2}, 1.0f), 5));
  REQUIRE(!Bad);
  CHECK(llvm::toString(Bad.takeError()).find("slice: index 5") != std::string::npos);
}

TEST_CASE("LLQ_DUMP_IR writes each kernel's IR before and after optimisation") {
  std::string Dir = "skeleton-dump-ir";
  llvm::sys::fs::remove_directories(Dir);
  RuntimeOptions O;
  O.DumpIR = Dir;
  Runtime R(O);
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  CHECK(R.run(fold(Add, int64_t(0), enumFromN({10}, int64_t(1)))).scalar().get<int64_t>() == 55);
  std::error_code EC;
  int Plain = 0, Optimised = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef P = It->path();
    if (P.ends_with(".opt.ll"))
      ++Optimised;
    else if (P.ends_with(".ll"))
      ++Plain;
  }
  CHECK(Plain == 1);
  CHECK(Optimised == 1);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a fold whose function allows reassociation vectorizes (-mcpu=haswell)") {
  RuntimeOptions O;
  O.CPU = "haswell";
  Runtime R(O);
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Exact = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  auto Reassoc = LLQ_FN("float (float %a, float %b)", "%r = fadd reassoc float %a, %b");
  auto X = fromVector(std::vector<float>(64, 1.0f));
  auto Plain = R.kernelIR(fold(Exact, 0.0f, zipWith(Mul, X, X)), true);
  auto Vector = R.kernelIR(fold(Reassoc, 0.0f, zipWith(Mul, X, X)), true);
  REQUIRE(Plain);
  REQUIRE(Vector);
  // Index order is kept unless the function says otherwise.
  CHECK(Plain->find("fadd <8 x float>") == std::string::npos);
  CHECK(Plain->find("fadd reassoc") == std::string::npos);
  CHECK(Vector->find("fadd reassoc <8 x float>") != std::string::npos);
}

TEST_CASE("math calls with afn are inline code (exp, log) or glibc's vector math (-mcpu=haswell)") {
  RuntimeOptions O;
  O.CPU = "haswell";
  Runtime R(O);
  auto Exact = LLQ_FN("float (float %a)", R"(
    %e = call float @llvm.exp.f32(float %a)
    %r = call float @llvm.log.f32(float %e))");
  auto Approx = LLQ_FN("float (float %a)", R"(
    %e = call afn float @llvm.exp.f32(float %a)
    %r = call afn float @llvm.log.f32(float %e))");
  auto Sin = LLQ_FN("float (float %a)", "%r = call afn float @llvm.sin.f32(float %a)");
  auto Pow = LLQ_FN("double (double %a)", "%r = call afn double @llvm.pow.f64(double %a, double %a)");
  std::vector<float> Xs;
  for (int I = 0; I < 1000; ++I)
    Xs.push_back(float(I - 500) / 64);
  auto X = fromVector(Xs);
  auto Plain = R.kernelIR(map(Exact, X), true);
  auto Inline = R.kernelIR(map(Approx, X), true);
  REQUIRE(Plain);
  REQUIRE(Inline);
  // Without afn a call keeps libm's result, lane by lane. (A call site names
  // its operand; the declaration does not.)
  CHECK(Plain->find("_ZGV") == std::string::npos);
  CHECK(Plain->find("@llvm.exp.") != std::string::npos);
  // With it, exp and log are the engine's own code, widened like any other
  // arithmetic: no call is left.
  CHECK(Inline->find("_ZGV") == std::string::npos);
  CHECK(Inline->find("call float @llvm.exp") == std::string::npos);
  CHECK(Inline->find("call float @llvm.log") == std::string::npos);
  CHECK(Inline->find("@llvm.exp.v") == std::string::npos);
  CHECK(Inline->find("@llvm.log.v") == std::string::npos);
  CHECK(Inline->find("@expf") == std::string::npos);
  CHECK(Inline->find("fmul <8 x float>") != std::string::npos);
  // The results are within 2 ulp of libm's, remainder lanes included.
  std::vector<float> Got = R.run(map(Approx, X)).toVector<float>();
  REQUIRE(Got.size() == Xs.size());
  for (size_t I = 0; I < Xs.size(); ++I)
    REQUIRE(std::fabs(Got[I] - std::log(std::exp(Xs[I]))) <= 1e-5f * (1 + std::fabs(Xs[I])));
  auto SinIR = R.kernelIR(map(Sin, X), true);
  REQUIRE(SinIR);
  if (SinIR->find("vector-function-abi-variant") == std::string::npos) {
    MESSAGE("no libmvec.so.1 in this process: vector math is off");
    return;
  }
  CHECK(SinIR->find("@_ZGVdN8v_sinf(<8 x float> %") != std::string::npos);
  auto PowIR = R.kernelIR(map(Pow, fromVector(std::vector<double>(64, 2.0))), true);
  REQUIRE(PowIR);
  CHECK(PowIR->find("@_ZGVdN4vv_pow(<4 x double> %") != std::string::npos);
  std::vector<double> P = R.run(map(Pow, fromVector(std::vector<double>(37, 4.0)))).toVector<double>();
  for (double V : P)
    REQUIRE(std::fabs(V - 256.0) <= 1e-12);
}

/// A heavy straight element: a division and thirty dependent multiplies and
/// adds, 60 instructions.
static Fn heavyChainFn() {
  std::string Chain = "%r = float %a\n%r = fdiv float 1.0, %r\n";
  for (int I = 0; I < 30; ++I)
    Chain += "%r = fmul float %r, %a\n%r = fadd float %r, 1.0\n";
  return Fn("float (float %a)", Chain, __FILE__, __LINE__);
}

TEST_CASE("a heavy element's loop is interleaved by two, a light one's is LLVM's choice") {
  Runtime R;
  Fn Heavy = heavyChainFn();
  auto Light = LLQ_FN("float (float %a)", "%r = fmul float %a, %a");
  auto X = fromVector(std::vector<float>(1000, 0.5f));
  auto HeavyIR = R.kernelIR(map(Heavy, X));
  auto LightIR = R.kernelIR(map(Light, X));
  REQUIRE(HeavyIR);
  REQUIRE(LightIR);
  CHECK(HeavyIR->find("!\"llvm.loop.interleave.count\", i32 2}") != std::string::npos);
  CHECK(LightIR->find("llvm.loop.interleave.count") == std::string::npos);
  // The results are those of the scalar function, element by element.
  std::vector<float> Got = R.run(map(Heavy, X)).toVector<float>();
  float Want = 1.0f / 0.5f;
  for (int I = 0; I < 30; ++I)
    Want = Want * 0.5f + 1.0f;
  REQUIRE(Got.size() == 1000);
  for (float G : Got)
    REQUIRE(G == Want);
}


TEST_CASE("a heavy element gets 512-bit vectors where the CPU prefers 256 (-mcpu=skylake-avx512)") {
  // LLVM tunes skylake-avx512 to prefer 256-bit vectors; a heavy straight
  // element asks for the widest, a light one keeps the CPU's preference.
  RuntimeOptions O;
  O.CPU = "skylake-avx512";
  Runtime R(O);
  Fn Heavy = heavyChainFn();
  auto Light = LLQ_FN("float (float %a)", "%r = fmul float %a, %a");
  auto X = fromVector(std::vector<float>(1000, 0.5f));
  auto HeavyIR = R.kernelIR(map(Heavy, X), true);
  auto LightIR = R.kernelIR(map(Light, X), true);
  REQUIRE(HeavyIR);
  REQUIRE(LightIR);
  CHECK(HeavyIR->find("\"prefer-vector-width\"=\"512\"") != std::string::npos);
  CHECK(HeavyIR->find("fdiv <16 x float>") != std::string::npos);
  CHECK(LightIR->find("prefer-vector-width") == std::string::npos);
  CHECK(LightIR->find("fmul <8 x float>") != std::string::npos);
  CHECK(LightIR->find("<16 x float>") == std::string::npos);
}
TEST_CASE("half and bool elements") {
  using llq::rt::half;
  std::vector<half> Hs;
  for (int I = 0; I < 1000; ++I)
    Hs.push_back(half(float(I % 8) * 0.5f));
  auto H = fromVector(Hs);
  auto Twice = LLQ_FN("half (half %a)", "%r = fadd half %a, %a");
  auto AddH = LLQ_FN("half (half %a, half %b)", "%r = fadd half %a, %b");
  std::vector<half> D = cpu().run(map(Twice, H)).toVector<half>();
  for (int I = 0; I < 1000; ++I)
    REQUIRE(float(D[size_t(I)]) == float(Hs[size_t(I)]) * 2);
  // A small sum is exact in half: 4 * (0 + 0.5 + ... + 3.5) per 32 = 14 * 8.
  auto Small = fromVector(std::vector<half>(Hs.begin(), Hs.begin() + 32));
  for (Runtime *R : {&cpu(), &seq()})
    CHECK(float(R->run(fold(AddH, half(0.0f), Small)).scalar().get<half>()) == 56.0f);
  CHECK(fmt::format("{}", fromVector(std::vector<half>{half(1.5f)})) == "Vector (Z :. 1) [1.5]");
  // Booleans: stored as bytes, i1 in functions.
  std::vector<bool> Bs;
  for (int I = 0; I < 1001; ++I)
    Bs.push_back(I % 3 == 0);
  auto B = fromVector(Bs);
  auto Not = LLQ_FN("i1 (i1 %a)", "%r = xor i1 %a, true");
  auto Or = LLQ_FN("i1 (i1 %a, i1 %b)", "%r = or i1 %a, %b");
  auto And = LLQ_FN("i1 (i1 %a, i1 %b)", "%r = and i1 %a, %b");
  std::vector<bool> N = cpu().run(map(Not, B)).toVector<bool>();
  for (size_t I = 0; I < Bs.size(); ++I)
    REQUIRE(N[I] == !Bs[I]);
  CHECK(cpu().run(fold(Or, false, B)).scalar().get<bool>() == true);
  CHECK(cpu().run(fold(And, true, B)).scalar().get<bool>() == false);
  // A permute into bools: a cmpxchg loop on bytes.
  auto Bin = LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 4");
  auto Flags = cpu().run(permute(Or, fill({4}, false), Bin, B)).toVector<bool>();
  CHECK(Flags == std::vector<bool>{true, true, true, true});
}

TEST_CASE("random shapes of rank 1 to 3: map, zipWith, fold, transpose-like backpermute") {
  std::mt19937_64 G(42);
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  auto Mix = LLQ_FN("i64 (i64 %a, i32 %b)",
                    "%w = sext i32 %b to i64\n %m = mul i64 %w, 3\n %r = sub i64 %a, %m");
  for (int Case = 0; Case < 40; ++Case) {
    unsigned Rank = 1 + unsigned(G() % 3);
    std::vector<int64_t> E, F;
    for (unsigned D = 0; D < Rank; ++D) {
      E.push_back(int64_t(G() % (Case < 20 ? 6 : 70)));
      F.push_back(E.back() + int64_t(G() % 3)); // B is larger: an intersection
    }
    CAPTURE(Case);
    int64_t NE = 1, NF = 1;
    for (unsigned D = 0; D < Rank; ++D)
      NE *= E[D], NF *= F[D];
    std::vector<int64_t> As(static_cast<size_t>(NE));
    std::vector<int32_t> Bs(static_cast<size_t>(NF));
    for (auto &X : As)
      X = int64_t(G() % 1000) - 500;
    for (auto &X : Bs)
      X = int32_t(G() % 100);
    auto A = fromVector(E, As);
    auto B = fromVector(F, Bs);
    // zipWith over the intersection (A's shape), then fold the innermost.
    auto Z = zipWith(Mix, A, B);
    std::vector<int64_t> WantZ(As.size());
    for (int64_t L = 0; L < NE; ++L) {
      int64_t Q = L, LF = 0, Stride = 1;
      for (unsigned D = Rank; D-- > 0;) {
        LF += (Q % E[D]) * Stride;
        Q /= E[D];
        Stride *= F[D];
      }
      WantZ[size_t(L)] = As[size_t(L)] - 3 * int64_t(Bs[size_t(LF)]);
    }
    for (Runtime *R : {&cpu(), &seq()}) {
      CHECK(R->run(Z).toVector<int64_t>() == WantZ);
      std::vector<int64_t> Rows = R->run(fold(Add, int64_t(7), Z)).toVector<int64_t>();
      int64_t Inner = E[Rank - 1], NRows = Inner ? NE / Inner : 1;
      if (Inner == 0) {
        NRows = 1;
        for (unsigned D = 0; D + 1 < Rank; ++D)
          NRows *= E[D];
      }
      REQUIRE(Rows.size() == size_t(NRows));
      bool Ok = true;
      for (int64_t Row = 0; Row < NRows; ++Row) {
        int64_t S = 7;
        for (int64_t J = 0; J < Inner; ++J)
          S += WantZ[size_t(Row * Inner + J)];
        Ok = Ok && Rows[size_t(Row)] == S;
      }
      CHECK(Ok);
      CHECK(R->run(foldAll(Add, int64_t(0), Z)).scalar().get<int64_t>() ==
            std::accumulate(WantZ.begin(), WantZ.end(), int64_t(0)));
    }
  }
}

#ifdef LLQ_TEST_COUNTING_BACKEND
TEST_CASE("the suite ran through the backend defined in the test") {
  uint64_t Before = test::countedLaunches();
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  CHECK(cpu().run(foldAll(Add, int64_t(0), enumFromN({1000}, int64_t(1))))
            .scalar()
            .get<int64_t>() == 500500);
  CHECK(test::countedLaunches() > Before);
  CHECK(cpu().stats().Launches >= test::countedLaunches() - Before);
}
#endif

TEST_CASE("imap and izipWith: the index first, against C++ loops, fused") {
  // i * 1000 + x, and (i, j) weighted: the index is what is tested.
  auto Mark = LLQ_FN("i64 (i64 %i, i64 %x)",
                     "%s = mul i64 %i, 1000\n %r = add i64 %s, %x");
  auto Mark2 = LLQ_FN("i64 (i64 %i, i64 %j, i64 %x, i64 %y)", R"(
    %a = mul i64 %i, 100000
    %b = mul i64 %j, 100
    %c = add i64 %a, %b
    %d = sub i64 %x, %y
    %r = add i64 %c, %d
  )");
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  for (int64_t N : {0, 1, 7, 1009, 16385}) {
    CAPTURE(N);
    std::vector<int64_t> X(static_cast<size_t>(N));
    for (int64_t I = 0; I < N; ++I)
      X[size_t(I)] = 3 * I - 5;
    std::vector<int64_t> Want(X.size());
    int64_t Sum = 0;
    for (int64_t I = 0; I < N; ++I) {
      Want[size_t(I)] = I * 1000 + X[size_t(I)];
      Sum += Want[size_t(I)];
    }
    for (Runtime *R : {&cpu(), &seq()}) {
      CHECK(R->run(imap(Mark, fromVector(X))).toVector<int64_t>() == Want);
      // Fused into a fold, the index is still the element's.
      CHECK(R->run(foldAll(Add, int64_t(0), imap(Mark, fromVector(X))))
                .scalar().get<int64_t>() == Sum);
    }
  }
  // Matrices of odd shapes, empty ones included; izipWith over the
  // intersection of the shapes, and under a reverse of its input.
  for (auto [R0, C0] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 5}, {5, 0}, {1, 1}, {3, 7}, {13, 17}}) {
    CAPTURE(R0);
    CAPTURE(C0);
    std::vector<int64_t> A(size_t(R0 * C0)), B(size_t((R0 + 1) * C0));
    std::iota(A.begin(), A.end(), int64_t(1));
    std::iota(B.begin(), B.end(), int64_t(-40));
    Acc MA = reshape({R0, C0}, fromVector(A));
    Acc MB = reshape({R0 + 1, C0}, fromVector(B));
    std::vector<int64_t> Want;
    for (int64_t I = 0; I < R0; ++I)
      for (int64_t J = 0; J < C0; ++J)
        Want.push_back(I * 100000 + J * 100 + A[size_t(I * C0 + J)] -
                       B[size_t(I * C0 + J)]);
    for (Runtime *R : {&cpu(), &seq()}) {
      Array<int64_t> Got = R->run(izipWith(Mark2, MA, MB)).as<int64_t>();
      CHECK(Got.shape().rank() == 2);
      CHECK(Got.toVector() == Want);
    }
  }
  // The function's type is checked: indices come first, one per dimension.
  Acc Bad = imap(Add, reshape({2, 2}, fromVector(std::vector<int64_t>{1, 2, 3, 4})));
  CHECK(Bad.error().find("imap needs a function of (i64, i64, i64)") !=
        std::string::npos);
}

TEST_CASE("element-wise pieces that start in the middle of a row know their row") {
  // The map and stencil kernels walk a piece row by row, dividing for the
  // first row's number only and counting the rows after it: pieces that
  // the gang cuts at multiples of the grain start anywhere in a row.
  Fn Gen = LLQ_FN("i64 (i64 %i, i64 %j)",
                  "%m = mul i64 %i, 1000000\n %r = add i64 %m, %j");
  Fn Center = LLQ_FN("i64 (i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f, "
                     "i64 %g, i64 %h, i64 %k)",
                     "%s = add i64 %e, %e\n %r = sub i64 %s, %a");
  for (std::pair<int64_t, int64_t> Shape :
       {std::pair<int64_t, int64_t>{3, 40000}, {1000, 1027}, {1, 70001},
        {70001, 1}, {5, 7}}) {
    int64_t Rows = Shape.first, Cols = Shape.second;
    CAPTURE(Rows);
    CAPTURE(Cols);
    std::vector<int64_t> Want, WantStencil;
    for (int64_t I = 0; I < Rows; ++I)
      for (int64_t J = 0; J < Cols; ++J) {
        Want.push_back(I * 1000000 + J);
        // 2 * centre - the clamped upper-left neighbour.
        int64_t I0 = std::max<int64_t>(I - 1, 0), J0 = std::max<int64_t>(J - 1, 0);
        WantStencil.push_back(2 * (I * 1000000 + J) - (I0 * 1000000 + J0));
      }
    for (Runtime *R : {&cpu(), &seq()}) {
      CHECK(R->run(generate({Rows, Cols}, Gen)).toVector<int64_t>() == Want);
      CHECK(R->run(stencil(Center, Boundary::clamp(),
                           generate({Rows, Cols}, Gen)))
                .toVector<int64_t>() == WantStencil);
    }
  }
}
