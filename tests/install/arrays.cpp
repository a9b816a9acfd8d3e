// Runs an array program through the installed package, linked with the one
// target a user would reach for, llquote::llquote.
#include "llquote/Skeletons.h"
#include <cstdio>

int main() {
  using namespace llq;
  try {
    Runtime R;
    auto Square = LLQ_FN("i64 (i64 %x)", "%r = mul i64 %x, %x");
    auto Add = LLQ_FN("i64 (i64 %a, i64 %b)", "%r = add i64 %a, %b");
    // 0^2 + 1^2 + ... + 99^2 = 328350.
    Acc Sum = foldAll(Add, Scalar(int64_t(0)),
                      map(Square, enumFromN({100}, Scalar(int64_t(0)))));
    int64_t Got = R.run<int64_t>(Sum).toVector().at(0);
    if (Got != 328350) {
      std::fprintf(stderr, "arrays: the sum of squares is %lld, not 328350\n",
                   static_cast<long long>(Got));
      return 1;
    }
  } catch (const ArrayError &E) {
    std::fprintf(stderr, "arrays: %s\n", E.what());
    return 1;
  }
  return 0;
}
