//===- SchedulerTests.cpp - Scenarios for the gang scheduler --------------===//
//
// Each test is named after the scenario it runs and checks exact results.
// Gangs are given explicit thread counts of 2 or more, so that the parallel
// paths run even on a one-core machine; oversubscribing the two cores of CI
// also shakes out orderings a quiet machine would not produce.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Scheduler.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <doctest/doctest.h>
#include <functional>
#include <mutex>
#include <numeric>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace llq::rt;

namespace {

GangOptions withThreads(unsigned N, unsigned Spin = 4096) {
  GangOptions O;
  O.NumThreads = N;
  O.SpinIterations = Spin;
  return O;
}

/// Runs Jobs back-to-back jobs over [0, Width) and returns how many
/// (job, index) pairs did not run exactly once.
int64_t runTinyJobs(Gang &G, int Jobs, int64_t Width) {
  std::vector<std::atomic<int>> Hits(static_cast<size_t>(Width));
  int64_t Wrong = 0;
  for (int J = 0; J < Jobs; ++J) {
    for (auto &H : Hits)
      H.store(0, std::memory_order_relaxed);
    G.parallelFor(0, Width, [&](int64_t Start, int64_t End) {
      for (int64_t I = Start; I < End; ++I)
        Hits[size_t(I)].fetch_add(1, std::memory_order_relaxed);
    });
    for (auto &H : Hits)
      Wrong += H.load(std::memory_order_relaxed) != 1;
  }
  return Wrong;
}

/// Polls Ready until it holds or a generous deadline passes; false on
/// timeout, so that a scheduler bug fails the test instead of hanging it.
template <typename PredT> bool waitFor(PredT Ready) {
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!Ready()) {
    if (std::chrono::steady_clock::now() > Deadline)
      return false;
    std::this_thread::yield();
  }
  return true;
}

/// A deterministic amount of integer work: Rounds steps of a 64-bit mixer.
uint64_t mix(uint64_t X, int Rounds) {
  for (int R = 0; R < Rounds; ++R) {
    X ^= X >> 31;
    X *= 0x9E3779B97F4A7C15ull;
    X ^= X >> 29;
  }
  return X;
}

} // namespace

TEST_CASE("hundred_thousand_tiny_jobs_run_each_index_exactly_once") {
  Gang G(withThreads(3));
  CHECK(runTinyJobs(G, 100000, 16) == 0);
}

TEST_CASE("tiny_jobs_with_no_spinning_never_lose_a_wakeup") {
  // SpinIterations 0 sends every idle thread straight to sleep, so each job
  // goes through the sleep/wake handshake; a lost wake-up would hang here.
  Gang G(withThreads(3, /*Spin=*/0));
  CHECK(runTinyJobs(G, 20000, 16) == 0);
}

TEST_CASE("concurrent_callers_share_one_gang") {
  Gang G(withThreads(3, /*Spin=*/64));
  std::atomic<int64_t> Wrong{0};
  std::vector<std::thread> Callers;
  for (int C = 0; C < 3; ++C)
    Callers.emplace_back([&] { Wrong += runTinyJobs(G, 3000, 24); });
  for (std::thread &T : Callers)
    T.join();
  CHECK(Wrong.load() == 0);
}

TEST_CASE("uneven_work_with_slow_indices_gives_exact_results") {
  // Every 64th index does 1000 times the work of the others.
  const int64_t N = 20000;
  auto Rounds = [](int64_t I) { return I % 64 == 0 ? 5000 : 5; };
  std::vector<uint64_t> Out(N, 0);
  Gang G(withThreads(3));
  G.parallelFor(0, N, [&](int64_t Start, int64_t End) {
    for (int64_t I = Start; I < End; ++I)
      Out[size_t(I)] = mix(uint64_t(I), Rounds(I));
  });
  int64_t Wrong = 0;
  for (int64_t I = 0; I < N; ++I)
    Wrong += Out[size_t(I)] != mix(uint64_t(I), Rounds(I));
  CHECK(Wrong == 0);
}

TEST_CASE("every_thread_of_the_gang_joins_a_job_of_blocking_pieces") {
  // Three pieces, one per queue, each waiting for all three to have started:
  // this finishes only if both workers wake up and run concurrently with the
  // caller. Timing-free, so a loaded machine only makes it slower.
  Gang G(withThreads(3));
  std::atomic<int> Arrived{0};
  std::atomic<bool> TimedOut{false};
  std::mutex M;
  std::set<std::thread::id> Threads;
  G.parallelFor(0, 3, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> Lock(M);
      Threads.insert(std::this_thread::get_id());
    }
    ++Arrived;
    if (!waitFor([&] { return Arrived.load() == 3; }))
      TimedOut = true;
  });
  CHECK_FALSE(TimedOut.load());
  CHECK(Threads.size() == 3);
}

TEST_CASE("idle_worker_steals_from_a_blocked_callers_queue") {
  // Eight pieces, a block of four for the caller and four for the worker
  // (the broadcast slot's blocks; the queues deal them out alike). The
  // piece over [0, 2) waits until the seven others have run. Whichever
  // thread holds it, the other must run every remaining piece, including
  // some of the other thread's block: a steal.
  GangOptions O = withThreads(2);
  O.PiecesPerThread = 4;
  Gang G(O);
  std::atomic<int> OthersDone{0};
  std::atomic<bool> TimedOut{false};
  std::vector<std::atomic<int>> Hits(16);
  G.parallelFor(0, 16, [&](int64_t Start, int64_t End) {
    for (int64_t I = Start; I < End; ++I)
      Hits[size_t(I)]++;
    if (Start != 0)
      ++OthersDone;
    else if (!waitFor([&] { return OthersDone.load() == 7; }))
      TimedOut = true;
  });
  CHECK_FALSE(TimedOut.load());
  CHECK(OthersDone.load() == 7);
  int Wrong = 0;
  for (auto &H : Hits)
    Wrong += H.load() != 1;
  CHECK(Wrong == 0);
}

TEST_CASE("kernel_exception_reaches_caller_unchanged") {
  struct BadIndex : std::exception {
    explicit BadIndex(int64_t I) : Index(I) {}
    const char *what() const noexcept override { return "bad index"; }
    int64_t Index;
  };
  Gang G(withThreads(3));
  int64_t Caught = -1;
  try {
    G.parallelFor(0, 10000, [](int64_t Start, int64_t End) {
      if (Start <= 4242 && 4242 < End)
        throw BadIndex(4242);
    });
  } catch (const BadIndex &E) {
    Caught = E.Index;
  }
  CHECK(Caught == 4242);

  // The gang is still usable afterwards.
  std::atomic<int64_t> Sum{0};
  G.parallelFor(0, 1000, [&](int64_t Start, int64_t End) {
    for (int64_t I = Start; I < End; ++I)
      Sum += I;
  });
  CHECK(Sum.load() == 999 * 1000 / 2);
}

TEST_CASE("failed_job_runs_each_index_at_most_once_and_starts_no_next_phase") {
  Gang G(withThreads(3));
  std::vector<std::atomic<int>> Hits(5000);
  std::atomic<int> NextPhaseRuns{0};
  Job First;
  First.Begin = 0;
  First.End = 5000;
  First.Fn = [](int64_t Start, int64_t End, void *Args) {
    auto &H = *static_cast<std::vector<std::atomic<int>> *>(Args);
    for (int64_t I = Start; I < End; ++I)
      H[size_t(I)]++;
    if (Start == 0)
      llq_rt_report_error("first piece failed");
  };
  First.Args = &Hits;
  First.OnComplete = [&](JobChain &) { NextPhaseRuns++; };
  Status S = G.run(std::move(First));
  CHECK_FALSE(S.ok());
  CHECK(S.message() == "first piece failed");
  CHECK(S.exception() == nullptr);
  CHECK(NextPhaseRuns.load() == 0);
  int MoreThanOnce = 0;
  for (auto &H : Hits)
    MoreThanOnce += H.load() > 1;
  CHECK(MoreThanOnce == 0);
  CHECK(Hits[0].load() == 1);
}

namespace {
struct CheckedArgs {
  const std::vector<int64_t> *Values;
  std::atomic<int> Visited{0};
};

/// A kernel as a JIT would emit it: C signature, errors through the runtime.
void rejectNegative(int64_t Start, int64_t End, void *Args) {
  auto *A = static_cast<CheckedArgs *>(Args);
  for (int64_t I = Start; I < End; ++I) {
    if (llq_rt_cancelled())
      return;
    if ((*A->Values)[size_t(I)] < 0) {
      std::string Msg = "negative input at index " + std::to_string(I);
      llq_rt_report_error(Msg.c_str());
      return;
    }
    A->Visited++;
  }
}
} // namespace

TEST_CASE("raw_kernel_reports_error_through_runtime_callback") {
  Gang G(withThreads(3));
  std::vector<int64_t> Values(1000, 1);
  CheckedArgs Args;
  Args.Values = &Values;

  Status Good = G.parallelFor(0, 1000, rejectNegative, &Args);
  CHECK(Good.ok());
  CHECK(Good.message().empty());
  CHECK(Args.Visited.load() == 1000);

  Values[777] = -5;
  Status Bad = G.parallelFor(0, 1000, rejectNegative, &Args);
  CHECK(Bad.message() == "negative input at index 777");

  // Through the template form, the same failure is a KernelError.
  CHECK_THROWS_WITH_AS(G.parallelFor(0, 1000,
                                     [&](int64_t Start, int64_t End) {
                                       rejectNegative(Start, End, &Args);
                                     }),
                       "negative input at index 777", KernelError);

  // Outside of any job there is nothing to fail.
  CHECK(llq_rt_report_error("nobody listens") == 0);
  CHECK(llq_rt_cancelled() == 0);
}

TEST_CASE("job_without_kernel_fails_with_a_message") {
  Gang G(withThreads(2));
  Status S = G.parallelFor(0, 10, nullptr, nullptr);
  CHECK(S.message() == "job over a non-empty range has no kernel");
}

TEST_CASE("empty_and_reversed_ranges_run_no_kernel_but_complete") {
  Gang G(withThreads(2));
  std::atomic<int> Calls{0}, Completions{0};
  for (auto [Begin, End] : {std::pair<int64_t, int64_t>{5, 5}, {9, 3}}) {
    Job J;
    J.Begin = Begin;
    J.End = End;
    J.Fn = [](int64_t, int64_t, void *Args) {
      ++*static_cast<std::atomic<int> *>(Args);
    };
    J.Args = &Calls;
    J.OnComplete = [&](JobChain &) { Completions++; };
    CHECK(G.run(std::move(J)).ok());
  }
  CHECK(Calls.load() == 0);
  CHECK(Completions.load() == 2);
}

TEST_CASE("nested_parallel_for_computes_two_level_sum") {
  // sum over i < 64, j < 1000 of (1000 * i + j) = sum of 0 .. 63999.
  // Without spinning, nested waiters also go through the sleep handshake.
  for (unsigned Spin : {4096u, 0u}) {
    CAPTURE(Spin);
    Gang G(withThreads(3, Spin));
    std::vector<int64_t> RowSums(64, 0);
    G.parallelFor(0, 64, [&](int64_t Start, int64_t End) {
      for (int64_t I = Start; I < End; ++I) {
        std::atomic<int64_t> Row{0};
        G.parallelFor(0, 1000, [&](int64_t JStart, int64_t JEnd) {
          int64_t Local = 0;
          for (int64_t J = JStart; J < JEnd; ++J)
            Local += 1000 * I + J;
          Row += Local;
        });
        RowSums[size_t(I)] = Row.load();
      }
    });
    int64_t Total = std::accumulate(RowSums.begin(), RowSums.end(), int64_t(0));
    CHECK(Total == int64_t(63999) * 64000 / 2);
    CHECK(RowSums[10] == 1000 * 10000 + 999 * 1000 / 2);
  }
}

TEST_CASE("kernel_on_one_gang_runs_a_job_on_another") {
  Gang Outer(withThreads(2)), Inner(withThreads(3));
  std::vector<int64_t> Sums(8, 0);
  Outer.parallelFor(0, 8, [&](int64_t Start, int64_t End) {
    for (int64_t I = Start; I < End; ++I) {
      std::atomic<int64_t> Sum{0};
      Inner.parallelFor(0, 100, [&](int64_t S, int64_t E) {
        for (int64_t J = S; J < E; ++J)
          Sum += I * J;
      });
      Sums[size_t(I)] = Sum.load();
    }
  });
  for (int64_t I = 0; I < 8; ++I)
    CHECK(Sums[size_t(I)] == I * 4950);
}

TEST_CASE("nested_exception_propagates_through_both_levels") {
  Gang G(withThreads(3));
  CHECK_THROWS_WITH_AS(
      G.parallelFor(0, 8,
                    [&](int64_t Start, int64_t End) {
                      G.parallelFor(0, 100, [&](int64_t S, int64_t E) {
                        // Index 3 of the outer range, 50 of the inner one.
                        if (Start <= 3 && 3 < End && S <= 50 && 50 < E)
                          throw std::runtime_error("inner failure");
                      });
                    }),
      "inner failure", std::runtime_error);
}

TEST_CASE("start_stop_loop_of_200_gangs") {
  for (int Round = 0; Round < 200; ++Round) {
    Gang G(withThreads(2 + Round % 3, /*Spin=*/Round % 2 ? 0 : 256));
    if (Round % 4 == 3)
      continue; // Destroyed without ever running a job.
    std::atomic<int64_t> Sum{0};
    G.parallelFor(0, 1000, [&](int64_t Start, int64_t End) {
      for (int64_t I = Start; I < End; ++I)
        Sum += I;
    });
    REQUIRE(Sum.load() == 999 * 1000 / 2);
  }
}

namespace {
/// State of the two-phase sum: phase 1 sums each chunk of Values into
/// Partials, phase 2 adds up Partials.
struct SumArgs {
  const std::vector<int64_t> *Values;
  int64_t ChunkSize;
  std::vector<int64_t> Partials;
  int64_t Total = 0;
};

void sumChunks(int64_t Start, int64_t End, void *Args) {
  auto *A = static_cast<SumArgs *>(Args);
  const int64_t N = int64_t(A->Values->size());
  for (int64_t C = Start; C < End; ++C) {
    int64_t Sum = 0;
    for (int64_t I = C * A->ChunkSize; I < std::min(N, (C + 1) * A->ChunkSize);
         ++I)
      Sum += (*A->Values)[size_t(I)];
    A->Partials[size_t(C)] = Sum;
  }
}

void combinePartials(int64_t Start, int64_t End, void *Args) {
  auto *A = static_cast<SumArgs *>(Args);
  for (int64_t C = Start; C < End; ++C)
    A->Total += A->Partials[size_t(C)];
}
} // namespace

TEST_CASE("two_phase_sum_of_ten_million_int64_chains_without_barrier") {
  const int64_t N = 10'000'000;
  std::vector<int64_t> Values(N);
  for (int64_t I = 0; I < N; ++I)
    Values[size_t(I)] = 3 * I - 7;
  SumArgs Args;
  Args.Values = &Values;
  Args.ChunkSize = 1 << 16;
  const int64_t Chunks = (N + Args.ChunkSize - 1) / Args.ChunkSize;
  Args.Partials.assign(size_t(Chunks), 0);

  std::atomic<int> Phase2Launches{0};
  Job Phase1;
  Phase1.End = Chunks;
  Phase1.Fn = sumChunks;
  Phase1.Args = &Args;
  Phase1.OnComplete = [&](JobChain &Chain) {
    Phase2Launches++;
    Job Phase2;
    Phase2.End = Chunks;
    Phase2.Fn = combinePartials;
    Phase2.Args = &Args;
    Phase2.MinGrain = Chunks; // Sequential: one piece, on this thread.
    Chain.then(std::move(Phase2));
  };
  Gang G(withThreads(3));
  CHECK(G.run(std::move(Phase1)).ok());
  CHECK(Phase2Launches.load() == 1);
  CHECK(Args.Total == 3 * (N * (N - 1) / 2) - 7 * N);
}

TEST_CASE("three_phase_scan_matches_sequential_prefix_sum") {
  // Phase 1 sums chunks, OnComplete turns the sums into exclusive offsets,
  // phase 2 scans each chunk from its offset.
  const int64_t N = 1'000'003, Chunk = 4096;
  const int64_t Chunks = (N + Chunk - 1) / Chunk;
  std::vector<int64_t> In(N), Out(N, 0), Offsets(size_t(Chunks), 0);
  for (int64_t I = 0; I < N; ++I)
    In[size_t(I)] = (I * 7919) % 1000 - 500;
  auto ChunkEnd = [&](int64_t C) { return std::min(N, (C + 1) * Chunk); };

  Gang G(withThreads(3));
  Job Sums;
  Sums.End = Chunks;
  std::function<void(int64_t, int64_t)> SumBody = [&](int64_t S, int64_t E) {
    for (int64_t C = S; C < E; ++C)
      for (int64_t I = C * Chunk; I < ChunkEnd(C); ++I)
        Offsets[size_t(C)] += In[size_t(I)];
  };
  std::function<void(int64_t, int64_t)> ScanBody = [&](int64_t S, int64_t E) {
    for (int64_t C = S; C < E; ++C) {
      int64_t Acc = Offsets[size_t(C)];
      for (int64_t I = C * Chunk; I < ChunkEnd(C); ++I)
        Out[size_t(I)] = Acc += In[size_t(I)];
    }
  };
  KernelFn CallBody = [](int64_t S, int64_t E, void *Body) {
    (*static_cast<std::function<void(int64_t, int64_t)> *>(Body))(S, E);
  };
  Sums.Fn = CallBody;
  Sums.Args = &SumBody;
  Sums.OnComplete = [&](JobChain &Chain) {
    int64_t Running = 0;
    for (int64_t &O : Offsets)
      Running += std::exchange(O, Running);
    Job Scan;
    Scan.End = Chunks;
    Scan.Fn = CallBody;
    Scan.Args = &ScanBody;
    Chain.then(std::move(Scan));
  };
  CHECK(G.run(std::move(Sums)).ok());

  std::vector<int64_t> Expected(N);
  std::partial_sum(In.begin(), In.end(), Expected.begin());
  CHECK(Out == Expected);
}

TEST_CASE("small_range_runs_inline_on_caller_thread") {
  Gang G(withThreads(4));
  const std::thread::id Caller = std::this_thread::get_id();
  std::thread::id Ran;
  int Calls = 0;
  G.parallelFor(
      0, 10,
      [&](int64_t Start, int64_t End) {
        Ran = std::this_thread::get_id();
        ++Calls;
        CHECK(Start == 0);
        CHECK(End == 10);
      },
      /*MinGrain=*/16);
  CHECK(Calls == 1);
  CHECK(Ran == Caller);

  // A gang of one thread runs everything inline, whatever the size.
  Gang Single(withThreads(1));
  std::set<std::thread::id> Threads;
  Single.parallelFor(0, 1'000'000, [&](int64_t, int64_t) {
    Threads.insert(std::this_thread::get_id());
  });
  CHECK(Threads == std::set<std::thread::id>{Caller});
}

TEST_CASE("pieces_are_grain_aligned_and_cover_the_range_once") {
  Gang G(withThreads(3));
  std::mutex M;
  std::vector<std::pair<int64_t, int64_t>> Pieces;
  const int64_t Begin = -37, End = 10'000, Grain = 64;
  G.parallelFor(
      Begin, End,
      [&](int64_t Start, int64_t Stop) {
        std::lock_guard<std::mutex> Lock(M);
        Pieces.emplace_back(Start, Stop);
      },
      Grain);
  std::sort(Pieces.begin(), Pieces.end());
  REQUIRE(Pieces.size() > 1);
  CHECK(Pieces.front().first == Begin);
  CHECK(Pieces.back().second == End);
  for (size_t P = 0; P + 1 < Pieces.size(); ++P) {
    CHECK(Pieces[P].second == Pieces[P + 1].first);
    CHECK((Pieces[P].second - Pieces[P].first) % Grain == 0);
    CHECK((Pieces[P].first - Begin) % Grain == 0);
  }
}

TEST_CASE("a_job_may_ask_for_more_pieces_per_thread") {
  Gang G(withThreads(2));
  auto PiecesOf = [&](unsigned PerThread) {
    std::mutex M;
    std::vector<std::pair<int64_t, int64_t>> Pieces;
    Job J;
    J.Begin = 0;
    J.End = 100'000;
    J.MinGrain = 16;
    J.PiecesPerThread = PerThread;
    auto Body = [&](int64_t Start, int64_t Stop) {
      std::lock_guard<std::mutex> Lock(M);
      Pieces.emplace_back(Start, Stop);
    };
    J.Args = &Body;
    J.Fn = [](int64_t Start, int64_t Stop, void *Args) {
      (*static_cast<decltype(Body) *>(Args))(Start, Stop);
    };
    REQUIRE(G.run(std::move(J)).ok());
    std::sort(Pieces.begin(), Pieces.end());
    for (size_t P = 0; P + 1 < Pieces.size(); ++P)
      CHECK(Pieces[P].second == Pieces[P + 1].first);
    CHECK(Pieces.back().second == 100'000);
    return Pieces.size();
  };
  // 2 threads: the gang's 2 a thread by default, 16 when asked.
  CHECK(PiecesOf(0) == 4);
  CHECK(PiecesOf(16) == 32);
}

TEST_CASE("num_threads_env_parsing_ignores_invalid_values") {
  CHECK(parseNumThreads("1") == 1u);
  CHECK(parseNumThreads("16") == 16u);
  CHECK(parseNumThreads("1024") == 1024u);
  for (const char *Bad : {"", "0", "-2", "+3", " 4", "4 ", "3x", "abc", "1025",
                          "99999999999999999999"})
    CHECK_MESSAGE(parseNumThreads(Bad) == std::nullopt, "input: ", Bad);
  CHECK(parseNumThreads(nullptr) == std::nullopt);

  const char *Saved = std::getenv("LLQ_NUM_THREADS");
  std::string Old = Saved ? Saved : "";
  unsigned Hardware = std::max(1u, std::thread::hardware_concurrency());

  setenv("LLQ_NUM_THREADS", "3", 1);
  CHECK(Gang::defaultNumThreads() == 3);
  {
    Gang G;
    CHECK(G.numThreads() == 3);
  }
  setenv("LLQ_NUM_THREADS", "zero", 1);
  CHECK(Gang::defaultNumThreads() == Hardware);
  setenv("LLQ_NUM_THREADS", "0", 1);
  CHECK(Gang::defaultNumThreads() == Hardware);
  unsetenv("LLQ_NUM_THREADS");
  CHECK(Gang::defaultNumThreads() == Hardware);

  if (Saved)
    setenv("LLQ_NUM_THREADS", Old.c_str(), 1);
}

TEST_CASE("global_gang_is_created_once_and_runs_jobs") {
  std::vector<Gang *> Seen(4, nullptr);
  std::vector<std::thread> Threads;
  for (size_t T = 0; T < Seen.size(); ++T)
    Threads.emplace_back([&, T] { Seen[T] = &Gang::global(); });
  for (std::thread &T : Threads)
    T.join();
  for (Gang *G : Seen)
    CHECK(G == &Gang::global());
  std::atomic<int64_t> Sum{0};
  Gang::global().parallelFor(0, 100000, [&](int64_t Start, int64_t End) {
    int64_t Local = 0;
    for (int64_t I = Start; I < End; ++I)
      Local += I;
    Sum += Local;
  });
  CHECK(Sum.load() == int64_t(99999) * 100000 / 2);
}

TEST_CASE("a range run on the calling thread reports its kernel's failures") {
  // Inline: within the grain, and runOnThisThread without a gang.
  Gang G(withThreads(2));
  std::vector<int64_t> Values(100, 1);
  CheckedArgs Args;
  Args.Values = &Values;
  CHECK(G.runsInline(0, 100, 100));
  CHECK_FALSE(G.runsInline(0, 101, 100));
  CHECK_FALSE(G.runsInline(5, 5, 100));
  CHECK(G.parallelFor(0, 100, rejectNegative, &Args, 100).ok());
  CHECK(runOnThisThread(rejectNegative, 0, 100, &Args).ok());
  CHECK(Args.Visited.load() == 200);
  Values[42] = -1;
  Status Bad = G.parallelFor(0, 100, rejectNegative, &Args, 100);
  CHECK(Bad.message() == "negative input at index 42");
  Status Alone = runOnThisThread(rejectNegative, 0, 100, &Args);
  CHECK(Alone.message() == "negative input at index 42");
  // A second report keeps the first; an exception becomes the failure.
  Status Twice = runOnThisThread(
      [](int64_t, int64_t, void *) {
        llq_rt_report_error("first");
        CHECK(llq_rt_cancelled() == 1);
        llq_rt_report_error("second");
      },
      0, 1, nullptr);
  CHECK(Twice.message() == "first");
  Status Threw = runOnThisThread(
      [](int64_t, int64_t, void *) { throw std::runtime_error("thrown"); }, 0,
      1, nullptr);
  CHECK(Threw.message() == "thrown");
  CHECK(Threw.exception() != nullptr);
  // Afterwards nothing listens.
  CHECK(llq_rt_report_error("nobody listens") == 0);
  // A copy of a failure is a failure of its own.
  Status Copy = Threw;
  CHECK(Copy.message() == "thrown");
  CHECK(Threw.message() == "thrown");
}

TEST_CASE("back_to_back_ranges_of_changing_piece_counts_run_each_index_once") {
  // parallelFor's ranges go through the gang's broadcast slot, one job
  // after another: each new job changes the piece count, the kernel and
  // its arguments while late threads may still be reading the last job's.
  // A piece taken twice or with another job's fields shows as a wrong hit
  // count; a piece lost, as a hang that the deadline of waitFor turns into
  // a failure in the caller's thread below.
  for (unsigned Threads : {2u, 4u}) {
    for (unsigned Spin : {0u, 4096u}) {
      Gang G(withThreads(Threads, Spin));
      std::vector<std::atomic<int>> A(64), B(64);
      int64_t Wrong = 0;
      std::atomic<bool> Finished{false};
      std::thread Runner([&] {
        for (int J = 0; J < 20000; ++J) {
          // Two kernels (different captures) over 2 to 63 indices.
          int64_t Width = 2 + (J * 7919) % 62;
          auto &Hits = J % 2 ? A : B;
          for (int64_t I = 0; I < Width; ++I)
            Hits[size_t(I)].store(0, std::memory_order_relaxed);
          if (J % 2)
            G.parallelFor(0, Width, [&](int64_t S, int64_t E) {
              for (int64_t I = S; I < E; ++I)
                A[size_t(I)].fetch_add(1, std::memory_order_relaxed);
            });
          else
            G.parallelFor(0, Width, [&](int64_t S, int64_t E) {
              for (int64_t I = S; I < E; ++I)
                B[size_t(I)].fetch_add(1, std::memory_order_relaxed);
            });
          for (int64_t I = 0; I < Width; ++I)
            Wrong += Hits[size_t(I)].load(std::memory_order_relaxed) != 1;
        }
        Finished = true;
      });
      bool Done = waitFor([&] { return Finished.load(); });
      REQUIRE(Done); // else the runner is stuck: abort rather than join
      Runner.join();
      CHECK(Wrong == 0);
    }
  }
}

TEST_CASE("a_range_run_inside_a_range_of_the_same_gang_takes_the_queues") {
  // The outer range holds the broadcast slot; each of its pieces runs an
  // inner range on the same gang, which must go through the queues, and
  // may be helped by the threads that wait for the outer one.
  Gang G(withThreads(3));
  std::vector<std::atomic<int>> Hits(40 * 50);
  G.parallelFor(0, 40, [&](int64_t S, int64_t E) {
    for (int64_t Row = S; Row < E; ++Row)
      G.parallelFor(0, 50, [&](int64_t S2, int64_t E2) {
        for (int64_t I = S2; I < E2; ++I)
          Hits[size_t(Row * 50 + I)]++;
      });
  });
  int Wrong = 0;
  for (auto &H : Hits)
    Wrong += H.load() != 1;
  CHECK(Wrong == 0);
}
