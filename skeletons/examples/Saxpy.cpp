//===- Saxpy.cpp - SAXPY: zipWith (\x y -> a*x + y) xs ys ------------------===//
#include "Options.h"

static int example(const Options &O) {
  int64_t N = O.get("n", 1 << 20);
  std::vector<float> Xs(static_cast<size_t>(N)), Ys(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I) {
    Xs[size_t(I)] = float(I % 101);
    Ys[size_t(I)] = float(I % 3);
  }
  llq::Runtime R = O.make();
  auto Axpy = LLQ_FN("float (float %x, float %y)",
                     "%ax = fmul float 2.5, %x\n %r = fadd float %ax, %y");
  auto Z = R.run<float>(llq::zipWith(Axpy, llq::fromVector(Xs), llq::fromVector(Ys)));
  std::vector<float> Got = Z.toVector();
  for (int64_t I = 0; I < N; ++I)
    if (Got[size_t(I)] != 2.5f * Xs[size_t(I)] + Ys[size_t(I)]) {
      fmt::print("saxpy: element {} is {}, the reference {}\n", I, Got[size_t(I)],
                 2.5f * Xs[size_t(I)] + Ys[size_t(I)]);
      return 1;
    }
  fmt::print("saxpy of {} floats ok\n", N);
  return 0;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
