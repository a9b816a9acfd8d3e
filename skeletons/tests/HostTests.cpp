//===- HostTests.cpp - The launch protocol, in a program without LLVM -----===//
//
// This executable links llquote_host and the runtime only: no LLVM (the
// test skeletons.host.no_llvm checks its dynamic and static symbols). It
// runs the library's launchers on trees built by hand, with kernels written
// in C++ to the slot protocol KernelGen would give them, on the CPU
// executor: what a program running kernels compiled ahead of time does.
//
//===----------------------------------------------------------------------===//

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "llquote/aot/Program.h"
#include "llquote/skeletons/Launch.h"
#include <thread>
#include <doctest/doctest.h>
#include <numeric>
#include <vector>

using namespace llq;
using namespace llq::detail;

namespace {

std::shared_ptr<Node> useOf(std::shared_ptr<rt::Array> A) {
  auto N = makeNode(Op::Use, "use");
  N->Type = A->type();
  N->Sh = A->shape();
  N->Data = std::move(A);
  return N;
}

std::shared_ptr<rt::Array> floats(std::vector<int64_t> Extents,
                                  const std::vector<float> &V) {
  rt::Expected<Shape> Sh = Shape::make(Extents);
  REQUIRE(Sh);
  rt::Expected<rt::Array> A = rt::Array::fromVector(*Sh, V);
  REQUIRE(A);
  return std::make_shared<rt::Array>(std::move(*A));
}

std::shared_ptr<Node> consumer(const char *Skel, const char *Name,
                               std::vector<NodeRef> Kids) {
  auto N = makeNode(Op::Consumer, Name, std::move(Kids));
  N->Skel = launcherNamed(Skel);
  REQUIRE(N->Skel);
  return N;
}

SlotSpec slot(SlotSpec::Kind K, uint32_t NodeIx, uint32_t A = 0) {
  SlotSpec S;
  S.K = K;
  S.NodeIx = NodeIx;
  S.A = A;
  return S;
}

/// The map y = 2x + 1: slot 0 the output, slot 1 the input's buffer.
void affine(int64_t Begin, int64_t End, void *Args) {
  auto *Slots = static_cast<uint64_t *>(Args);
  auto *Y = reinterpret_cast<float *>(Slots[0]);
  auto *X = reinterpret_cast<const float *>(Slots[1]);
  for (int64_t I = Begin; I < End; ++I)
    Y[I] = 2 * X[I] + 1;
}

/// fold's two phases (Launchers.cpp), summing rows: the host slots are the
/// row length, the chunks a row is cut into, a chunk's length and the
/// partial sums, in slots 2 to 5; slot 0 the output, 1 the input.
void sumChunks(int64_t Begin, int64_t End, void *Args) {
  auto *S = static_cast<uint64_t *>(Args);
  auto *X = reinterpret_cast<const float *>(S[1]);
  int64_t N1 = int64_t(S[2]), Chunks = int64_t(S[3]), Chunk = int64_t(S[4]);
  auto *Part = reinterpret_cast<double *>(S[5]);
  for (int64_t I = Begin; I < End; ++I) {
    int64_t Row = I / Chunks, C = I % Chunks;
    double Sum = 0;
    for (int64_t J = C * Chunk; J < std::min(N1, (C + 1) * Chunk); ++J)
      Sum += X[Row * N1 + J];
    Part[I] = Sum;
  }
}
void sumRows(int64_t Begin, int64_t End, void *Args) {
  auto *S = static_cast<uint64_t *>(Args);
  auto *Y = reinterpret_cast<float *>(S[0]);
  int64_t Chunks = int64_t(S[3]);
  auto *Part = reinterpret_cast<const double *>(S[5]);
  for (int64_t R = Begin; R < End; ++R) {
    double Sum = 0;
    for (int64_t C = 0; C < Chunks; ++C)
      Sum += Part[R * Chunks + C];
    Y[R] = float(Sum);
  }
}

} // namespace

TEST_CASE("the_library_launchers_are_found_by_name") {
  for (const char *Name : {"map", "fold", "foldSeg", "scanl", "scanr",
                           "scanlSeg", "scanrSeg", "scanlRows", "scanrRows",
                           "permute", "stencil", "filter"}) {
    const Launcher *L = launcherNamed(Name);
    REQUIRE_MESSAGE(L, Name);
    CHECK(std::string(L->name()) == Name);
  }
  CHECK(launcherNamed("nosuch") == nullptr);
}

TEST_CASE("a_map_kernel_runs_through_the_materialising_launcher") {
  std::unique_ptr<Executor> Exec = makeCpuExecutor(2, nullptr, false);
  Kernel K;
  K.Name = "affine";
  K.Phases = {&affine};
  SlotSpec Out = slot(SlotSpec::Out, 0);
  K.Slots = {Out, slot(SlotSpec::Buffer, 2)};
  // Short enough for the calling thread, and long enough for the gang.
  for (int64_t N : {int64_t(5), int64_t(300007)}) {
    std::vector<float> X(static_cast<size_t>(N));
    std::iota(X.begin(), X.end(), 0.0f);
    auto Map = makeNode(Op::Map, "map", {useOf(floats({N}, X))});
    Map->Type = ElemType::of<float>();
    Map->Sh = *Shape::make({N});
    auto Root = consumer("map", "map", {Map});
    Root->Type = Map->Type;
    Root->Sh = Map->Sh;
    Launch L(*Root, K, *Exec);
    rt::Status S = Root->Skel->launch(L);
    REQUIRE_MESSAGE(S.ok(), S.message());
    REQUIRE(L.Outputs.size() == 1);
    std::vector<float> Y = *L.Outputs[0]->toVector<float>(0);
    REQUIRE(Y.size() == size_t(N));
    bool Same = true;
    for (size_t I = 0; I < Y.size(); ++I)
      Same = Same && Y[I] == 2 * X[I] + 1;
    CHECK(Same);
  }
}

TEST_CASE("a_fold_launcher_cuts_rows_into_chunks_and_combines_them") {
  std::unique_ptr<Executor> Exec = makeCpuExecutor(2, nullptr, false);
  Kernel K;
  K.Name = "sum";
  K.Phases = {&sumChunks, &sumRows};
  K.Slots = {slot(SlotSpec::Out, 0),     slot(SlotSpec::Buffer, 1),
             slot(SlotSpec::Host, 0, 0), slot(SlotSpec::Host, 0, 1),
             slot(SlotSpec::Host, 0, 2), slot(SlotSpec::Host, 0, 3)};
  // One long row (cut into chunks for the threads), and many short ones.
  for (auto [Rows, Cols] : {std::pair<int64_t, int64_t>{1, 100003},
                            std::pair<int64_t, int64_t>{37, 11}}) {
    std::vector<float> X(static_cast<size_t>(Rows * Cols));
    for (size_t I = 0; I < X.size(); ++I)
      X[I] = float(I % 7);
    auto Root = consumer("fold", "fold", {useOf(floats({Rows, Cols}, X))});
    Root->Type = ElemType::of<float>();
    Root->Sh = *Shape::make({Rows});
    Launch L(*Root, K, *Exec);
    rt::Status S = Root->Skel->launch(L);
    REQUIRE_MESSAGE(S.ok(), S.message());
    std::vector<float> Y = *L.Outputs[0]->toVector<float>(0);
    REQUIRE(Y.size() == size_t(Rows));
    for (int64_t R = 0; R < Rows; ++R) {
      double Want = 0;
      for (int64_t C = 0; C < Cols; ++C)
        Want += X[size_t(R * Cols + C)];
      CHECK(Y[size_t(R)] == float(Want));
    }
  }
}

TEST_CASE("a_slot_the_launcher_did_not_fill_is_an_error_not_a_crash") {
  std::unique_ptr<Executor> Exec = makeCpuExecutor(1, nullptr, false);
  Kernel K;
  K.Name = "affine";
  K.Phases = {&affine};
  K.Slots = {slot(SlotSpec::Out, 0), slot(SlotSpec::Host, 0, 7)};
  auto Map = makeNode(Op::Map, "map", {useOf(floats({4}, {1, 2, 3, 4}))});
  Map->Type = ElemType::of<float>();
  Map->Sh = *Shape::make({4});
  auto Root = consumer("map", "map", {Map});
  Launch L(*Root, K, *Exec);
  rt::Status S = Root->Skel->launch(L);
  REQUIRE(!S.ok());
  CHECK(S.message() == "map: the kernel reads host value 7, which its "
                       "skeleton did not set");
}

TEST_CASE("a_program_runs_its_plan_on_inputs_of_any_extents_from_threads") {
  // map (2x + 1) of its input, as a generated plan would give it: the
  // materialising consumer, its map, the input's Use leaf.
  aot::Program P("affine", {{"x", ElemType::of<float>(), 1}});
  aot::NodeSpec Root, Map, Leaf;
  Root.K = Op::Consumer;
  Root.Name = "map";
  Root.Type = ElemType::of<float>();
  Root.Extents = {1};
  Root.Skeleton = "map";
  Map.Parent = 0;
  Map.K = Op::Map;
  Map.Name = "map";
  Map.Type = ElemType::of<float>();
  Map.Extents = {1};
  Map.NumInputs = 1;
  Leaf.Parent = 1;
  Leaf.Type = ElemType::of<float>();
  Leaf.Extents = {1};
  aot::Source In;
  In.Param = 0;
  P.addStep({Root, Map, Leaf},
            {"affine", {&affine},
             {slot(SlotSpec::Out, 0), slot(SlotSpec::Buffer, 2)}},
            {{2u, In}});
  P.setResult({-1, 0, 0});
  auto Check = [&](int64_t N) {
    std::vector<float> X(static_cast<size_t>(N));
    std::iota(X.begin(), X.end(), 1.0f);
    auto R = P.run({floats({N}, X)});
    if (!R)
      return false;
    std::vector<float> Y = *(*R)->toVector<float>(0);
    bool Same = Y.size() == X.size();
    for (size_t I = 0; Same && I < Y.size(); ++I)
      Same = Y[I] == 2 * X[I] + 1;
    return Same;
  };
  CHECK(Check(1));
  CHECK(Check(300007));
  CHECK(Check(9));
  // Several threads call one program: its runs take turns.
  std::vector<int> Ok(4, 0);
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      Ok[size_t(T)] = Check(1000 + T * 77777) && Check(3 + T);
    });
  for (std::thread &T : Threads)
    T.join();
  CHECK(Ok == std::vector<int>(4, 1));
  // An input of the wrong rank is an error naming it.
  auto Bad = P.run({floats({2, 2}, {1, 2, 3, 4})});
  REQUIRE(!Bad);
  CHECK(Bad.message() ==
        "affine: input 0 ('x') holds f32 of shape [2, 2], expected f32 of "
        "rank 1");
}

TEST_CASE("a_plan_that_names_no_skeleton_of_the_library_is_an_error") {
  aot::Program P("broken", {{"x", ElemType::of<float>(), 1}});
  aot::NodeSpec Root;
  Root.K = Op::Consumer;
  Root.Name = "nosuch";
  Root.Skeleton = "nosuch";
  P.addStep({Root}, {"k", {&affine}, {}}, {});
  auto R = P.run({floats({1}, {1})});
  REQUIRE(!R);
  CHECK(R.message() == "broken: this library has no skeleton 'nosuch'");
}
