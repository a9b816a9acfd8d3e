//===- RatioReporter.h - Benchmark table plus same-run ratios ---*- C++ -*-===//
//
// A Google Benchmark reporter that prints the usual table, then ratios
// between rows of this same run: benchmarks report ratios against a peer
// measured alongside, never a bare number. Each ratio is taken per
// repetition (repetition i of one row over repetition i of the other) and
// printed as its median and range. withDefaultFlags() asks for repetitions
// and for Google Benchmark's random interleaving, which runs the
// repetitions of all rows in a shuffled order, so the two sides of a ratio
// alternate in time instead of running one after the other.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_BENCH_RATIOREPORTER_H
#define LLQUOTE_BENCH_RATIOREPORTER_H

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace llq::bench {

/// argv with the flags the ratios need put first, so that the user's own
/// flags, parsed after them, win. \p Storage keeps the strings alive.
inline std::vector<char *> withDefaultFlags(int argc, char **argv,
                                            std::vector<std::string> &Storage,
                                            const char *MinTime = "0.1") {
  Storage = {"--benchmark_repetitions=10",
             "--benchmark_enable_random_interleaving=true",
             std::string("--benchmark_min_time=") + MinTime};
  std::vector<char *> Args{argv[0]};
  for (std::string &S : Storage)
    Args.push_back(S.data());
  for (int I = 1; I < argc; ++I)
    Args.push_back(argv[I]);
  Args.push_back(nullptr);
  return Args;
}

/// Initialises Google Benchmark with withDefaultFlags(); false when the
/// command line holds a flag it does not know (it has said so).
inline bool initialize(int argc, char **argv,
                       std::vector<std::string> &Storage,
                       const char *MinTime = "0.1") {
  std::vector<char *> Args = withDefaultFlags(argc, argv, Storage, MinTime);
  int NArgs = int(Args.size()) - 1;
  benchmark::Initialize(&NArgs, Args.data());
  return !benchmark::ReportUnrecognizedArguments(NArgs, Args.data());
}

class RatioReporter : public benchmark::ConsoleReporter {
public:
  /// After the table, prints \p Title and calls \p PrintRatios, which calls
  /// ratio() for each line; names are padded to \p NameWidth and ratios
  /// printed \p ValueWidth wide with \p Precision decimals.
  RatioReporter(std::string Title, int NameWidth, int ValueWidth, int Precision,
                std::function<void(RatioReporter &)> PrintRatios)
      : ConsoleReporter(OO_Tabular), Title(std::move(Title)),
        NameWidth(NameWidth), ValueWidth(ValueWidth), Precision(Precision),
        PrintRatios(std::move(PrintRatios)) {}

  void ReportRuns(const std::vector<Run> &Runs) override {
    for (const Run &R : Runs)
      if (!R.error_occurred && R.run_type == Run::RT_Iteration)
        Times[withoutSuffix(R.benchmark_name())].push_back(
            R.GetAdjustedRealTime());
    ConsoleReporter::ReportRuns(Runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%s\n  %-*s %*s\n", Title.c_str(), NameWidth, "",
                ValueWidth, "median [min-max] over repetitions");
    PrintRatios(*this);
  }

  /// Prints time(Num) / time(Den), per repetition, if both ran.
  void ratio(const std::string &What, const std::string &Num,
             const std::string &Den) {
    auto A = Times.find(Num), B = Times.find(Den);
    if (A == Times.end() || B == Times.end())
      return;
    std::vector<double> R;
    for (size_t I = 0; I < A->second.size() && I < B->second.size(); ++I)
      if (B->second[I] > 0)
        R.push_back(A->second[I] / B->second[I]);
    print(What, std::move(R));
  }

  /// Prints time(A) - time(B), per repetition, in the benchmarks' time
  /// unit, if both ran.
  void difference(const std::string &What, const std::string &A,
                  const std::string &B) {
    auto X = Times.find(A), Y = Times.find(B);
    if (X == Times.end() || Y == Times.end())
      return;
    std::vector<double> D;
    for (size_t I = 0; I < X->second.size() && I < Y->second.size(); ++I)
      D.push_back(X->second[I] - Y->second[I]);
    print(What, D);
  }

private:
  void print(const std::string &What, std::vector<double> R) {
    if (R.empty())
      return;
    std::sort(R.begin(), R.end());
    size_t N = R.size();
    double Median = N % 2 ? R[N / 2] : (R[N / 2 - 1] + R[N / 2]) / 2;
    std::printf("  %-*s %*.*f [%.*f-%.*f]%s\n", NameWidth, What.c_str(),
                ValueWidth, Precision, Median, Precision, R.front(), Precision,
                R.back(), N == 1 ? " (one repetition: no spread)" : "");
  }

  /// "BM_Gang_Empty/1/real_time" -> "BM_Gang_Empty/1".
  static std::string withoutSuffix(std::string Name) {
    const std::string Suffix = "/real_time";
    if (Name.size() > Suffix.size() &&
        Name.compare(Name.size() - Suffix.size(), Suffix.size(), Suffix) == 0)
      Name.resize(Name.size() - Suffix.size());
    return Name;
  }

  std::string Title;
  int NameWidth, ValueWidth, Precision;
  std::function<void(RatioReporter &)> PrintRatios;
  /// By benchmark: its real time per repetition, in the order run.
  std::map<std::string, std::vector<double>> Times;
};

} // namespace llq::bench

#endif // LLQUOTE_BENCH_RATIOREPORTER_H
