//===- GpuTests.cpp - The GPU backend: PTX everywhere, runs where a GPU is -===//
//
// Code generation needs no GPU: every skeleton is instantiated for several
// element types by a compile-only GPU Runtime, and its PTX is given to
// ptxas (LLQ_PTXAS, else CUDA's, else the one on PATH) when there is one.
// The run tests compare the GPU with the sequential backend and skip, with
// the driver's reason, where llq::gpuAvailable() fails.
//
//===----------------------------------------------------------------------===//
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "TestSupport.h"
#include "llquote/Skeletons.h"
#include "llquote/runtime/Cuda.h"
#include "llquote/runtime/KernelFiles.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include <doctest/doctest.h>
#include <functional>
#include <random>

using namespace llq;

namespace {

Runtime &compiler() {
  static Runtime R([] {
    RuntimeOptions O;
    O.Backend = BackendKind::GPU;
    O.CompileOnly = true;
    O.GpuArch = "sm_90";
    O.DiskCache = false; // Every run compiles: these tests are of the compiler.
    return O;
  }());
  return R;
}

using test::seq;

/// The GPU Runtime, or null (with the reason printed once) where none runs.
Runtime *gpu() {
  static std::unique_ptr<Runtime> R = []() -> std::unique_ptr<Runtime> {
    if (llvm::Error E = gpuAvailable()) {
      MESSAGE("GPU tests skipped: " << llvm::toString(std::move(E)));
      return nullptr;
    }
    RuntimeOptions O;
    O.Backend = BackendKind::GPU;
    return std::make_unique<Runtime>(O);
  }();
  return R.get();
}

std::string ptxas() {
  if (const char *P = std::getenv("LLQ_PTXAS"); P && *P)
    return P;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  auto P = llvm::sys::findProgramByName("ptxas");
  return P ? *P : "";
}

/// Whether ptxas accepts PTX for sm_90; true (with a message) without ptxas.
bool assembles(const std::string &PTX, std::string &Log) {
  static const std::string Tool = ptxas();
  if (Tool.empty()) {
    static bool Said = false;
    if (!Said)
      MESSAGE("ptxas not found (set LLQ_PTXAS): PTX is not assembled");
    Said = true;
    return true;
  }
  llvm::SmallString<64> In, Err;
  if (llvm::sys::fs::createTemporaryFile("llq-gpu", "ptx", In) ||
      llvm::sys::fs::createTemporaryFile("llq-gpu", "log", Err))
    return false;
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(In, EC);
    OS << PTX;
  }
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Err.str(),
                                                Err.str()};
  int RC = llvm::sys::ExecuteAndWait(
      Tool, {Tool, "-arch=sm_90", In.str(), "-o", "/dev/null"}, std::nullopt,
      Redirects);
  if (auto B = llvm::MemoryBuffer::getFile(Err))
    Log = (*B)->getBuffer().str();
  llvm::sys::fs::remove(In);
  llvm::sys::fs::remove(Err);
  return RC == 0;
}

void checkPTX(const Acc &A, const std::string &What) {
  auto P = compiler().kernelPTX(A);
  if (!P) {
    FAIL_CHECK(What << ": " << llvm::toString(P.takeError()));
    return;
  }
  INFO(What);
  CHECK(P->find(".target sm_90") != std::string::npos);
  CHECK(P->find(".entry ") != std::string::npos);
  std::string Log;
  CHECK_MESSAGE(assembles(*P, Log), What << ": ptxas: " << Log);
}

/// "i32", "float", ...: one Fn of each shape per element type.
template <typename T> struct Fns {
  std::string Ty = detail::irTypeOf<T>();
  bool Float = std::is_floating_point_v<T>;
  Fn Add{Ty + " (" + Ty + " %a, " + Ty + " %b)",
         std::string("%r = ") + (Float ? "fadd " : "add ") + Ty + " %a, %b"};
  Fn Twice{Ty + " (" + Ty + " %a)",
           std::string("%r = ") + (Float ? "fadd " : "add ") + Ty + " %a, %a"};
  Fn Sum3{Ty + " (" + Ty + " %a, " + Ty + " %b, " + Ty + " %c)",
          std::string("%s = ") + (Float ? "fadd " : "add ") + Ty +
              " %a, %b\n %r = " + (Float ? "fadd " : "add ") + Ty + " %s, %c"};
  Fn Positive{"i1 (" + Ty + " %a)", Float ? "%r = fcmp ogt " + Ty + " %a, 0.0"
                                           : "%r = icmp ne " + Ty + " %a, 0"};
  Fn Half{Ty + " (" + Ty + " %a)", Float ? "%r = fmul " + Ty + " %a, 0.5"
                                         : "%r = sdiv " + Ty + " %a, 2"};
  Fn Sum6 = sum(6);
  Fn Sum9 = sum(9);
  Fn sum(int K) {
    std::string Sig = Ty + " (", Body = "%r = " + Ty + " " +
                                         (Float ? "0.0" : "0") + "\n";
    for (int I = 0; I < K; ++I) {
      Sig += (I ? ", " : "") + Ty + " %x" + std::to_string(I);
      Body += std::string(" %r = ") + (Float ? "fadd " : "add ") + Ty +
              " %r, %x" + std::to_string(I) + "\n";
    }
    return Fn(Sig + ")", Body);
  }
  Fn Gen{Ty + " (i64 %i)", Float           ? "%r = sitofp i64 %i to " + Ty
                           : Ty == "i64" ? "%r = add i64 %i, 1"
                                         : "%r = trunc i64 %i to " + Ty};
};

template <typename T> void everySkeleton(const std::string &Name) {
  Fns<T> F;
  auto Bin = LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 17");
  auto Rev = LLQ_FN("i64 (i64 %i)", "%r = sub i64 999, %i");
  Array<T> X = fromVector(std::vector<T>(1000, T(1)));
  Array<T> M = fromVector<T>({20, 50}, std::vector<T>(1000, T(1)));
  Array<int32_t> Segs = fromVector(std::vector<int32_t>{400, 0, 600});
  auto Z = Scalar(T(0));
  std::vector<std::pair<std::string, Acc>> Cases = {
      {"generate", generate({1000}, F.Gen)},
      {"map", map(F.Twice, X)},
      {"zipWith", zipWith(F.Add, X, map(F.Twice, X))},
      {"backpermute", backpermute({1000}, Rev, X)},
      {"transpose", transpose(M)},
      {"fold rows", fold(F.Add, Z, M)},
      {"foldAll", foldAll(F.Add, Z, X)},
      {"fold1All", fold1All(F.Add, X)},
      {"foldSeg", foldSeg(F.Add, Z, X, Segs)},
      {"scanl", scanl(F.Add, Z, X)},
      {"scanl1", scanl1(F.Add, X)},
      {"scanr", scanr(F.Add, Z, X)},
      {"scanlSeg", scanlSeg(F.Add, Z, X, Segs)},
      {"permute", permute(F.Add, fill({17}, Z), Bin, X)},
      {"scanr1", scanr1(F.Add, X)},
      {"scanl'", scanlPrime(F.Add, Z, X).first},
      {"scanrSeg", scanrSeg(F.Add, Z, X, Segs)},
      {"fold1Seg", fold1Seg(F.Add, X, Segs)},
      {"transform", transform({1000}, Rev, F.Twice, X)},
      {"stencil clamp", stencil(F.Sum3, Boundary::clamp(), X)},
      {"stencil wrap", stencil(F.Sum3, Boundary::wrap(), X)},
      {"stencil mirror", stencil(F.Sum3, Boundary::mirror(), X)},
      {"stencil constant", stencil(F.Sum3, Boundary::constant(Z), X)},
      {"stencil 3x3", stencil(F.Sum9, Boundary::clamp(), M)},
      {"stencil2", stencil2(F.Sum6, Boundary::clamp(), X, Boundary::wrap(),
                            map(F.Twice, X))},
      {"stencil 1x3", stencil(F.Sum3, {1, 3}, Boundary::mirror(), M)},
      {"stencil2 3x1 and 1x3", stencil2(F.Sum6, {3, 1}, Boundary::clamp(), M, {1, 3},
                                        Boundary::constant(Z), M)},
      {"scanl rows", scanl(F.Add, Z, M)},
      {"scanr1 rows", scanr1(F.Add, M)},
      {"scanl' rows", scanlPrime(F.Add, Z, M).second},
      {"scanlSeg rows", scanlSeg(F.Add, Z, M, fromVector(std::vector<int32_t>{20, 30}))},
      {"take, drop, concat", concat(take(7, M), drop(3, map(F.Twice, M)))},
      {"filter", filter(F.Positive, X)},
      {"compact", compact(map(F.Positive, X), X)},
  };
  for (auto &[What, A] : Cases)
    checkPTX(A, Name + " " + What);
}

} // namespace

TEST_CASE("every skeleton compiles to PTX that ptxas accepts, for several element types") {
  everySkeleton<int32_t>("i32");
  everySkeleton<int64_t>("i64");
  everySkeleton<float>("float");
  everySkeleton<double>("double");
  everySkeleton<uint8_t>("i8");
}

TEST_CASE("preludes and typed array parameters compile to PTX") {
  static const Prelude Pairs(R"(
  %P = type { float, float }
  define internal float @len2(%P %p) {
    %x = extractvalue %P %p, 0
    %y = extractvalue %P %p, 1
    %xx = fmul float %x, %x
    %r = call float @llvm.fmuladd.f32(float %y, float %y, float %xx)
    ret float %r
  }
)", __FILE__, __LINE__);
  Fn Nearest(Pairs, "float (%P %q, array<%P> %ps)", R"(
    %best = float 0x47EFFFFFE0000000
    for i64 %j in 0 to %ps.n0 {
      %p = call %P @ps(i64 %j)
      %d = call float @len2(%P %p)
      %best = call float @llvm.minnum.f32(float %best, float %d)
    }
    %r = float %best)", __FILE__, __LINE__);
  INFO(Nearest.error());
  REQUIRE(Nearest.ok());
  auto Ps = fromVectors<float, float>({5}, std::vector<float>{1, 2, 3, 4, 5},
                                      std::vector<float>{5, 4, 3, 2, 1});
  checkPTX(map(Nearest.with({Ps}), Ps), "prelude and array<%P>");
}

TEST_CASE("permute on the GPU: a cmpxchg loop, and tuples under locks") {
  auto Bin = LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 17");
  auto AddSlow = LLQ_FN("i32 (i32 %a, i32 %b)",
                        "%m = mul i32 %b, 1\n %r = add i32 %a, %m");
  Array<int32_t> X = fromVector(std::vector<int32_t>(100, 1));
  checkPTX(permute(AddSlow, fill({17}, int32_t(0)), Bin, X), "cmpxchg loop");
  auto Pair = fromVectors<int32_t, double>({100}, std::vector<int32_t>(100, 1),
                                           std::vector<double>(100, 0.5));
  Fn AddPair = test::addPair();
  checkPTX(permute(AddPair, fill({17}, std::tuple<int32_t, double>(0, 0.0)),
                   Bin, Pair),
           "tuples under locks");
}

TEST_CASE("math functions on the GPU come from libdevice") {
  Array<float> X = fromVector(std::vector<float>(64, 0.5f));
  Array<double> Y = fromVector(std::vector<double>(64, 0.5));
  auto ExpF = LLQ_FN("float (float %x)",
                     "%r = call float @llvm.exp.f32(float %x)");
  auto LogD = LLQ_FN("double (double %x)",
                     "%r = call double @llvm.log.f64(double %x)");
  auto Sqrt = LLQ_FN("float (float %x)",
                     "%r = call float @llvm.sqrt.f32(float %x)");
  for (auto [What, A] : std::vector<std::pair<const char *, Acc>>{
           {"llvm.exp.f32", map(ExpF, X)},
           {"llvm.log.f64", map(LogD, Y)},
           {"llvm.sqrt.f32", map(Sqrt, X)}}) {
    auto P = compiler().kernelPTX(A);
    if (!P)
      FAIL(What << ": " << llvm::toString(P.takeError()));
    INFO(What);
    // Linked in and inlined: no call leaves the module.
    CHECK(P->find(".extern") == std::string::npos);
    std::string Log;
    CHECK_MESSAGE(assembles(*P, Log), Log);
  }
  // The IR before optimisation shows the redirection.
  auto IR = compiler().kernelIR(map(ExpF, X));
  REQUIRE(bool(IR));
  CHECK(IR->find("@__nv_expf") != std::string::npos);
  CHECK(IR->find("nvptx64-nvidia-cuda") != std::string::npos);
}

TEST_CASE("what the GPU cannot run is an error, not a crash") {
  Array<int32_t> X = fromVector(std::vector<int32_t>(8, 1));
  Array<float> Y = fromVector(std::vector<float>(8, 1.5f));
  auto Round = LLQ_FN("i32 (float %x)",
                      "%l = call i64 @llvm.lround.i64.f32(float %x)\n"
                      " %r = trunc i64 %l to i32");
  auto P = compiler().kernelPTX(map(Round, Y));
  REQUIRE(!P);
  std::string Why = llvm::toString(P.takeError());
  CHECK_MESSAGE(Why.find("cannot run @llvm.lround.i64.f32: the NVPTX target "
                         "does not lower it") != std::string::npos,
                Why);
  auto VecExp = LLQ_FN("float (float %x)",
                       "%v = insertelement <4 x float> poison, float %x, i32 0\n"
                       " %e = call <4 x float> @llvm.exp.v4f32(<4 x float> %v)\n"
                       " %r = extractelement <4 x float> %e, i32 0");
  P = compiler().kernelPTX(map(VecExp, Y));
  REQUIRE(!P);
  Why = llvm::toString(P.takeError());
  CHECK_MESSAGE(Why.find("libdevice has it for float and double scalars") !=
                    std::string::npos,
                Why);

  auto Twice = LLQ_FN("i32 (i32 %x)", "%r = add i32 %x, %x");
  CHECK_THROWS_WITH_AS(compiler().run(map(Twice, X)),
                       doctest::Contains("compiles only"), ArrayError);

  RuntimeOptions O;
  O.Backend = BackendKind::GPU;
  O.CompileOnly = true;
  O.GpuArch = "sm_999";
  CHECK_THROWS_WITH_AS(Runtime{O}, doctest::Contains("cannot compile for 'sm_999'"),
                       ArrayError);

  CHECK(!Runtime().kernelPTX(map(Twice, X)));
}

/// Every file under \p Root whose name ends in \p Suffix.
std::vector<std::string> filesUnder(llvm::StringRef Root, llvm::StringRef Suffix) {
  std::vector<std::string> Found;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator I(Root, EC), E; I != E && !EC;
       I.increment(EC))
    if (llvm::StringRef(I->path()).ends_with(Suffix))
      Found.push_back(I->path());
  return Found;
}

TEST_CASE("PTX is kept on disk beside the engine's objects; a damaged entry is rebuilt") {
  llvm::SmallString<128> Root;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("llq-ptx-cache", Root));
  auto Options = [&] {
    RuntimeOptions O;
    O.Backend = BackendKind::GPU;
    O.CompileOnly = true;
    O.GpuArch = "sm_90";
    O.DiskCache = true;
    O.CacheDir = std::string(Root);
    return O;
  };
  Array<float> X = fromVector(std::vector<float>(64, 1.0f));
  auto Twice = LLQ_FN("float (float %x)", "%r = fadd float %x, %x");
  auto PTX = [&] {
    Runtime R(Options());
    auto P = R.kernelPTX(map(Twice, X));
    if (!P)
      FAIL(llvm::toString(P.takeError()));
    return *P;
  };
  std::string First = PTX();
  std::vector<std::string> Entries = filesUnder(Root, ".ptx");
  REQUIRE(Entries.size() == 1);
  CHECK(llvm::StringRef(Entries[0]).contains("/nvptx64-nvidia-cuda/sm_90/"));

  // A second Runtime reads the entry instead of compiling: what is stored
  // under the key comes back, marked.
  rt::EngineOptions EO;
  EO.DiskCache = true;
  EO.CacheDir = std::string(Root);
  auto Files = rt::KernelFiles::open(EO, "nvptx64-nvidia-cuda", "sm_90", "ptx");
  REQUIRE(bool(Files));
  REQUIRE(*Files != nullptr);
  std::string Key = llvm::sys::path::stem(Entries[0]).str();
  (*Files)->store(Key, "// from the disk cache\n" + First);
  CHECK(PTX() == "// from the disk cache\n" + First);

  // Damaged: deleted, compiled again, stored again.
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Entries[0], EC);
    REQUIRE(!EC);
    OS << "not an entry";
  }
  CHECK(PTX() == First);
  CHECK((*Files)->load(Key) == First);
  CHECK((*Files)->rejects() == 0); // The Runtime's reader rejected it, not this one.

  // Switched off, nothing is read or written.
  auto Off = rt::KernelFiles::open([&] {
    rt::EngineOptions O = EO;
    O.DiskCache = false;
    return O;
  }(), "nvptx64-nvidia-cuda", "sm_90", "ptx");
  REQUIRE(bool(Off));
  CHECK(*Off == nullptr);
  llvm::sys::fs::remove_directories(Root);
}

TEST_CASE("without a driver the GPU backend says why") {
  auto D = rt::cuda::Driver::load("/nonexistent/libcuda.so.1");
  REQUIRE(!D);
  CHECK(D.message().find("the CUDA driver cannot be loaded") !=
        std::string::npos);
  if (llvm::Error E = gpuAvailable()) {
    std::string Why = llvm::toString(std::move(E));
    RuntimeOptions O;
    O.Backend = BackendKind::GPU;
    CHECK_THROWS_WITH_AS(Runtime{O}, doctest::Contains(Why.c_str()), ArrayError);
  }
}

//===-- On a GPU ------------------------------------------------------------===//

TEST_CASE("on the GPU: the skeletons against the sequential backend") {
  Runtime *G = gpu();
  if (!G)
    return;
  std::mt19937_64 Rng(7);
  for (int64_t N : {int64_t(0), int64_t(1), int64_t(97), int64_t(100003),
                    int64_t(1 << 22) + 3}) {
    INFO("N = " << N);
    std::vector<int32_t> Xs(static_cast<size_t>(N));
    for (auto &V : Xs)
      V = int32_t(Rng() % 100);
    Array<int32_t> X = fromVector(Xs);
    Fns<int32_t> F;
    auto Bin = LLQ_FN("i64 (i64 %i)", "%r = srem i64 %i, 17");
    auto Z = Scalar(int32_t(0));
    std::vector<std::pair<std::string, Acc>> Cases = {
        {"map", map(F.Twice, X)},
        {"zipWith", zipWith(F.Add, X, map(F.Twice, X))},
        {"foldAll", foldAll(F.Add, Z, X)},
        {"scanl", scanl(F.Add, Z, X)},
        {"scanr", scanr(F.Add, Z, X)},
        {"permute", permute(F.Add, fill({17}, Z), Bin, X)},
        {"stencil", stencil(F.Sum3, Boundary::clamp(), X)},
        {"filter", filter(F.Positive, map(F.Twice, X))},
        {"compact", compact(map(F.Positive, X), X)},
        {"concat, take", concat(take(N / 3, X), reverse(X))},
        {"scanl rows", scanl(F.Add, Z, reshape({N % 2 ? 1 : 2, N % 2 ? N : N / 2}, X))},
        {"awhile", awhile([&](const Acc &V) { return any(F.Positive, V); },
                          [&](const Acc &V) { return map(F.Half, V); }, X)},
    };
    for (auto &[What, A] : Cases) {
      INFO(What);
      auto Want = seq().run(A).toVector<int32_t>();
      auto Got = G->run(A).toVector<int32_t>();
      CHECK(Got == Want);
    }
  }
}
