//===- ChecksBench.cpp - What checked mode costs --------------------------===//
//
// Checked mode (RuntimeOptions::Checks) guards every integer division of a
// kernel's scalar functions. This measures, on the CPU backend with every
// core, the same operations with and without the checks, interleaved
// (RatioReporter.h), at 2^20 and 2^24 elements:
//
//   - div:   map of x -> 1000003 / x over int32 (a division per element,
//            whose divisor is data: the check is a compare and a branch);
//   - mod:   foldAll of (x mod 7 + 1) over int64 (a remainder by a
//            constant: the check folds away, and the cost should be none);
//   - saxpy: no division at all (the checks add nothing to the kernel).
//
// Usage: llquote_bench_checks [Google Benchmark flags]
//
//===----------------------------------------------------------------------===//

#include "RatioReporter.h"
#include "llquote/Skeletons.h"
#include <cstdio>

namespace {

llq::Runtime &runtime(bool Checked) {
  static llq::Runtime Plain([] {
    llq::RuntimeOptions O;
    O.Checks = false;
    return O;
  }());
  static llq::Runtime Checks([] {
    llq::RuntimeOptions O;
    O.Checks = true;
    return O;
  }());
  return Checked ? Checks : Plain;
}

llq::Acc divOp(const llq::Acc &X) {
  return llq::map(LLQ_FN("i32 (i32 %x)", "%r = sdiv i32 1000003, %x"), X);
}

llq::Acc modOp(const llq::Acc &X) {
  auto F = LLQ_FN("i64 (i64 %x)", "%m = srem i64 %x, 7\n %r = add i64 %m, 1");
  auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
  return llq::foldAll(Add, int64_t(0), llq::map(F, X));
}

llq::Acc saxpyOp(const llq::Acc &X, const llq::Acc &Y) {
  auto F = LLQ_FN("float (float %x, float %y)",
                  "%a = fmul float 2.5, %x\n %r = fadd float %a, %y");
  return llq::zipWith(F, X, Y);
}

void BM_Div(benchmark::State &State, bool Checked) {
  int64_t N = State.range(0);
  std::vector<int32_t> Xs(static_cast<size_t>(N));
  for (size_t I = 0; I < Xs.size(); ++I)
    Xs[I] = int32_t(I % 1000) + 1;
  llq::Acc Op = divOp(llq::fromVector(Xs));
  llq::Array<> Out = runtime(Checked).run(Op);
  for (auto _ : State)
    runtime(Checked).run(Op, Out);
  State.SetItemsProcessed(State.iterations() * N);
}

void BM_Mod(benchmark::State &State, bool Checked) {
  int64_t N = State.range(0);
  llq::Acc Op = modOp(llq::enumFromN({N}, int64_t(0)));
  runtime(Checked).run(Op);
  for (auto _ : State)
    benchmark::DoNotOptimize(runtime(Checked).run(Op));
  State.SetItemsProcessed(State.iterations() * N);
}

void BM_Saxpy(benchmark::State &State, bool Checked) {
  int64_t N = State.range(0);
  llq::Array<> X = runtime(false).run(llq::fill({N}, 1.5f)),
               Y = runtime(false).run(llq::fill({N}, 0.5f));
  llq::Acc Op = saxpyOp(X, Y);
  llq::Array<> Out = runtime(Checked).run(Op);
  for (auto _ : State)
    runtime(Checked).run(Op, Out);
  State.SetItemsProcessed(State.iterations() * N);
}

} // namespace

int main(int argc, char **argv) {
  const char *Ops[] = {"div", "mod", "saxpy"};
  void (*Fns[])(benchmark::State &, bool) = {BM_Div, BM_Mod, BM_Saxpy};
  for (int Op = 0; Op < 3; ++Op)
    for (bool Checked : {false, true})
      benchmark::RegisterBenchmark(
          (std::string("BM_") + Ops[Op] + (Checked ? "_checked" : "_plain"))
              .c_str(),
          Fns[Op], Checked)
          ->Arg(1 << 20)
          ->Arg(1 << 24)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
  std::vector<std::string> Storage;
  if (!llq::bench::initialize(argc, argv, Storage))
    return 1;
  llq::bench::RatioReporter Reporter(
      "Ratios (same run; checked time / unchecked time, 1.00 = free):", 24, 6,
      2, [Ops](llq::bench::RatioReporter &R) {
        for (const char *Op : Ops)
          for (int N : {1 << 20, 1 << 24}) {
            std::string Suffix = "/" + std::to_string(N);
            R.ratio(std::string(Op) + " n=" + std::to_string(N),
                    std::string("BM_") + Op + "_checked" + Suffix,
                    std::string("BM_") + Op + "_plain" + Suffix);
          }
      });
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  benchmark::Shutdown();
  return 0;
}
