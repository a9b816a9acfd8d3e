//===- Origins.cpp - The source of each instruction lowering printed -----===//
//
// The contract is in Origins.h. F's instructions, inserted phis left out,
// are the printed ones in order: all of them before restoration, the
// non-placeholders after it. Which of the two holds is told by their count.
//
//===----------------------------------------------------------------------===//

#include "Origins.h"

using namespace llq;
using namespace llvm;

void llq::recordOrigins(const Function &F, const LoweredText &L,
                        const InsertedPhis *Inserted,
                        InstructionOrigins &Origins) {
  const FunctionOrigins *Printed = nullptr;
  for (const FunctionOrigins &FO : L.InstOrigins)
    if (FO.Function == F.getName()) {
      Printed = &FO;
      break;
    }
  if (!Printed)
    return;
  auto IsInserted = [&](const Instruction &I) {
    return Inserted && Inserted->contains(&I);
  };
  size_t Kept = 0;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      Kept += !IsInserted(I);
  const std::vector<uint32_t> &Offsets = Printed->Offsets;
  const std::vector<uint32_t> &Placeholders = Printed->Placeholders;
  bool SkipPlaceholders;
  if (Kept == Offsets.size())
    SkipPlaceholders = false;
  else if (Kept == Offsets.size() - Placeholders.size())
    SkipPlaceholders = true;
  else
    return; // Not as lowering printed it: locate by the old means.
  size_t Next = 0; // The next printed instruction.
  auto NextPlaceholder = Placeholders.begin();
  std::vector<const Instruction *> Phis;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      if (IsInserted(I)) {
        Phis.push_back(&I);
        continue;
      }
      // Next is this block's first printed instruction while inserted phis
      // wait: they are all at the top.
      for (const Instruction *Phi : Phis)
        Origins[Phi] = Offsets[Next];
      Phis.clear();
      if (SkipPlaceholders)
        while (NextPlaceholder != Placeholders.end() &&
               *NextPlaceholder == Next) {
          ++NextPlaceholder;
          ++Next;
        }
      Origins[&I] = Offsets[Next++];
    }
}
