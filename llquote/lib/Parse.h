//===- Parse.h - Source text to concrete syntax tree ------------*- C++ -*-===//
//
// parseSyntax: requires a SyntaxTree over a buffer of SM; produces its Root
// or the first lexical or syntax error, located in that buffer.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_PARSE_H
#define LLQUOTE_LIB_PARSE_H

#include "Syntax.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

namespace llq {

llvm::Error parseSyntax(SyntaxTree &Tree, const llvm::SourceMgr &SM,
                        unsigned BufferID);

/// The location of byte \p Offset of buffer \p BufferID.
inline llvm::SMLoc locAt(const llvm::SourceMgr &SM, unsigned BufferID,
                         uint32_t Offset) {
  return llvm::SMLoc::getFromPointer(
      SM.getMemoryBuffer(BufferID)->getBufferStart() + Offset);
}

} // namespace llq

#endif // LLQUOTE_LIB_PARSE_H
