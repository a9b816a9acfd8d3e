//===- DuplicateMetadata.h - A metadata id defined twice --------*- C++ -*-===//
//
// checkDuplicateMetadataIds: requires a tree of buffer BufferID of SM, whole
// or stopped at a syntax error; produces nothing, or an error at the second
// definition of the first numbered metadata id (`!N = ...`) defined twice,
// with a note at the first. Breaks nothing; changes nothing.
//
// LLVM's reader refuses such a module too ("Metadata id is already used"),
// but when the first definition still waits for forward references, LLVM
// 19 frees its nodes twice while the context is destroyed after the error.
// llquote refuses the duplicate before LLVM reads the text, and says which
// definition came first.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_DUPLICATEMETADATA_H
#define LLQUOTE_LIB_DUPLICATEMETADATA_H

#include "Syntax.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Error checkDuplicateMetadataIds(const SyntaxTree &Tree,
                                      const llvm::SourceMgr &SM,
                                      unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_DUPLICATEMETADATA_H
