//===- Program.cpp - Running array programs compiled ahead of time --------===//
//
// Program::run binds a compiled plan's leaves to the arrays of one call,
// works out every other shape from theirs, and launches each step's kernel
// through its skeleton's launcher, as the JIT's Runtime does with the
// plans it records (skeletons/lib/Runtime.cpp); no LLVM is involved.
//
//===----------------------------------------------------------------------===//

#include "llquote/aot/Program.h"
#include <fmt/format.h>

using namespace llq;
using namespace llq::aot;
using namespace llq::detail;

namespace {

Shape shapeOr(const std::vector<int64_t> &E, std::string &Error) {
  rt::Expected<Shape> Sh = Shape::make(E);
  if (!Sh) {
    if (Error.empty())
      Error = Sh.message();
    return Shape();
  }
  return *Sh;
}

} // namespace

Plan::~Plan() = default;

Control &Plan::addControl(bool IsLoop, Source First) {
  Step S;
  S.Ctl = std::make_unique<Control>(*Error, *Name, NumInputs);
  S.Ctl->IsLoop = IsLoop;
  S.Ctl->First = First;
  Steps.push_back(std::move(S));
  return *Steps.back().Ctl;
}

void Plan::addStep(const std::vector<NodeSpec> &Nodes, KernelSpec K,
                   const std::vector<std::pair<unsigned, Source>> &Leaves) {
  std::string &Error = *this->Error;
  const std::string &Name = *this->Name;
  Step S;
  std::vector<std::shared_ptr<Node>> Made;
  for (const NodeSpec &Spec : Nodes) {
    auto N = makeNode(Spec.K, Spec.Name);
    N->Type = Spec.Type;
    N->Sh = shapeOr(Spec.Extents, Error);
    N->Code = Spec.Code;
    N->Vals = Spec.Vals;
    N->Consts = Spec.Consts;
    N->NumInputs = Spec.NumInputs;
    N->ManifestKids = Spec.ManifestKids;
    N->OutTypes = Spec.OutTypes;
    for (const std::vector<int64_t> &E : Spec.OutExtents)
      N->OutShapes.push_back(shapeOr(E, Error));
    if (Spec.Skeleton) {
      N->Skel = launcherNamed(Spec.Skeleton);
      if (!N->Skel && Error.empty())
        Error = fmt::format("{}: this library has no skeleton '{}'", Name,
                            Spec.Skeleton);
    }
    if (Spec.Parent >= 0 && size_t(Spec.Parent) < Made.size())
      Made[size_t(Spec.Parent)]->Kids.push_back(N);
    else if (!Made.empty() && Error.empty())
      Error = fmt::format("{}: a step's node {} has no parent before it", Name,
                          Made.size());
    Made.push_back(std::move(N));
  }
  if (Made.empty() || Made[0]->K != Op::Consumer || !Made[0]->Skel) {
    if (Error.empty())
      Error = fmt::format("{}: a step whose root is not a consumer", Name);
    return;
  }
  S.Root = Made[0];
  S.Order = preorder(*S.Root);
  for (auto [Ix, From] : Leaves) {
    if (Ix >= Made.size() || Made[Ix]->K != Op::Use ||
        (From.Param >= 0 && size_t(From.Param) >= NumInputs) ||
        (From.Param < 0 && From.Loop < 0 && From.Step >= Steps.size())) {
      if (Error.empty())
        Error = fmt::format("{}: step {} reads an array from nowhere", Name,
                            Steps.size());
      return;
    }
    S.Leaves.push_back({Made[Ix].get(), From});
  }
  S.K.Name = K.Name;
  S.K.Phases = std::move(K.Phases);
  S.K.Slots = std::move(K.Slots);
  S.K.Loops = K.Loops;
  S.K.Weight = K.Weight;
  Steps.push_back(std::move(S));
}

rt::Expected<std::shared_ptr<rt::Array>>
Program::run(const std::vector<std::shared_ptr<rt::Array>> &In,
             std::shared_ptr<rt::Array> Into) const {
  if (!Error.empty())
    return rt::Status::error(Error);
  if (In.size() != Inputs.size())
    return rt::Status::error(fmt::format("{}: given {} arrays, expected {}",
                                         Name, In.size(), Inputs.size()));
  for (size_t I = 0; I < In.size(); ++I) {
    const InputSpec &Want = Inputs[I];
    if (!In[I])
      return rt::Status::error(
          fmt::format("{}: input {} ('{}') is an empty Array", Name, I,
                      Want.Name));
    if (In[I]->type() != Want.Type || In[I]->shape().rank() != Want.Rank)
      return rt::Status::error(fmt::format(
          "{}: input {} ('{}') holds {} of shape {}, expected {} of rank {}",
          Name, I, Want.Name, In[I]->type().str(), In[I]->shape().str(),
          Want.Type.str(), Want.Rank));
    // The result is never written over an input.
    if (Into && Into->numFields() && In[I]->numFields() &&
        In[I]->data(0) == Into->data(0))
      Into = nullptr;
  }
  std::lock_guard<std::mutex> Guard(Lock);
  std::vector<std::shared_ptr<rt::Array>> Loops;
  return execute(Top, In, Loops, std::move(Into));
}

rt::Expected<std::shared_ptr<rt::Array>>
Program::execute(const Plan &P,
                 const std::vector<std::shared_ptr<rt::Array>> &In,
                 std::vector<std::shared_ptr<rt::Array>> &Loops,
                 std::shared_ptr<rt::Array> Into) const {
  std::vector<std::vector<std::shared_ptr<rt::Array>>> Outs(P.Steps.size());
  auto ValueOf = [&](const Source &From) -> const std::shared_ptr<rt::Array> & {
    if (From.Loop >= 0)
      return Loops.at(size_t(From.Loop));
    return From.Param >= 0 ? In[size_t(From.Param)]
                           : Outs[From.Step].at(From.Output);
  };
  for (size_t I = 0; I < P.Steps.size(); ++I) {
    const Plan::Step &S = P.Steps[I];
    if (const Control *C = S.Ctl.get()) {
      std::shared_ptr<rt::Array> First = ValueOf(C->First);
      rt::Expected<std::shared_ptr<rt::Array>> V = First;
      if (!C->IsLoop) {
        V = execute(holds(*First) ? C->Then : C->Else, In, Loops, nullptr);
      } else {
        Loops.push_back(std::move(First));
        for (;;) {
          auto Test = execute(C->Test, In, Loops, nullptr);
          if (!Test) {
            V = Test;
            break;
          }
          if (!holds(**Test)) {
            V = Loops.back();
            break;
          }
          auto Next = execute(C->Then, In, Loops, nullptr);
          if (!Next) {
            V = Next;
            break;
          }
          Loops.back() = std::move(*Next);
        }
        Loops.pop_back();
      }
      if (!V)
        return V;
      Outs[I].push_back(std::move(*V));
      continue;
    }
    for (auto &[Leaf, From] : S.Leaves) {
      const std::shared_ptr<rt::Array> &A = ValueOf(From);
      // Owns nothing: A outlives the step.
      Leaf->Data = std::shared_ptr<rt::Array>(std::shared_ptr<rt::Array>(),
                                              A.get());
    }
    struct Release {
      const Plan::Step &S;
      ~Release() {
        for (auto &Leaf : S.Leaves)
          Leaf.first->Data.reset();
      }
    } Released{S};
    if (rt::Status St = reshapeTree(*S.Root); !St.ok())
      return rt::Status::error(fmt::format("{}: {}", Name, St.message()));
    Launch L(*S.Root, S.K, executor(), &S.Order);
    if (P.Result.Param < 0 && P.Result.Loop < 0 && P.Result.Step == I &&
        P.Result.Output == 0)
      L.Reuse = Into;
    try {
      if (rt::Status St = S.Root->Skel->launch(L); !St.ok())
        return rt::Status::error(fmt::format("{}: {}", Name, St.message()));
    } catch (const ArrayError &E) {
      return rt::Status::error(fmt::format("{}: {}", Name, E.what()));
    }
    Outs[I] = std::move(L.Outputs);
  }
  return ValueOf(P.Result);
}

detail::Executor &llq::aot::executor() {
  // Freed outputs up to 256 MiB are reused, as a Runtime's pool does by
  // default (RuntimeOptions::PoolBytes).
  static const std::unique_ptr<Executor> E = makeCpuExecutor(
      0, rt::BufferPool::create(size_t(256) << 20), false);
  return *E;
}
