//===- CacheTests.cpp - The kernel cache stays bounded in a long run ------===//
//
// A service that builds array programs from its input compiles new kernels
// for as long as it runs. With RuntimeOptions::MaxKernels the Runtime keeps
// at most that many in memory, freeing the least recently used one's code
// through ORC; a kernel that a run is using is never removed, and one that
// was removed is compiled again, or loaded from the disk cache, when it is
// needed again.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/Skeletons.h"
#include "llvm/Support/FileSystem.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <doctest/doctest.h>
#include <fstream>
#include <string>
#include <thread>

using namespace llq;

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LLQ_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LLQ_TEST_SANITIZED 1
#endif

/// Distinct kernels to compile: a sanitized build compiles ten times slower.
#ifdef LLQ_TEST_SANITIZED
constexpr int NumKernels = 600;
#else
constexpr int NumKernels = 2000;
#endif

/// The resident set size of this process, in kB (VmRSS in /proc/self/status).
long residentKB() {
  std::ifstream In("/proc/self/status");
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("VmRSS:", 0) == 0)
      return std::atol(Line.c_str() + 6);
  return -1;
}

/// A function of its own text for each K, and so a kernel of its own.
Fn addK(int K) {
  return Fn("i64 (i64 %x)", "%r = add i64 %x, " + std::to_string(K),
            __FILE__, __LINE__);
}

struct TempDir {
  std::string Path;
  TempDir() {
    llvm::SmallString<128> P;
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("llquote-cache-test", P));
    Path = std::string(P);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
};

} // namespace

TEST_CASE("thousands of kernels under a bound of 100: memory levels off, "
          "results stay right") {
  TempDir Dir;
  RuntimeOptions O;
  O.MaxKernels = 100;
  O.Threads = 2;
  O.DiskCache = true;
  O.CacheDir = Dir.Path;
  Runtime R(O);
  Acc X = enumFromN({64}, int64_t(0));
  // RSS after each tenth of the kernels.
  std::vector<long> RSS;
  for (int K = 0; K < NumKernels; ++K) {
    std::vector<int64_t> Got = R.run<int64_t>(map(addK(K), X)).toVector();
    REQUIRE(Got.size() == 64);
    CHECK(Got[0] == K);
    CHECK(Got[63] == 63 + K);
    if ((K + 1) % (NumKernels / 10) == 0)
      RSS.push_back(residentKB());
  }
  RuntimeStats S = R.stats();
  CHECK(S.KernelsBuilt == uint64_t(NumKernels));
  CHECK(S.KernelsResident == 100);
  CHECK(S.KernelsEvicted == uint64_t(NumKernels - 100));
  // Levelling off: over the second half the process grows by less than
  // 1 kB a kernel. Kept, each of these kernels costs about 10 kB resident
  // (2000 of them without a bound: +19 MB, against +0.2 MB with one), and a
  // fused kernel of real work several times that. A sanitizer's quarantine
  // keeps freed memory resident on purpose: there only the counts hold.
  MESSAGE("resident kB after each tenth of the kernels: "
          << RSS[0] << " " << RSS[1] << " " << RSS[2] << " " << RSS[3] << " "
          << RSS[4] << " " << RSS[5] << " " << RSS[6] << " " << RSS[7] << " "
          << RSS[8] << " " << RSS[9]);
  long SecondHalf = RSS[9] - RSS[4];
#ifndef LLQ_TEST_SANITIZED
  CHECK(SecondHalf < NumKernels / 2);
#else
  (void)SecondHalf;
#endif
  // An evicted kernel is loaded from the disk cache when it is needed
  // again, and computes the same.
  CHECK(R.run<int64_t>(map(addK(0), X)).toVector()[5] == 5);
  CHECK(R.stats().KernelsBuilt == uint64_t(NumKernels + 1));
  CHECK(R.stats().KernelsFromDisk == 1);
  // A recent one is still in memory: found by structure.
  uint64_t Hits = R.stats().KernelHits;
  CHECK(R.run<int64_t>(map(addK(NumKernels - 1), X)).toVector()[1] ==
        NumKernels);
  CHECK(R.stats().KernelHits == Hits + 1);
}

TEST_CASE("a kernel that a run is using is never evicted") {
  // A bound of one, two threads each running their own kernels over and
  // over: every compile evicts, but never the other thread's kernel while
  // it runs (its code would be freed under it).
  RuntimeOptions O;
  O.MaxKernels = 1;
  O.DiskCache = false;
  O.Threads = 2;
  Runtime R(O);
  std::atomic<int> Wrong{0};
  auto Work = [&](int Base) {
    Acc X = enumFromN({100000}, int64_t(0));
    for (int Round = 0; Round < 12; ++Round) {
      int K = Base + Round % 3;
      Acc Sum = foldAll(LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b"),
                        int64_t(0), map(addK(K), X));
      int64_t Want = 99999LL * 100000 / 2 + 100000LL * K;
      if (R.run<int64_t>(Sum).toVector()[0] != Want)
        ++Wrong;
    }
  };
  std::thread A(Work, 1000), B(Work, 2000);
  A.join();
  B.join();
  CHECK(Wrong == 0);
  CHECK(R.stats().KernelsResident <= 2);
  CHECK(R.stats().KernelsEvicted > 0);
}

TEST_CASE("no bound, and a bad LLQ_CACHE_MEMORY") {
  RuntimeOptions O;
  O.MaxKernels = 0;
  O.DiskCache = false;
  Runtime R(O);
  Acc X = enumFromN({8}, int64_t(0));
  for (int K = 0; K < 30; ++K)
    R.run(map(addK(5000 + K), X));
  CHECK(R.stats().KernelsResident == 30);
  CHECK(R.stats().KernelsEvicted == 0);

  setenv("LLQ_CACHE_MEMORY", "12k", 1);
  CHECK_THROWS_WITH_AS(Runtime(), doctest::Contains("LLQ_CACHE_MEMORY='12k'"),
                       ArrayError);
  setenv("LLQ_CACHE_MEMORY", "7", 1);
  Runtime Seven;
  for (int K = 0; K < 10; ++K)
    Seven.run(map(addK(6000 + K), X));
  CHECK(Seven.stats().KernelsResident == 7);
  unsetenv("LLQ_CACHE_MEMORY");
}

TEST_CASE("a pipeline run again reuses its intermediate's storage") {
  // A stencil over a stencil: the inner result (4 MiB) is an intermediate
  // that dies at the end of each run, and the next run's comes from it.
  auto Avg = LLQ_FN("float (float %a, float %b, float %c)", R"(
    %s = fadd float %a, %b
    %t = fadd float %s, %c
    %r = fmul float %t, 0.25)");
  std::vector<float> Xs(1 << 20);
  for (size_t I = 0; I < Xs.size(); ++I)
    Xs[I] = float(I % 17);
  Acc X = fromVector(Xs);
  Acc Twice = stencil(Avg, Boundary::clamp(), stencil(Avg, Boundary::clamp(), X));
  for (uint64_t PoolBytes : {uint64_t(256) << 20, uint64_t(0)}) {
    RuntimeOptions O;
    O.PoolBytes = PoolBytes;
    O.DiskCache = false;
    Runtime R(O);
    std::vector<float> First = R.run<float>(Twice).toVector();
    for (int Round = 0; Round < 3; ++Round)
      CHECK(R.run<float>(Twice).toVector() == First);
    if (PoolBytes)
      CHECK(R.stats().BuffersReused >= 3);
    else
      CHECK(R.stats().BuffersReused == 0);
    // The values: each is a weighted average of its neighbours.
    CHECK(First[100] == doctest::Approx((Xs[98] + 2 * Xs[99] + 3 * Xs[100] +
                                        2 * Xs[101] + Xs[102]) /
                                       16.0f));
  }
  setenv("LLQ_POOL_BYTES", "lots", 1);
  CHECK_THROWS_WITH_AS(Runtime(), doctest::Contains("LLQ_POOL_BYTES='lots'"),
                       ArrayError);
  unsetenv("LLQ_POOL_BYTES");
}
