//===- Lower.h - Dialect syntax tree to LLVM assembly text ------*- C++ -*-===//
//
// lowerSyntax: requires a parsed SyntaxTree; produces LLVM 19 assembly text
// and a SourceMap from every byte of that text back to the source. Text the
// dialect does not touch is passed through unchanged, so plain LLVM IR lowers
// to itself and maps one to one. A function that uses the dialect (control
// structures, direct assignment, reassigned names, blocks that fall through)
// has its body flattened (Flatten.h) and printed with placeholders for the
// reads and assignments of its variables (PrintFlat.h), which RestoreSSA.h
// replaces once LLVM has read the text.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_LOWER_H
#define LLQUOTE_LIB_LOWER_H

#include "LoweredText.h"
#include "Syntax.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Expected<LoweredText> lowerSyntax(const SyntaxTree &Tree,
                                        const llvm::SourceMgr &SM,
                                        unsigned BufferID,
                                        const LowerOptions &Opts = {});

} // namespace llq

#endif // LLQUOTE_LIB_LOWER_H
