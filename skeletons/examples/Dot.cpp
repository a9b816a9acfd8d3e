//===- Dot.cpp - Dot product: fold (+) 0 (zipWith (*) xs ys) ---------------===//
#include "Options.h"
#include <cmath>

static int example(const Options &O) {
  int64_t N = O.get("n", 1 << 20);
  std::vector<float> Xs(static_cast<size_t>(N)), Ys(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I) {
    Xs[size_t(I)] = float(I % 13) * 0.25f;
    Ys[size_t(I)] = float(I % 7) - 3.0f;
  }
  llq::Runtime R = O.make();
  llq::Array<float> X = llq::fromVector(Xs), Y = llq::fromVector(Ys);
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  float Dot = R.run(llq::fold(Add, 0.0f, llq::zipWith(Mul, X, Y))).scalar();
  double Want = 0, Abs = 0;
  for (int64_t I = 0; I < N; ++I) {
    Want += double(Xs[size_t(I)]) * Ys[size_t(I)];
    Abs += std::fabs(double(Xs[size_t(I)]) * Ys[size_t(I)]);
  }
  // Each partial sum rounds once per element: n * eps * sum |x*y| bounds it.
  double Tol = double(N + 1) * 1.2e-7 * Abs;
  bool Ok = std::fabs(Dot - Want) <= Tol;
  fmt::print("dot of {} floats = {} (reference {}) {}\n", N, Dot, Want,
             Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
