//===- FoldPoisonPhis.h - Phis of poison under --allow-undef ----*- C++ -*-===//
//
// foldPoisonPhis: requires \p Phis to be all the phis the SSA builder made
// in \p F (RestoreSSA.h). Replaces each group of builder phis that together
// merge poison with one other value, which dominates them, by that value,
// and a group of nothing but poison by poison, as LLVM's mem2reg folds the
// undef phis it makes: poison may become any value. A group is one phi, or
// phis that feed each other round a loop. What is left has no phi that is
// trivial, poison counted as no value. Phis the author wrote are never
// touched.
//
// Only --allow-undef makes phis with poison operands: without it, a read
// that is undefined on some path is an error, and Braun et al.'s
// construction leaves no trivial phi, so there is nothing to fold.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_FOLDPOISONPHIS_H
#define LLQUOTE_LIB_FOLDPOISONPHIS_H

#include "Origins.h"
#include "llvm/IR/Instructions.h"

namespace llq {

/// Phis it deletes leave \p Inserted, when given.
void foldPoisonPhis(llvm::Function &F, llvm::ArrayRef<llvm::PHINode *> Phis,
                    InsertedPhis *Inserted);

} // namespace llq

#endif // LLQUOTE_LIB_FOLDPOISONPHIS_H
