//===- FoldPoisonPhis.cpp - Phis of poison under --allow-undef ------------===//
//
// The contract is in FoldPoisonPhis.h. This is the SCC step of Braun et al.
// (2013, algorithm 5) run once over the builder's phis, with poison operands
// taken as wildcards: the strongly connected components of the phi graph
// (a phi points to its phi operands) are visited operands first. When the
// operands a component takes from outside itself, poison left out, are one
// value that dominates each of its phis, every phi of it becomes that value;
// when there are none, poison. Otherwise the same question is asked of the
// components among its inner phis, those whose every operand other than
// poison lies in the component.
//
// Without poison operands this finds nothing: the builder's output is
// minimal already. That is why one pass, started only where poison is,
// suffices.
//
//===----------------------------------------------------------------------===//

#include "FoldPoisonPhis.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"

using namespace llq;
using namespace llvm;

namespace {

using PhiSet = SetVector<PHINode *, SmallVector<PHINode *, 8>,
                         SmallPtrSet<PHINode *, 8>>;

class PoisonFolder {
public:
  PoisonFolder(Function &F, InsertedPhis *Inserted)
      : DT(F), Inserted(Inserted) {}
  /// Folds what can be folded among \p Phis, all of them builder phis.
  void run(const PhiSet &Phis) {
    for (const PhiSet &SCC : components(Phis))
      fold(SCC);
  }

private:
  static bool isPoison(const Value *V) { return isa<UndefValue>(V); }

  /// The strongly connected components of \p Phis (Tarjan), operands first.
  std::vector<PhiSet> components(const PhiSet &Phis);
  void fold(const PhiSet &SCC);

  DominatorTree DT;
  InsertedPhis *Inserted;
};

std::vector<PhiSet> PoisonFolder::components(const PhiSet &Phis) {
  std::vector<PhiSet> Out;
  DenseMap<PHINode *, unsigned> Index, Low;
  SmallVector<PHINode *, 16> Stack;
  SmallPtrSet<PHINode *, 16> OnStack;
  // An explicit stack of (phi, next operand) keeps deep graphs off the
  // C++ stack.
  SmallVector<std::pair<PHINode *, unsigned>, 16> Walk;
  for (PHINode *Root : Phis) {
    if (Index.count(Root))
      continue;
    Walk.push_back({Root, 0});
    while (!Walk.empty()) {
      auto &[Phi, Next] = Walk.back();
      if (Next == 0 && !Index.count(Phi)) {
        Index[Phi] = Low[Phi] = unsigned(Index.size());
        Stack.push_back(Phi);
        OnStack.insert(Phi);
      }
      if (Next < Phi->getNumIncomingValues()) {
        auto *Op = dyn_cast<PHINode>(Phi->getIncomingValue(Next++));
        if (!Op || !Phis.contains(Op))
          continue;
        if (!Index.count(Op))
          Walk.push_back({Op, 0});
        else if (OnStack.contains(Op))
          Low[Phi] = std::min(Low[Phi], Index[Op]);
        continue;
      }
      PHINode *Done = Phi;
      Walk.pop_back();
      if (!Walk.empty())
        Low[Walk.back().first] = std::min(Low[Walk.back().first], Low[Done]);
      if (Low[Done] != Index[Done])
        continue;
      PhiSet SCC;
      PHINode *Top;
      do {
        Top = Stack.pop_back_val();
        OnStack.erase(Top);
        SCC.insert(Top);
      } while (Top != Done);
      Out.push_back(std::move(SCC));
    }
  }
  return Out;
}

void PoisonFolder::fold(const PhiSet &SCC) {
  SmallSetVector<Value *, 2> Outer;
  PhiSet Inner;
  for (PHINode *Phi : SCC) {
    bool IsInner = true;
    for (Value *Op : Phi->incoming_values()) {
      if (auto *P = dyn_cast<PHINode>(Op); P && SCC.contains(P))
        continue;
      if (isPoison(Op))
        continue;
      Outer.insert(Op);
      IsInner = false;
    }
    if (IsInner)
      Inner.insert(Phi);
  }
  Value *Same = nullptr;
  if (Outer.empty())
    Same = PoisonValue::get(SCC.front()->getType());
  else if (Outer.size() == 1 && llvm::all_of(SCC, [&](PHINode *Phi) {
             return DT.dominates(Outer.front(), Phi);
           }))
    Same = Outer.front();
  if (Same) {
    for (PHINode *Phi : SCC)
      Phi->replaceAllUsesWith(Same);
    for (PHINode *Phi : SCC) {
      if (Inserted)
        Inserted->erase(Phi);
      Phi->eraseFromParent();
    }
    return;
  }
  if (Inner.size() < SCC.size())
    for (const PhiSet &Sub : components(Inner))
      fold(Sub);
}

} // namespace

void llq::foldPoisonPhis(Function &F, ArrayRef<PHINode *> Phis,
                         InsertedPhis *Inserted) {
  PhiSet All;
  for (PHINode *Phi : Phis)
    All.insert(Phi);
  PoisonFolder(F, Inserted).run(All);
}
