//===- Promote.cpp - The mem2reg reference mode ---------------------------===//
//
// The reference against which the Braun et al. construction is measured:
// LLVM's mem2reg on one stack slot per variable.
//
//===----------------------------------------------------------------------===//

#include "Promote.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

using namespace llvm;

void llq::promoteSlots(Function &F) {
  if (F.isDeclaration())
    return;
  unsigned SlotKind = F.getContext().getMDKindID("llq.slot");
  std::vector<AllocaInst *> Slots;
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (AI->getMetadata(SlotKind) && isAllocaPromotable(AI))
        Slots.push_back(AI);
  if (Slots.empty())
    return;
  DominatorTree DT(F);
  PromoteMemToReg(Slots, DT);
}

void llq::promoteSlots(Module &M) {
  for (Function &F : M)
    promoteSlots(F);
}
