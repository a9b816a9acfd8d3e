//===- Origins.h - The source of each instruction lowering printed -*- C++ -*-===//
//
// recordOrigins: requires \p F assembled from lowered text \p L and changed
// since only by SSA restoration (RestoreSSA.h), which deleted the
// placeholder calls L marks and inserted the phis \p Inserted holds;
// produces, for each instruction of \p F, the source offset it stands for,
// which the verifier (Verify.h) uses to locate an instruction. A phi
// restoration inserted stands where its block's first printed instruction
// does. If \p F is not as that describes, nothing is recorded and callers
// locate by other means.
//
// The origins are worked out only when an error needs them: nothing is kept
// per instruction meanwhile, so a module that verifies pays for no map over
// all its instructions.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_ORIGINS_H
#define LLQUOTE_LIB_ORIGINS_H

#include "LoweredText.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Function.h"

namespace llq {

/// Instructions of a module and the source offset each stands for.
using InstructionOrigins = llvm::DenseMap<const llvm::Instruction *, uint32_t>;

/// The phis SSA restoration inserted, which no text printed.
using InsertedPhis = llvm::DenseSet<const llvm::Instruction *>;

void recordOrigins(const llvm::Function &F, const LoweredText &L,
                   const InsertedPhis *Inserted, InstructionOrigins &Origins);

/// Where the verifier finds instruction origins: the lowered text the
/// module was read from, and what SSA restoration inserted (null if it has
/// not run). With no lowered text, instructions are located by other means.
struct OriginSource {
  const LoweredText *Lowered = nullptr;
  const InsertedPhis *Inserted = nullptr;
};

} // namespace llq

#endif // LLQUOTE_LIB_ORIGINS_H
