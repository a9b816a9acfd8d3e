//===- SchedulerBench.cpp - Gang launch overhead and scaling --------------===//
//
// Measures, in one run, the gang scheduler against two baselines:
//   - launch overhead of an empty kernel over 1 element and over 1M elements,
//     against a plain pool of N std::threads (a mutex and two condition
//     variables, the textbook fork-join) and, when OpenMP is available, an
//     OpenMP `parallel for` over N chunks;
//   - a compute-bound kernel on a one-thread gang against an all-threads one.
// After the usual table it prints the ratios between those measurements;
// the ratios, not the bare times, are the result.
//
// N is Gang::defaultNumThreads(), so LLQ_NUM_THREADS changes it. Before
// running, it samples /proc/stat and says so when fewer cores are idle than
// N: the multi-thread figures then measure time-sharing, not scaling.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Scheduler.h"
#include "RatioReporter.h"
#include <benchmark/benchmark.h>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
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

/// The baseline a careful programmer writes without a scheduler: N threads
/// started once, woken for each parallel loop, each running one chunk.
class ThreadPool {
public:
  explicit ThreadPool(unsigned N) : N(N) {
    for (unsigned I = 0; I < N; ++I)
      Workers.emplace_back([this, I] { work(I); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> L(M);
      Stop = true;
      ++Generation;
    }
    Wake.notify_all();
    for (std::thread &T : Workers)
      T.join();
  }

  /// Runs Kernel over [0, End) in N chunks and returns when all are done.
  void run(void (*Kernel)(int64_t, int64_t, void *), int64_t End, void *Args) {
    {
      // The job is published under the mutex, with a new generation number,
      // so that a worker that wakes (or was never asleep) sees the whole job
      // and runs it exactly once.
      std::lock_guard<std::mutex> L(M);
      Job = {Kernel, End, Args};
      Pending = N;
      ++Generation;
    }
    Wake.notify_all();
    // Pending is decremented under the same mutex, so the caller cannot miss
    // the last worker's notification between its test and its wait.
    std::unique_lock<std::mutex> L(M);
    Finished.wait(L, [this] { return Pending == 0; });
  }

private:
  struct Task {
    void (*Kernel)(int64_t, int64_t, void *) = nullptr;
    int64_t End = 0;
    void *Args = nullptr;
  };

  void work(unsigned I) {
    uint64_t Seen = 0;
    for (;;) {
      Task T;
      {
        std::unique_lock<std::mutex> L(M);
        // Waiting on the generation, not on a flag, keeps a spurious wake-up
        // or a late worker from running a job twice or skipping one.
        Wake.wait(L, [&] { return Generation != Seen; });
        Seen = Generation;
        if (Stop)
          return;
        T = Job;
      }
      T.Kernel(T.End * I / N, T.End * (I + 1) / N, T.Args);
      std::lock_guard<std::mutex> L(M);
      if (--Pending == 0)
        Finished.notify_one();
    }
  }

  unsigned N;
  std::vector<std::thread> Workers;
  std::mutex M;
  std::condition_variable Wake, Finished;
  Task Job;
  unsigned Pending = 0;
  uint64_t Generation = 0;
  bool Stop = false;
};

void BM_ThreadPool_Empty(benchmark::State &State) {
  static ThreadPool Pool(threadCount());
  int64_t N = State.range(0);
  for (auto _ : State)
    Pool.run(emptyKernel, N, nullptr);
}

/// Cores idle over a short sample of /proc/stat, or -1 if it is unreadable.
double idleCores() {
  auto Read = [](std::vector<uint64_t> &Idle, std::vector<uint64_t> &Total) {
    std::ifstream In("/proc/stat");
    std::string Line;
    while (std::getline(In, Line)) {
      if (Line.compare(0, 3, "cpu") != 0 || Line.size() < 4 || Line[3] == ' ')
        continue; // Not a line for one core.
      std::istringstream S(Line.substr(Line.find(' ')));
      uint64_t V, Sum = 0, IdleTime = 0;
      for (int F = 0; S >> V; ++F) {
        Sum += V;
        if (F == 3 || F == 4) // idle, iowait
          IdleTime += V;
      }
      Idle.push_back(IdleTime);
      Total.push_back(Sum);
    }
  };
  std::vector<uint64_t> I0, T0, I1, T1;
  Read(I0, T0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Read(I1, T1);
  if (I0.empty() || I0.size() != I1.size())
    return -1;
  double Cores = 0;
  for (size_t C = 0; C < I0.size(); ++C)
    if (T1[C] > T0[C])
      Cores += double(I1[C] - I0[C]) / double(T1[C] - T0[C]);
  return Cores;
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
  benchmark::RegisterBenchmark("BM_ThreadPool_Empty", BM_ThreadPool_Empty)
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
  std::vector<std::string> Storage;
  if (!llq::bench::initialize(argc, argv, Storage))
    return 1;
  std::string Threads = std::to_string(threadCount());
  double Idle = idleCores();
  std::string Warning;
  if (Idle >= 0 && Idle + 0.5 < threadCount()) {
    char Buf[256];
    std::snprintf(Buf, sizeof Buf,
                  "\nWARNING: %.1f cores idle before the run, fewer than the "
                  "%u threads asked: the multi-thread figures measure "
                  "time-sharing, not scaling.",
                  Idle, threadCount());
    Warning = Buf;
    std::printf("%s\n\n", Warning.c_str());
  }
  llq::bench::RatioReporter Reporter(
      Warning + "\nRatios (same run, " + Threads +
          " threads; > 1 means the gang is faster):",
      58, 8, 2, [Threads](llq::bench::RatioReporter &R) {
        for (std::string N : {"1", "1048576"}) {
          std::string Gang = "BM_Gang_Empty/" + N;
          R.ratio("std::thread pool / gang, empty kernel over " + N,
                  "BM_ThreadPool_Empty/" + N, Gang);
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
