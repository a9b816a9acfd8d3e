// The user's application: calls the compiled pipeline; links no LLVM.
#include "sumsq.h"
#include <cstdio>

int main() {
  std::vector<double> V;
  for (int I = 0; I < 5 * 3; ++I)
    V.push_back(I);
  std::vector<double> Got = sumsq(llq::fromVector({5, 3}, V)).toVector();
  for (int R = 0; R < 5; ++R) {
    double Want = 0;
    for (int C = 0; C < 3; ++C)
      Want += double(R * 3 + C) * double(R * 3 + C);
    if (Got.size() != 5 || Got[size_t(R)] != Want) {
      std::fprintf(stderr, "row %d: got %g, want %g\n", R,
                   Got.size() == 5 ? Got[size_t(R)] : -1.0, Want);
      return 1;
    }
  }
  std::puts("sumsq compiled ahead of time: ok");
  return 0;
}
