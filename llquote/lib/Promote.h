//===- Promote.h - The mem2reg reference mode -------------------*- C++ -*-===//
//
// promoteSlots: requires a module lowered in reference mode, whose variable
// slots are allocas marked `!llq.slot`; produces SSA form by LLVM's own
// mem2reg (PromoteMemToReg) on exactly those allocas. Other allocas, the
// author's, are left alone.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_PROMOTE_H
#define LLQUOTE_LIB_PROMOTE_H

#include "llvm/IR/Module.h"

namespace llq {

void promoteSlots(llvm::Function &F);
void promoteSlots(llvm::Module &M);

} // namespace llq

#endif // LLQUOTE_LIB_PROMOTE_H
