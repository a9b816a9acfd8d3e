//===- Program.h - Array programs compiled ahead of time, at run time -*- C++ -*-===//
//
// What a program links to run array programs that llq::aot::Pipeline
// (llquote/Aot.h) compiled at build time: the plan of each pipeline (its
// kernels' launches in order, each with its tree, its kernel's entry points
// and argument slots, and where each of its arrays comes from), which the
// generated source builds once, and run(), which binds the inputs, works
// out every shape from theirs (reshapeTree), and launches the kernels
// through the library's launchers on a gang of threads. Plain C++17 in
// llquote_host: a program that uses it links no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_AOT_PROGRAM_H
#define LLQUOTE_AOT_PROGRAM_H

#include "llquote/skeletons/Launch.h"
#include <mutex>

namespace llq::aot {

using detail::Node;
using detail::Op;
using detail::SlotSpec;

/// Where a step's leaf, or a plan's result, comes from: input Param, or
/// the value of the awhile loop Loop levels in (0: the outermost), else
/// output Output of step Step of the plan.
struct Source {
  int Param = -1;
  unsigned Step = 0, Output = 0;
  int Loop = -1;
};

/// A node of a step's tree, in preorder: Parent is the index of its parent
/// among the step's nodes (-1 for the root), and its kids follow it in the
/// order they are its kids.
struct NodeSpec {
  int Parent = -1;
  Op K = Op::Use;
  const char *Name = "use";
  ElemType Type = ElemType::scalar(ScalarKind::I32);
  std::vector<int64_t> Extents;
  std::vector<int64_t> Code, Vals;
  std::vector<Scalar> Consts;
  unsigned NumInputs = 0;
  uint32_t ManifestKids = 0;
  std::vector<ElemType> OutTypes;
  std::vector<std::vector<int64_t>> OutExtents;
  /// The consumer's skeleton, by name (detail::launcherNamed).
  const char *Skeleton = nullptr;
};

/// A step's kernel: its entry points, in phase order, and its slots.
struct KernelSpec {
  const char *Name;
  std::vector<rt::KernelFn> Phases;
  std::vector<SlotSpec> Slots;
  bool Loops = false;
  unsigned Weight = 0;
};

/// One input of a program: its name (for messages), element type and rank.
struct InputSpec {
  std::string Name;
  ElemType Type;
  unsigned Rank;
};

struct Control;

/// The steps a run takes, in order, and which of their values is the
/// result: a program's, or an acond's branch, or an awhile's condition or
/// step, which share the program's inputs.
class Plan {
public:
  /// A plan of the program Name, whose errors go to Error (Program and
  /// Plan::addControl make them).
  Plan(std::string &Error, const std::string &Name, size_t NumInputs)
      : Error(&Error), Name(&Name), NumInputs(NumInputs) {}
  Plan(Plan &&) = default;
  ~Plan();

  /// Appends a step: its tree (Nodes, in preorder, the consumer first), its
  /// kernel, and for each Use leaf (by its index in Nodes) where its array
  /// comes from. Errors (a skeleton the library does not have, a leaf
  /// that is not a Use) are kept and returned by Program::run().
  void addStep(const std::vector<NodeSpec> &Nodes, KernelSpec K,
               const std::vector<std::pair<unsigned, Source>> &Leaves);
  /// Appends an acond (IsLoop false: First is its condition, a scalar of
  /// bool, and Then or Else its value) or an awhile (IsLoop true: First is
  /// the initial value, Test the condition and Then the step, both reading
  /// the loop's value as Source::Loop), whose plans the caller fills.
  Control &addControl(bool IsLoop, Source First);
  /// The result: an input, a loop's value, or an output of a step.
  void setResult(Source S) { Result = S; }

private:
  friend class Program;
  struct Step {
    std::shared_ptr<Node> Root;
    detail::Kernel K;
    std::vector<std::pair<Node *, Source>> Leaves;
    std::vector<const Node *> Order;
    std::unique_ptr<Control> Ctl;
  };
  std::vector<Step> Steps;
  Source Result;
  std::string *Error;
  const std::string *Name;
  size_t NumInputs;
};

struct Control {
  Control(std::string &Error, const std::string &Name, size_t NumInputs)
      : Test(Error, Name, NumInputs), Then(Error, Name, NumInputs),
        Else(Error, Name, NumInputs) {}
  bool IsLoop = false;
  Source First;
  Plan Test, Then, Else;
};

class Program {
public:
  Program(std::string Name, std::vector<InputSpec> Inputs)
      : Name(std::move(Name)), Inputs(std::move(Inputs)),
        Top(Error, this->Name, this->Inputs.size()) {}
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  /// The program's own plan (Plan::addStep, Plan::setResult).
  Plan &top() { return Top; }
  void addStep(const std::vector<NodeSpec> &Nodes, KernelSpec K,
               const std::vector<std::pair<unsigned, Source>> &Leaves) {
    Top.addStep(Nodes, std::move(K), Leaves);
  }
  void setResult(Source S) { Top.setResult(S); }

  /// Runs the program on In, one array for each input, of its element type
  /// and rank and any extents; with Into, the result is written into its
  /// storage where it has the result's element type and shape and is not
  /// an input. An error names the program and what does not fit. Calls on
  /// one Program run one at a time.
  rt::Expected<std::shared_ptr<rt::Array>>
  run(const std::vector<std::shared_ptr<rt::Array>> &In,
      std::shared_ptr<rt::Array> Into = nullptr) const;

  const std::string &name() const { return Name; }
  const std::vector<InputSpec> &inputs() const { return Inputs; }

private:
  rt::Expected<std::shared_ptr<rt::Array>>
  execute(const Plan &P, const std::vector<std::shared_ptr<rt::Array>> &In,
          std::vector<std::shared_ptr<rt::Array>> &Loops,
          std::shared_ptr<rt::Array> Into) const;

  std::string Name;
  std::vector<InputSpec> Inputs;
  std::string Error;
  Plan Top;
  mutable std::mutex Lock;
};

/// The executor every Program runs on: a gang of LLQ_NUM_THREADS threads
/// (else one per hardware thread), made on first use.
detail::Executor &executor();

/// R, as an Array<T> of the program's result, for generated code.
template <typename T>
Array<T> resultOf(rt::Expected<std::shared_ptr<rt::Array>> R) {
  if (!R)
    throw ArrayError(R.message());
  return Array<T>(std::move(*R));
}

} // namespace llq::aot

#endif // LLQUOTE_AOT_PROGRAM_H
