//===- SkeletonTests.cpp - The array skeletons against plain C++ loops ----===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/Skeletons.h"
#include <doctest/doctest.h>
#include <numeric>

using namespace llq;

static Runtime &cpu() {
  static Runtime R;
  return R;
}

TEST_CASE("dot product: fold of zipWith") {
  std::vector<float> Xs(1000), Ys(1000);
  for (int I = 0; I < 1000; ++I) {
    Xs[I] = float(I % 7);
    Ys[I] = 2;
  }
  Array<float> X = fromVector(Xs), Y = fromVector(Ys);
  auto Mul = LLQ_FN("float (float %a, float %b)", "%r = fmul float %a, %b");
  auto Add = LLQ_FN("float (float %a, float %b)", "%r = fadd float %a, %b");
  float Dot = cpu().run(fold(Add, 0.0f, zipWith(Mul, X, Y))).scalar();
  float Want = 0;
  for (int I = 0; I < 1000; ++I)
    Want += Xs[I] * Ys[I];
  CHECK(Dot == Want);
}
