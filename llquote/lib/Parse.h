//===- Parse.h - Source text to concrete syntax tree ------------*- C++ -*-===//
//
// parseSyntax: requires a SyntaxTree over a buffer of SM; produces its Root
// or the first lexical or syntax error, located in that buffer.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_PARSE_H
#define LLQUOTE_LIB_PARSE_H

#include "Located.h"
#include "Syntax.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Error parseSyntax(SyntaxTree &Tree, const llvm::SourceMgr &SM,
                        unsigned BufferID);


} // namespace llq

#endif // LLQUOTE_LIB_PARSE_H
