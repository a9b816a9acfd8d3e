//===- RatioReporter.h - Benchmark table plus same-run ratios ---*- C++ -*-===//
//
// A Google Benchmark reporter that prints the usual table, then ratios
// between rows of this same run: benchmarks report ratios against a peer
// measured alongside, never a bare number. With --benchmark_repetitions the
// median stands for each benchmark.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_BENCH_RATIOREPORTER_H
#define LLQUOTE_BENCH_RATIOREPORTER_H

#include <benchmark/benchmark.h>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace llq::bench {

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
    for (const Run &R : Runs) {
      if (R.error_occurred)
        continue;
      if (R.run_type == Run::RT_Aggregate && R.aggregate_name == "median")
        Medians[withoutSuffix(R.run_name.str())] = R.GetAdjustedRealTime();
      else if (R.run_type == Run::RT_Iteration)
        Times[withoutSuffix(R.benchmark_name())] = R.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(Runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%s\n", Title.c_str());
    PrintRatios(*this);
  }

  /// Prints time(Num) / time(Den), if both ran.
  void ratio(const std::string &What, const std::string &Num,
             const std::string &Den) {
    const auto &Use = Medians.empty() ? Times : Medians;
    auto A = Use.find(Num), B = Use.find(Den);
    if (A == Use.end() || B == Use.end() || B->second <= 0)
      return;
    std::printf("  %-*s %*.*f\n", NameWidth, What.c_str(), ValueWidth,
                Precision, A->second / B->second);
  }

private:
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
  std::map<std::string, double> Times, Medians;
};

} // namespace llq::bench

#endif // LLQUOTE_BENCH_RATIOREPORTER_H
