//===- EngineBench.cpp - Kernel compile latency, cold and cached ----------===//
//
// Measures, in one run, how long it takes from a parsed module to a
// callable kernel for the skeleton map y[i] = a * x[i] + b over [Start, End):
//   - cold: a fresh engine with no disk cache, so the module is optimised
//     at the engine's level and compiled;
//   - memory hit: the engine has compiled it before, so the request costs
//     printing and hashing the module and a lookup;
//   - disk hit: a fresh engine whose disk cache holds the object, so the
//     request costs the key, reading and checking the entry, and linking;
//   - cold, writing its entry synced and not synced: what durability
//     costs (the entry is fsync'ed, renamed, and the directory fsync'ed);
//   - skeleton call, memory hit: what a skeleton pays on every call to get
//     its key, instantiating its template (the same kernel, written with
//     `$type:elt`) and then the memory hit and the lookup.
// The first three time addModule plus the symbol lookup that links the
// object; creating engines and parsing IR are not timed. After the usual
// table it prints the ratios, each a median with its range over repetitions
// that Google Benchmark interleaves (RatioReporter.h).
//
// LLQ_MCPU and LLQ_OPT_LEVEL apply as for any engine; the disk cache lives
// in a temporary directory that is deleted at the end.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "llquote/runtime/Engine.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "AxpbKernel.h"
#include "RatioReporter.h"
#include <benchmark/benchmark.h>
#include <cstdio>
#include <map>
#include <string>

using namespace llq::rt;

namespace {

using test::SaxpyIR;

/// A benchmark has no error path but to stop: a failure here is a broken
/// setup, not a measurement.
llvm::ExitOnError Check("llquote_bench_engine: ");

/// SaxpyIR as a skeleton would write it: the element type is a hole.
const llq::Template MapSkeleton = LLQ_SKELETON(R"(
define void @saxpy(i64 %start, i64 %end, ptr %args) {
entry:
  %x = load ptr, ptr %args
  %yp = getelementptr inbounds i8, ptr %args, i64 8
  %y = load ptr, ptr %yp
  %ap = getelementptr inbounds i8, ptr %args, i64 16
  %a = load $type:elt, ptr %ap
  %bp = getelementptr inbounds i8, ptr %args, i64 20
  %b = load $type:elt, ptr %bp
  %empty = icmp sge i64 %start, %end
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %xi = getelementptr inbounds $type:elt, ptr %x, i64 %i
  %xv = load $type:elt, ptr %xi
  %m = fmul $type:elt %a, %xv
  %r = fadd $type:elt %m, %b
  %yi = getelementptr inbounds $type:elt, ptr %y, i64 %i
  store $type:elt %r, ptr %yi
  %next = add nsw i64 %i, 1
  %done = icmp eq i64 %next, %end
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)");

llvm::orc::ThreadSafeModule instantiateMap() {
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> M = Check(
      MapSkeleton.instantiate(*Ctx, {{"elt", llvm::Type::getFloatTy(*Ctx)}}));
  return llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx));
}

llvm::orc::ThreadSafeModule parseMap() {
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic Diag;
  std::unique_ptr<llvm::Module> M =
      llvm::parseAssemblyString(SaxpyIR, Diag, *Ctx);
  if (!M)
    Check(llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  Diag.getMessage()));
  return llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx));
}

std::unique_ptr<Engine> makeEngine(const std::string &CacheDir) {
  EngineOptions O;
  O.DiskCache = !CacheDir.empty();
  O.CacheDir = CacheDir;
  O.Verbose = false;
  return Check(Engine::create(O));
}

/// The timed region: from a parsed module to a callable kernel.
void addAndLink(Engine &E, llvm::orc::ThreadSafeModule TSM, KernelOrigin Want,
                benchmark::State &State) {
  AddedModule Added = Check(E.addModule(std::move(TSM)));
  auto *Fn = Check(E.lookup<void(int64_t, int64_t, void *)>("saxpy"));
  benchmark::DoNotOptimize(Fn);
  if (Added.Origin != Want)
    State.SkipWithError("the request did not take the path measured");
}

void BM_Compile_Cold(benchmark::State &State) {
  for (auto _ : State) {
    State.PauseTiming();
    std::unique_ptr<Engine> E = makeEngine("");
    llvm::orc::ThreadSafeModule TSM = parseMap();
    State.ResumeTiming();
    addAndLink(*E, std::move(TSM), KernelOrigin::Compiled, State);
    State.PauseTiming();
    E.reset();
    State.ResumeTiming();
  }
}

/// A cold compile that writes its disk entry, synced (Sync) or not: what
/// durability costs.
void compileColdWriting(benchmark::State &State, bool Sync) {
  for (auto _ : State) {
    State.PauseTiming();
    llvm::SmallString<128> Dir;
    if (llvm::sys::fs::createUniqueDirectory("llq-engine-bench", Dir)) {
      State.SkipWithError("cannot create a temporary directory");
      return;
    }
    EngineOptions O;
    O.DiskCache = true;
    O.CacheDir = std::string(Dir);
    O.CacheSync = Sync;
    O.Verbose = false;
    std::unique_ptr<Engine> E = Check(Engine::create(O));
    llvm::orc::ThreadSafeModule TSM = parseMap();
    State.ResumeTiming();
    addAndLink(*E, std::move(TSM), KernelOrigin::Compiled, State);
    State.PauseTiming();
    E.reset();
    llvm::sys::fs::remove_directories(Dir);
    State.ResumeTiming();
  }
}
void BM_Compile_ColdSynced(benchmark::State &State) {
  compileColdWriting(State, true);
}
void BM_Compile_ColdNoSync(benchmark::State &State) {
  compileColdWriting(State, false);
}

void BM_Compile_MemoryHit(benchmark::State &State) {
  std::unique_ptr<Engine> E = makeEngine("");
  Check(E->addModule(parseMap()));
  for (auto _ : State) {
    State.PauseTiming();
    llvm::orc::ThreadSafeModule TSM = parseMap();
    State.ResumeTiming();
    addAndLink(*E, std::move(TSM), KernelOrigin::MemoryCache, State);
  }
}

void BM_Skeleton_MemoryHit(benchmark::State &State) {
  std::unique_ptr<Engine> E = makeEngine("");
  Check(E->addModule(instantiateMap()));
  for (auto _ : State)
    addAndLink(*E, instantiateMap(), KernelOrigin::MemoryCache, State);
}

void BM_Compile_DiskHit(benchmark::State &State) {
  llvm::SmallString<128> Dir;
  if (llvm::sys::fs::createUniqueDirectory("llq-engine-bench", Dir)) {
    State.SkipWithError("cannot create a temporary directory");
    return;
  }
  std::string Root(Dir);
  Check(makeEngine(Root)->addModule(parseMap())); // Writes the entry.
  for (auto _ : State) {
    State.PauseTiming();
    std::unique_ptr<Engine> E = makeEngine(Root);
    llvm::orc::ThreadSafeModule TSM = parseMap();
    State.ResumeTiming();
    addAndLink(*E, std::move(TSM), KernelOrigin::DiskCache, State);
    State.PauseTiming();
    E.reset();
    State.ResumeTiming();
  }
  llvm::sys::fs::remove_directories(Root);
}

} // namespace

int main(int argc, char **argv) {
  for (auto *B :
       {benchmark::RegisterBenchmark("BM_Compile_Cold", BM_Compile_Cold),
        benchmark::RegisterBenchmark("BM_Compile_MemoryHit",
                                     BM_Compile_MemoryHit),
        benchmark::RegisterBenchmark("BM_Compile_DiskHit", BM_Compile_DiskHit),
        benchmark::RegisterBenchmark("BM_Compile_ColdSynced",
                                     BM_Compile_ColdSynced),
        benchmark::RegisterBenchmark("BM_Compile_ColdNoSync",
                                     BM_Compile_ColdNoSync),
        benchmark::RegisterBenchmark("BM_Skeleton_MemoryHit",
                                     BM_Skeleton_MemoryHit)})
    B->UseRealTime()->Unit(benchmark::kMicrosecond);
  std::vector<std::string> Storage;
  if (!llq::bench::initialize(argc, argv, Storage))
    return 1;
  llq::bench::RatioReporter Reporter(
      "Ratios (same run; how many times faster than a cold compile):", 58, 10, 2,
      [](llq::bench::RatioReporter &R) {
        R.ratio("cold / memory-cache hit (module in hand)", "BM_Compile_Cold",
                "BM_Compile_MemoryHit");
        R.ratio("cold / skeleton call, memory hit (instantiate+hit+lookup)",
                "BM_Compile_Cold", "BM_Skeleton_MemoryHit");
        R.ratio("cold / disk-cache hit", "BM_Compile_Cold", "BM_Compile_DiskHit");
        R.ratio("skeleton call / memory-cache hit (module in hand)",
                "BM_Skeleton_MemoryHit", "BM_Compile_MemoryHit");
        R.ratio("cold, entry written and synced / cold, no disk cache",
                "BM_Compile_ColdSynced", "BM_Compile_Cold");
        R.ratio("cold, entry synced / cold, entry written without sync",
                "BM_Compile_ColdSynced", "BM_Compile_ColdNoSync");
      });
  benchmark::RunSpecifiedBenchmarks(&Reporter);
  benchmark::Shutdown();
  return 0;
}
