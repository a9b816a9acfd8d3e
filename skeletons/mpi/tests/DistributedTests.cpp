//===- DistributedTests.cpp - Array programs over MPI ranks against one -----===//
//
// Run under mpirun with 1 to 4 ranks (CTest does). Every case builds one
// expression twice: over whole arrays, run by a Runtime of this process
// (the reference), and over the same arrays scattered across the ranks, run
// by llq::mpi::Runtime; the distributed result, gathered, must equal the
// reference (the CPU backend, two threads) exactly (integers) or within a
// relative 1e-5 (floats, whose folds combine in another order). Sizes are
// odd and include fewer rows than ranks, one row and none.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT
#include "llquote/Distributed.h"
#include <cmath>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <filesystem>
#include <functional>
#include <stdlib.h>

using namespace llq;
using llq::mpi::DArray;

namespace {

mpi::Runtime *TheRuntime;
llq::Runtime &reference() {
  static llq::Runtime R([] {
    RuntimeOptions O;
    O.Backend = BackendKind::CPU;
    O.Threads = 2;
    return O;
  }());
  return R;
}

/// Whether A and B hold the same elements (floats within Tol, relative).
std::string differs(const Array<> &A, const Array<> &B, double Tol) {
  if (A.type() != B.type())
    return fmt::format("types {} and {}", A.type().str(), B.type().str());
  if (A.shape() != B.shape())
    return fmt::format("shapes {} and {}", A.shape().str(), B.shape().str());
  for (size_t F = 0; F < A.type().numFields(); ++F) {
    rt::ScalarKind K = A.type().field(F);
    const void *X = A.raw().data(F), *Y = B.raw().data(F);
    for (int64_t I = 0; I < A.size(); ++I) {
      bool Same;
      double U = 0, V = 0;
      if (K == rt::ScalarKind::F32) {
        U = static_cast<const float *>(X)[I];
        V = static_cast<const float *>(Y)[I];
        Same = U == V || (U != U && V != V) ||
               std::fabs(U - V) <= Tol * std::max(1.0, std::fabs(V));
      } else if (K == rt::ScalarKind::F64) {
        U = static_cast<const double *>(X)[I];
        V = static_cast<const double *>(Y)[I];
        Same = U == V || (U != U && V != V) ||
               std::fabs(U - V) <= Tol * std::max(1.0, std::fabs(V));
      } else {
        size_t Bytes = rt::byteSize(K);
        Same = std::memcmp(static_cast<const char *>(X) + I * Bytes,
                           static_cast<const char *>(Y) + I * Bytes,
                           Bytes) == 0;
      }
      if (!Same)
        return fmt::format("field {} element {}: {} and {}", F, I, U, V);
    }
  }
  return "";
}

using Build = std::function<Acc(const std::vector<Acc> &)>;

enum class Way { Distributed, Whole };

/// Build over Inputs whole here, and scattered over the ranks (rank 0's
/// copy; every rank makes the same), must agree. How says whether the
/// operations run on each rank's rows, or are computed whole everywhere.
void same(const std::string &What, const Build &B,
          const std::vector<Array<>> &Inputs, double Tol = 1e-5,
          Way How = Way::Distributed) {
  mpi::Runtime &M = *TheRuntime;
  std::vector<Acc> Whole, Split;
  for (const Array<> &In : Inputs) {
    Whole.push_back(In);
    if (In.shape().rank() == 0)
      Split.push_back(In);
    else
      Split.push_back(M.scatter(In, int(Inputs.size() % M.size())));
  }
  Array<> Want = reference().run(B(Whole));
  uint64_t Replicated = M.stats().Replicated;
  DArray Got = M.run(B(Split));
  bool AllHere = M.stats().Replicated > Replicated;
  CHECK_MESSAGE(AllHere == (How == Way::Whole), What);
  Array<> All = M.allgather(Got);
  INFO(What, " on ", M.size(), " ranks");
  CHECK_MESSAGE(differs(All, Want, Tol) == "", differs(All, Want, Tol));
  // Each rank's block is its part of the layout.
  if (Got.shape().rank() > 0)
    CHECK(Got.local().shape().extent(0) ==
          Got.layout().rowsOf(M.rank()));
}

Array<> floats(std::vector<int64_t> Extents, int Salt = 0) {
  int64_t N = 1;
  for (int64_t E : Extents)
    N *= E;
  std::vector<float> V(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    V[size_t(I)] = float((I * 37 + Salt * 11) % 101) / 7.0f - 5.0f;
  return Array<>(fromVector(Extents, V).shared());
}
Array<> ints(std::vector<int64_t> Extents, int Salt = 0) {
  int64_t N = 1;
  for (int64_t E : Extents)
    N *= E;
  std::vector<int32_t> V(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    V[size_t(I)] = int32_t((I * 7919 + Salt * 31) % 1009) - 500;
  return Array<>(fromVector(Extents, V).shared());
}

const int64_t Lengths[] = {0, 1, 2, 3, 5, 17, 1000, 4099};
const int64_t RowCounts[] = {1, 2, 3, 7, 33};

Fn addF() { return LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b"); }
Fn addI() { return LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b"); }
/// Associative, not commutative: the order of the combination shows.
Fn affine() {
  return LLQ_FN("{ i32, i32 } ({ i32, i32 } %f, { i32, i32 } %g)", R"(
    %a = extractvalue { i32, i32 } %f, 0
    %b = extractvalue { i32, i32 } %f, 1
    %c = extractvalue { i32, i32 } %g, 0
    %d = extractvalue { i32, i32 } %g, 1
    %ca = mul i32 %c, %a
    %cb = mul i32 %c, %b
    %cbd = add i32 %cb, %d
    %r0 = insertvalue { i32, i32 } undef, i32 %ca, 0
    %r = insertvalue { i32, i32 } %r0, i32 %cbd, 1)");
}
Acc affinePairs(const Acc &X) {
  Fn Pair = LLQ_FN("{ i32, i32 } (i32 %x)", R"(
    %m = srem i32 %x, 3
    %a = add i32 %m, 2
    %r0 = insertvalue { i32, i32 } undef, i32 %a, 0
    %r = insertvalue { i32, i32 } %r0, i32 %x, 1)");
  return map(Pair, X);
}

} // namespace

TEST_CASE("element-wise operations and their fusion") {
  Fn Sq = LLQ_FN("float (float %x)", "%r = fmul float %x, %x");
  Fn Gen = LLQ_FN("i32 (i64 %i)", R"(%t = trunc i64 %i to i32
      %r = mul i32 %t, 3)");
  Fn Gen2 = LLQ_FN("i32 (i64 %i, i64 %j)", R"(%a = mul i64 %i, 1000
      %s = add i64 %a, %j
      %r = trunc i64 %s to i32)");
  Fn IAdd = LLQ_FN("i32 (i64 %i, i32 %x)", R"(%t = trunc i64 %i to i32
      %r = add i32 %t, %x)");
  for (int64_t N : Lengths) {
    same(fmt::format("map {}", N), [&](auto &In) { return map(Sq, In[0]); },
         {floats({N})});
    same(fmt::format("zipWith of a map {}", N),
         [&](auto &In) { return zipWith(addF(), map(Sq, In[0]), In[1]); },
         {floats({N}), floats({N}, 1)});
    same(fmt::format("generate {}", N),
         [&](auto &) { return generate({N}, Gen); }, {});
    same(fmt::format("imap {}", N),
         [&](auto &In) { return imap(IAdd, In[0]); }, {ints({N})});
    same(fmt::format("zip and field {}", N),
         [&](auto &In) { return snd(zip(In[0], map(Sq, In[1]))); },
         {ints({N}), floats({N}, 2)});
    same(fmt::format("fst {}", N),
         [&](auto &In) { return fst(zip(In[0], In[1])); },
         {ints({N}), floats({N}, 2)});
    same(fmt::format("fill plus {}", N),
         [&](auto &In) { return zipWith(addI(), fill({N}, Scalar(7)), In[0]); },
         {ints({N})});
  }
  for (int64_t Rows : RowCounts)
    same(fmt::format("generate {}x9", Rows),
         [&](auto &) { return generate({Rows, 9}, Gen2); }, {});
}

TEST_CASE("a function reading a distributed array sees all of it") {
  // Each element: the sum of the whole array (as the n-body's forces do).
  Fn Total = LLQ_FN("i32 (i64 %i, array<i32> %xs)", R"(
    %s = i32 0
    for i64 %k in 0 to %xs.n0 {
      %x = call i32 @xs(i64 %k)
      %s = add i32 %s, %x
    }
    %t = trunc i64 %i to i32
    %r = add i32 %s, %t)");
  for (int64_t N : {1, 3, 17, 1000})
    same(fmt::format("generate over an array {}", N),
         [&](auto &In) { return generate({N}, Total.with({In[0]})); },
         {ints({N})});
}

TEST_CASE("folds: of a vector across ranks, of rows on each") {
  for (int64_t N : Lengths) {
    same(fmt::format("sum {}", N), [](auto &In) { return sum(In[0]); },
         {ints({N})});
    same(fmt::format("foldAll with a seed {}", N),
         [](auto &In) { return foldAll(addF(), 1.5f, In[0]); },
         {floats({N})});
    same(fmt::format("maximum of a map {}", N),
         [](auto &In) { return maximum(map(LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, %x"), In[0])); },
         {ints({N})});
    if (N > 0)
      same(fmt::format("fold1All, not commutative {}", N),
           [](auto &In) { return fold1All(affine(), affinePairs(In[0])); },
           {ints({N})});
  }
  for (int64_t Rows : RowCounts) {
    same(fmt::format("fold rows {}x5", Rows),
         [](auto &In) { return fold(addI(), Scalar(3), In[0]); },
         {ints({Rows, 5})});
    same(fmt::format("foldAll of a matrix {}x5", Rows),
         [](auto &In) { return foldAll(addI(), Scalar(0), In[0]); },
         {ints({Rows, 5})});
  }
}

TEST_CASE("scans of a vector across ranks, and of rows") {
  Scalar Seed(std::tuple<int32_t, int32_t>(1, 0));
  for (int64_t N : Lengths) {
    auto Name = [&](const char *S) { return fmt::format("{} {}", S, N); };
    same(Name("scanl"), [](auto &In) { return scanl(addI(), Scalar(5), In[0]); },
         {ints({N})});
    same(Name("scanr"), [](auto &In) { return scanr(addI(), Scalar(5), In[0]); },
         {ints({N})});
    same(Name("scanl' first"),
         [](auto &In) { return scanlPrime(addI(), Scalar(5), In[0]).first; },
         {ints({N})});
    same(Name("scanl' total"),
         [](auto &In) { return scanlPrime(addI(), Scalar(5), In[0]).second; },
         {ints({N})});
    same(Name("scanr' first"),
         [](auto &In) { return scanrPrime(addI(), Scalar(5), In[0]).first; },
         {ints({N})});
    same(Name("scanr' total"),
         [](auto &In) { return scanrPrime(addI(), Scalar(5), In[0]).second; },
         {ints({N})});
    same(Name("scanl, not commutative"),
         [&](auto &In) { return scanl(affine(), Seed, affinePairs(In[0])); },
         {ints({N})});
    same(Name("scanr, not commutative"),
         [&](auto &In) { return scanr(affine(), Seed, affinePairs(In[0])); },
         {ints({N})});
    if (N == 0)
      continue;
    same(Name("scanl1"), [](auto &In) { return scanl1(addI(), In[0]); },
         {ints({N})});
    same(Name("scanr1"), [](auto &In) { return scanr1(addI(), In[0]); },
         {ints({N})});
    same(Name("scanl1 of floats"), [](auto &In) { return scanl1(addF(), In[0]); },
         {floats({N})}, 1e-4);
    same(Name("scanr1, not commutative"),
         [](auto &In) { return scanr1(affine(), affinePairs(In[0])); },
         {ints({N})});
  }
  Array<> Segs(fromVector(std::vector<int64_t>{2, 0, 3, 1}).shared());
  for (int64_t Rows : RowCounts) {
    same(fmt::format("scanl rows {}x6", Rows),
         [](auto &In) { return scanl(addI(), Scalar(2), In[0]); },
         {ints({Rows, 6})});
    same(fmt::format("scanr1 rows {}x6", Rows),
         [](auto &In) { return scanr1(affine(), affinePairs(In[0])); },
         {ints({Rows, 6})});
    same(fmt::format("segmented fold of rows {}x6", Rows),
         [](auto &In) { return foldSeg(addI(), Scalar(1), In[0], In[1]); },
         {ints({Rows, 6}), Segs});
    same(fmt::format("segmented scan of rows {}x6", Rows),
         [](auto &In) { return scanlSeg(addI(), Scalar(1), In[0], In[1]); },
         {ints({Rows, 6}), Segs});
  }
}

TEST_CASE("stencils exchange the rows around each block") {
  Fn Blur = LLQ_FN("float (float %a, float %b, float %c, float %d, float %e, "
                   "float %f, float %g, float %h, float %i)",
                   R"(%s1 = fadd float %a, %b
      %s2 = fadd float %s1, %c
      %s3 = fadd float %s2, %d
      %s4 = fmul float %e, 2.0
      %s5 = fadd float %s3, %s4
      %s6 = fadd float %s5, %f
      %s7 = fadd float %s6, %g
      %s8 = fadd float %s7, %h
      %r = fadd float %s8, %i)");
  Fn Col5 = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c, i32 %d, i32 %e)", R"(
      %m = mul i32 %c, 10
      %s = add i32 %a, %b
      %t = add i32 %d, %e
      %u = sub i32 %s, %t
      %r = add i32 %u, %m)");
  for (int64_t Rows : RowCounts) {
    for (Boundary B : {Boundary::clamp(), Boundary::mirror(), Boundary::wrap(),
                       Boundary::constant(Scalar(0.5f))})
      same(fmt::format("3x3 stencil {}x7, boundary {}", Rows, int(B.K)),
           [&](auto &In) { return stencil(Blur, B, In[0]); },
           {floats({Rows, 7})});
    same(fmt::format("5x1 stencil {}x4", Rows),
         [&](auto &In) { return stencil(Col5, {5, 1}, Boundary::clamp(), In[0]); },
         {ints({Rows, 4})});
    same(fmt::format("stencil of a map {}x7", Rows),
         [&](auto &In) {
           return stencil(Blur, Boundary::clamp(),
                          map(LLQ_FN("float (float %x)", "%r = fadd float %x, 1.0"), In[0]));
         },
         {floats({Rows, 7})});
  }
  for (int64_t N : {1, 2, 6, 41})
    same(fmt::format("1-D stencil of 5, length {}", N),
         [&](auto &In) { return stencil(Col5, Boundary::mirror(), In[0]); },
         {ints({N})});
}

TEST_CASE("reverse, transpose, backpermute, transform and permute route "
          "elements to their owners") {
  Fn Flip = LLQ_FN("i64 (i64 %i, i64 %n)", R"(%a = sub i64 %n, %i
      %r = sub i64 %a, 1)");
  Fn Swap = LLQ_FN("{ i64, i64 } (i64 %i, i64 %j)", R"(
      %a = insertvalue { i64, i64 } undef, i64 %j, 0
      %r = insertvalue { i64, i64 } %a, i64 %i, 1)");
  Fn Twice = LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 2");
  Fn Hist = LLQ_FN("i64 (i64 %i, array<i32> %xs)", R"(
      %x = call i32 @xs(i64 %i)
      %a = and i32 %x, 15
      %r = zext i32 %a to i64)");
  for (int64_t N : {0, 1, 5, 1000}) {
    same(fmt::format("reverse {}", N), [](auto &In) { return reverse(In[0]); },
         {ints({N})});
    same(fmt::format("map of a reverse {}", N),
         [&](auto &In) { return map(Twice, reverse(In[0])); }, {ints({N})});
    same(fmt::format("backpermute {}", N),
         [&](auto &In) {
           return backpermute({N}, Flip.bind("n", Scalar(N)), In[0]);
         },
         {ints({N})});
    same(fmt::format("transform {}", N),
         [&](auto &In) {
           return transform({N}, Flip.bind("n", Scalar(N)), Twice, In[0]);
         },
         {ints({N})});
    same(fmt::format("permute: a histogram of {}", N),
         [&](auto &In) {
           Acc Ones = fill({N}, Scalar(1));
           return permute(addI(), fill({16}, Scalar(0)), Hist.with({In[0]}),
                          Ones);
         },
         {ints({N})});
    same(fmt::format("permute into fewer rows, some dropped, {}", N),
         [&](auto &In) {
           Fn Some = LLQ_FN("i64 (i64 %i)", R"(
               %m = urem i64 %i, 7
               %r = i64 -1
               %in = icmp ult i64 %m, 5
               if %in { %r = i64 %m })");
           return permute(addI(), fill({5}, Scalar(100)), Some, In[0]);
         },
         {ints({N})});
  }
  for (int64_t Rows : RowCounts) {
    same(fmt::format("transpose {}x3", Rows),
         [](auto &In) { return transpose(In[0]); }, {ints({Rows, 3})});
    same(fmt::format("backpermute swapping indices {}x4", Rows),
         [&](auto &In) { return backpermute({4, Rows}, Swap, In[0]); },
         {ints({Rows, 4})});
    same(fmt::format("permute into a matrix {}x3", Rows),
         [&](auto &In) {
           Fn ToSwap = LLQ_FN("{ i64, i64 } (i64 %i, i64 %j)", R"(
               %a = insertvalue { i64, i64 } undef, i64 %j, 0
               %r = insertvalue { i64, i64 } %a, i64 %i, 1)");
           return permute(addI(), fill({3, Rows}, Scalar(0)), ToSwap, In[0]);
         },
         {ints({Rows, 3})});
  }
}

TEST_CASE("the rest of the language: more operands, more results") {
  Fn Add3 = LLQ_FN("i32 (i32 %a, i32 %b, i32 %c)", R"(%s = add i32 %a, %b
      %r = add i32 %s, %c)");
  Fn Mix4 = LLQ_FN("float (float %a, float %b, float %c, float %d)", R"(
      %s = fmul float %a, %b
      %t = fmul float %c, %d
      %r = fsub float %s, %t)");
  Fn IMix = LLQ_FN("i32 (i64 %i, i32 %a, i32 %b)", R"(%t = trunc i64 %i to i32
      %s = mul i32 %a, %b
      %r = add i32 %s, %t)");
  Fn Pos = LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 0");
  Fn Mul = LLQ_FN("i32 (i32 %a, i32 %b)", R"(%m = srem i32 %a, 7
      %n = srem i32 %b, 7
      %r = mul i32 %m, %n)");
  Fn Diff2 = LLQ_FN("float (float %a0, float %a1, float %a2, float %b0, "
                    "float %b1, float %b2)", R"(%s = fadd float %a0, %a2
      %t = fsub float %b1, %s
      %u = fadd float %t, %a1
      %r = fadd float %u, %b0)");
  for (int64_t N : {0, 1, 5, 17, 1000}) {
    auto Name = [&](const char *S) { return fmt::format("{} {}", S, N); };
    same(Name("zipWith of three"),
         [&](auto &In) { return zipWith(Add3, In[0], In[1], In[2]); },
         {ints({N}), ints({N}, 1), ints({N}, 2)});
    same(Name("zipWith of four"),
         [&](auto &In) { return zipWith(Mix4, In[0], In[1], In[2], In[3]); },
         {floats({N}), floats({N}, 1), floats({N}, 2), floats({N}, 3)});
    same(Name("izipWith"), [&](auto &In) { return izipWith(IMix, In[0], In[1]); },
         {ints({N}), ints({N}, 5)});
    same(Name("unzip"), [&](auto &In) { return unzip(zip(In[0], In[1]))[0]; },
         {ints({N}), floats({N})});
    same(Name("product"), [&](auto &In) { return product(map(LLQ_FN("i32 (i32 %x)", R"(%m = srem i32 %x, 3
        %r = add i32 %m, 2)"), In[0])); }, {ints({N})});
    same(Name("minimum"), [](auto &In) { return minimum(In[0]); }, {floats({N})});
    same(Name("all"), [&](auto &In) { return all(Pos, In[0]); }, {ints({N})});
    same(Name("any"), [&](auto &In) { return any(Pos, In[0]); }, {ints({N})});
    same(Name("fold with a function of two folds"),
         [&](auto &In) { return foldAll(Mul, Scalar(1), zipWith(Mul, In[0], In[1])); },
         {ints({N}), ints({N}, 3)});
    // The second array laid out otherwise (scanl's extra element sits on
    // the last rank): its rows here are fetched, not taken as they are.
    same(Name("stencil2 of arrays laid out differently"),
         [&](auto &In) {
           return stencil2(Diff2, {3}, Boundary::clamp(), In[0], {3},
                           Boundary::mirror(), scanl(addF(), 0.5f, In[1]));
         },
         {floats({N + 1}), floats({N}, 4)}, 1e-4);
    // Whole on every rank: cuts, joins and reshapes of the rows.
    same(Name("take and drop"),
         [](auto &In) { return drop(2, take(std::max<int64_t>(0, In[0].shape().extent(0) - 1), In[0])); },
         {ints({N})}, 1e-5, Way::Whole);
    same(Name("enumFromN of integers"),
         [&](auto &) { return enumFromN({N}, Scalar(int32_t(7))); }, {});
    same(Name("enumFromN wrapping around"),
         [&](auto &) { return enumFromN({N}, Scalar(uint8_t(250))); }, {});
    same(Name("enumFromN of floats"),
         [&](auto &) { return enumFromN({N}, Scalar(0.5f)); }, {}, 1e-5,
         Way::Whole);
    same(Name("filter"), [&](auto &In) { return filter(Pos, In[0]); }, {ints({N})},
         1e-5, Way::Whole);
    same(Name("compact"),
         [&](auto &In) { return compact(map(Pos, In[1]), In[0]); },
         {ints({N}), ints({N}, 7)}, 1e-5, Way::Whole);
    same(Name("and_ and or_"),
         [&](auto &In) {
           return zipWith(LLQ_FN("i1 (i1 %a, i1 %b)", "%r = xor i1 %a, %b"),
                          and_(map(Pos, In[0])), or_(map(Pos, In[0])));
         },
         {ints({N})});
    if (N > 1) {
      same(Name("init and tail"), [](auto &In) { return tail(init(In[0])); },
           {ints({N})}, 1e-5, Way::Whole);
      same(Name("replicate"), [](auto &In) { return replicate(3, In[0]); },
           {ints({N})}, 1e-5, Way::Whole);
    }
  }
  for (int64_t Rows : RowCounts) {
    auto Name = [&](const char *S) { return fmt::format("{} {}x6", S, Rows); };
    same(Name("stencil2"),
         [&](auto &In) {
           return stencil2(Diff2, {1, 3}, Boundary::clamp(), In[0], {3, 1},
                           Boundary::mirror(), In[1]);
         },
         {floats({Rows, 6}), floats({Rows, 6}, 4)});
    same(Name("fold1 of rows"), [](auto &In) { return fold1(addI(), In[0]); },
         {ints({Rows, 6})});
    same(Name("scanl' of rows, first"),
         [](auto &In) { return scanlPrime(addI(), Scalar(4), In[0]).first; },
         {ints({Rows, 6})});
    same(Name("scanl' of rows, totals"),
         [](auto &In) { return scanlPrime(addI(), Scalar(4), In[0]).second; },
         {ints({Rows, 6})});
    same(Name("reshape to a vector, then sum"),
         [](auto &In) { return sum(reshape({In[0].shape().size()}, In[0])); },
         {ints({Rows, 6})});
    same(Name("slice of a row"), [](auto &In) { return slice(In[0], 0); },
         {ints({Rows, 6})}, 1e-5, Way::Whole);
    same(Name("take and drop of rows"),
         [](auto &In) { return drop(1, take(4, In[0])); }, {ints({Rows, 6})});
    same(Name("init and tail of rows"),
         [](auto &In) { return map(LLQ_FN("i32 (i32 %x)", "%r = add i32 %x, 1"),
                                   tail(init(In[0]))); },
         {ints({Rows, 6})});
    same(Name("concat of rows"),
         [](auto &In) { return concat(In[0], map(LLQ_FN("i32 (i32 %x)", "%r = mul i32 %x, 3"), In[1])); },
         {ints({Rows, 6}), ints({Rows, 2}, 9)});
    same(Name("enumFromN of a matrix"),
         [&](auto &) { return enumFromN({Rows, 6}, Scalar(int64_t(-40))); }, {});
  }
}

TEST_CASE("operations computed whole on every rank give the same results") {
  for (int64_t N : {0, 1, 5, 1000})
    same(fmt::format("concat {}", N),
         [](auto &In) { return concat(In[0], In[1]); },
         {ints({N}), ints({3}, 4)}, 1e-5, Way::Whole);
  // Segments that cross the blocks' boundaries.
  Array<> Segs(fromVector(std::vector<int32_t>{3, 0, 4, 3}).shared());
  Array<> Full(fromVector(std::vector<int32_t>{3, 1, 4, 2}).shared());
  same("segmented fold", [](auto &In) { return foldSeg(addI(), Scalar(7), In[0], In[1]); },
       {ints({10}), Segs});
  same("fold1Seg", [](auto &In) { return fold1Seg(addI(), In[0], In[1]); },
       {ints({10}), Full});
  // Many segments, some empty, some long, some crossing every block; and
  // a function that is not commutative.
  for (int64_t N : {0, 1, 7, 1000, 4099}) {
    std::vector<int64_t> Lens;
    for (int64_t Left = N, K = 0; Left > 0; ++K) {
      int64_t L = std::min(Left, K % 5 == 0 ? 0 : (K * 37) % 23 + (K % 7 == 0 ? 900 : 0));
      Lens.push_back(L);
      Left -= L;
    }
    Lens.push_back(0);
    Array<> LensA(fromVector(Lens).shared());
    same(fmt::format("foldSeg of {} in {} segments", N, Lens.size()),
         [](auto &In) { return foldSeg(addI(), Scalar(-3), In[0], In[1]); },
         {ints({N}), LensA});
    same(fmt::format("foldSeg, not commutative, {}", N),
         [&](auto &In) {
           return foldSeg(affine(), Scalar(std::tuple<int32_t, int32_t>(1, 0)),
                          affinePairs(In[0]), In[1]);
         },
         {ints({N}), LensA});
  }
  same("scanlSeg", [](auto &In) { return scanlSeg(addI(), Scalar(2), In[0], In[1]); },
       {ints({10}), Segs}, 1e-5, Way::Whole);
  same("scanrSeg", [](auto &In) { return scanrSeg(addI(), Scalar(2), In[0], In[1]); },
       {ints({10}), Segs}, 1e-5, Way::Whole);
}

TEST_CASE("a loop and a choice over distributed arrays") {
  Fn Half = LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 %x, 2");
  Fn Big = LLQ_FN("i1 (i32 %x)", "%r = icmp sgt i32 %x, 3");
  for (int64_t N : {1, 7, 100}) {
    same(fmt::format("awhile {}", N),
         [&](auto &In) {
           return awhile([&](const Acc &X) { return any(Big, X); },
                         [&](const Acc &X) { return map(Half, X); }, In[0]);
         },
         {ints({N})});
    same(fmt::format("acond {}", N),
         [&](auto &In) { return acond(any(Big, In[0]), map(Half, In[0]), In[0]); },
         {ints({N})});
  }
}

TEST_CASE("ways in and out") {
  mpi::Runtime &M = *TheRuntime;
  // Each rank gives its own block, of a different length.
  std::vector<int32_t> Mine(size_t(M.rank() + 1), M.rank());
  DArray D = M.fromBlocks(fromVector(Mine));
  CHECK(D.shape().extent(0) == int64_t(M.size()) * (M.size() + 1) / 2);
  CHECK(D.firstRow() == int64_t(M.rank()) * (M.rank() + 1) / 2);
  Array<> S = M.run(sum(D)).local();
  int64_t Want = 0;
  for (int R = 0; R < M.size(); ++R)
    Want += int64_t(R) * (R + 1);
  CHECK(S.as<int32_t>().scalar() == Want);
  // gather gives the whole array on the root only.
  Array<> G = M.gather(D, M.size() - 1);
  CHECK(bool(G.shared()) == (M.rank() == M.size() - 1));
  // distribute keeps a share of an array every rank has, in place.
  Array<> X = ints({11});
  DArray E = M.distribute(X);
  CHECK(E.local().size() == E.layout().rowsOf(M.rank()));
  if (E.local().size() > 0)
    CHECK(E.local().raw().data(0) ==
          static_cast<const int32_t *>(X.raw().data(0)) + E.firstRow());
}

TEST_CASE("mistakes are the same error on every rank, and no rank waits") {
  mpi::Runtime &M = *TheRuntime;
  // Blocks that disagree in their inner extents.
  std::vector<int64_t> E = {1, M.rank() == 0 ? 3 : 4};
  if (M.size() > 1)
    CHECK_THROWS_WITH(M.fromBlocks(ints(E)),
                      doctest::Contains("another element type or inner extents"));
  // A failure during the run on one rank only: a division by zero where
  // checks are on, in the rows of whichever rank holds element 0.
  RuntimeOptions O;
  O.Checks = true;
  mpi::Runtime Checked(M.comm(), O);
  Fn Div = LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 100, %x");
  std::vector<int32_t> V(9, 5);
  V[0] = 0;
  DArray D = Checked.scatter(fromVector(V));
  std::string Msg;
  try {
    Checked.run(map(Div, D));
  } catch (const ArrayError &Err) {
    Msg = Err.what();
  }
  CHECK(Msg.find("division") != std::string::npos);
  // Everyone has the same message.
  int Len = int(Msg.size()), Max = 0;
  MPI_Allreduce(&Len, &Max, 1, MPI_INT, MPI_MAX, M.comm());
  CHECK(Len == Max);
  // An index function that leaves its source, on whichever rank meets it.
  Fn Past = LLQ_FN("i64 (i64 %i)", "%r = add i64 %i, 1");
  CHECK_THROWS_WITH(M.run(backpermute({9}, Past, D)),
                    doctest::Contains("outside the source of shape [9]"));
  // Segments that do not add up: found by every rank alike.
  DArray Xs = Checked.scatter(ints({10}));
  CHECK_THROWS_WITH(
      Checked.run(foldSeg(addI(), Scalar(0), Xs,
                          Array<>(fromVector(std::vector<int32_t>{3, 4}).shared()))),
      doctest::Contains("the segments add up to 7"));
  // A function of the wrong type: a mistake in the expression, thrown by
  // every rank before any communication.
  CHECK_THROWS_WITH(Checked.run(map(addF(), Xs)),
                    doctest::Contains("map"));
  // A distributed array run by a Runtime of another communicator.
  if (M.size() > 1) {
    MPI_Comm Half;
    MPI_Comm_split(M.comm(), M.rank() % 2, M.rank(), &Half);
    {
      mpi::Runtime Other(Half);
      if (Other.size() != M.size())
        CHECK_THROWS_WITH(Other.run(map(Div, D)),
                          doctest::Contains("a distributed array of"));
    }
    MPI_Comm_free(&Half);
  }
  CHECK_THROWS_WITH(mpi::Runtime(MPI_COMM_NULL),
                    doctest::Contains("MPI_COMM_NULL"));
  // A plain Runtime refuses a distributed array, with a message that says
  // what to do.
  CHECK_THROWS_WITH(reference().run(map(Div, D)),
                    doctest::Contains("llq::mpi::Runtime"));
}

TEST_CASE("a kernel is compiled once for the job when ranks share a disk "
          "cache") {
  mpi::Runtime &M = *TheRuntime;
  // A fresh cache directory, made by rank 0, for every rank.
  std::string Dir;
  if (M.rank() == 0) {
    char Template[] = "/tmp/llquote-mpi-cache-XXXXXX";
    Dir = mkdtemp(Template) ? Template : "";
  }
  int Len = int(Dir.size());
  MPI_Bcast(&Len, 1, MPI_INT, 0, M.comm());
  Dir.resize(size_t(Len));
  MPI_Bcast(Dir.data(), Len, MPI_CHAR, 0, M.comm());
  REQUIRE(!Dir.empty());
  RuntimeOptions O;
  O.Threads = 1;
  O.DiskCache = true;
  O.CacheDir = Dir;
  mpi::Runtime Shared(M.comm(), O);
  Fn Cube = LLQ_FN("i64 (i64 %x)", R"(%a = mul i64 %x, %x
      %r = mul i64 %a, %x)");
  DArray X = Shared.scatter(
      Array<>(fromVector(std::vector<int64_t>(1000, 3)).shared()));
  MPI_Barrier(M.comm()); // All at once: they race for the compile.
  DArray Y = Shared.run(map(Cube, X));
  RuntimeStats St = Shared.local().stats();
  int Compiled = int(St.KernelsBuilt - St.KernelsFromDisk), Total = 0;
  MPI_Allreduce(&Compiled, &Total, 1, MPI_INT, MPI_SUM, M.comm());
  CHECK(Total == 1);
  CHECK(M.allgather(Y).as<int64_t>().toVector() ==
        std::vector<int64_t>(1000, 27));
  MPI_Barrier(M.comm());
  if (M.rank() == 0)
    std::filesystem::remove_all(Dir);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Code = 0;
  {
    RuntimeOptions O;
    O.Threads = 1;
    mpi::Runtime M(MPI_COMM_WORLD, O);
    TheRuntime = &M;
    doctest::Context Ctx(argc, argv);
    Code = Ctx.run();
    TheRuntime = nullptr;
  }
  // A failure on any rank fails the test.
  int Any = 0;
  MPI_Allreduce(&Code, &Any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return Any;
}
