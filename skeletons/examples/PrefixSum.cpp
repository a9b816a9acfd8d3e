//===- PrefixSum.cpp - Prefix sum: scanl (+) 0 -------------------------------===//
#include "Options.h"

static int example(const Options &O) {
  int64_t N = O.get("n", 1 << 20);
  std::vector<int64_t> Xs(static_cast<size_t>(N));
  for (int64_t I = 0; I < N; ++I)
    Xs[size_t(I)] = (I * 7919) % 1000 - 500;
  llq::Runtime R = O.make();
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  std::vector<int64_t> Got =
      R.run<int64_t>(llq::scanl(Add, int64_t(0), llq::fromVector(Xs))).toVector();
  int64_t Acc = 0;
  bool Ok = Got.size() == size_t(N) + 1 && Got[0] == 0;
  for (int64_t I = 0; Ok && I < N; ++I) {
    Acc += Xs[size_t(I)];
    Ok = Got[size_t(I) + 1] == Acc;
  }
  fmt::print("prefix sum of {} integers: {}\n", N, Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
