//===- RestoreSSA.h - Variables of a read module to SSA ---------*- C++ -*-===//
//
// restoreSSA: requires \p M just read by LLVM from \p L (Lower.h), so that
// every function L.SSA names still holds its placeholders (PrintFlat.h);
// produces those functions in minimal SSA form, with no placeholder left
// and the placeholder functions' declarations gone.
//
// Braun et al.'s builder (ssa/) runs on LLVM's own blocks and values: the
// blocks in layout order, the edges of their terminators, every definition
// a value LLVM typed. A read is answered with the reaching definition or a
// phi, which becomes a real PHINode of the variable's type at the top of
// its block; a read no path from the entry reaches is poison. With
// Mem2Reg, the same IR goes through LLVM's PromoteMemToReg instead: a stack
// slot per variable, a store after each definition, a load at each read.
// A variable no placeholder reads (lowering answered each of its reads in
// the read's block) is left out of both: its definitions are only named.
//
// Names: a variable's first definition keeps the name written; later ones
// and the phis are `x.1`, `x.2`, ... in order of first mention, skipping
// names taken. With AllowUndef, phis that merge poison with one dominating
// value are folded (FoldPoisonPhis.h).
//
// Errors, located at the author's text and naming the variable, never a
// version: a variable assigned values of two types (at the later one, with
// a note at the first); a read whose written type is not the variable's.
// On error the module may still hold placeholders: the caller drops it, or
// puts the module it read into back as it was.
//
// \p Inserted, when given, receives the phis restoration inserts, so that
// the origins of the instructions left can be worked out (Origins.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_RESTORESSA_H
#define LLQUOTE_LIB_RESTORESSA_H

#include "LoweredText.h"
#include "Origins.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

struct RestoreOptions {
  /// Reads not assigned on every path are poison (lowering let them pass).
  bool AllowUndef = false;
  /// The reference mode: LLVM's PromoteMemToReg instead of Braun et al.
  bool Mem2Reg = false;
};

llvm::Error restoreSSA(llvm::Module &M, const LoweredText &L,
                       const RestoreOptions &Opts, const llvm::SourceMgr &SM,
                       unsigned BufferID, InsertedPhis *Inserted);

} // namespace llq

#endif // LLQUOTE_LIB_RESTORESSA_H
