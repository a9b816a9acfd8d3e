//===- Lower.h - Dialect syntax tree to LLVM assembly text ------*- C++ -*-===//
//
// lowerSyntax: requires a parsed SyntaxTree; produces LLVM 19 assembly text
// and a SourceMap from every byte of that text back to the source. Text the
// dialect does not touch is passed through unchanged, so plain LLVM IR lowers
// to itself and maps one to one.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_LOWER_H
#define LLQUOTE_LIB_LOWER_H

#include "Syntax.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <string>
#include <vector>

namespace llq {

/// Maps offsets of lowered text to offsets of the source it came from.
class SourceMap {
public:
  /// Text at [Out, Out+Len) is a copy of source text at [Src, Src+Len).
  void addVerbatim(uint32_t Out, uint32_t Src, uint32_t Len);
  /// Text at [Out, Out+Len) was generated for the construct at source \p Src.
  void addGenerated(uint32_t Out, uint32_t Src, uint32_t Len);
  uint32_t toSource(uint32_t Out) const;

private:
  struct Segment {
    uint32_t Out, Src, Len;
    bool Verbatim;
  };
  std::vector<Segment> Segments; ///< Sorted by Out, contiguous.
};

struct LoweredText {
  /// The lowered text; it refers either to Storage or to the source buffer.
  /// Either way it is followed by a NUL, as LLVM's assembler requires.
  llvm::StringRef Text;
  std::string Storage;
  SourceMap Map;
};

llvm::Expected<LoweredText> lowerSyntax(const SyntaxTree &Tree,
                                        const llvm::SourceMgr &SM,
                                        unsigned BufferID);

/// The source itself, unchanged: the lowering of plain LLVM IR.
LoweredText identityLowering(const SyntaxTree &Tree);

} // namespace llq

#endif // LLQUOTE_LIB_LOWER_H
