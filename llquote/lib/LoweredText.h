//===- LoweredText.h - Lowered text, its source map, its builder -*- C++ -*-===//
//
// What lowering produces and every later stage reads: LLVM assembly text,
// the SourceMap from each of its bytes back to the source, and what
// lowering noted on the way (the names it made, the builder's phis, the
// origin of each instruction); the builder that Lower and RestoreSSA both
// write it with; and the options of lowering. A header of its own, so that
// the passes share it without including one another.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_LOWEREDTEXT_H
#define LLQUOTE_LIB_LOWEREDTEXT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <utility>
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

/// A phi the SSA builder made: its function, its name, and whether one of
/// its operands is poison.
struct BuilderPhi {
  std::string Function, Phi;
  bool MergesPoison;
};

struct LoweredText {
  /// The lowered text: Storage, or the source buffer when it is unchanged.
  /// Either way it is followed by a NUL, as LLVM's assembler requires.
  llvm::StringRef text() const {
    return Unchanged.data() ? Unchanged : llvm::StringRef(Storage);
  }
  llvm::StringRef Unchanged;
  std::string Storage;
  SourceMap Map;
  /// With LowerOptions::AllowUndef: the SSA builder's phis, for
  /// foldPoisonPhis.
  std::vector<BuilderPhi> Phis;
  /// The names lowering made for the author's variables (versions, slots,
  /// slot loads), without '%' and quotes, and the variable each stands
  /// for: messages from LLVM name the variable, not the version.
  llvm::StringMap<std::string> SourceNames;
  /// For each function lowering rewrote, by name: the source offset each
  /// of its instructions stands for, in the order of the text.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> InstOrigins;
};

/// Builds lowered text piece by piece, recording the source map as it goes.
class LoweredTextBuilder {
public:
  explicit LoweredTextBuilder(llvm::StringRef Source) : Source(Source) {}
  /// Appends source bytes [Begin, End) unchanged.
  void copy(uint32_t Begin, uint32_t End);
  /// Appends generated text that stands for the source at \p Origin.
  void emit(llvm::StringRef Text, uint32_t Origin);
  LoweredText take();
  /// Records that the value named \p Generated is a version of variable
  /// \p Variable (both without '%' and quotes).
  void noteSourceName(llvm::StringRef Generated, llvm::StringRef Variable) {
    Result.SourceNames[Generated] = Variable.str();
  }
  /// Starts the instruction origins of function \p Name.
  void beginFunction(std::string Name) {
    Result.InstOrigins.emplace_back(std::move(Name), std::vector<uint32_t>());
  }
  /// Records that the next instruction of the text stands for the source at
  /// \p Origin.
  void markInstruction(uint32_t Origin) {
    Result.InstOrigins.back().second.push_back(Origin);
  }
  /// Records a phi of the SSA builder.
  void notePhi(BuilderPhi Phi) { Result.Phis.push_back(std::move(Phi)); }
  /// How much text has been appended.
  uint32_t size() const { return static_cast<uint32_t>(Result.Storage.size()); }

private:
  llvm::StringRef Source;
  LoweredText Result;
};

struct LowerOptions {
  /// Reads of variables not defined on every path become poison instead of
  /// errors.
  bool AllowUndef = false;
  /// Reference mode: variables become stack slots marked `!llq.slot`, for
  /// promoteSlots() to turn into SSA with LLVM's mem2reg.
  bool Mem2Reg = false;
  /// Text spliced from a template: a function that only reassigns a name
  /// (say, through a fragment) uses the dialect too.
  bool Spliced = false;
};

} // namespace llq

#endif // LLQUOTE_LIB_LOWEREDTEXT_H
