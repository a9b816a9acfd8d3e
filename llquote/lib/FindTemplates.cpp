//===- FindTemplates.cpp - Locate LLQ_SKELETON templates in C++ -----------===//
//
// A single forward scan over the C++ text. It recognises only the tokens
// that can hide an `LLQ_SKELETON` from the compiler (comments, literals) or
// be mistaken for one of them (the digit separator in `1'000` is not a
// character literal), and treats every other byte as punctuation. Each byte
// is looked at a bounded number of times, so the scan is linear; the one
// search that is not a plain scan, for a raw string's closing `)delim"`,
// compares at most 18 bytes per position.
//
// Line continuations (a backslash that ends a line) are honoured where they
// change what is hidden: in `//` comments, in ordinary literals, in
// preprocessor lines and between tokens. Like the compiler, they are not
// undone inside raw strings. An identifier split by one is not recognised;
// the checker would rather miss such a template than guess at it.
//
//===----------------------------------------------------------------------===//

#include "FindTemplates.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;
using namespace llq;

char TemplateSiteError::ID = 0;

/// The granularity of the template macro \p Name (LLQ_SKELETON, LLQ_INSTRS,
/// ...), or none if \p Name is not one.
static std::optional<Granularity> templateMacro(StringRef Name) {
  return StringSwitch<std::optional<Granularity>>(Name)
      .Case("LLQ_SKELETON", Granularity::Module)
      .Case("LLQ_DEFINITIONS", Granularity::Definitions)
      // The skeleton library's preludes of named types and helpers: LLVM
      // definitions, whose types functions then use as other names.
      .Case("LLQ_PRELUDE", Granularity::Definitions)
      .Case("LLQ_GLOBAL", Granularity::Global)
      .Case("LLQ_BLOCKS", Granularity::Blocks)
      .Case("LLQ_INSTRS", Granularity::Instructions)
      .Case("LLQ_TERMINATOR", Granularity::Terminator)
      .Case("LLQ_TYPE", Granularity::Type)
      .Case("LLQ_OPERAND", Granularity::Operand)
      .Case("LLQ_HYGIENIC_INSTRS", Granularity::Instructions)
      .Case("LLQ_HYGIENIC_BLOCKS", Granularity::Blocks)
      .Default(std::nullopt);
}

namespace {

// '$' and every non-ASCII byte continue an identifier, as GCC and Clang
// accept them there; otherwise `é_LLQ_SKELETON` would end in a false match.
bool isIdentifierStart(char C) {
  return isAlpha(C) || C == '_' || C == '$' ||
         static_cast<unsigned char>(C) >= 0x80;
}

bool isIdentifierChar(char C) { return isIdentifierStart(C) || isDigit(C); }

bool isRawStringPrefix(StringRef Ident) {
  return Ident == "R" || Ident == "u8R" || Ident == "uR" || Ident == "UR" ||
         Ident == "LR";
}

bool isEncodingPrefix(StringRef Ident) {
  return Ident == "u8" || Ident == "u" || Ident == "U" || Ident == "L";
}

/// The bounds of one raw string literal, as offsets into the source.
struct RawString {
  size_t TextBegin, TextEnd, End;
};

class TemplateScanner {
public:
  explicit TemplateScanner(StringRef Source) : Src(Source) {}

  Expected<std::vector<TemplateSite>> run();

private:
  StringRef Src;
  size_t Pos = 0;
  std::vector<TemplateSite> Sites;

  // Preprocessor state, only so that `#define LLQ_SKELETON(Text)` in the
  // header that defines the macro is not taken for a use of it.
  bool AtLineStart = true;
  bool InDirective = false;
  StringRef PreviousIdentifier;

  // Line counting for sites moves forward only, so that numbering all the
  // sites of a file costs one pass over it, not one per site.
  size_t CountedTo = 0;
  unsigned CountedLine = 1;
  size_t CountedLineStart = 0;

  char at(size_t Off) const { return Off < Src.size() ? Src[Off] : '\0'; }
  Error error(size_t Off, const Twine &Message) const;
  void lineAndColumn(size_t Off, unsigned &Line, unsigned &Column);

  size_t continuationLength(size_t Off) const;
  size_t skipLineComment(size_t Off) const;
  Expected<size_t> skipBlockComment(size_t Off) const;
  Expected<size_t> skipTrivia(size_t Off, bool &CrossedNewline) const;
  size_t skipIdentifier(size_t Off) const;
  size_t skipNumber(size_t Off) const;
  Expected<size_t> skipQuoted(size_t Start, size_t Quote) const;
  Expected<RawString> lexRawString(size_t Start, size_t Quote) const;
  bool startsLiteral(size_t Off) const;

  Error scanToken();
  Error scanIdentifier();
  Error scanTemplate(size_t MacroOffset, size_t AfterName, StringRef Macro,
                     Granularity G);
  Error scanFunction(size_t MacroOffset, size_t AfterName);
  void addSite(size_t MacroOffset, const RawString &Raw, StringRef Macro,
               Granularity G);
};

/// Records the template whose text is Raw's, written with Macro at
/// MacroOffset.
void TemplateScanner::addSite(size_t MacroOffset, const RawString &Raw,
                              StringRef Macro, Granularity G) {
  TemplateSite Site;
  Site.MacroOffset = MacroOffset;
  Site.TextOffset = Raw.TextBegin;
  Site.Text = Src.slice(Raw.TextBegin, Raw.TextEnd);
  Site.Kind = G;
  Site.Hygienic = Macro.starts_with("LLQ_HYGIENIC_");
  Site.SelfContained = Macro == "LLQ_PRELUDE";
  lineAndColumn(Site.TextOffset, Site.Line, Site.Column);
  Sites.push_back(Site);
}

Error TemplateScanner::error(size_t Off, const Twine &Message) const {
  StringRef Before = Src.take_front(Off);
  size_t Line = 1 + Before.count('\n');
  size_t LastNewline = Before.rfind('\n');
  size_t Column =
      Off - (LastNewline == StringRef::npos ? 0 : LastNewline + 1) + 1;
  return make_error<llq::TemplateSiteError>(Off, unsigned(Line),
                                            unsigned(Column), Message);
}

void TemplateScanner::lineAndColumn(size_t Off, unsigned &Line,
                                    unsigned &Column) {
  assert(Off >= CountedTo && "sites must be numbered in source order");
  StringRef Skipped = Src.slice(CountedTo, Off);
  CountedLine += Skipped.count('\n');
  size_t LastNewline = Skipped.rfind('\n');
  if (LastNewline != StringRef::npos)
    CountedLineStart = CountedTo + LastNewline + 1;
  CountedTo = Off;
  Line = CountedLine;
  Column = Off - CountedLineStart + 1;
}

/// The length of the backslash-newline at \p Off (3 for "\\\r\n"), or 0.
size_t TemplateScanner::continuationLength(size_t Off) const {
  if (at(Off) != '\\')
    return 0;
  if (at(Off + 1) == '\n')
    return 2;
  if (at(Off + 1) == '\r' && at(Off + 2) == '\n')
    return 3;
  return 0;
}

/// The offset of the newline that ends the comment starting at \p Off, or
/// the end of the source. A continued line continues the comment.
size_t TemplateScanner::skipLineComment(size_t Off) const {
  for (size_t I = Off + 2; I < Src.size(); ++I) {
    if (size_t N = continuationLength(I))
      I += N - 1;
    else if (Src[I] == '\n')
      return I;
  }
  return Src.size();
}

Expected<size_t> TemplateScanner::skipBlockComment(size_t Off) const {
  size_t Close = Src.find("*/", Off + 2);
  if (Close == StringRef::npos)
    return error(Off, "unterminated /* comment");
  return Close + 2;
}

/// Skips whitespace, comments and continuations: what may separate the
/// tokens of `LLQ_SKELETON ( R"(...)" )`.
Expected<size_t> TemplateScanner::skipTrivia(size_t Off,
                                             bool &CrossedNewline) const {
  while (Off < Src.size()) {
    char C = Src[Off];
    if (C == '\n') {
      CrossedNewline = true;
      ++Off;
    } else if (isSpace(C)) {
      ++Off;
    } else if (size_t N = continuationLength(Off)) {
      Off += N;
    } else if (C == '/' && at(Off + 1) == '/') {
      Off = skipLineComment(Off);
    } else if (C == '/' && at(Off + 1) == '*') {
      Expected<size_t> End = skipBlockComment(Off);
      if (!End)
        return End.takeError();
      Off = *End;
    } else {
      break;
    }
  }
  return Off;
}

size_t TemplateScanner::skipIdentifier(size_t Off) const {
  while (Off < Src.size() && isIdentifierChar(Src[Off]))
    ++Off;
  return Off;
}

/// Skips a pp-number, the preprocessor's notion of a number: it swallows
/// digit separators, exponent signs and user-defined suffixes, so that the
/// `'` of `1'000` and the `R` of `1_R` start nothing.
size_t TemplateScanner::skipNumber(size_t Off) const {
  ++Off;
  while (Off < Src.size()) {
    char C = Src[Off];
    char Previous = Src[Off - 1];
    bool AfterExponent = Previous == 'e' || Previous == 'E' ||
                         Previous == 'p' || Previous == 'P';
    if ((C == '+' || C == '-') && AfterExponent)
      ++Off;
    else if (isIdentifierChar(C) || C == '.')
      ++Off;
    else if (C == '\'' && isIdentifierChar(at(Off + 1)))
      Off += 2;
    else
      break;
  }
  return Off;
}

/// Skips the ordinary string or character literal whose prefix starts at
/// \p Start and whose opening quote is at \p Quote.
Expected<size_t> TemplateScanner::skipQuoted(size_t Start, size_t Quote) const {
  char Close = Src[Quote];
  for (size_t I = Quote + 1; I < Src.size(); ++I) {
    if (size_t N = continuationLength(I))
      I += N - 1;
    else if (Src[I] == '\\')
      ++I; // The escaped character, whatever it is, cannot close.
    else if (Src[I] == Close)
      return I + 1;
    else if (Src[I] == '\n')
      break;
  }
  return error(Start,
               Twine("missing terminating ") + Twine(Close) + " character");
}

/// Lexes the raw string literal whose prefix starts at \p Start and whose
/// opening quote is at \p Quote.
Expected<RawString> TemplateScanner::lexRawString(size_t Start,
                                                  size_t Quote) const {
  // The delimiter is at most 16 characters of the basic character set other
  // than space, parentheses, backslash and control characters ([lex.string]).
  size_t Open = Quote + 1;
  while (Open < Src.size() && Open - Quote - 1 <= 16) {
    char C = Src[Open];
    if (C == '(' || C == ')' || C == '\\' || C == '"' || isSpace(C) ||
        !isPrint(C))
      break;
    ++Open;
  }
  if (at(Open) != '(' || Open - Quote - 1 > 16)
    return error(Open, "invalid raw string delimiter: expected at most 16 "
                       "characters, then '('");
  StringRef Delimiter = Src.slice(Quote + 1, Open);
  std::string Closing = (")" + Delimiter + "\"").str();
  size_t Close = Src.find(Closing, Open + 1);
  if (Close == StringRef::npos)
    return error(Start, "unterminated raw string literal: no closing '" +
                            Closing + "'");
  return RawString{Open + 1, Close, Close + Closing.size()};
}

/// Whether a string literal, of any kind, starts at \p Off.
bool TemplateScanner::startsLiteral(size_t Off) const {
  size_t End = skipIdentifier(Off);
  StringRef Ident = Src.slice(Off, End);
  return at(End) == '"' &&
         (Ident.empty() || isRawStringPrefix(Ident) || isEncodingPrefix(Ident));
}

Expected<std::vector<TemplateSite>> TemplateScanner::run() {
  while (Pos < Src.size())
    if (Error E = scanToken())
      return E;
  return std::move(Sites);
}

Error TemplateScanner::scanToken() {
  char C = Src[Pos];
  if (C == '\n') {
    AtLineStart = true;
    InDirective = false;
    ++Pos;
    return Error::success();
  }
  // Comments and continuations leave the preprocessor state alone: neither
  // ends the current line, not even a /* */ comment that spans lines.
  if (isSpace(C)) {
    ++Pos;
    return Error::success();
  }
  if (size_t N = continuationLength(Pos)) {
    Pos += N;
    return Error::success();
  }
  if (C == '/' && at(Pos + 1) == '/') {
    Pos = skipLineComment(Pos);
    return Error::success();
  }
  if (C == '/' && at(Pos + 1) == '*') {
    Expected<size_t> End = skipBlockComment(Pos);
    if (!End)
      return End.takeError();
    Pos = *End;
    return Error::success();
  }
  if (isIdentifierStart(C))
    return scanIdentifier();

  bool WasAtLineStart = AtLineStart;
  AtLineStart = false;
  PreviousIdentifier = StringRef();
  if (C == '"' || C == '\'') {
    Expected<size_t> End = skipQuoted(Pos, Pos);
    if (!End)
      return End.takeError();
    Pos = *End;
  } else if (isDigit(C) || (C == '.' && isDigit(at(Pos + 1)))) {
    Pos = skipNumber(Pos);
  } else {
    if (C == '#' && WasAtLineStart)
      InDirective = true;
    ++Pos;
  }
  return Error::success();
}

Error TemplateScanner::scanIdentifier() {
  size_t Start = Pos;
  size_t End = skipIdentifier(Pos);
  StringRef Ident = Src.slice(Start, End);
  AtLineStart = false;
  Pos = End;

  if (at(End) == '"' && isRawStringPrefix(Ident)) {
    Expected<RawString> Raw = lexRawString(Start, End);
    if (!Raw)
      return Raw.takeError();
    Pos = Raw->End;
  } else if ((at(End) == '"' || at(End) == '\'') && isEncodingPrefix(Ident)) {
    Expected<size_t> LiteralEnd = skipQuoted(Start, End);
    if (!LiteralEnd)
      return LiteralEnd.takeError();
    Pos = *LiteralEnd;
  } else if (Ident == "LLQ_FN" &&
             !(InDirective && PreviousIdentifier == "define")) {
    PreviousIdentifier = StringRef();
    return scanFunction(Start, End);
  } else if (std::optional<Granularity> G = templateMacro(Ident);
             G && !(InDirective && PreviousIdentifier == "define")) {
    PreviousIdentifier = StringRef();
    return scanTemplate(Start, End, Ident, *G);
  }
  PreviousIdentifier = Pos == End ? Ident : StringRef();
  return Error::success();
}

/// Scans what follows the name at \p MacroOffset. Without a `(` the name is
/// not a use (it may be tested by #ifdef, or passed on to another macro) and
/// the scan resumes just after it.
Error TemplateScanner::scanTemplate(size_t MacroOffset, size_t AfterName,
                                    StringRef Macro, Granularity G) {
  bool CrossedNewline = false;
  Expected<size_t> Paren = skipTrivia(AfterName, CrossedNewline);
  if (!Paren)
    return Paren.takeError();
  if (at(*Paren) != '(')
    return Error::success();

  Expected<size_t> Arg = skipTrivia(*Paren + 1, CrossedNewline);
  if (!Arg)
    return Arg.takeError();
  size_t Quote = skipIdentifier(*Arg);
  if (at(Quote) != '"' || !isRawStringPrefix(Src.slice(*Arg, Quote)))
    return error(*Arg, "the argument of " + Macro +
                           " must be one raw string literal, R\"(...)\", so "
                           "that its text can be checked");
  Expected<RawString> Raw = lexRawString(*Arg, Quote);
  if (!Raw)
    return Raw.takeError();

  Expected<size_t> Close = skipTrivia(Raw->End, CrossedNewline);
  if (!Close)
    return Close.takeError();
  if (startsLiteral(*Close))
    return error(*Close, "adjacent string literals are not supported in " +
                             Macro +
                             ": write the template as one raw string literal");
  if (at(*Close) != ')')
    return error(*Close,
                 "expected ')' after the raw string literal of " + Macro);

  addSite(MacroOffset, *Raw, Macro, G);
  Pos = *Close + 1;
  if (CrossedNewline)
    InDirective = false;
  return Error::success();
}

/// LLQ_FN(Signature, Body) or LLQ_FN(Prelude, Signature, Body), of the
/// skeleton library: a body written as one raw string literal, its last
/// argument, is a site of instructions (the dialect's control structures
/// and variables included). Other bodies (ordinary literals, expressions)
/// are not checked, and are no error: the function reads them when it is
/// made. The arguments are skipped with their literals, comments and
/// brackets; an unbalanced call ends the scan as the compiler would.
Error TemplateScanner::scanFunction(size_t MacroOffset, size_t AfterName) {
  bool CrossedNewline = false;
  Expected<size_t> Paren = skipTrivia(AfterName, CrossedNewline);
  if (!Paren)
    return Paren.takeError();
  if (at(*Paren) != '(')
    return Error::success();
  size_t Off = *Paren + 1;
  int Depth = 1;
  // The current argument: its tokens at the call's own depth, and its raw
  // string if that is its first.
  unsigned Tokens = 0;
  std::optional<RawString> Raw;
  auto Token = [&](std::optional<RawString> R = std::nullopt) {
    if (Depth != 1)
      return;
    if (Tokens++ == 0)
      Raw = R;
  };
  while (true) {
    Expected<size_t> Next = skipTrivia(Off, CrossedNewline);
    if (!Next)
      return Next.takeError();
    Off = *Next;
    if (Off >= Src.size())
      return error(*Paren, "the call of LLQ_FN is not closed");
    char C = Src[Off];
    if (isIdentifierStart(C)) {
      size_t End = skipIdentifier(Off);
      if (at(End) == '"' && isRawStringPrefix(Src.slice(Off, End))) {
        Expected<RawString> R = lexRawString(Off, End);
        if (!R)
          return R.takeError();
        Token(*R);
        Off = R->End;
      } else if ((at(End) == '"' || at(End) == '\'') &&
                 isEncodingPrefix(Src.slice(Off, End))) {
        Expected<size_t> LiteralEnd = skipQuoted(Off, End);
        if (!LiteralEnd)
          return LiteralEnd.takeError();
        Token();
        Off = *LiteralEnd;
      } else {
        Token();
        Off = End;
      }
      continue;
    }
    if (C == '"' || C == '\'') {
      Expected<size_t> LiteralEnd = skipQuoted(Off, Off);
      if (!LiteralEnd)
        return LiteralEnd.takeError();
      Token();
      Off = *LiteralEnd;
      continue;
    }
    if (isDigit(C)) {
      Token();
      Off = skipNumber(Off);
      continue;
    }
    ++Off;
    if (C == ')' || C == ']' || C == '}') {
      if (--Depth == 0)
        break;
    } else if (C == ',' && Depth == 1) {
      Tokens = 0;
      Raw.reset();
    } else {
      Token();
      if (C == '(' || C == '[' || C == '{')
        ++Depth;
    }
  }
  if (Tokens == 1 && Raw)
    addSite(MacroOffset, *Raw, "LLQ_FN", Granularity::Instructions);
  Pos = Off;
  if (CrossedNewline)
    InDirective = false;
  return Error::success();
}

} // namespace

Expected<std::vector<TemplateSite>> llq::findTemplates(StringRef Source) {
  return TemplateScanner(Source).run();
}
