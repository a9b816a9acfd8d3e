//===- CheckAssigned.h - Reads of variables not assigned on a path -*- C++ -*-===//
//
// checkAssigned: requires a flattened function and, for each block, the reads
// and assignments of its variables in program order; produces the error for
// the first read, in source order, of a variable that some path from the
// entry reaches without assigning it, with a note at the branch that takes
// control along such a path, or at the entry. Breaks nothing; changes
// nothing.
//
// This is the language's rule, "assigned on every path", computed on the
// control-flow graph alone, so both SSA modes (Braun and the mem2reg
// reference) share it and report the same read. A copy `%x = T %y` assigns
// %x, whatever %y held: the read without a value is the read of %y. Code no
// path from the entry reaches is not checked, and edges out of it count for
// nothing. The cost is that of LLVM's mem2reg finding live-in blocks: per
// variable, the blocks between its reads and its assignments.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_CHECKASSIGNED_H
#define LLQUOTE_LIB_CHECKASSIGNED_H

#include "Flatten.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <vector>

namespace llq {

/// A read of variable Var at token ReadAt, or an assignment when ReadAt is
/// null.
struct VarAccess {
  uint32_t Var;
  const Node *ReadAt;
};

/// \p Accesses and \p Reachable are indexed by block number (FlatFunction
/// creation order); variables are numbered densely from 0 to \p NumVars.
llvm::Error checkAssigned(const SyntaxTree &Tree, const FlatFunction &F,
                          llvm::ArrayRef<std::vector<VarAccess>> Accesses,
                          llvm::ArrayRef<uint8_t> Reachable, unsigned NumVars,
                          const llvm::SourceMgr &SM, unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_CHECKASSIGNED_H
