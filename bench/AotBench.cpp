//===- AotBench.cpp - Ahead of time against the JIT: first call, speed ----===//
//
// Two questions about pipelines compiled ahead of time (docs/AheadOfTime.md):
//
//   1. What does a program's first call cost? Each sample is a fresh
//      process (this program, run with --first MODE) that times its first
//      dot of 2^20 floats: ahead of time (the plan built, the gang started),
//      the JIT with no cache (a Runtime made, the kernel compiled), and the
//      JIT with a warm disk cache (made, the object loaded). The modes are
//      interleaved, repetition by repetition.
//   2. Do the kernels run as fast? dot of 2^24 floats and blur + Sobel of a
//      2048 x 2048 image, a call ahead of time against the JIT's run() of
//      the same expression, interleaved in one process; the ratio per
//      repetition, its median and range.
//
//   build/bench/llquote_bench_aot [--reps N]
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"
#include "Programs.h"
#include "blur_sobel.h"
#include "dot.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Summary {
  double Median, Min, Max;
};

Summary summarize(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return {V[V.size() / 2], V.front(), V.back()};
}

/// The child: times the first dot in this process.
int first(const std::string &Mode) {
  const int64_t N = int64_t(1) << 20;
  llq::Array<float> X = llq::fromVector(aotex::floats(N, 1));
  llq::Array<float> Y = llq::fromVector(aotex::floats(N, 2));
  double Start = now();
  float Got;
  if (Mode == "aot") {
    Got = dot(X, Y).scalar();
  } else {
    llq::RuntimeOptions O;
    O.DiskCache = Mode == "jit-disk";
    llq::Runtime R(O);
    Got = R.run<float>(aotex::dot(X, Y)).scalar();
  }
  double Seconds = now() - Start;
  std::printf("%.9f %g\n", Seconds, double(Got));
  return 0;
}

/// Runs this program with --first Mode; returns the seconds it printed.
double child(const char *Self, const std::string &Mode,
             const std::string &Env) {
  std::string Cmd = Env + " \"" + Self + "\" --first " + Mode;
  FILE *P = popen(Cmd.c_str(), "r");
  double Seconds = -1, Value = 0;
  if (!P || std::fscanf(P, "%lf %lf", &Seconds, &Value) != 2) {
    std::fprintf(stderr, "llquote_bench_aot: '%s' failed\n", Cmd.c_str());
    std::exit(1);
  }
  pclose(P);
  return Seconds;
}

template <typename A, typename B>
Summary ratio(unsigned Reps, A &&Aot, B &&Jit) {
  std::vector<double> Ratios;
  Aot();
  Jit();
  for (unsigned R = 0; R < Reps; ++R) {
    double TA, TJ;
    if (R % 2) {
      double S = now();
      Aot();
      TA = now() - S;
      S = now();
      Jit();
      TJ = now() - S;
    } else {
      double S = now();
      Jit();
      TJ = now() - S;
      S = now();
      Aot();
      TA = now() - S;
    }
    Ratios.push_back(TJ / TA);
  }
  return summarize(Ratios);
}

} // namespace

int main(int Argc, char **Argv) {
  unsigned Reps = 11;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--first" && I + 1 < Argc)
      return first(Argv[I + 1]);
    if (A == "--reps" && I + 1 < Argc)
      Reps = unsigned(std::max(1, std::atoi(Argv[++I])));
  }
  std::string Cache = "/tmp/llquote-bench-aot-cache-" + std::to_string(getpid());
  std::string Env = "LLQ_CACHE_DIR=" + Cache;
  // The disk cache, warmed once.
  child(Argv[0], "jit-disk", Env);
  std::vector<double> Aot, Cold, Disk;
  for (unsigned R = 0; R < Reps; ++R) {
    Aot.push_back(child(Argv[0], "aot", Env));
    Cold.push_back(child(Argv[0], "jit-cold", Env));
    Disk.push_back(child(Argv[0], "jit-disk", Env));
  }
  std::string Rm = "rm -rf \"" + Cache + "\"";
  if (std::system(Rm.c_str()) != 0)
    std::fprintf(stderr, "llquote_bench_aot: could not remove %s\n",
                 Cache.c_str());
  std::printf("First call of dot (2^20 floats) in a fresh process, %u "
              "interleaved repetitions: median (min-max), ms\n",
              Reps);
  for (auto [Name, V] : {std::pair<const char *, std::vector<double> *>{
                             "ahead of time", &Aot},
                         {"JIT, no cache", &Cold},
                         {"JIT, warm disk cache", &Disk}}) {
    Summary S = summarize(*V);
    std::printf("  %-22s %8.3f (%.3f-%.3f)\n", Name, S.Median * 1e3,
                S.Min * 1e3, S.Max * 1e3);
  }

  llq::Runtime R;
  const int64_t N = int64_t(1) << 24;
  llq::Array<float> X = llq::fromVector(aotex::floats(N, 1));
  llq::Array<float> Y = llq::fromVector(aotex::floats(N, 2));
  llq::Acc Dot = aotex::dot(X, Y);
  const int64_t Side = 2048;
  llq::Array<float> Img =
      llq::fromVector({Side, Side}, aotex::floats(Side * Side, 3));
  llq::Acc Edges = aotex::blurSobel(Img);
  std::printf("Kernel speed, JIT time over ahead-of-time time per call, %u "
              "interleaved repetitions: median (min-max)\n",
              Reps);
  Summary D = ratio(
      Reps, [&] { (void)dot(X, Y).scalar(); },
      [&] { (void)R.run(Dot).scalar(); });
  std::printf("  %-22s %5.2f (%.2f-%.2f)\n", "dot, 2^24 floats", D.Median,
              D.Min, D.Max);
  Summary E = ratio(
      Reps, [&] { (void)blur_sobel(Img); }, [&] { (void)R.run(Edges); });
  std::printf("  %-22s %5.2f (%.2f-%.2f)\n", "blur+Sobel, 2048^2", E.Median,
              E.Min, E.Max);
  return 0;
}
