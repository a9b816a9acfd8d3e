//===- Rmse.cpp - Root-mean-square error: one fused fold --------------------===//
#include "Options.h"
#include <cmath>

static int example(const Options &O) {
  int64_t N = O.get("n", 1 << 20);
  std::vector<double> Xs(static_cast<size_t>(N)), Ys(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I) {
    Xs[size_t(I)] = std::sin(double(I));
    Ys[size_t(I)] = std::sin(double(I) + 0.01);
  }
  llq::Runtime R = O.make();
  auto Sq = LLQ_FN("double (double %a, double %b)",
                   "%d = fsub double %a, %b\n %r = fmul double %d, %d");
  auto Add = LLQ_FN("double (double %a, double %b)", "%r = fadd double %a, %b");
  double Sum = R.run(llq::foldAll(Add, 0.0, llq::zipWith(Sq, llq::fromVector(Xs),
                                                         llq::fromVector(Ys))))
                   .scalar();
  double Rmse = N ? std::sqrt(Sum / double(N)) : 0;
  double Want = 0;
  for (int64_t I = 0; I < N; ++I)
    Want += (Xs[size_t(I)] - Ys[size_t(I)]) * (Xs[size_t(I)] - Ys[size_t(I)]);
  Want = N ? std::sqrt(Want / double(N)) : 0;
  bool Ok = std::fabs(Rmse - Want) <= 1e-12 * double(N + 1) * std::max(Want, 1e-300) + 1e-300;
  fmt::print("rmse of {} doubles = {} (reference {}) {}\n", N, Rmse, Want,
             Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
