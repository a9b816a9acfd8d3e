//===- SchedulerBench.cpp - Gang launch overhead and scaling --------------===//
//
// Measures, in one run, the gang scheduler against two baselines:
//   - launch overhead of an empty kernel over 1 element and over 1M elements,
//     against a plain std::thread fork-join (spawn and join N threads) and,
//     when OpenMP is available, an OpenMP `parallel for` over N chunks;
//   - a compute-bound kernel on a one-thread gang against an all-threads one.
// After the usual table it prints the ratios between those measurements;
// the ratios, not the bare times, are the result.
//
// N is Gang::defaultNumThreads(), so LLQ_NUM_THREADS changes it.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Scheduler.h"
#include "RatioReporter.h"
#include <benchmark/benchmark.h>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>
#ifdef LLQ_HAVE_OPENMP
#include <omp.h>
#endif

using namespace llq::rt;

namespace {

/// Does nothing, but the compiler cannot know that at the call sites.
__attribute__((noinline)) void emptyKernel(int64_t Start, int64_t End,
                                           void *Args) {
  benchmark::DoNotOptimize(Start);
  benchmark::DoNotOptimize(End);
  benchmark::DoNotOptimize(Args);
}

/// About 100 ns of integer work per element, no memory traffic to speak of.
void computeKernel(int64_t Start, int64_t End, void *Args) {
  auto *Out = static_cast<uint64_t *>(Args);
  for (int64_t I = Start; I < End; ++I) {
    uint64_t X = uint64_t(I);
    for (int R = 0; R < 64; ++R) {
      X ^= X >> 31;
      X *= 0x9E3779B97F4A7C15ull;
      X ^= X >> 29;
    }
    Out[I] = X;
  }
}

unsigned threadCount() { return Gang::defaultNumThreads(); }

Gang &sharedGang() {
  static Gang G(threadCount());
  return G;
}

void BM_Gang_Empty(benchmark::State &State) {
  Gang &G = sharedGang();
  int64_t N = State.range(0);
  for (auto _ : State) {
    Status S = G.parallelFor(0, N, emptyKernel, nullptr);
    benchmark::DoNotOptimize(S);
  }
}

void BM_ThreadForkJoin_Empty(benchmark::State &State) {
  unsigned T = threadCount();
  int64_t N = State.range(0);
  std::vector<std::thread> Threads;
  Threads.reserve(T);
  for (auto _ : State) {
    for (unsigned I = 0; I < T; ++I)
      Threads.emplace_back(emptyKernel, N * I / T, N * (I + 1) / T, nullptr);
    for (std::thread &Th : Threads)
      Th.join();
    Threads.clear();
  }
}

#ifdef LLQ_HAVE_OPENMP
void BM_OpenMP_Empty(benchmark::State &State) {
  int T = int(threadCount());
  int64_t N = State.range(0);
  for (auto _ : State) {
#pragma omp parallel for num_threads(T) schedule(static)
    for (int I = 0; I < T; ++I)
      emptyKernel(N * I / T, N * (I + 1) / T, nullptr);
  }
}
#endif

void BM_Gang_Compute(benchmark::State &State) {
  unsigned T = unsigned(State.range(0));
  Gang G(T);
  const int64_t N = 1 << 18;
  std::vector<uint64_t> Out(N);
  for (auto _ : State) {
    Status S = G.parallelFor(0, N, computeKernel, Out.data(), /*MinGrain=*/256);
    benchmark::DoNotOptimize(S);
    benchmark::ClobberMemory();
  }
  State.SetItemsProcessed(State.iterations() * N);
}

#ifdef LLQ_HAVE_OPENMP
void BM_OpenMP_Compute(benchmark::State &State) {
  int T = int(State.range(0));
  const int64_t N = 1 << 18;
  std::vector<uint64_t> Out(N);
  for (auto _ : State) {
#pragma omp parallel for num_threads(T) schedule(static)
    for (int I = 0; I < T; ++I)
      computeKernel(N * I / T, N * (I + 1) / T, Out.data());
    benchmark::ClobberMemory();
  }
  State.SetItemsProcessed(State.iterations() * N);
}
#endif

} // namespace

int main(int argc, char **argv) {
  int64_t Max = threadCount();
  benchmark::RegisterBenchmark("BM_Gang_Empty", BM_Gang_Empty)
      ->Arg(1)
      ->Arg(1 << 20)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_ThreadForkJoin_Empty",
                               BM_ThreadForkJoin_Empty)
      ->Arg(1)
      ->Arg(1 << 20)
      ->UseRealTime();
#ifdef LLQ_HAVE_OPENMP
  benchmark::RegisterBenchmark("BM_OpenMP_Empty", BM_OpenMP_Empty)
      ->Arg(1)
      ->Arg(1 << 20)
      ->UseRealTime();
#endif
  benchmark::RegisterBenchmark("BM_Gang_Compute", BM_Gang_Compute)
      ->Arg(1)
      ->Arg(Max)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
#ifdef LLQ_HAVE_OPENMP
  benchmark::RegisterBenchmark("BM_OpenMP_Compute", BM_OpenMP_Compute)
      ->Arg(1)
      ->Arg(Max)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  std::string Threads = std::to_string(threadCount());
  llq::bench::RatioReporter Reporter(
      "Ratios (same run, " + Threads + " threads; > 1 means the gang is faster):",
      58, 8, 2, [Threads](llq::bench::RatioReporter &R) {
        for (std::string N : {"1", "1048576"}) {
          std::string Gang = "BM_Gang_Empty/" + N;
          R.ratio("std::thread fork-join / gang, empty kernel over " + N,
                  "BM_ThreadForkJoin_Empty/" + N, Gang);
          R.ratio("OpenMP parallel for / gang, empty kernel over " + N,
                  "BM_OpenMP_Empty/" + N, Gang);
        }
        R.ratio("gang speedup, compute kernel, " + Threads + " threads vs 1",
                "BM_Gang_Compute/1", "BM_Gang_Compute/" + Threads);
        R.ratio("OpenMP speedup, compute kernel, " + Threads + " threads vs 1",
                "BM_OpenMP_Compute/1", "BM_OpenMP_Compute/" + Threads);
        R.ratio("OpenMP / gang, compute kernel, " + Threads + " threads",
                "BM_OpenMP_Compute/" + Threads, "BM_Gang_Compute/" + Threads);
      });
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  benchmark::Shutdown();
  return 0;
}
