//===- PrintFlat.h - A flattened function as LLVM text to read once -*- C++ -*-===//
//
// printFlat: requires a flattened function body (Flatten.h); produces its
// text, with the source map, into a LoweredTextBuilder, and the plan by
// which RestoreSSA.h makes its variables SSA once LLVM has read the text.
//
// Every local name defined in the function is a variable. One defined once,
// by an instruction or as a parameter, is already SSA: its definition and
// its reads are printed as written, so LLVM's parser checks them as it
// checks any IR. Every other variable (defined twice or more, directly
// assigned, a loop counter, or any variable under AllowUndef) is written so
// that LLVM reads each of its definitions and reads once, with LLVM's types
// (LoweredText.h, SSAFunction):
//
//   %x = add i32 %x, 1     ==>  %x.read = call i32 @<Read>()
//                                %x.v = add i32 %x.read, 1
//   %x = i32 5             ==>  call void @<Assign>(i32 5)
//
// A block is straight-line code, so a read that follows, in the same
// block, an instruction defining its variable names that instruction's
// value instead (`%x.v` above), LLVM's parser checking its type there; and
// a read that follows another read of the variable written with the same
// type, and no definition between them, names the earlier placeholder.
//
// The type of a read is the type written before the operand (the phi's type
// for a phi's operand; `ptr` for a callee; `token` after `within` and
// `from`). An author's phi reads its operand at the end of the predecessor
// it names, so that read is printed there, before the terminator, with its
// index into the plan's reads (LoweredText.h says how placeholders are
// matched to the plan).
//
// Errors: a read of a variable not assigned on every path to it (unless
// AllowUndef), decided by checkAssigned on the flattened graph, with a note
// at a path that lacks it.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_PRINTFLAT_H
#define LLQUOTE_LIB_PRINTFLAT_H

#include "Flatten.h"
#include "LoweredText.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

/// \p ReadFn and \p AssignFn name the placeholder functions, without '@'.
llvm::Error printFlat(const SyntaxTree &Tree, const Node *Define,
                      const Node *Body, const FlatFunction &F,
                      llvm::StringSet<> &UsedNames, const LowerOptions &Opts,
                      llvm::StringRef ReadFn, llvm::StringRef AssignFn,
                      LoweredTextBuilder &Out, const llvm::SourceMgr &SM,
                      unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_PRINTFLAT_H
