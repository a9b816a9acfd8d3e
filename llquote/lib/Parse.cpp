//===- Parse.cpp - Source text to concrete syntax tree --------------------===//
//
// Drives the Flex scanner and the Bison parser over one buffer. A lexer
// error outranks the syntax error it causes: ParseState keeps the first.
//
//===----------------------------------------------------------------------===//

#include "Parse.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "Lexer.hpp"
#include "ParseState.h"
#include "Parser.hpp"
#include "llquote/Diagnostics.h"
#include <limits>

using namespace llq;
using namespace llvm;

/// Every antiquote the parser read must be in the tree: one that a rule
/// leaves out (the balanced tokens of an `inrange(...)`, say) would be
/// neither spliced nor reported as unbound, but silently dropped.
static Error checkAntiquotesPlaced(const SyntaxTree &Tree,
                                   const SourceMgr &SM, unsigned BufferID) {
  if (Tree.Antiquotes.empty())
    return Error::success();
  SmallPtrSet<const Node *, 16> InTree;
  SmallVector<const Node *, 64> Stack{Tree.Root};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    if (N->is(NodeKind::Antiquote))
      InTree.insert(N);
    for (const Node *C = N->First; C; C = C->Next)
      Stack.push_back(C);
  }
  const Node *Lost = nullptr;
  for (const Node *A : Tree.Antiquotes)
    if (!InTree.count(A) && (!Lost || A->Range.Begin < Lost->Range.Begin))
      Lost = A;
  if (!Lost)
    return Error::success();
  return makeError(SM, locAt(SM, BufferID, Lost->Range.Begin),
                   "antiquote '" + Tree.text(Lost) +
                       "' cannot stand here; it may stand " +
                       whereAntiquoteStands(static_cast<AntiquoteKind>(Lost->Sub)));
}

Error llq::parseSyntax(SyntaxTree &Tree, const SourceMgr &SM,
                       unsigned BufferID) {
  StringRef Src = Tree.Source;
  if (Src.size() >= static_cast<size_t>(std::numeric_limits<int>::max()))
    return makeError(SM, locAt(SM, BufferID, 0),
                     "input is larger than 2 GiB, the largest llquote reads");
  ParseState St(Tree);
  yyscan_t Scanner;
  if (llq_yylex_init_extra(&St, &Scanner))
    return createStringError(std::errc::not_enough_memory,
                             "cannot create the lexer");
  YY_BUFFER_STATE Buf =
      llq_yy_scan_bytes(Src.data(), static_cast<int>(Src.size()), Scanner);
  Parser P(Scanner, St);
  int Status = P.parse();
  llq_yy_delete_buffer(Buf, Scanner);
  llq_yylex_destroy(Scanner);
  if (Status == 0 && !St.HasError)
    return checkAntiquotesPlaced(Tree, SM, BufferID);
  std::string Msg = St.HasError ? St.ErrorMsg : "parser stack exhausted";
  SMLoc Loc = locAt(SM, BufferID, St.ErrorLoc.Begin);
  SMRange Range(Loc, locAt(SM, BufferID, St.ErrorLoc.End));
  return makeError(SM, Loc, Msg, Range);
}

std::optional<std::string> llq::oversizedNameNumber(StringRef Token,
                                                   StringRef Digits) {
  uint64_t N;
  if (!Digits.getAsInteger(10, N) && N <= MaxNameNumber)
    return std::nullopt;
  return "number too large in '" + Token.str() +
         "': numbered names go up to " + std::to_string(MaxNameNumber);
}

std::optional<std::string> llq::oversizedVector(StringRef Count) {
  uint64_t N;
  if (Count.getAsInteger(10, N) || N > UINT32_MAX || N <= MaxVectorElements)
    return std::nullopt;
  return "vector of " + std::to_string(N) +
         " elements; llquote reads vectors of at most " +
         std::to_string(MaxVectorElements) +
         " (LLVM builds some vector constants element by element)";
}

std::optional<std::string> llq::unsafeAsmConstraints(StringRef Quoted) {
  std::string Text = unescapeAsm(Quoted.drop_front().drop_back());
  SmallVector<StringRef, 8> Constraints;
  StringRef(Text).split(Constraints, ',');
  for (StringRef C : Constraints) {
    size_t I = 0, N = C.size();
    if (I < N && (C[I] == '~' || C[I] == '=' || C[I] == '!'))
      ++I;
    if (I < N && C[I] == '*')
      ++I;
    while (I < N && (C[I] == '&' || C[I] == '%'))
      ++I;
    while (I < N) {
      if (C[I] == '{') {
        size_t Close = C.find('}', I + 1);
        if (Close == StringRef::npos)
          return std::nullopt; // LLVM reports it.
        I = Close + 1;
      } else if (C[I] == '^') {
        if (I + 3 > N)
          return "inline asm constraint '" + C.str() +
                 "': '^' must be followed by a two-letter constraint";
        I += 3;
      } else if (C[I] == '@') {
        if (I + 1 >= N || C[I + 1] < '1' || C[I + 1] > '9' ||
            I + 2 + static_cast<size_t>(C[I + 1] - '0') > N)
          return "inline asm constraint '" + C.str() +
                 "': '@' must be followed by a count of letters, 1 to 9, "
                 "and that many letters";
        I += 2 + static_cast<size_t>(C[I + 1] - '0');
      } else {
        ++I;
      }
    }
  }
  return std::nullopt;
}
