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
// Errors: a read of a variable not defined on every path to it (unless
// AllowUndef, which makes it poison), with a note at a path that lacks it; a
// variable assigned values of two types, with a note at the first.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_RESTORESSA_H
#define LLQUOTE_LIB_RESTORESSA_H

#include "Flatten.h"
#include "Lower.h"

namespace llq {

llvm::Error restoreSSA(const SyntaxTree &Tree, const Node *Define,
                       const Node *Body, const FlatFunction &F,
                       llvm::StringSet<> &UsedNames, const LowerOptions &Opts,
                       LoweredTextBuilder &Out, const llvm::SourceMgr &SM,
                       unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_RESTORESSA_H
