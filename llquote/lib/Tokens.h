//===- Tokens.h - The dialect's tokens, for scans that need no tree --*- C++ -*-===//
//
// lexTokens: requires dialect text (any fragment of it: a type, some
// instructions, a whole module); produces its tokens in order, each with
// its class and byte range, from the same Flex scanner the parser reads.
// It stops at the end or at the first lexical error, which the parse of
// the same text reports later; the tokens before it are kept.
//
// For the few questions asked of text that is not parsed on its own (what a
// bound fragment defines, which named types a type names), so that nothing
// scans the dialect's text by hand: comments, strings and quoted names are
// the lexer's business.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_TOKENS_H
#define LLQUOTE_LIB_TOKENS_H

#include "Syntax.h"
#include "llvm/ADT/StringRef.h"
#include <vector>

namespace llq {

struct Token {
  enum ClassTy : uint8_t {
    LocalName, ///< `%name`, `%42`, `%"quoted"`
    Label,     ///< `name:`
    Equal,     ///< `=`
    Other
  } Class;
  SrcRange Range;
};

std::vector<Token> lexTokens(llvm::StringRef Text);

} // namespace llq

#endif // LLQUOTE_LIB_TOKENS_H
