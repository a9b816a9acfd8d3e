//===- EngineProbe.cpp - One process's view of the disk kernel cache ------===//
//
// Run by EngineTests.cpp in child processes: it JIT-compiles one fixed
// kernel with an engine configured from the environment (LLQ_CACHE_DIR
// names a fresh directory), runs it, and prints one line,
//
//   origin=<compiled|memory|disk> compiles=N memory_hits=N disk_hits=N
//   disk_rejects=N result=<ok|wrong>
//
// so that the parent can tell whether this process compiled the kernel or
// loaded what an earlier process left on disk. Exits 0 only if the kernel
// computed the right values.
//
// `llquote_engine_probe fill FIRST COUNT` instead compiles COUNT distinct
// kernels, y = K * x - 2 for K = FIRST .. FIRST + COUNT - 1, runs each, and
// prints
//
//   fill compiles=N disk_hits=N disk_rejects=N disk_evictions=N result=ok
//
// for the tests of the disk cache's bound, where processes fill one
// directory at once.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Engine.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace llq::rt;

namespace {

/// y[i] = 3 * x[i] - 2 over [Start, End); Args = {x, y}.
const char *const KernelIR = R"(
define void @probe_kernel(i64 %start, i64 %end, ptr %args) {
entry:
  %x = load ptr, ptr %args
  %yp = getelementptr inbounds i8, ptr %args, i64 8
  %y = load ptr, ptr %yp
  %empty = icmp sge i64 %start, %end
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ %start, %entry ], [ %next, %loop ]
  %xi = getelementptr inbounds i64, ptr %x, i64 %i
  %xv = load i64, ptr %xi
  %m = mul i64 %xv, 3
  %r = sub i64 %m, 2
  %yi = getelementptr inbounds i64, ptr %y, i64 %i
  store i64 %r, ptr %yi
  %next = add nsw i64 %i, 1
  %done = icmp eq i64 %next, %end
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";

const char *originName(KernelOrigin Origin) {
  switch (Origin) {
  case KernelOrigin::Compiled:
    return "compiled";
  case KernelOrigin::MemoryCache:
    return "memory";
  case KernelOrigin::DiskCache:
    return "disk";
  }
  return "?";
}

/// KernelIR with the multiplier K and the name probe_K.
std::string kernelFor(int64_t K) {
  std::string IR = KernelIR;
  auto Replace = [&](const std::string &From, const std::string &To) {
    size_t At = IR.find(From);
    IR.replace(At, From.size(), To);
  };
  Replace("@probe_kernel", "@probe_" + std::to_string(K));
  Replace("mul i64 %xv, 3", "mul i64 %xv, " + std::to_string(K));
  return IR;
}

int fill(int64_t First, int64_t Count) {
  llvm::ExitOnError Check("llquote_engine_probe fill: ");
  std::unique_ptr<Engine> E = Check(Engine::create());
  const int64_t N = 1000;
  std::vector<int64_t> X(N), Y(N);
  for (int64_t I = 0; I < N; ++I)
    X[I] = I - 17;
  bool Ok = true;
  Gang G(1);
  for (int64_t K = First; K < First + Count; ++K) {
    auto Ctx = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic Diag;
    std::unique_ptr<llvm::Module> M =
        llvm::parseAssemblyString(kernelFor(K), Diag, *Ctx);
    if (!M) {
      Diag.print("llquote_engine_probe", llvm::errs());
      return 2;
    }
    Check(E->addModule(
        llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx))));
    auto *Kernel = Check(E->lookup<void(int64_t, int64_t, void *)>(
        "probe_" + std::to_string(K)));
    void *Args[] = {X.data(), Y.data()};
    Ok = Ok && G.parallelFor(0, N, Kernel, Args).ok();
    for (int64_t I = 0; I < N; ++I)
      Ok = Ok && Y[I] == K * X[I] - 2;
  }
  EngineCounters C = E->counters();
  llvm::outs() << "fill compiles=" << C.Compiles << " disk_hits=" << C.DiskHits
               << " disk_rejects=" << C.DiskRejects
               << " disk_evictions=" << C.DiskEvictions
               << " result=" << (Ok ? "ok" : "wrong") << "\n";
  return Ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && llvm::StringRef(argv[1]) == "fill")
    return fill(std::atoll(argv[2]), std::atoll(argv[3]));
  llvm::ExitOnError Check("llquote_engine_probe: ");
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic Diag;
  std::unique_ptr<llvm::Module> M =
      llvm::parseAssemblyString(KernelIR, Diag, *Ctx);
  if (!M) {
    Diag.print("llquote_engine_probe", llvm::errs());
    return 2;
  }
  std::unique_ptr<Engine> E = Check(Engine::create());
  AddedModule Added = Check(
      E->addModule(llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx))));
  auto *Kernel =
      Check(E->lookup<void(int64_t, int64_t, void *)>("probe_kernel"));

  const int64_t N = 10000;
  std::vector<int64_t> X(N), Y(N);
  for (int64_t I = 0; I < N; ++I)
    X[I] = I - 17;
  void *Args[] = {X.data(), Y.data()};
  bool Ok = Gang(2).parallelFor(0, N, Kernel, Args).ok();
  for (int64_t I = 0; I < N; ++I)
    Ok = Ok && Y[I] == 3 * X[I] - 2;

  EngineCounters C = E->counters();
  llvm::outs() << "origin=" << originName(Added.Origin)
               << " compiles=" << C.Compiles << " memory_hits=" << C.MemoryHits
               << " disk_hits=" << C.DiskHits
               << " disk_rejects=" << C.DiskRejects
               << " result=" << (Ok ? "ok" : "wrong") << "\n";
  return Ok ? 0 : 1;
}
