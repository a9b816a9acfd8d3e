//===- Measure.h - Paired, interleaved timings with their spread -*- C++ -*-===//
//
// The hand-written pipeline benchmarks (bench-parse, bench-ssa,
// bench-template) compare two ways of doing one thing. Each repetition times
// both sides back to back, alternating which goes first, so that a machine
// that slows down or speeds up during the run affects both alike; the ratio
// is taken per repetition, and its median and range are what is reported.
// A side faster than MinSample is timed over a batch of calls long enough
// for the clock to resolve, and the time per call is the batch's mean.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_BENCH_MEASURE_H
#define LLQUOTE_BENCH_MEASURE_H

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace llq::bench {

/// The shortest sample: well above steady_clock's resolution and overhead.
constexpr double MinSample = 1e-3;

/// Times \p Batch calls; returns seconds for all of them. A side that needs
/// untimed preparation per call (a fresh module to promote) does it before
/// starting its clock.
using BatchFn = std::function<double(unsigned Batch)>;

template <typename Fn> double seconds(Fn &&F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// A side whose every call can be timed as it is.
template <typename Fn> BatchFn batched(Fn F) {
  return [F](unsigned Batch) {
    return seconds([&] {
      for (unsigned I = 0; I < Batch; ++I)
        F();
    });
  };
}

/// How many calls make a sample of at least MinSample (one, for slow sides).
inline unsigned calibrate(const BatchFn &F) {
  unsigned Batch = 1;
  while (Batch < (1u << 24)) {
    double T = F(Batch);
    if (T >= MinSample)
      return Batch;
    Batch = T > 0 ? std::max(Batch * 2, unsigned(Batch * 1.2 * MinSample / T))
                  : Batch * 16;
  }
  return Batch;
}

struct Summary {
  double Median = 0, Min = 0, Max = 0;
};

inline Summary summarize(std::vector<double> V) {
  Summary S;
  if (V.empty())
    return S;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  S.Median = N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
  S.Min = V.front();
  S.Max = V.back();
  return S;
}

/// Per-call seconds of two sides over the same repetitions.
struct Paired {
  std::vector<double> A, B;
  unsigned BatchA = 1, BatchB = 1;
  Summary a() const { return summarize(A); }
  Summary b() const { return summarize(B); }
  /// Per repetition: time(A) / time(B).
  Summary ratioAB() const {
    std::vector<double> R;
    for (size_t I = 0; I < A.size(); ++I)
      R.push_back(A[I] / B[I]);
    return summarize(R);
  }
};

/// \p Reps repetitions of A and B, interleaved: A B, then B A, and so on.
inline Paired comparePaired(const BatchFn &A, const BatchFn &B, unsigned Reps) {
  Paired P;
  P.BatchA = calibrate(A);
  P.BatchB = calibrate(B);
  for (unsigned R = 0; R < Reps; ++R) {
    double TA, TB;
    if (R % 2 == 0) {
      TA = A(P.BatchA);
      TB = B(P.BatchB);
    } else {
      TB = B(P.BatchB);
      TA = A(P.BatchA);
    }
    P.A.push_back(TA / P.BatchA);
    P.B.push_back(TB / P.BatchB);
  }
  return P;
}

/// "12.3 [11.9-13.0]": the median and the range, in the given precision.
inline std::string spread(const Summary &S, int Precision) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << llvm::format("%.*f [%.*f-%.*f]", Precision, S.Median, Precision, S.Min,
                     Precision, S.Max);
  return Out;
}

/// The same, each value scaled by \p Scale (seconds to ms: 1e3).
inline std::string spread(const Summary &S, int Precision, double Scale) {
  return spread(Summary{S.Median * Scale, S.Min * Scale, S.Max * Scale},
                Precision);
}

} // namespace llq::bench

#endif // LLQUOTE_BENCH_MEASURE_H
