//===- Tokens.cpp - The dialect's tokens, for scans that need no tree ----===//
//
// The contract is in Tokens.h.
//
//===----------------------------------------------------------------------===//

#include "Tokens.h"
#include "Lexer.hpp"
#include "ParseState.h"
#include "Parser.hpp"
#include <limits>

using namespace llq;
using namespace llvm;

llq::Parser::symbol_type llq_lex(yyscan_t Scanner, llq::ParseState &St);

std::vector<Token> llq::lexTokens(StringRef Text) {
  std::vector<Token> Tokens;
  if (Text.size() >= static_cast<size_t>(std::numeric_limits<int>::max()))
    return Tokens;
  SyntaxTree Scratch(Text); // The lexer notes keywords in a tree.
  ParseState St(Scratch);
  yyscan_t Scanner;
  if (llq_yylex_init_extra(&St, &Scanner))
    return Tokens;
  YY_BUFFER_STATE Buf =
      llq_yy_scan_bytes(Text.data(), static_cast<int>(Text.size()), Scanner);
  for (;;) {
    Parser::symbol_type T = llq_lex(Scanner, St);
    Parser::symbol_kind_type K = T.kind();
    if (K == Parser::symbol_kind::S_YYEOF || K == Parser::symbol_kind::S_LEXERROR)
      break;
    Token::ClassTy C = K == Parser::symbol_kind::S_LOCALVAR ? Token::LocalName
                       : K == Parser::symbol_kind::S_LABEL  ? Token::Label
                       : K == Parser::symbol_kind::S_EQUAL  ? Token::Equal
                                                            : Token::Other;
    Tokens.push_back({C, T.location});
  }
  llq_yy_delete_buffer(Buf, Scanner);
  llq_yylex_destroy(Scanner);
  return Tokens;
}
