//===- RestoreSSA.h - Variables of a flattened function to SSA --*- C++ -*-===//
//
// restoreSSA: requires a flattened function body; produces its text in
// minimal SSA form, with the source map, into a LoweredTextBuilder.
//
// Every local name defined in the function is a variable; the SSA builder of
// ssa/ (Braun et al. 2013) answers each read with the reaching definition or
// a phi. A name defined once keeps it; later definitions and phis are named
// %x.1, %x.2, ... in order. A direct assignment `%x = T v` emits nothing: reads
// of %x use v itself. An author's phi reads its operands at the end of the
// predecessor it names.
//
// Blocks no path from the entry reaches are marked so for the builder: edges
// out of them carry no value, and no phi is placed in them. Constants written
// alike are one value, so a phi of `5` and `5` is trivial.
//
// Errors: a read of a variable not assigned on every path to it (unless
// AllowUndef, which makes it poison), decided by checkAssigned in both SSA
// modes, with a note at a path that lacks it; a variable assigned values of
// two types, with a note at the first.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_RESTORESSA_H
#define LLQUOTE_LIB_RESTORESSA_H

#include "Flatten.h"
#include "LoweredText.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Error restoreSSA(const SyntaxTree &Tree, const Node *Define,
                       const Node *Body, const FlatFunction &F,
                       llvm::StringSet<> &UsedNames, const LowerOptions &Opts,
                       LoweredTextBuilder &Out, const llvm::SourceMgr &SM,
                       unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_RESTORESSA_H
