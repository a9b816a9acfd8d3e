//===- Origins.cpp - The source of each instruction lowering printed -----===//
//
// The contract is in Origins.h.
//
//===----------------------------------------------------------------------===//

#include "Origins.h"
#include "llvm/IR/InstIterator.h"

using namespace llq;
using namespace llvm;

void llq::recordOrigins(const Module &M, const LoweredText &L,
                        InstructionOrigins &Origins) {
  for (const auto &[Name, Offsets] : L.InstOrigins) {
    const Function *F = M.getFunction(Name);
    if (!F || F->getInstructionCount() != Offsets.size())
      continue; // Not as lowering printed it: locate by the old means.
    size_t Index = 0;
    for (const Instruction &I : instructions(*F)) {
      uint32_t Offset = Offsets[Index++];
      Origins[&I] = Offset;
    }
  }
}
