//===- Aot.h - Array programs compiled at build time ------------*- C++ -*-===//
//
// A generator: a program, run at build time, that describes array programs
// over typed placeholders (an element type and a rank, extents unknown)
// and compiles each into a static library of its kernels, a C++ source
// that holds its plan, and a header that declares it as a function:
//
//   llq::aot::Pipeline P("dot");
//   llq::Acc X = P.input<float>("x", 1), Y = P.input<float>("y", 1);
//   P.output(llq::fold(Add, 0.0f, llq::zipWith(Mul, X, Y)));
//   P.compile(Dir);   // Dir/dot.a, Dir/dot.h, Dir/dot.cpp
//
// The program that calls dot(x, y) links those and llquote_host, not LLVM
// (llquote/aot/Program.h runs the plan). llquote_add_pipeline in CMake runs
// a generator and adds what it writes to a target; docs/AheadOfTime.md
// says the whole way.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_AOT_H
#define LLQUOTE_AOT_H

#include "llquote/Skeletons.h"

namespace llq::aot {

/// The machine a pipeline's kernels are compiled for.
struct Target {
  /// An LLVM triple ("aarch64-linux-gnu"); empty: the machine the
  /// generator runs on.
  std::string Triple;
  /// A CPU of the triple ("x86-64-v3", "znver4"); empty: the host's CPU
  /// where Triple is empty, else the generic one.
  std::string CPU;
  /// Target features added to the CPU's ("+avx2").
  std::string Features;
  /// 0 to 3.
  unsigned OptLevel = 3;
};

class Pipeline {
public:
  /// Name names the generated function and files: a C identifier.
  explicit Pipeline(std::string Name, const char *File = __builtin_FILE(),
                    unsigned Line = __builtin_LINE());
  ~Pipeline();
  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;

  /// A placeholder for the pipeline's next parameter: an array of element
  /// type T and rank Rank whose extents each call gives. Expressions over
  /// it are built as over any array; operations that need arrays of one
  /// shape (zipWith's kernels) then take them of one shape at run time.
  template <typename T>
  Acc input(const std::string &Name, unsigned Rank,
            const char *File = __builtin_FILE(),
            unsigned Line = __builtin_LINE()) {
    return input(Name, ElemType::of<T>(), Rank, File, Line);
  }
  Acc input(const std::string &Name, ElemType T, unsigned Rank,
            const char *File = __builtin_FILE(),
            unsigned Line = __builtin_LINE());
  /// The pipeline's result.
  void output(const Acc &A, const char *File = __builtin_FILE(),
              unsigned Line = __builtin_LINE());

  /// Compiles the kernels for T and writes Dir/NAME.a, Dir/NAME.h and
  /// Dir/NAME.cpp. A mistake (in the expression, or one this compiler
  /// does not take yet) throws ArrayError with the C++ place that made it.
  void compile(const std::string &Dir, const Target &T = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

/// For a generator's main(): the output directory and target from its
/// command line (`--out DIR [--triple T] [--cpu C] [--features F]`);
/// exits with a message on a bad one.
struct Options {
  std::string Dir = ".";
  Target T;
};
Options parseOptions(int Argc, char **Argv);

} // namespace llq::aot

#endif // LLQUOTE_AOT_H
