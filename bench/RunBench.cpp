//===- RunBench.cpp - What Runtime::run costs over the kernel it calls ----===//
//
// The warm path of a one-operation expression, map (\x -> 2x + 1) over n
// floats, against a direct call of the same compiled kernel on the same
// arguments, in one run:
//   - kernel:        the kernel's entry point called on the argument block
//                    the runtime built for it (recorded by a backend that
//                    wraps the standard one): the floor;
//   - run:           R.run(E), E built once: the key walk, the lookup, the
//                    result's allocation and the launch;
//   - run-into:      R.run(E, Out), writing into a reused output;
//   - run-build:     the expression built again and run, as a loop that
//                    makes its expression each time does (and build: the
//                    building alone);
//   - prepared:      P(), P = R.prepare(E): no key walk, no lookup;
//   - prepared-into: P.run(Out) into a reused output;
//   - prepared-rebind: P(X) with a new input array each call;
//   - bound:         B(), B = P.bind(Out): the launches of the first call
//                    repeated on the same arrays.
// At n from 1 (pure overhead) up to sizes that run on the gang, where
// `omp` (an OpenMP `parallel for` of the same loop, compiled ahead of time)
// is the launch peer. Ratios and differences per repetition follow the
// table (RatioReporter.h); the difference over `kernel` is what the
// runtime adds to a call.
//
//===----------------------------------------------------------------------===//

#include "llquote/Skeletons.h"
#include "llquote/skeletons/Skeleton.h"
#include "RatioReporter.h"
#include <benchmark/benchmark.h>
#include <cstring>
#include <optional>
#include <vector>
#ifdef LLQ_HAVE_OPENMP
#include <omp.h>
#endif

using namespace llq;
using namespace llq::detail;

namespace {

/// The standard backend, recording the last launch so that the benchmark
/// can call the kernel itself on the same argument block.
class Recording final : public WrappingBackend {
public:
  using WrappingBackend::WrappingBackend;
  rt::Status launch(const Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t Grain) override {
    if (Record) {
      Fn = K.Phases[Phase];
      this->Begin = Begin;
      this->End = End;
      Block.assign(static_cast<const uint64_t *>(Args),
                   static_cast<const uint64_t *>(Args) + K.Slots.size());
    }
    return Inner->launch(K, Phase, Begin, End, Args, Grain);
  }
  /// While it does not record, a launch repeated from a record may call
  /// the kernel itself, as on the standard backend.
  bool callsInline(int64_t Begin, int64_t End, int64_t Grain) const override {
    return !Record && Inner->callsInline(Begin, End, Grain);
  }

  bool Record = false;
  rt::KernelFn Fn = nullptr;
  int64_t Begin = 0, End = 0;
  std::vector<uint64_t> Block;
};

Recording *TheBackend = nullptr;

Runtime &runtime() {
  static Runtime R(RuntimeOptions(), [](BackendContext &Ctx)
                       -> std::unique_ptr<Backend> {
    auto B = Ctx.standard();
    if (!B) {
      llvm::consumeError(B.takeError());
      return nullptr;
    }
    auto Rec = std::make_unique<Recording>(std::move(*B));
    TheBackend = Rec.get();
    return Rec;
  });
  return R;
}

Fn linear() {
  return LLQ_FN("float (float %x)",
                "%t = fmul float %x, 2.0\n %r = fadd float %t, 1.0");
}

/// The inputs of one size: two arrays of n floats.
struct Inputs {
  explicit Inputs(int64_t N)
      : X(fromVector({N}, std::vector<float>(size_t(N), 1.5f))),
        Y(fromVector({N}, std::vector<float>(size_t(N), 2.5f))) {}
  Array<float> X, Y;
};

void checkResult(benchmark::State &S, const Array<> &Out, float Want) {
  const float *P = static_cast<const float *>(Out.raw().data(0));
  int64_t N = Out.size();
  if (N == 0)
    return;
  if (P[0] != Want || P[N - 1] != Want)
    S.SkipWithError("wrong result");
}

void BM_Kernel(benchmark::State &S) {
  Runtime &R = runtime();
  Inputs In(S.range(0));
  Acc E = map(linear(), Acc(In.X));
  TheBackend->Record = true;
  Array<> Out = R.run(E); // Holds the output the recorded block points to.
  TheBackend->Record = false;
  rt::KernelFn F = TheBackend->Fn;
  std::vector<uint64_t> Block = TheBackend->Block;
  int64_t Begin = TheBackend->Begin, End = TheBackend->End;
  for (auto _ : S) {
    F(Begin, End, Block.data());
    benchmark::ClobberMemory();
  }
  checkResult(S, Out, 4.0f);
}

/// Times Call(Runtime, Inputs, Out), which computes the map of In.X into or
/// as Out, after a first call that compiles.
template <typename CallT> void timeCalls(benchmark::State &S, CallT Call) {
  Runtime &R = runtime();
  Inputs In(S.range(0));
  Array<> Out;
  Call(R, In, Out);
  for (auto _ : S) {
    Call(R, In, Out);
    benchmark::DoNotOptimize(Out);
    benchmark::ClobberMemory();
  }
  checkResult(S, Out, 4.0f);
}

void BM_Run(benchmark::State &S) {
  std::optional<Acc> E;
  timeCalls(S, [&](Runtime &R, Inputs &In, Array<> &Out) {
    if (!E)
      E = map(linear(), Acc(In.X));
    Out = R.run(*E);
  });
}

void BM_RunInto(benchmark::State &S) {
  std::optional<Acc> E;
  timeCalls(S, [&](Runtime &R, Inputs &In, Array<> &Out) {
    if (!E) {
      E = map(linear(), Acc(In.X));
      Out = R.run(*E);
    }
    R.run(*E, Out);
  });
}

void BM_RunBuild(benchmark::State &S) {
  Fn F = linear();
  timeCalls(S, [&](Runtime &R, Inputs &In, Array<> &Out) {
    Out = R.run(map(F, Acc(In.X)));
  });
}

void BM_Build(benchmark::State &S) {
  Inputs In(S.range(0));
  Fn F = linear();
  for (auto _ : S) {
    Acc E = map(F, Acc(In.X));
    benchmark::DoNotOptimize(E);
  }
}

void BM_Prepared(benchmark::State &S) {
  std::optional<Prepared> P;
  timeCalls(S, [&](Runtime &R, Inputs &In, Array<> &Out) {
    if (!P)
      P = R.prepare(map(linear(), Acc(In.X)));
    Out = (*P)();
  });
}

void BM_PreparedInto(benchmark::State &S) {
  std::optional<Prepared> P;
  timeCalls(S, [&](Runtime &R, Inputs &In, Array<> &Out) {
    if (!P) {
      P = R.prepare(map(linear(), Acc(In.X)));
      Out = (*P)();
    }
    P->runInto(Out);
  });
}

void BM_Bound(benchmark::State &S) {
  std::optional<Bound> Call;
  timeCalls(S, [&](Runtime &R, Inputs &In, Array<> &Out) {
    if (!Call) {
      Prepared P = R.prepare(map(linear(), Acc(In.X)));
      Out = P();
      Call = P.bind(Out);
    }
    (*Call)();
  });
}

void BM_PreparedRebind(benchmark::State &S) {
  Runtime &R = runtime();
  Inputs In(S.range(0));
  Prepared P = R.prepare(map(linear(), Acc(In.X)));
  Array<> Out = P(In.Y);
  bool Which = false;
  for (auto _ : S) {
    Out = P(Which ? In.X : In.Y);
    Which = !Which;
    benchmark::DoNotOptimize(Out);
  }
  checkResult(S, Out, Which ? 6.0f : 4.0f);
}

#ifdef LLQ_HAVE_OPENMP
void BM_Omp(benchmark::State &S) {
  int64_t N = S.range(0);
  std::vector<float> X(static_cast<size_t>(N), 1.5f), Y(static_cast<size_t>(N));
  for (auto _ : S) {
#pragma omp parallel for simd schedule(static)
    for (int64_t I = 0; I < N; ++I)
      Y[size_t(I)] = X[size_t(I)] * 2.0f + 1.0f;
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Omp)->RangeMultiplier(4)->Range(1, 1 << 18)->UseRealTime();
#endif

void BM_Seq(benchmark::State &S) {
  int64_t N = S.range(0);
  std::vector<float> X(static_cast<size_t>(N), 1.5f), Y(static_cast<size_t>(N));
  for (auto _ : S) {
    float *YP = Y.data();
    const float *XP = X.data();
    benchmark::DoNotOptimize(XP);
    for (int64_t I = 0; I < N; ++I)
      YP[I] = XP[I] * 2.0f + 1.0f;
    benchmark::ClobberMemory();
  }
}

#define SIZES RangeMultiplier(4)->Range(1, 1 << 18)->UseRealTime()
BENCHMARK(BM_Seq)->SIZES;
BENCHMARK(BM_Kernel)->SIZES;
BENCHMARK(BM_Run)->SIZES;
BENCHMARK(BM_RunInto)->SIZES;
BENCHMARK(BM_RunBuild)->SIZES;
BENCHMARK(BM_Build)->Arg(1)->UseRealTime();
BENCHMARK(BM_Prepared)->SIZES;
BENCHMARK(BM_PreparedInto)->SIZES;
BENCHMARK(BM_PreparedRebind)->SIZES;
BENCHMARK(BM_Bound)->SIZES;

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> Storage;
  if (!llq::bench::initialize(argc, argv, Storage, "0.05"))
    return 1;
  std::vector<int64_t> Sizes;
  for (int64_t N = 1; N <= (1 << 18); N *= 4)
    Sizes.push_back(N);
  llq::bench::RatioReporter Reporter(
      "what a call adds to the kernel, ns (time of the row minus the "
      "kernel's), then time over the peer's",
      34, 8, 1, [Sizes](llq::bench::RatioReporter &R) {
        for (int64_t N : Sizes) {
          std::string K = "BM_Kernel/" + std::to_string(N);
          for (const char *Row : {"Run", "RunInto", "RunBuild", "Prepared",
                                  "PreparedInto", "PreparedRebind", "Bound"})
            R.difference(std::string(Row) + " - kernel, n=" + std::to_string(N),
                         "BM_" + std::string(Row) + "/" + std::to_string(N),
                         K);
        }
        for (int64_t N : Sizes)
          for (const char *Peer : {"Seq", "Omp"})
            for (const char *Row : {"Run", "Prepared", "PreparedInto", "Bound"})
              R.ratio(std::string(Row) + " / " + Peer +
                          ", n=" + std::to_string(N),
                      "BM_" + std::string(Row) + "/" + std::to_string(N),
                      "BM_" + std::string(Peer) + "/" + std::to_string(N));
      });
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  benchmark::Shutdown();
  return 0;
}
