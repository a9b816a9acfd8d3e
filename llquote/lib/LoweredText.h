//===- LoweredText.h - Lowered text, its source map, its builder -*- C++ -*-===//
//
// What lowering produces and every later stage reads: LLVM assembly text,
// the SourceMap from each of its bytes back to the source, and what
// lowering noted on the way (the names it made, the plan of SSA
// construction for each function it rewrote, the origin of each
// instruction); the builder that Lower and RestoreSSA both
// write it with; and the options of lowering. A header of its own, so that
// the passes share it without including one another.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_LOWEREDTEXT_H
#define LLQUOTE_LIB_LOWEREDTEXT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <functional>
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

/// What the IR half of SSA restoration (RestoreSSA.h) needs to know of one
/// function that lowering rewrote. Lowering writes every variable that
/// needs SSA construction so that LLVM's parser reads it once, with LLVM's
/// own types: a read is a call `%r = call T @<Read>()`, T the type
/// written before the operand; a direct assignment is
/// `call void @<Assign>(T v)`; an instruction that defines a variable keeps
/// its place and gets a name of its own (Def::Name) when it is not the
/// variable's first definition. Placeholders carry no number: the N-th read
/// placeholder of the function's text is the N-th read of Reads that is not
/// AtEnd, and the N-th assignment the N-th Def of kind Assign. A read AtEnd
/// is printed after later reads, at the end of its block, so it carries its
/// index into Reads: `call T @<Read>(i32 K)`. Numbers cost LLVM's parser a
/// uniqued constant each.
struct SSAFunction {
  std::string Function; ///< Its name, as LLVM knows it.
  /// The variables, by number: the name written, without '%' and quotes.
  std::vector<std::string> Variables;
  struct Def {
    enum Kind : uint8_t {
      Param,    ///< Argument number Index of the function.
      Named,    ///< The instruction whose name is Name.
      Numbered, ///< The unnamed instruction numbered Index (`%3 = ...`).
      Assign,   ///< The Assign placeholder whose K is this index.
    } How;
    uint32_t Var;
    uint32_t At; ///< Source offset of the definition.
    uint32_t Index = 0;
    std::string Name;
  };
  std::vector<Def> Defs; ///< In text order.
  struct Read {
    uint32_t Var;
    uint32_t At;   ///< Source offset of the operand read.
    bool AtEnd;    ///< An author's phi operand: read at the block's end.
  };
  std::vector<Read> Reads;
};

/// The instructions lowering printed for one function, in the order of the
/// text: the source offset each stands for, and which are placeholder calls
/// (PrintFlat.h), which SSA restoration deletes.
struct FunctionOrigins {
  std::string Function;
  std::vector<uint32_t> Offsets;
  /// Indices into Offsets, ascending.
  std::vector<uint32_t> Placeholders;
};

struct LoweredText {
  /// \p Source itself, unchanged and mapped one to one: the lowering of
  /// plain LLVM IR.
  static LoweredText unchanged(llvm::StringRef Source) {
    LoweredText L;
    L.Unchanged = Source;
    L.Map.addVerbatim(0, 0, static_cast<uint32_t>(Source.size()));
    return L;
  }
  /// The lowered text: Storage, or the source buffer when it is unchanged.
  /// Either way it is followed by a NUL, as LLVM's assembler requires.
  llvm::StringRef text() const {
    return Unchanged.data() ? Unchanged : llvm::StringRef(Storage);
  }
  llvm::StringRef Unchanged;
  std::string Storage;
  SourceMap Map;
  /// The functions whose variables RestoreSSA turns into SSA form, and
  /// the names of the placeholder functions their text calls (declared at
  /// its end; RestoreSSA removes them).
  std::vector<SSAFunction> SSA;
  std::string ReadFn, AssignFn;
  /// The names lowering made for the author's variables (versions, slots,
  /// slot loads), without '%' and quotes, and the variable each stands
  /// for: messages from LLVM name the variable, not the version.
  llvm::StringMap<std::string> SourceNames;
  /// For each function lowering rewrote: the source offset each of its
  /// instructions stands for, in the order of the text (Origins.h).
  std::vector<FunctionOrigins> InstOrigins;
};

/// Builds lowered text piece by piece, recording the source map as it goes.
class LoweredTextBuilder {
public:
  /// Lowering writes about three bytes per source byte; reserving them
  /// spares the copies and page faults of growing a large function's text.
  explicit LoweredTextBuilder(llvm::StringRef Source) : Source(Source) {
    Result.Storage.reserve(3 * Source.size() + 64);
  }
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
    Result.InstOrigins.push_back({std::move(Name), {}, {}});
  }
  /// Records that the next instruction of the text stands for the source at
  /// \p Origin, and whether it is a placeholder call.
  void markInstruction(uint32_t Origin, bool Placeholder = false) {
    FunctionOrigins &F = Result.InstOrigins.back();
    if (Placeholder)
      F.Placeholders.push_back(uint32_t(F.Offsets.size()));
    F.Offsets.push_back(Origin);
  }
  /// Adds the plan of a rewritten function.
  void addSSA(SSAFunction F) { Result.SSA.push_back(std::move(F)); }
  /// Names the placeholder functions.
  void setPlaceholders(std::string Read, std::string Assign) {
    Result.ReadFn = std::move(Read);
    Result.AssignFn = std::move(Assign);
  }
  const LoweredText &peek() const { return Result; }
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
  /// Whether a global of the module the text is read into has this name
  /// (placeholder functions must not clash); null: a new module.
  std::function<bool(llvm::StringRef)> GlobalTaken;
  /// Text spliced from a template: a function that only reassigns a name
  /// (say, through a fragment) uses the dialect too.
  bool Spliced = false;
  /// Antiquotes of the kinds that stand for a type or an operand (`$type`,
  /// `$const`, `$opr`) are left in the text as written, for a template's
  /// program (Replay.h) to fill; any other antiquote is still an error.
  bool KeepValueAntiquotes = false;
};

} // namespace llq

#endif // LLQUOTE_LIB_LOWEREDTEXT_H
