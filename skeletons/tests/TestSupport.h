//===- TestSupport.h - What the skeleton tests share ------------*- C++ -*-===//
//
// The Runtime the backends are checked against, the sequential one (one
// thread, no atomics), and the quoted functions more than one test file
// uses.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_TESTS_TESTSUPPORT_H
#define LLQUOTE_SKELETONS_TESTS_TESTSUPPORT_H

#include "llquote/Skeletons.h"
#include "llquote/skeletons/Skeleton.h"
#include <atomic>

namespace llq::test {

/// A backend of a test's own, outside the library: it wraps the backend
/// the options name and counts the phases it launches. It reaches the
/// library only through authoring::WrappingBackend, which is the point: a
/// backend plugs in with no change to the skeletons or the Runtime.
class CountingBackend final : public authoring::WrappingBackend {
public:
  using WrappingBackend::WrappingBackend;
  static BackendFactory factory(std::atomic<uint64_t> &Launches) {
    return [&Launches](authoring::BackendContext &Ctx)
               -> std::unique_ptr<authoring::Backend> {
      auto Standard = Ctx.standard();
      if (!Standard) {
        llvm::consumeError(Standard.takeError());
        return nullptr;
      }
      auto B = std::make_unique<CountingBackend>(std::move(*Standard));
      B->Launches = &Launches;
      return B;
    };
  }

  rt::Status launch(const authoring::Kernel &K, unsigned Phase, int64_t Begin,
                    int64_t End, void *Args, int64_t Grain) override {
    ++*Launches;
    return Inner->launch(K, Phase, Begin, End, Args, Grain);
  }

private:
  std::atomic<uint64_t> *Launches = nullptr;
};

/// Phases launched through the CountingBackend of cpu() in a build of the
/// skeleton tests that runs them through it (LLQ_TEST_COUNTING_BACKEND).
inline std::atomic<uint64_t> &countedLaunches() {
  static std::atomic<uint64_t> N{0};
  return N;
}

inline Runtime &seq() {
  static Runtime R([] {
    RuntimeOptions O;
    O.Backend = BackendKind::Sequential;
    return O;
  }());
  return R;
}

/// Adds two { i32, double } pairs field by field: a permute combiner that
/// needs a lock per cell.
inline Fn addPair() {
  return LLQ_FN("{ i32, double } ({ i32, double } %a, { i32, double } %b)",
                "%a0 = extractvalue { i32, double } %a, 0\n"
                " %b0 = extractvalue { i32, double } %b, 0\n"
                " %a1 = extractvalue { i32, double } %a, 1\n"
                " %b1 = extractvalue { i32, double } %b, 1\n"
                " %s0 = add i32 %a0, %b0\n %s1 = fadd double %a1, %b1\n"
                " %t = insertvalue { i32, double } poison, i32 %s0, 0\n"
                " %r = insertvalue { i32, double } %t, double %s1, 1");
}

} // namespace llq::test

#endif // LLQUOTE_SKELETONS_TESTS_TESTSUPPORT_H
