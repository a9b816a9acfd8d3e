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

void llq::promoteSlots(Module &M) {
  unsigned SlotKind = M.getContext().getMDKindID("llq.slot");
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    std::vector<AllocaInst *> Slots;
    for (Instruction &I : F.getEntryBlock())
      if (auto *AI = dyn_cast<AllocaInst>(&I))
        if (AI->getMetadata(SlotKind) && isAllocaPromotable(AI))
          Slots.push_back(AI);
    if (Slots.empty())
      continue;
    DominatorTree DT(F);
    PromoteMemToReg(Slots, DT);
  }
}
