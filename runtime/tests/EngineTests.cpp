//===- EngineTests.cpp - Scenarios for the JIT engine and its caches ------===//
//
// Each test is named after the scenario it runs. Kernels are written as LLVM
// IR text, so the engine is tested without the llquote front end. Every
// engine here gets explicit options (disk cache off, or a fresh temporary
// directory), so that neither the user's environment nor ~/.cache can change
// a result; the tests of the environment variables set them explicitly and
// restore them afterwards.
//
// The disk-cache scenarios that need a second process run
// llquote_engine_probe (EngineProbe.cpp), whose path CMake passes in as
// LLQ_ENGINE_PROBE.
//
//===----------------------------------------------------------------------===//

#include "llquote/runtime/Engine.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sys/resource.h>
#include "../KernelCache.h"
#include "AxpbKernel.h"
#include "llvm/Support/Process.h"
#include <chrono>
#include <doctest/doctest.h>
#include <string>
#include <thread>
#include <vector>

extern char **environ;

using namespace llq::rt;
using llvm::StringRef;

namespace {

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// (a + b) * 3.
const char *const AddMulIR = R"(
define i64 @addmul(i64 %a, i64 %b) {
  %s = add i64 %a, %b
  %m = mul i64 %s, 3
  ret i64 %m
}
)";

using test::SaxpyIR;

struct SaxpyArgs {
  const float *X;
  float *Y;
  float A;
  float B;
};

/// The sum of p[0 .. n), n >= 1, added left to right as written.
const char *const SumIR = R"(
define float @sum(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc2, %loop ]
  %ep = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %ep
  %acc2 = fadd float %acc, %v
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %acc2
}
)";

/// Fails its job from index 0 through the scheduler's C entry point.
const char *const ReportErrorIR = R"(
@msg = private constant [19 x i8] c"bad index from jit\00"
declare i32 @llq_rt_report_error(ptr)
declare i32 @llq_rt_cancelled()

define void @failing_kernel(i64 %start, i64 %end, ptr %args) {
entry:
  %first = icmp eq i64 %start, 0
  br i1 %first, label %report, label %exit
report:
  %r = call i32 @llq_rt_report_error(ptr @msg)
  br label %exit
exit:
  ret void
}

define i32 @cancelled_outside_a_job() {
  %c = call i32 @llq_rt_cancelled()
  ret i32 %c
}
)";

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

llvm::orc::ThreadSafeModule parseModule(StringRef Text) {
  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic Diag;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(Text, Diag, *Ctx);
  REQUIRE_MESSAGE(M, Diag.getMessage().str());
  return llvm::orc::ThreadSafeModule(std::move(M), std::move(Ctx));
}

/// The value, or a test failure that shows the error.
template <typename T> T require(llvm::Expected<T> E) {
  if (!E)
    FAIL(llvm::toString(E.takeError()));
  return std::move(*E);
}

/// The error's message; a test failure if there was none.
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  if (E)
    FAIL("expected an error");
  return llvm::toString(E.takeError());
}

/// Options that read nothing from the environment.
EngineOptions isolated() {
  EngineOptions O;
  O.CPU = "host";
  O.OptLevel = 3;
  O.DiskCache = false;
  O.Verbose = false;
  return O;
}

EngineOptions withDiskCache(StringRef Dir) {
  EngineOptions O = isolated();
  O.DiskCache = true;
  O.CacheDir = Dir.str();
  return O;
}

/// The same, with the verbose log going to \p Log.
EngineOptions verboseDiskCache(StringRef Dir, llvm::raw_ostream &Log) {
  EngineOptions O = withDiskCache(Dir);
  O.Verbose = true;
  O.Log = &Log;
  return O;
}

std::unique_ptr<Engine> makeEngine(EngineOptions O = isolated()) {
  return require(Engine::create(std::move(O)));
}

/// A fresh directory, deleted with its contents at the end of the scope.
struct TempDir {
  llvm::SmallString<128> Path;
  TempDir() {
    REQUIRE(!llvm::sys::fs::createUniqueDirectory("llq-engine-test", Path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(Path); }
  std::string str() const { return std::string(Path); }
};

/// Sets (or, with nullptr, unsets) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      ::setenv(Name, Value, 1);
    else
      ::unsetenv(Name);
  }
  ~ScopedEnv() {
    if (Saved)
      ::setenv(Name, Saved->c_str(), 1);
    else
      ::unsetenv(Name);
  }

private:
  const char *Name;
  std::optional<std::string> Saved;
};

/// Runs saxpy from E over N elements and returns how many are wrong.
int64_t wrongSaxpyResults(Engine &E, int64_t N = 4099) {
  auto *Fn = require(E.lookup<void(int64_t, int64_t, void *)>("saxpy"));
  std::vector<float> X(N), Y(N);
  for (int64_t I = 0; I < N; ++I)
    X[I] = float(I) * 0.25f - 100.0f;
  SaxpyArgs Args{X.data(), Y.data(), 1.5f, -3.0f};
  REQUIRE(Gang(2).parallelFor(0, N, Fn, &Args, /*MinGrain=*/64).ok());
  int64_t Wrong = 0;
  for (int64_t I = 0; I < N; ++I)
    Wrong += Y[I] != 1.5f * X[I] + -3.0f;
  return Wrong;
}

std::string readFile(StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  REQUIRE_MESSAGE(Buf, "cannot read " << Path.str());
  return (*Buf)->getBuffer().str();
}

void writeFile(StringRef Path, StringRef Bytes) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  REQUIRE(!EC);
  OS << Bytes;
}

/// Files in Dir whose names end with Suffix.
std::vector<std::string> filesEndingWith(StringRef Dir, StringRef Suffix) {
  std::vector<std::string> Found;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (StringRef(It->path()).ends_with(Suffix))
      Found.push_back(It->path());
  return Found;
}

/// The environment of this process without LLQ_* variables, plus Extra.
std::vector<std::string> childEnvironment(std::vector<std::string> Extra) {
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E)
    if (!StringRef(*E).starts_with("LLQ_"))
      Env.push_back(*E);
  Env.insert(Env.end(), Extra.begin(), Extra.end());
  return Env;
}

struct ProbeRun {
  int ExitCode;
  std::string Output;
};

/// Starts llquote_engine_probe with the given environment and arguments,
/// its stdout going to OutPath.
llvm::sys::ProcessInfo startProbe(const std::vector<std::string> &Env,
                                  StringRef OutPath,
                                  std::vector<std::string> Args = {}) {
  // The redirection does not truncate: start from no file at all.
  llvm::sys::fs::remove(OutPath);
  std::vector<StringRef> EnvRefs(Env.begin(), Env.end());
  std::vector<StringRef> ArgRefs{LLQ_ENGINE_PROBE};
  ArgRefs.insert(ArgRefs.end(), Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {std::nullopt, OutPath, std::nullopt};
  std::string Why;
  bool Failed = false;
  llvm::sys::ProcessInfo PI =
      llvm::sys::ExecuteNoWait(LLQ_ENGINE_PROBE, ArgRefs, EnvRefs,
                               Redirects, 0, &Why, &Failed);
  REQUIRE_MESSAGE(!Failed, Why);
  return PI;
}

ProbeRun finishProbe(const llvm::sys::ProcessInfo &PI, StringRef OutPath) {
  std::string Why;
  llvm::sys::ProcessInfo Done = llvm::sys::Wait(PI, std::nullopt, &Why);
  return {Done.ReturnCode, readFile(OutPath)};
}

ProbeRun startAndFinish(const std::vector<std::string> &Env, StringRef OutPath,
                        std::vector<std::string> Args) {
  return finishProbe(startProbe(Env, OutPath, std::move(Args)), OutPath);
}

ProbeRun runProbe(StringRef CacheDir, StringRef OutPath) {
  auto Env = childEnvironment({"LLQ_CACHE_DIR=" + CacheDir.str()});
  return finishProbe(startProbe(Env, OutPath), OutPath);
}

} // namespace

//===----------------------------------------------------------------------===//
// Compiling and calling
//===----------------------------------------------------------------------===//

TEST_CASE("jit_a_small_module_and_call_it_through_a_typed_pointer") {
  std::unique_ptr<Engine> E = makeEngine();
  AddedModule Added = require(E->addModule(parseModule(AddMulIR)));
  CHECK(Added.Origin == KernelOrigin::Compiled);
  CHECK(Added.Key.size() == 32);
  REQUIRE(Added.Tracker);
  auto *AddMul = require(E->lookup<int64_t(int64_t, int64_t)>("addmul"));
  CHECK(AddMul(2, 5) == 21);
  CHECK(AddMul(-10, 4) == -18);
  CHECK(E->counters().Compiles == 1);
  CHECK(E->cpu() == llvm::sys::getHostCPUName().str());
  CHECK(E->optLevel() == 3);
}

TEST_CASE("map_kernel_runs_on_the_gang_with_the_exact_ieee_results") {
  std::unique_ptr<Engine> E = makeEngine();
  require(E->addModule(parseModule(SaxpyIR)));
  CHECK(wrongSaxpyResults(*E) == 0);
}

TEST_CASE("jit_kernel_reports_an_error_through_the_scheduler") {
  std::unique_ptr<Engine> E = makeEngine();
  require(E->addModule(parseModule(ReportErrorIR)));
  auto *Kernel =
      require(E->lookup<void(int64_t, int64_t, void *)>("failing_kernel"));
  Status S = Gang(2).parallelFor(0, 1000, Kernel, nullptr);
  CHECK_FALSE(S.ok());
  CHECK(S.message() == "bad index from jit");
  auto *Cancelled = require(E->lookup<int32_t()>("cancelled_outside_a_job"));
  CHECK(Cancelled() == 0);
}

TEST_CASE("invalid_ir_is_an_error_and_is_not_cached") {
  // %x is used in %b, which %a does not dominate: the parser accepts this,
  // the verifier does not.
  const char *Bad = R"(
define i32 @bad(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  br label %b
b:
  ret i32 %x
}
)";
  std::unique_ptr<Engine> E = makeEngine();
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    std::string Message = errorOf(E->addModule(parseModule(Bad)));
    CHECK(Message.find("invalid module") != std::string::npos);
    CHECK(Message.find("does not dominate") != std::string::npos);
  }
  CHECK(E->counters().Compiles == 0);
  CHECK(E->counters().MemoryHits == 0);
}

TEST_CASE("module_for_another_target_is_rejected") {
  std::string IR =
      std::string("target triple = \"aarch64-unknown-linux-gnu\"\n") + AddMulIR;
  std::unique_ptr<Engine> E = makeEngine();
  std::string Message = errorOf(E->addModule(parseModule(IR)));
  CHECK(Message.find("module targets aarch64-unknown-linux-gnu") !=
        std::string::npos);
}

TEST_CASE("intrinsic_of_another_target_is_refused_before_code_generation") {
  const char *IR = R"(
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define i32 @tid() {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %t
}
)";
  std::unique_ptr<Engine> E = makeEngine();
  std::string Message = errorOf(E->addModule(parseModule(IR)));
  CHECK(Message.find("'@llvm.nvvm.read.ptx.sreg.tid.x', an intrinsic of "
                     "another target") != std::string::npos);
  CHECK(E->counters().Compiles == 0);
}

TEST_CASE("llvm_fatal_error_in_codegen_is_an_error_and_the_next_kernel_compiles") {
  if (llvm::Triple(llvm::sys::getProcessTriple()).getArch() !=
      llvm::Triple::x86_64)
    return; // The planted error is an x86 one.
  // An AVX-512 intrinsic on a CPU without AVX-512: the x86 instruction
  // selector stops with report_fatal_error ("Do not know how to split").
  const char *Fatal = R"(
declare <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float>, <16 x float>, i16)
define <16 x float> @reciprocal(<16 x float> %x) {
  %r = call <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float> %x, <16 x float> %x, i16 -1)
  ret <16 x float> %r
}
)";
  EngineOptions O = isolated();
  O.CPU = "x86-64";
  std::unique_ptr<Engine> E = makeEngine(O);
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    std::string Message = errorOf(E->addModule(parseModule(Fatal)));
    CHECK(Message == "LLVM fatal error in @reciprocal: Do not know how to "
                     "split the result of this operator!");
  }
  // The process, the session and the memory cache go on.
  require(E->addModule(parseModule(AddMulIR)));
  auto *AddMul = require(E->lookup<int64_t(int64_t, int64_t)>("addmul"));
  CHECK(AddMul(2, 5) == 21);
  CHECK(E->counters().Compiles == 1);
  require(E->addModule(parseModule(AddMulIR)));
  CHECK(E->counters().MemoryHits == 1);
}

TEST_CASE("inline_asm_error_is_an_error_not_an_exit_of_the_process") {
  if (llvm::Triple(llvm::sys::getProcessTriple()).getArch() !=
      llvm::Triple::x86_64)
    return; // The assembly is x86's.
  // LLVMContext's default handler prints an error diagnostic and exits.
  const char *BadAsm = R"(
define void @frob() {
  call void asm sideeffect "frobnicate %eax", ""()
  ret void
}
)";
  std::unique_ptr<Engine> E = makeEngine();
  std::string Message = errorOf(E->addModule(parseModule(BadAsm)));
  CHECK(Message.find("error in @frob: ") == 0);
  CHECK(Message.find("invalid instruction mnemonic 'frobnicate'") !=
        std::string::npos);
  require(E->addModule(parseModule(AddMulIR)));
  auto *AddMul = require(E->lookup<int64_t(int64_t, int64_t)>("addmul"));
  CHECK(AddMul(1, 1) == 6);
}

//===----------------------------------------------------------------------===//
// The memory cache
//===----------------------------------------------------------------------===//

TEST_CASE("same_module_twice_is_a_memory_hit_without_a_compile") {
  std::unique_ptr<Engine> E = makeEngine();
  AddedModule First = require(E->addModule(parseModule(SaxpyIR)));
  // Another name and source file: not part of the key.
  llvm::orc::ThreadSafeModule Again = parseModule(SaxpyIR);
  Again.withModuleDo([](llvm::Module &M) {
    M.setModuleIdentifier("renamed");
    M.setSourceFileName("elsewhere.llq");
  });
  AddedModule Second = require(E->addModule(std::move(Again)));
  CHECK(First.Origin == KernelOrigin::Compiled);
  CHECK(Second.Origin == KernelOrigin::MemoryCache);
  CHECK(Second.Key == First.Key);
  CHECK(Second.Tracker == First.Tracker);
  EngineCounters C = E->counters();
  CHECK(C.Compiles == 1);
  CHECK(C.MemoryHits == 1);
  CHECK(C.DiskHits == 0);
  CHECK(wrongSaxpyResults(*E) == 0);
}

TEST_CASE("a_different_module_or_option_is_not_a_memory_hit") {
  std::unique_ptr<Engine> E = makeEngine();
  AddedModule Saxpy = require(E->addModule(parseModule(SaxpyIR)));
  AddedModule AddMul = require(E->addModule(parseModule(AddMulIR)));
  CHECK(AddMul.Key != Saxpy.Key);
  CHECK(AddMul.Origin == KernelOrigin::Compiled);
  CHECK(E->counters().Compiles == 2);
  CHECK(E->counters().MemoryHits == 0);
}

TEST_CASE("eight_threads_asking_for_one_kernel_compile_it_once") {
  const int Threads = 8;
  std::unique_ptr<Engine> E = makeEngine();
  // Parse first, so that the threads race on addModule alone.
  std::vector<llvm::orc::ThreadSafeModule> Modules;
  for (int T = 0; T < Threads; ++T)
    Modules.push_back(parseModule(SaxpyIR));
  std::vector<llvm::Expected<AddedModule>> Results;
  for (int T = 0; T < Threads; ++T)
    Results.emplace_back(AddedModule{});
  std::atomic<int> Arrived{0};
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      // All start together, so the requests overlap the one compile.
      ++Arrived;
      while (Arrived.load() < Threads)
        std::this_thread::yield();
      Results[T] = E->addModule(std::move(Modules[T]));
    });
  for (std::thread &Th : Pool)
    Th.join();
  int Compiled = 0, Hits = 0;
  llvm::orc::ResourceTrackerSP Owner;
  for (auto &R : Results) {
    AddedModule A = require(std::move(R));
    Compiled += A.Origin == KernelOrigin::Compiled;
    Hits += A.Origin == KernelOrigin::MemoryCache;
    if (!Owner)
      Owner = A.Tracker;
    CHECK(A.Tracker == Owner);
  }
  CHECK(Compiled == 1);
  CHECK(Hits == Threads - 1);
  CHECK(E->counters().Compiles == 1);
  CHECK(E->counters().MemoryHits == uint64_t(Threads - 1));
  CHECK(wrongSaxpyResults(*E) == 0);
}

TEST_CASE("removing_the_tracker_frees_the_kernel_and_readding_compiles_it") {
  std::unique_ptr<Engine> E = makeEngine();
  AddedModule Added = require(E->addModule(parseModule(AddMulIR)));
  auto *Before = require(E->lookup<int64_t(int64_t, int64_t)>("addmul"));
  CHECK(Before(1, 1) == 6);
  REQUIRE(!Added.Tracker->remove());
  std::string Message = errorOf(E->lookup<int64_t(int64_t, int64_t)>("addmul"));
  CHECK(Message.find("Symbols not found") != std::string::npos);
  CHECK(Message.find("addmul") != std::string::npos);

  // The memory cache forgot it: this is a compile, not a stale hit.
  AddedModule Again = require(E->addModule(parseModule(AddMulIR)));
  CHECK(Again.Origin == KernelOrigin::Compiled);
  CHECK(Again.Tracker != Added.Tracker);
  CHECK(E->counters().Compiles == 2);
  CHECK(E->counters().MemoryHits == 0);
  auto *After = require(E->lookup<int64_t(int64_t, int64_t)>("addmul"));
  CHECK(After(1, 1) == 6);
}

TEST_CASE(
    "kernel_moved_with_transfer_to_stays_cached_until_its_new_tracker_goes") {
  std::unique_ptr<Engine> E = makeEngine();
  AddedModule Added = require(E->addModule(parseModule(AddMulIR)));
  llvm::orc::ResourceTrackerSP Keeper =
      E->mainJITDylib().createResourceTracker();
  Added.Tracker->transferTo(*Keeper);

  AddedModule Hit = require(E->addModule(parseModule(AddMulIR)));
  CHECK(Hit.Origin == KernelOrigin::MemoryCache);
  CHECK(!Hit.Tracker); // The tracker it moved to cannot be named.
  CHECK(require(E->lookup<int64_t(int64_t, int64_t)>("addmul"))(2, 2) == 12);

  REQUIRE(!Keeper->remove());
  AddedModule Rebuilt = require(E->addModule(parseModule(AddMulIR)));
  CHECK(Rebuilt.Origin == KernelOrigin::Compiled);
  CHECK(E->counters().Compiles == 2);
}

TEST_CASE("caller_tracker_owns_the_kernel_and_a_duplicate_symbol_is_an_error") {
  std::unique_ptr<Engine> E = makeEngine();
  llvm::orc::ResourceTrackerSP Mine = E->mainJITDylib().createResourceTracker();
  AddedModule Added = require(E->addModule(parseModule(AddMulIR), Mine));
  CHECK(Added.Tracker == Mine);
  // Same symbol, different body: a different kernel that cannot coexist.
  std::string Other = AddMulIR;
  Other.replace(Other.find("mul i64 %s, 3"), 13, "mul i64 %s, 4");
  std::string Message = errorOf(E->addModule(parseModule(Other)));
  CHECK(Message.find("Duplicate definition") != std::string::npos);
  CHECK(require(E->lookup<int64_t(int64_t, int64_t)>("addmul"))(1, 1) == 6);
}

//===----------------------------------------------------------------------===//
// Optimisation and fast-math
//===----------------------------------------------------------------------===//

namespace {

std::string optimizedText(Engine &E, StringRef IR, KernelOptions Options) {
  llvm::orc::ThreadSafeModule TSM = parseModule(IR);
  std::string Text;
  TSM.withModuleDo([&](llvm::Module &M) {
    REQUIRE(!E.optimize(M, Options));
    llvm::raw_string_ostream OS(Text);
    M.print(OS, nullptr);
  });
  return Text;
}

/// 1e8 followed by 1023 ones. Added in order, every one rounds away
/// (float's spacing at 1e8 is 8); added in any vector order, the ones
/// gathered in other lanes survive.
std::vector<float> absorbingSequence() {
  std::vector<float> V(1024, 1.0f);
  V[0] = 1e8f;
  return V;
}

} // namespace

TEST_CASE("fast_math_is_off_by_default_so_a_reduction_keeps_its_order") {
  std::unique_ptr<Engine> E = makeEngine();
  std::string Text = optimizedText(*E, SumIR, KernelOptions());
  CHECK(Text.find("fast") == std::string::npos);
  CHECK(Text.find("reassoc") == std::string::npos);
  CHECK(Text.find("x float>") == std::string::npos); // Not vectorised.

  require(E->addModule(parseModule(SumIR)));
  auto *Sum = require(E->lookup<float(const float *, int64_t)>("sum"));
  std::vector<float> V = absorbingSequence();
  CHECK(Sum(V.data(), int64_t(V.size())) == 1e8f);
}

TEST_CASE("fast_math_opt_in_vectorises_the_reduction_and_reassociates") {
  std::unique_ptr<Engine> E = makeEngine();
  KernelOptions Fast;
  Fast.FastMath = true;
  std::string Text = optimizedText(*E, SumIR, Fast);
  CHECK(Text.find("fadd fast <") != std::string::npos);

  AddedModule Added = require(E->addModule(parseModule(SumIR), nullptr, Fast));
  auto *Sum = require(E->lookup<float(const float *, int64_t)>("sum"));
  std::vector<float> V = absorbingSequence();
  float Result = Sum(V.data(), int64_t(V.size()));
  CHECK(Result != 1e8f);
  CHECK(std::fabs(Result - (1e8f + 1023.0f)) <= 64.0f);

  // The flag is part of the key: the same text without it is another kernel.
  REQUIRE(!Added.Tracker->remove());
  AddedModule Strict = require(E->addModule(parseModule(SumIR)));
  CHECK(Strict.Key != Added.Key);
  CHECK(Strict.Origin == KernelOrigin::Compiled);
}

TEST_CASE("vectoriser_uses_the_vector_width_of_the_engines_cpu") {
  // The loop vectoriser picks its width from the TargetMachine's cost model:
  // SSE2 has 4 floats to a register, AVX2 8. A pipeline built without the
  // TargetMachine would not vectorise for either.
  EngineOptions Sse = isolated(), Avx = isolated();
  Sse.CPU = "x86-64";
  Avx.CPU = "x86-64-v3";
  std::string Narrow = optimizedText(*makeEngine(Sse), SaxpyIR, {});
  std::string Wide = optimizedText(*makeEngine(Avx), SaxpyIR, {});
  CHECK(Narrow.find("<4 x float>") != std::string::npos);
  CHECK(Narrow.find("<8 x float>") == std::string::npos);
  CHECK(Wide.find("<8 x float>") != std::string::npos);
}

TEST_CASE("opt_level_zero_leaves_the_loop_alone") {
  EngineOptions O = isolated();
  O.OptLevel = 0;
  std::unique_ptr<Engine> E = makeEngine(O);
  std::string Text = optimizedText(*E, SaxpyIR, {});
  CHECK(Text.find("x float>") == std::string::npos);
  CHECK(Text.find("%m = fmul float %a, %xv") != std::string::npos);
  require(E->addModule(parseModule(SaxpyIR)));
  CHECK(wrongSaxpyResults(*E) == 0);
}

TEST_CASE("without_fast_math_a_multiply_add_is_not_fused") {
  // a * x rounds to 1 + 2^-11 (the exact 1 + 2^-11 + 2^-24 is a tie broken
  // to even), so a * x + b is 0; a fused multiply-add would give 2^-24.
  std::unique_ptr<Engine> E = makeEngine();
  require(E->addModule(parseModule(SaxpyIR)));
  auto *Fn = require(E->lookup<void(int64_t, int64_t, void *)>("saxpy"));
  const float A = 1.0f + std::ldexp(1.0f, -12);
  std::vector<float> X(64, A), Y(64, -1.0f);
  SaxpyArgs Args{X.data(), Y.data(), A, -(1.0f + std::ldexp(1.0f, -11))};
  Fn(0, 64, &Args);
  for (float Value : Y)
    CHECK(Value == 0.0f);
}

//===----------------------------------------------------------------------===//
// The disk cache
//===----------------------------------------------------------------------===//

TEST_CASE("disk_entry_lives_under_version_triple_and_cpu") {
  TempDir Dir;
  std::unique_ptr<Engine> E = makeEngine(withDiskCache(Dir.str()));
  llvm::SmallString<128> Want(Dir.Path);
  llvm::sys::path::append(Want, LLVM_VERSION_STRING, E->triple(), E->cpu());
  CHECK(E->diskCacheDir() == std::string(Want));
  AddedModule Added = require(E->addModule(parseModule(SaxpyIR)));
  std::vector<std::string> Entries = filesEndingWith(E->diskCacheDir(), ".o");
  REQUIRE(Entries.size() == 1);
  CHECK(llvm::sys::path::filename(Entries[0]) == Added.Key + ".o");
  // Written through a temporary that was renamed, not left behind.
  CHECK(filesEndingWith(E->diskCacheDir(), ".tmp").empty());
  CHECK(readFile(Entries[0]).substr(0, 6) == "llqobj");
}

TEST_CASE("a_new_process_loads_the_kernel_from_disk_instead_of_compiling") {
  TempDir Dir;
  llvm::SmallString<128> Out(Dir.Path);
  llvm::sys::path::append(Out, "probe.out");

  ProbeRun First = runProbe(Dir.str() + "/cache", Out);
  CHECK(First.ExitCode == 0);
  CHECK(First.Output == "origin=compiled compiles=1 memory_hits=0 disk_hits=0 "
                        "disk_rejects=0 result=ok\n");

  ProbeRun Second = runProbe(Dir.str() + "/cache", Out);
  CHECK(Second.ExitCode == 0);
  CHECK(Second.Output == "origin=disk compiles=0 memory_hits=0 disk_hits=1 "
                         "disk_rejects=0 result=ok\n");
}

TEST_CASE("processes_racing_on_one_entry_all_succeed_and_leave_it_valid") {
  TempDir Dir;
  auto Env = childEnvironment({"LLQ_CACHE_DIR=" + Dir.str() + "/cache"});
  std::vector<std::string> Outs;
  std::vector<llvm::sys::ProcessInfo> Running;
  for (int P = 0; P < 4; ++P) {
    Outs.push_back(Dir.str() + "/race" + std::to_string(P) + ".out");
    Running.push_back(startProbe(Env, Outs.back()));
  }
  for (int P = 0; P < 4; ++P) {
    ProbeRun R = finishProbe(Running[P], Outs[P]);
    CHECK(R.ExitCode == 0);
    CHECK(R.Output.find("result=ok") != std::string::npos);
    CHECK(R.Output.find("disk_rejects=0") != std::string::npos);
  }
  ProbeRun After = runProbe(Dir.str() + "/cache", Dir.str() + "/after.out");
  CHECK(After.Output.find("origin=disk") != std::string::npos);
}

TEST_CASE("two_processes_filling_a_bounded_disk_cache_keep_it_bounded_and_valid") {
  TempDir Dir;
  const uint64_t Limit = 64 * 1024;
  auto Env = childEnvironment({"LLQ_CACHE_DIR=" + Dir.str() + "/cache",
                               "LLQ_CACHE_MAX_SIZE=64K"});
  // 300 kernels of a few kilobytes each, 100 of them written by both.
  std::vector<std::string> Outs = {Dir.str() + "/fill0.out",
                                   Dir.str() + "/fill1.out"};
  std::vector<llvm::sys::ProcessInfo> Running = {
      startProbe(Env, Outs[0], {"fill", "0", "200"}),
      startProbe(Env, Outs[1], {"fill", "100", "200"})};
  uint64_t Evictions = 0;
  for (int P = 0; P < 2; ++P) {
    ProbeRun R = finishProbe(Running[P], Outs[P]);
    CHECK(R.ExitCode == 0);
    CHECK(R.Output.find("result=ok") != std::string::npos);
    CHECK(R.Output.find("disk_rejects=0") != std::string::npos);
    size_t At = R.Output.find("disk_evictions=");
    REQUIRE(At != std::string::npos);
    Evictions += std::stoull(R.Output.substr(At + 15));
  }
  CHECK(Evictions > 0);
  // What is left: within the bound, and every entry whole and for its key.
  std::string CacheDir;
  {
    EngineOptions O;
    O.CacheDir = Dir.str() + "/cache";
    CacheDir = require(Engine::create(O))->diskCacheDir();
  }
  uint64_t Total = 0;
  std::vector<std::string> Entries = filesEndingWith(CacheDir, ".o");
  CHECK(Entries.size() > 4);
  for (const std::string &Path : Entries) {
    std::string Bytes = readFile(Path);
    Total += Bytes.size();
    std::optional<detail::KernelKey> Key =
        detail::keyFromHex(llvm::sys::path::stem(Path));
    REQUIRE(Key);
    llvm::Expected<StringRef> Object = detail::decodeEntry(Bytes, *Key);
    CHECK_MESSAGE(bool(Object), Path);
    if (!Object)
      llvm::consumeError(Object.takeError());
  }
  CHECK(Total <= Limit);
  CHECK(filesEndingWith(CacheDir, ".tmp").empty());
  // A process after them loads what is left and compiles what went.
  ProbeRun After = startAndFinish(Env, Dir.str() + "/after.out",
                                  {"fill", "0", "300"});
  CHECK(After.ExitCode == 0);
  CHECK(After.Output.find("result=ok") != std::string::npos);
}

TEST_CASE("the_disk_cache_bound_and_sync_are_read_from_options_and_variables") {
  CHECK(require(parseSize("LLQ_CACHE_MAX_SIZE", "0")) == 0);
  CHECK(require(parseSize("LLQ_CACHE_MAX_SIZE", "4096")) == 4096);
  CHECK(require(parseSize("LLQ_CACHE_MAX_SIZE", "500M")) == 500ull << 20);
  CHECK(require(parseSize("LLQ_CACHE_MAX_SIZE", "2g")) == 2ull << 30);
  for (const char *Bad : {"", "M", "-1", "1.5G", "12T", "99999999999999999999",
                          "17179869184G"}) {
    llvm::Expected<uint64_t> S = parseSize("LLQ_CACHE_MAX_SIZE", Bad);
    REQUIRE_FALSE(bool(S));
    CHECK(llvm::toString(S.takeError()).find("expected a size in bytes") !=
          std::string::npos);
  }
  // A bad variable stops the engine, as the other variables do.
  setenv("LLQ_CACHE_MAX_SIZE", "lots", 1);
  llvm::Expected<std::unique_ptr<Engine>> E = Engine::create();
  unsetenv("LLQ_CACHE_MAX_SIZE");
  REQUIRE_FALSE(bool(E));
  CHECK(llvm::toString(E.takeError()).find("LLQ_CACHE_MAX_SIZE='lots'") !=
        std::string::npos);
  setenv("LLQ_CACHE_SYNC", "maybe", 1);
  E = Engine::create();
  unsetenv("LLQ_CACHE_SYNC");
  REQUIRE_FALSE(bool(E));
  llvm::consumeError(E.takeError());
}

TEST_CASE("a_stale_temporary_is_removed_a_fresh_one_kept_and_entries_evicted_oldest_first") {
  TempDir Dir;
  detail::VerboseLog Log(false, nullptr);
  detail::DiskObjectCache Cache(Dir.str(), Log, ".o", {/*MaxSize=*/10000, true});
  auto Key = [](uint8_t B) {
    detail::KernelKey K{};
    K.fill(B);
    return K;
  };
  std::string Object(1000, 'x');
  // Five entries of about 1 KB, the first used long ago.
  for (uint8_t B = 1; B <= 5; ++B)
    Cache.save(Key(B), Object);
  auto Ago = [](std::chrono::hours H) {
    return std::chrono::time_point_cast<std::chrono::nanoseconds>(
        std::chrono::system_clock::now() - H);
  };
  auto SetTime = [&](const std::string &Path, std::chrono::hours H) {
    int FD;
    REQUIRE(!llvm::sys::fs::openFileForWrite(Path, FD, llvm::sys::fs::CD_OpenExisting));
    CHECK(!llvm::sys::fs::setLastAccessAndModificationTime(FD, Ago(H), Ago(H)));
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  };
  SetTime(Cache.entryPath(detail::toHex(Key(1))), std::chrono::hours(5));
  SetTime(Cache.entryPath(detail::toHex(Key(2))), std::chrono::hours(4));
  // A hit is a use: entry 2 is now the newest.
  CHECK(Cache.load(Key(2)));
  std::string Stale = Dir.str() + "/dead-12345678.tmp",
              Fresh = Dir.str() + "/busy-12345678.tmp";
  {
    std::error_code EC;
    llvm::raw_fd_ostream(Stale, EC) << "half an entry";
    llvm::raw_fd_ostream(Fresh, EC) << "being written";
  }
  SetTime(Stale, std::chrono::hours(2));
  // Five more: past 9/10 of the bound, the least recently used go, down
  // to 3/4 of it.
  for (uint8_t B = 6; B <= 10; ++B)
    Cache.save(Key(B), Object);
  // Trimmed to 3/4 when it passed 9/10; what came after stays below 9/10.
  CHECK(Cache.trim() <= 9000);
  CHECK(Cache.evictions() > 0);
  CHECK_FALSE(llvm::sys::fs::exists(Cache.entryPath(detail::toHex(Key(1)))));
  CHECK(llvm::sys::fs::exists(Cache.entryPath(detail::toHex(Key(2)))));
  CHECK(llvm::sys::fs::exists(Cache.entryPath(detail::toHex(Key(10)))));
  CHECK_FALSE(llvm::sys::fs::exists(Stale));
  CHECK(llvm::sys::fs::exists(Fresh));
}

TEST_CASE("a_corrupt_entry_is_detected_deleted_rebuilt_and_never_loaded") {
  TempDir Dir;
  std::string EntryPath, Key;
  {
    std::unique_ptr<Engine> E = makeEngine(withDiskCache(Dir.str()));
    AddedModule Added = require(E->addModule(parseModule(SaxpyIR)));
    Key = Added.Key;
    EntryPath = E->diskCacheDir() + "/" + Key + ".o";
  }
  std::string Good = readFile(EntryPath);
  REQUIRE(Good.size() > 100);
  std::string Bad = Good;
  std::string Reason;

  SUBCASE("truncated_object") {
    Bad.resize(Good.size() / 2);
    Reason = "object bytes";
  }
  SUBCASE("truncated_header") {
    Bad.resize(20);
    Reason = "shorter than a header";
  }
  SUBCASE("empty_file") {
    Bad.clear();
    Reason = "shorter than a header";
  }
  SUBCASE("flipped_byte_in_the_object") {
    Bad[Good.size() / 2 + 24] ^= 0x10;
    Reason = "checksum mismatch";
  }
  SUBCASE("flipped_checksum") {
    Bad[40] ^= 0x01;
    Reason = "checksum mismatch";
  }
  SUBCASE("bad_magic") {
    Bad[0] = 'X';
    Reason = "bad magic";
  }
  SUBCASE("trailing_garbage") {
    Bad += "tail";
    Reason = "object bytes";
  }
  writeFile(EntryPath, Bad);

  std::string LogText;
  llvm::raw_string_ostream Log(LogText);
  EngineOptions O = verboseDiskCache(Dir.str(), Log);
  {
    std::unique_ptr<Engine> E = makeEngine(O);
    AddedModule Added = require(E->addModule(parseModule(SaxpyIR)));
    CHECK(Added.Origin == KernelOrigin::Compiled);
    EngineCounters C = E->counters();
    CHECK(C.DiskRejects == 1);
    CHECK(C.DiskHits == 0);
    CHECK(C.Compiles == 1);
    CHECK(wrongSaxpyResults(*E) == 0);
  }
  CHECK(LogText.find("rejected (") != std::string::npos);
  CHECK_MESSAGE(LogText.find(Reason) != std::string::npos, LogText);
  CHECK(readFile(EntryPath) == Good); // Rebuilt as it was.

  std::unique_ptr<Engine> Next = makeEngine(withDiskCache(Dir.str()));
  CHECK(require(Next->addModule(parseModule(SaxpyIR))).Origin ==
        KernelOrigin::DiskCache);
  CHECK(wrongSaxpyResults(*Next) == 0);
}

TEST_CASE("a_corrupt_entry_is_rebuilt_by_the_next_process") {
  TempDir Dir;
  std::string Cache = Dir.str() + "/cache";
  std::string Out = Dir.str() + "/probe.out";
  REQUIRE(runProbe(Cache, Out).ExitCode == 0);
  std::vector<std::string> Entries;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Cache, EC), End;
       It != End && !EC; It.increment(EC))
    if (StringRef(It->path()).ends_with(".o"))
      Entries.push_back(It->path());
  REQUIRE(Entries.size() == 1);
  std::string Bytes = readFile(Entries[0]);
  Bytes[Bytes.size() - 7] ^= 0x5a;
  writeFile(Entries[0], Bytes);

  ProbeRun Rebuilt = runProbe(Cache, Out);
  CHECK(Rebuilt.ExitCode == 0);
  CHECK(Rebuilt.Output == "origin=compiled compiles=1 memory_hits=0 "
                          "disk_hits=0 disk_rejects=1 result=ok\n");
  ProbeRun Loaded = runProbe(Cache, Out);
  CHECK(Loaded.Output == "origin=disk compiles=0 memory_hits=0 disk_hits=1 "
                         "disk_rejects=0 result=ok\n");
}

TEST_CASE("another_cpu_never_loads_the_entry") {
  TempDir Dir;
  EngineOptions V2 = withDiskCache(Dir.str()), V3 = V2;
  V2.CPU = "x86-64-v2";
  V3.CPU = "x86-64-v3";
  std::unique_ptr<Engine> A = makeEngine(V2);
  std::unique_ptr<Engine> B = makeEngine(V3);
  CHECK(A->diskCacheDir() != B->diskCacheDir());
  AddedModule OnA = require(A->addModule(parseModule(SaxpyIR)));
  AddedModule OnB = require(B->addModule(parseModule(SaxpyIR)));
  CHECK(OnB.Key != OnA.Key);
  CHECK(OnB.Origin == KernelOrigin::Compiled);

  // Even an entry moved into B's directory under B's name is refused: the
  // header names A's key.
  REQUIRE(!OnB.Tracker->remove());
  std::string BPath = B->diskCacheDir() + "/" + OnB.Key + ".o";
  writeFile(BPath, readFile(A->diskCacheDir() + "/" + OnA.Key + ".o"));
  AddedModule Again = require(B->addModule(parseModule(SaxpyIR)));
  CHECK(Again.Origin == KernelOrigin::Compiled);
  CHECK(B->counters().DiskRejects == 1);
  CHECK(wrongSaxpyResults(*B) == 0);
}

TEST_CASE("unwritable_cache_directory_costs_a_compile_not_an_error") {
  TempDir Dir;
  // A file where the cache wants a directory: every write fails.
  std::string Blocker = Dir.str() + "/blocker";
  writeFile(Blocker, "not a directory");
  std::string LogText;
  llvm::raw_string_ostream Log(LogText);
  EngineOptions O = verboseDiskCache(Blocker, Log);
  std::unique_ptr<Engine> E = makeEngine(O);
  AddedModule Added = require(E->addModule(parseModule(SaxpyIR)));
  CHECK(Added.Origin == KernelOrigin::Compiled);
  CHECK(wrongSaxpyResults(*E) == 0);
  CHECK(LogText.find("disk cache write to") != std::string::npos);
}

/// How many times \p Log tells of a failed disk cache write.
static size_t writeFailures(StringRef Log) {
  return Log.count("disk cache write to");
}

/// The files in \p Dir, recursively.
static size_t filesUnder(const std::string &Dir) {
  size_t N = 0;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC))
    N += llvm::sys::fs::is_regular_file(It->path());
  return N;
}

TEST_CASE("cache_directory_replaced_by_a_file_degrades_to_memory_with_one_"
          "warning") {
  TempDir Dir;
  std::string LogText;
  llvm::raw_string_ostream Log(LogText);
  EngineOptions O = verboseDiskCache(Dir.str() + "/cache", Log);
  std::unique_ptr<Engine> E = makeEngine(O);
  require(E->addModule(parseModule(SaxpyIR)));
  REQUIRE(filesUnder(E->diskCacheDir()) == 1);
  // The directory, entry and all, becomes a file while the engine runs.
  REQUIRE(!llvm::sys::fs::remove_directories(E->diskCacheDir()));
  writeFile(E->diskCacheDir(), "not a directory");

  CHECK(require(E->addModule(parseModule(AddMulIR))).Origin ==
        KernelOrigin::Compiled);
  CHECK(require(E->addModule(parseModule(SumIR))).Origin ==
        KernelOrigin::Compiled);
  CHECK_MESSAGE(writeFailures(LogText) == 1, LogText);
  CHECK(LogText.find("caching kernels in memory only from now on") !=
        std::string::npos);
  // The memory cache still serves what was compiled after the failure.
  CHECK(require(E->addModule(parseModule(AddMulIR))).Origin ==
        KernelOrigin::MemoryCache);
  CHECK(wrongSaxpyResults(*E) == 0);
  CHECK(readFile(E->diskCacheDir()) == "not a directory");
}

TEST_CASE("a_full_disk_leaves_neither_entry_nor_temporary") {
  TempDir Dir;
  std::string LogText;
  llvm::raw_string_ostream Log(LogText);
  EngineOptions O = verboseDiskCache(Dir.str(), Log);
  std::unique_ptr<Engine> E = makeEngine(O);
  // A file size limit below an entry's size fails the write part way, as
  // a full disk does (EFBIG instead of ENOSPC).
  struct rlimit Old;
  REQUIRE(getrlimit(RLIMIT_FSIZE, &Old) == 0);
  struct rlimit Small = Old;
  Small.rlim_cur = 64;
  void (*OldHandler)(int) = std::signal(SIGXFSZ, SIG_IGN);
  REQUIRE(setrlimit(RLIMIT_FSIZE, &Small) == 0);
  llvm::Expected<AddedModule> Added = E->addModule(parseModule(SaxpyIR));
  setrlimit(RLIMIT_FSIZE, &Old);
  std::signal(SIGXFSZ, OldHandler);

  CHECK(require(std::move(Added)).Origin == KernelOrigin::Compiled);
  CHECK(wrongSaxpyResults(*E) == 0);
  CHECK_MESSAGE(writeFailures(LogText) == 1, LogText);
  CHECK(filesUnder(E->diskCacheDir()) == 0);
  // The disk is fine again for the next engine.
  std::unique_ptr<Engine> Next = makeEngine(withDiskCache(Dir.str()));
  CHECK(require(Next->addModule(parseModule(SaxpyIR))).Origin ==
        KernelOrigin::Compiled);
  CHECK(filesUnder(Next->diskCacheDir()) == 1);
}

//===----------------------------------------------------------------------===//
// Logging and the environment
//===----------------------------------------------------------------------===//

TEST_CASE("verbose_log_names_the_path_each_request_took") {
  TempDir Dir;
  std::string LogText;
  llvm::raw_string_ostream Log(LogText);
  EngineOptions O = verboseDiskCache(Dir.str(), Log);
  {
    std::unique_ptr<Engine> E = makeEngine(O);
    require(E->addModule(parseModule(SaxpyIR)));
    require(E->addModule(parseModule(SaxpyIR)));
  }
  std::unique_ptr<Engine> E = makeEngine(O);
  require(E->addModule(parseModule(SaxpyIR)));
  llvm::SmallVector<StringRef, 4> Lines;
  StringRef(LogText).trim().split(Lines, '\n');
  REQUIRE(Lines.size() == 3);
  CHECK(Lines[0].starts_with("llquote-jit: kernel @saxpy ["));
  CHECK(Lines[0].contains("]: no cache hit, compiled, "));
  CHECK(Lines[1].contains("]: memory cache hit, "));
  CHECK(Lines[2].contains("]: disk cache hit, "));
  for (StringRef L : Lines)
    CHECK(L.ends_with(" ms"));

  std::string Quiet;
  llvm::raw_string_ostream QuietLog(Quiet);
  EngineOptions Off = isolated();
  Off.Log = &QuietLog;
  std::unique_ptr<Engine> Silent = makeEngine(Off);
  require(Silent->addModule(parseModule(SaxpyIR)));
  CHECK(Quiet.empty());
}

TEST_CASE("opt_level_and_switch_parsing") {
  CHECK(require(parseOptLevel("0")) == 0);
  CHECK(require(parseOptLevel("3")) == 3);
  for (const char *Bad : {"4", "-1", "", "2x", " 2", "O2", "fast", "03"})
    CHECK(errorOf(parseOptLevel(Bad)) ==
          "LLQ_OPT_LEVEL='" + std::string(Bad) + "': expected 0, 1, 2 or 3");
  CHECK(require(parseSwitch("LLQ_CACHE", "off")) == false);
  CHECK(require(parseSwitch("LLQ_CACHE", "OFF")) == false);
  CHECK(require(parseSwitch("LLQ_CACHE", "0")) == false);
  CHECK(require(parseSwitch("LLQ_VERBOSE", "1")) == true);
  CHECK(require(parseSwitch("LLQ_VERBOSE", "on")) == true);
  CHECK(errorOf(parseSwitch("LLQ_VERBOSE", "yes")) ==
        "LLQ_VERBOSE='yes': expected 1, on, 0 or off");
}

TEST_CASE("llq_mcpu_and_llq_opt_level_configure_the_engine") {
  ScopedEnv Cache("LLQ_CACHE", "off");
  ScopedEnv Verbose("LLQ_VERBOSE", nullptr);
  SUBCASE("named_cpu_and_level") {
    ScopedEnv Cpu("LLQ_MCPU", "x86-64-v2");
    ScopedEnv Opt("LLQ_OPT_LEVEL", "1");
    std::unique_ptr<Engine> E = makeEngine(EngineOptions());
    CHECK(E->cpu() == "x86-64-v2");
    CHECK(E->optLevel() == 1);
    require(E->addModule(parseModule(SaxpyIR)));
    CHECK(wrongSaxpyResults(*E) == 0);
  }
  SUBCASE("host_and_empty_mean_the_defaults") {
    ScopedEnv Cpu("LLQ_MCPU", "host");
    ScopedEnv Opt("LLQ_OPT_LEVEL", "");
    std::unique_ptr<Engine> E = makeEngine(EngineOptions());
    CHECK(E->cpu() == llvm::sys::getHostCPUName().str());
    CHECK(E->optLevel() == 3);
  }
  SUBCASE("options_win_over_the_environment") {
    ScopedEnv Cpu("LLQ_MCPU", "x86-64-v2");
    ScopedEnv Opt("LLQ_OPT_LEVEL", "0");
    EngineOptions O;
    O.CPU = "x86-64-v3";
    O.OptLevel = 2;
    std::unique_ptr<Engine> E = makeEngine(O);
    CHECK(E->cpu() == "x86-64-v3");
    CHECK(E->optLevel() == 2);
  }
  SUBCASE("unknown_cpu_is_an_error") {
    ScopedEnv Cpu("LLQ_MCPU", "skylake-avx51");
    std::string Message = errorOf(Engine::create());
    CHECK(Message.find("LLQ_MCPU='skylake-avx51': not a CPU of x86_64") == 0);
  }
  SUBCASE("bad_level_is_an_error") {
    ScopedEnv Opt("LLQ_OPT_LEVEL", "fast");
    CHECK(errorOf(Engine::create()) ==
          "LLQ_OPT_LEVEL='fast': expected 0, 1, 2 or 3");
  }
  SUBCASE("bad_option_level_is_an_error") {
    EngineOptions O;
    O.OptLevel = 7;
    CHECK(errorOf(Engine::create(O)) ==
          "EngineOptions::OptLevel is 7, expected 0 to 3");
  }
}

TEST_CASE("cache_variables_choose_the_directory") {
  TempDir Dir;
  ScopedEnv Verbose("LLQ_VERBOSE", nullptr);
  ScopedEnv Cpu("LLQ_MCPU", nullptr);
  std::string Tail = std::string("/") + LLVM_VERSION_STRING + "/";
  SUBCASE("llq_cache_dir_is_the_root") {
    ScopedEnv On("LLQ_CACHE", "on");
    ScopedEnv Root("LLQ_CACHE_DIR", Dir.str().c_str());
    std::unique_ptr<Engine> E = makeEngine(EngineOptions());
    CHECK(StringRef(E->diskCacheDir()).starts_with(Dir.str() + Tail));
  }
  SUBCASE("xdg_cache_home_then_home") {
    ScopedEnv On("LLQ_CACHE", nullptr);
    ScopedEnv Root("LLQ_CACHE_DIR", nullptr);
    ScopedEnv Xdg("XDG_CACHE_HOME", (Dir.str() + "/xdg").c_str());
    ScopedEnv Home("HOME", (Dir.str() + "/home").c_str());
    CHECK(StringRef(makeEngine(EngineOptions())->diskCacheDir())
              .starts_with(Dir.str() + "/xdg/llquote" + Tail));
    ScopedEnv Relative("XDG_CACHE_HOME", "relative/dir");
    CHECK(StringRef(makeEngine(EngineOptions())->diskCacheDir())
              .starts_with(Dir.str() + "/home/.cache/llquote" + Tail));
  }
  SUBCASE("llq_cache_off_disables_it") {
    ScopedEnv Off("LLQ_CACHE", "off");
    ScopedEnv Root("LLQ_CACHE_DIR", Dir.str().c_str());
    std::unique_ptr<Engine> E = makeEngine(EngineOptions());
    CHECK(E->diskCacheDir().empty());
    require(E->addModule(parseModule(SaxpyIR)));
    CHECK(filesEndingWith(Dir.str(), "").empty());
  }
  SUBCASE("bad_switch_is_an_error") {
    ScopedEnv Bad("LLQ_CACHE", "disabled");
    CHECK(errorOf(Engine::create()) ==
          "LLQ_CACHE='disabled': expected 1, on, 0 or off");
  }
}

//===----------------------------------------------------------------------===//
// compileObject: code for another machine, ahead of time
//===----------------------------------------------------------------------===//

namespace {

/// A loop the vectorizer widens to the CPU's vectors.
const char *ScaleIR = R"(
define void @k.scale(i64 %b, i64 %e, ptr noalias %a) {
entry:
  %none = icmp sge i64 %b, %e
  br i1 %none, label %done, label %loop
loop:
  %i = phi i64 [ %b, %entry ], [ %n, %loop ]
  %p = getelementptr float, ptr %a, i64 %i
  %x = load float, ptr %p
  %y = fmul float %x, 3.0
  store float %y, ptr %p
  %n = add i64 %i, 1
  %more = icmp slt i64 %n, %e
  br i1 %more, label %loop, label %done
done:
  ret void
}
)";

/// ScaleIR compiled for T: the object file's bytes.
std::string objectFor(const ObjectTarget &T) {
  llvm::orc::ThreadSafeModule TSM = parseModule(ScaleIR);
  return TSM.withModuleDo([&](llvm::Module &M) {
    std::unique_ptr<llvm::MemoryBuffer> O = require(compileObject(M, T));
    return O->getBuffer().str();
  });
}

/// The architecture of the object file Bytes, and whether it defines Name.
std::pair<llvm::Triple::ArchType, bool> inspect(const std::string &Bytes,
                                                 StringRef Name) {
  auto Obj = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(Bytes, "kernel.o"));
  if (!Obj)
    FAIL(llvm::toString(Obj.takeError()));
  bool Defined = false;
  for (const llvm::object::SymbolRef &S : (*Obj)->symbols()) {
    llvm::Expected<StringRef> N = S.getName();
    llvm::Expected<llvm::object::section_iterator> Sec = S.getSection();
    if (N && Sec && *N == Name && *Sec != (*Obj)->section_end())
      Defined = true;
    if (!N)
      llvm::consumeError(N.takeError());
    if (!Sec)
      llvm::consumeError(Sec.takeError());
  }
  return {(*Obj)->getArch(), Defined};
}

} // namespace

TEST_CASE("compile_object_for_another_machine") {
  SUBCASE("aarch64") {
    std::string O = objectFor({"aarch64-linux-gnu", "neoverse-v2", "", 3});
    auto [Arch, Defined] = inspect(O, "k.scale");
    CHECK(Arch == llvm::Triple::aarch64);
    CHECK(Defined);
  }
  SUBCASE("x86-64 CPUs differ in their vector code") {
    std::string Base = objectFor({"x86_64-linux-gnu", "x86-64", "", 3});
    std::string V3 = objectFor({"x86_64-linux-gnu", "x86-64-v3", "", 3});
    std::string Zen5 = objectFor({"x86_64-linux-gnu", "znver5", "", 3});
    for (const std::string *O : {&Base, &V3, &Zen5}) {
      auto [Arch, Defined] = inspect(*O, "k.scale");
      CHECK(Arch == llvm::Triple::x86_64);
      CHECK(Defined);
    }
    CHECK(Base != V3);
    CHECK(V3 != Zen5);
  }
  SUBCASE("the host, by default") {
    std::string O = objectFor({});
    auto [Arch, Defined] = inspect(O, "k.scale");
    CHECK(Arch == llvm::Triple(llvm::sys::getProcessTriple()).getArch());
    CHECK(Defined);
  }
}

TEST_CASE("compile_object_names_a_bad_target") {
  llvm::orc::ThreadSafeModule TSM = parseModule(ScaleIR);
  TSM.withModuleDo([&](llvm::Module &M) {
    std::string Triple =
        errorOf(compileObject(M, {"pdp11-unknown-none", "", "", 3}));
    CHECK_MESSAGE(Triple.find("ObjectTarget::Triple 'pdp11-unknown-none'") !=
                      std::string::npos,
                  Triple);
    std::string CPU =
        errorOf(compileObject(M, {"x86_64-linux-gnu", "znver99", "", 3}));
    CHECK_MESSAGE(CPU.find("ObjectTarget::CPU='znver99': not a CPU of "
                           "x86_64-unknown-linux-gnu") != std::string::npos,
                  CPU);
    std::string Level =
        errorOf(compileObject(M, {"x86_64-linux-gnu", "", "", 7}));
    CHECK(Level.find("ObjectTarget::OptLevel is 7: expected 0 to 3") !=
          std::string::npos);
  });
}

//===----------------------------------------------------------------------===//
// exp and log that allow approximation: inline code, within 2 ulp
//===----------------------------------------------------------------------===//

namespace {

/// `define void @<Name>(i64 %n, ptr %in, ptr %out)`: out[i] = Callee(in[i])
/// for i in [0, n), n >= 1, each call with `afn`.
std::string approxMapIR(const std::string &Name, const std::string &Ty,
                        const std::string &Callee) {
  return "define void @" + Name + R"((i64 %n, ptr noalias %in, ptr noalias %out) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr )" + Ty + R"(, ptr %in, i64 %i
  %x = load )" + Ty + R"(, ptr %p
  %y = call afn )" + Ty + " @" + Callee + "(" + Ty + R"( %x)
  %q = getelementptr )" + Ty + R"(, ptr %out, i64 %i
  store )" + Ty + R"( %y, ptr %q
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
)";
}

/// exp and log, float and double, as intrinsics and by libm's names; and
/// expf without `afn`, whose call must stay libm's.
const std::string ApproxMathIR =
    approxMapIR("map.exp.f32", "float", "llvm.exp.f32") +
    approxMapIR("map.log.f32", "float", "logf") +
    approxMapIR("map.exp.f64", "double", "exp") +
    approxMapIR("map.log.f64", "double", "llvm.log.f64") + R"(
define float @strict.exp(float %x) {
  %y = call float @expf(float %x)
  ret float %y
}

declare float @llvm.exp.f32(float)
declare double @llvm.log.f64(double)
declare float @logf(float)
declare float @expf(float)
declare double @exp(double)
)";

template <typename T> using MapFn = void(int64_t, const T *, T *);

/// Float's bit patterns from Lo to Hi (inclusive, both of one sign), one in
/// every Step.
std::vector<float> floatsBetween(uint32_t Lo, uint32_t Hi, uint32_t Step) {
  std::vector<float> Out;
  for (uint64_t B = Lo; B <= Hi; B += Step) {
    uint32_t U = uint32_t(B);
    float F;
    std::memcpy(&F, &U, 4);
    Out.push_back(F);
  }
  return Out;
}

uint32_t bitsOf(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}

/// |Got - Want| in units in the last place of T at Want, where Want is
/// the exact result (in a wider type); Got may be infinite only where
/// Want rounds to infinity.
template <typename T> double ulpError(T Got, long double Want) {
  T Rounded = T(Want);
  if (std::isinf(Rounded) || std::isinf(Got))
    return Got == Rounded ? 0 : INFINITY;
  int Exp = std::ilogb(Rounded == 0 ? std::numeric_limits<T>::min() : Rounded);
  Exp = std::max(Exp, std::numeric_limits<T>::min_exponent - 1);
  long double Ulp =
      std::ldexp(1.0L, Exp - (std::numeric_limits<T>::digits - 1));
  return double(std::fabs((long double)Got - Want) / Ulp);
}

/// The largest error of Fn over In against Ref, and where.
template <typename T>
std::pair<double, T> worst(MapFn<T> *Fn, const std::vector<T> &In,
                           long double (*Ref)(long double)) {
  std::vector<T> Out(In.size());
  Fn(int64_t(In.size()), In.data(), Out.data());
  std::pair<double, T> W{0, 0};
  for (size_t I = 0; I < In.size(); ++I) {
    double E = ulpError(Out[I], Ref((long double)In[I]));
    if (!(E <= W.first))
      W = {E, In[I]};
  }
  return W;
}

long double expRef(long double X) { return std::exp(X); }
long double logRef(long double X) { return std::log(X); }

/// Fn at one point, on the calling thread.
template <typename T> T at(MapFn<T> *Fn, T X) {
  T Y;
  Fn(1, &X, &Y);
  return Y;
}

} // namespace

TEST_CASE("afn_exp_and_log_are_within_two_ulp_of_the_exact_result") {
  std::unique_ptr<Engine> E = makeEngine();
  require(E->addModule(parseModule(ApproxMathIR)));
  auto *ExpF = require(E->lookup<MapFn<float>>("map.exp.f32"));
  auto *LogF = require(E->lookup<MapFn<float>>("map.log.f32"));
  auto *ExpD = require(E->lookup<MapFn<double>>("map.exp.f64"));
  auto *LogD = require(E->lookup<MapFn<double>>("map.log.f64"));

  SUBCASE("float exp, every 997th float from -104 to 89") {
    std::vector<float> In = floatsBetween(0, bitsOf(89.0f), 997);
    std::vector<float> Neg = floatsBetween(bitsOf(-0.0f), bitsOf(-104.0f), 997);
    In.insert(In.end(), Neg.begin(), Neg.end());
    auto [Err, X] = worst(ExpF, In, expRef);
    CHECK_MESSAGE(Err <= 2.0, "exp(" << X << ") is " << Err << " ulp off");
  }
  SUBCASE("float log, every 997th positive float, subnormals included") {
    auto [Err, X] =
        worst(LogF, floatsBetween(1, bitsOf(FLT_MAX), 997), logRef);
    CHECK_MESSAGE(Err <= 2.0, "log(" << X << ") is " << Err << " ulp off");
  }
  SUBCASE("double exp over [-745, 709]") {
    std::vector<double> In;
    for (int I = 0; I <= 400000; ++I)
      In.push_back(-745.0 + 1454.0 * I / 400000.0);
    for (int I = 0; I <= 100000; ++I)
      In.push_back(-1.0 + 2.0 * I / 100000.0);
    auto [Err, X] = worst(ExpD, In, expRef);
    CHECK_MESSAGE(Err <= 2.0, "exp(" << X << ") is " << Err << " ulp off");
  }
  SUBCASE("double log, positive doubles of every exponent") {
    std::vector<double> In;
    const uint64_t Max = 0x7FEFFFFFFFFFFFFFull, Step = Max / 500000;
    for (uint64_t B = 1; B <= Max; B += Step) {
      double D;
      std::memcpy(&D, &B, 8);
      In.push_back(D);
    }
    for (int I = 0; I <= 100000; ++I)
      In.push_back(0.5 + 1.5 * I / 100000.0);
    auto [Err, X] = worst(LogD, In, logRef);
    CHECK_MESSAGE(Err <= 2.0, "log(" << X << ") is " << Err << " ulp off");
  }
  SUBCASE("special values are IEEE's") {
    const float Inf = INFINITY, NaN = NAN;
    CHECK(std::isnan(at(ExpF, NaN)));
    CHECK(at(ExpF, Inf) == Inf);
    CHECK(at(ExpF, -Inf) == 0.0f);
    CHECK(at(ExpF, 88.8f) == Inf);
    CHECK(at(ExpF, -104.0f) == 0.0f);
    CHECK(at(ExpF, 0.0f) == 1.0f);
    // Subnormal results are not flushed to zero.
    CHECK(at(ExpF, -100.0f) > 0.0f);
    CHECK(ulpError(at(ExpF, -100.0f), expRef(-100.0L)) <= 1.0);
    CHECK(at(LogF, 0.0f) == -Inf);
    CHECK(at(LogF, -0.0f) == -Inf);
    CHECK(std::isnan(at(LogF, -1.0f)));
    CHECK(std::isnan(at(LogF, NaN)));
    CHECK(at(LogF, Inf) == Inf);
    CHECK(at(LogF, 1.0f) == 0.0f);
    const float Tiny = std::numeric_limits<float>::denorm_min();
    CHECK(ulpError(at(LogF, Tiny), logRef(Tiny)) <= 2.0);
    CHECK(std::isnan(at(ExpD, double(NAN))));
    CHECK(at(ExpD, 710.0) == double(INFINITY));
    CHECK(at(ExpD, -746.0) == 0.0);
    CHECK(at(ExpD, -740.0) > 0.0);
    CHECK(at(LogD, 0.0) == -double(INFINITY));
    CHECK(std::isnan(at(LogD, -2.0)));
    CHECK(at(LogD, double(INFINITY)) == double(INFINITY));
    const double TinyD = std::numeric_limits<double>::denorm_min();
    CHECK(ulpError(at(LogD, TinyD), logRef(TinyD)) <= 2.0);
  }
}

TEST_CASE("afn_exp_and_log_compile_to_code_that_calls_no_library") {
  llvm::orc::ThreadSafeModule TSM = parseModule(ApproxMathIR);
  std::string Bytes = TSM.withModuleDo([&](llvm::Module &M) {
    return require(compileObject(M, {"", "", "", 3}))->getBuffer().str();
  });
  auto Obj = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(Bytes, "kernel.o"));
  REQUIRE(Obj);
  std::vector<std::string> Undefined;
  for (const llvm::object::SymbolRef &S : (*Obj)->symbols()) {
    llvm::Expected<uint32_t> Flags = S.getFlags();
    llvm::Expected<StringRef> Name = S.getName();
    REQUIRE(Flags);
    REQUIRE(Name);
    if (*Flags & llvm::object::SymbolRef::SF_Undefined)
      Undefined.push_back(Name->str());
  }
  // The call without `afn` keeps libm's expf; the others call nothing.
  CHECK(std::count(Undefined.begin(), Undefined.end(), "expf") == 1);
  for (const std::string &Name : Undefined)
    CHECK_MESSAGE(Name == "expf", "the object calls " << Name);
}
