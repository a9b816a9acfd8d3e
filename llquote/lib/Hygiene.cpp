//===- Hygiene.cpp - Names of hygienic fragments, apart and readable ------===//
//
// The contract is in Hygiene.h. Names are found by the dialect's own lexer
// (Tokens.h), so text in comments, strings and metadata is never renamed.
//
//===----------------------------------------------------------------------===//

#include "Hygiene.h"
#include "Syntax.h"
#include "Tokens.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <atomic>

using namespace llq;
using namespace llvm;

// A byte no name a person writes has (it prints as `\01`), then `h`.
static constexpr StringLiteral Marker = "\x01h";

bool llq::mayHoldPlaceholders(StringRef Text) {
  // asmName prints the marker's first byte as `\01`.
  return Text.contains("\\01h");
}

std::string llq::freshPlaceholder(StringRef Written) {
  static std::atomic<uint64_t> Counter{0};
  StringRef Base;
  if (isPlaceholder(Written, &Base))
    Written = Base;
  return (Written + Marker + Twine(Counter.fetch_add(1))).str();
}

bool llq::isPlaceholder(StringRef Name, StringRef *Written) {
  size_t At = Name.rfind(Marker);
  if (At == StringRef::npos)
    return false;
  StringRef Digits = Name.drop_front(At + Marker.size());
  if (Digits.empty() || !all_of(Digits, isDigit))
    return false;
  if (Written)
    *Written = Name.take_front(At);
  return true;
}

std::string llq::renameTokens(StringRef Text, const std::vector<Token> &Tokens,
                              const RenameRule &Rule) {
  std::string Out;
  Out.reserve(Text.size() + Text.size() / 4);
  uint32_t Pos = 0;
  for (const Token &T : Tokens) {
    if (T.Class != Token::LocalName && T.Class != Token::Label)
      continue;
    StringRef Tok = Text.slice(T.Range.Begin, T.Range.End);
    std::optional<std::string> New = Rule(nameOfToken(Tok));
    if (!New)
      continue;
    Out.append(Text.data() + Pos, T.Range.Begin - Pos);
    if (T.Class == Token::LocalName)
      Out += "%" + asmName(*New);
    else
      Out += asmName(*New) + ":";
    Pos = T.Range.End;
  }
  Out.append(Text.data() + Pos, Text.size() - Pos);
  return Out;
}

std::string llq::reidPlaceholders(StringRef Text,
                                  const std::vector<std::string> &Keep) {
  // Only what the fragment defines is its own: a placeholder it reads and
  // does not define is another fragment's export, given to it.
  StringMap<std::string> Fresh;
  std::vector<Token> Tokens = lexTokens(Text);
  for (size_t I = 0; I < Tokens.size(); ++I) {
    const Token &T = Tokens[I];
    bool Defines =
        T.Class == Token::Label ||
        (T.Class == Token::LocalName && I + 1 < Tokens.size() &&
         (Tokens[I + 1].Class == Token::Equal ||
          Text.slice(Tokens[I + 1].Range.Begin, Tokens[I + 1].Range.End) ==
              "in"));
    if (!Defines)
      continue;
    std::string Name = nameOfToken(Text.slice(T.Range.Begin, T.Range.End));
    if (isPlaceholder(Name) && !is_contained(Keep, Name))
      Fresh.try_emplace(Name, freshPlaceholder(Name));
  }
  if (Fresh.empty())
    return Text.str();
  return renameTokens(Text, Tokens, [&](StringRef Name) -> std::optional<std::string> {
    auto It = Fresh.find(Name);
    if (It == Fresh.end())
      return std::nullopt;
    return It->second;
  });
}

void llq::collectTokenNames(StringRef Text, const std::vector<Token> &Tokens,
                            StringSet<> &Names) {
  for (const Token &T : Tokens)
    if (T.Class == Token::LocalName || T.Class == Token::Label)
      Names.insert(nameOfToken(Text.slice(T.Range.Begin, T.Range.End)));
}

std::string ReadableNames::rename(StringRef Text,
                                  const std::vector<Token> &Tokens) {
  return renameTokens(Text, Tokens, [&](StringRef Name) -> std::optional<std::string> {
    StringRef Written;
    if (!isPlaceholder(Name, &Written))
      return std::nullopt;
    auto [It, New] = Given.try_emplace(Name);
    if (!New)
      return It->second;
    // `<written>.<n>`, counted per written name: what LLVM itself does
    // with a name given twice, and as short.
    StringRef Base = Written.empty() ? StringRef("t") : Written;
    unsigned &N = NextFor[Base];
    std::string Candidate;
    do
      Candidate = (Base + "." + Twine(N++)).str();
    while (Taken.contains(Candidate));
    Taken.insert(Candidate);
    return It->second = Candidate;
  });
}
