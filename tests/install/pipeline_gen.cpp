// A generator in a user's project: compiles sumsq(x) = sum of x[i]^2 over
// the rows of a matrix, ahead of time, into the directory --out names.
#include "llquote/Aot.h"
#include <cstdio>

int main(int Argc, char **Argv) {
  llq::aot::Options O = llq::aot::parseOptions(Argc, Argv);
  try {
    llq::aot::Pipeline P("sumsq");
    llq::Acc X = P.input<double>("x", 2);
    auto Sq = LLQ_FN("double (double %a)", "%r = fmul double %a, %a");
    auto Add = LLQ_FN("double (double %a, double %b)", "%r = fadd double %a, %b");
    P.output(llq::fold(Add, 0.0, llq::map(Sq, X)));
    P.compile(O.Dir, O.T);
  } catch (const llq::ArrayError &E) {
    std::fprintf(stderr, "%s\n", E.what());
    return 1;
  }
  return 0;
}
