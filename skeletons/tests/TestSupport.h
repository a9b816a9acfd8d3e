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

namespace llq::test {

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
