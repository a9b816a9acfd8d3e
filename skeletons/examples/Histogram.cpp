//===- Histogram.cpp - A histogram: permute (+) over keys ------------------===//
//
// As in Accelerate: permute (+) zeros (\ix -> keys ! ix) ones. The
// projection reads the keys array (Fn::with); the combination is one
// atomicrmw add per element.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

static int example(const Options &O) {
  int64_t N = O.get("n", 1 << 20), Bins = O.get("bins", 256);
  if (Bins < 1) {
    std::fprintf(stderr, "histogram: --bins must be at least 1\n");
    return 2;
  }
  std::vector<int32_t> Keys(static_cast<size_t>(N));
  uint64_t S = 88172645463325252ull;
  for (auto &K : Keys) {
    S ^= S << 13, S ^= S >> 7, S ^= S << 17;
    K = int32_t(S % uint64_t(Bins));
  }
  llq::Runtime R = O.make();
  auto Add = LLQ_FN("i32 (i32 %a, i32 %b)", "%r = add i32 %a, %b");
  auto ByKey = LLQ_FN("i64 (i64 %i, array<i32> %keys)",
                      "%k = call i32 @keys(i64 %i)\n %r = sext i32 %k to i64");
  auto Hist = R.run<int32_t>(llq::permute(Add, llq::fill({Bins}, int32_t(0)),
                                          ByKey.with({llq::fromVector(Keys)}),
                                          llq::fill({N}, int32_t(1))));
  std::vector<int32_t> Want(static_cast<size_t>(Bins), 0);
  for (int32_t K : Keys)
    ++Want[size_t(K)];
  bool Ok = Hist.toVector() == Want;
  fmt::print("histogram of {} keys into {} bins: {}\n", N, Bins,
             Ok ? "ok" : "MISMATCH");
  return Ok ? 0 : 1;
}

int main(int Argc, char **Argv) { return runExample(example, Argc, Argv); }
