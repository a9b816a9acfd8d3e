//===- ParseState.h - State shared by the lexer and the parser --*- C++ -*-===//
//
// The Flex scanner and the Bison parser of the dialect share one ParseState:
// the tree being built, the byte offset of the next token, the bracket depth
// and the first error. The lexer records its own errors here and hands the
// parser a token no rule accepts, so a lexer error always outranks the syntax
// error that follows it.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_PARSESTATE_H
#define LLQUOTE_LIB_PARSESTATE_H

#include "Syntax.h"
#include <optional>
#include <string>

namespace llq {

/// Deepest bracket nesting accepted. LLVM's own parser recurses once per
/// level, so deeper input is refused up front rather than overflowing its stack.
constexpr unsigned MaxNestingDepth = 256;
/// Longest numeric literal accepted, in characters: enough for any integer
/// type up to i100000, short enough that LLVM's quadratic digit parsing
/// stays fast.
constexpr unsigned MaxNumberLength = 30000;

/// Most elements a vector type may have. LLVM's reader builds some vector
/// constants one element at a time whatever the text says: a `splat`, a
/// shufflevector mask written as `zeroinitializer`, the folding of a
/// constant expression. For `<4294967295 x i64>` that is 32 GiB, and the
/// allocation fails inside LLVM, which cannot report it; LLVM's printer
/// then writes such a splat out element by element too (a line of 70
/// bytes printed as 41 MB at 2^20 elements of a constant expression). Real
/// vectors are far narrower (targets go to a few thousand elements); longer
/// vector types are refused wherever they are written.
constexpr uint64_t MaxVectorElements = uint64_t(1) << 16;

/// Largest number a numbered name may have (`%N`, `@N`, `#N`, `^N`, `N:`).
/// LLVM's reader keeps numbered values in a DenseMap keyed by the number,
/// where 4294967295 and 4294967294 are reserved keys: a name with either
/// (or a longer number, which its lexer cuts to 32 bits) reads memory that
/// is not there.
constexpr uint64_t MaxNameNumber = 4294967293;

/// Why the numbered name \p Token may not be read, or nothing if it may.
/// \p Digits is its number's text.
std::optional<std::string> oversizedNameNumber(llvm::StringRef Token,
                                               llvm::StringRef Digits);

/// Why a vector type whose element count is written \p Count may not be
/// read, or nothing if it may (a count LLVM refuses itself, zero or one too
/// wide for 32 bits, is left to LLVM's message).
std::optional<std::string> oversizedVector(llvm::StringRef Count);

/// Why LLVM's reader of inline asm constraints would read past the end of
/// \p Quoted (the string token, with its quotes), or nothing if it would
/// not. LLVM 19 trusts a `^` to be followed by two letters and an `@` by a
/// count and that many letters; anything else it reports itself.
std::optional<std::string> unsafeAsmConstraints(llvm::StringRef Quoted);

struct ParseState {
  explicit ParseState(SyntaxTree &T) : T(T) {}

  /// Records the first error; later ones are consequences of it.
  void error(SrcRange Where, std::string Message, bool Lexical = false) {
    if (HasError)
      return;
    HasError = true;
    T.ErrorOffset = Where.Begin;
    T.LexicalError = Lexical;
    ErrorLoc = Where;
    ErrorMsg = std::move(Message);
  }

  SyntaxTree &T;
  uint32_t Offset = 0;
  unsigned Depth = 0;
  bool HasError = false;
  SrcRange ErrorLoc;
  std::string ErrorMsg;
};

} // namespace llq

#endif // LLQUOTE_LIB_PARSESTATE_H
