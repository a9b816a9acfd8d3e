//===- Replay.h - Module templates built from a program ------*- C++ -*-===//
//
// compileTemplate: requires the syntax tree of a module template, parsed
// with its antiquotes; produces the template's Program, or nothing. It
// lowers the template once, leaving each antiquote in place as written
// (LowerOptions::KeepValueAntiquotes), and reads that text into
// definitions, blocks and instructions whose types and operands name the
// antiquotes. Nothing when an antiquote is of a kind other than `$type`,
// `$const` and `$opr`, or stands where lowering reads the text bound to it
// (a for loop's step: 1 needs no latch, 0 and below are errors); when
// lowering fails; or when the text uses a form outside the subset below.
// The template is then instantiated the general way: its bindings spliced
// into the text, which LLVM's parser reads.
//
// Program::build: requires bindings for the antiquotes and a context;
// produces the module the general path makes: the one LLVM's parser reads
// from the lowered text with the bindings spliced in, placeholders and all,
// put through the same restoreSSA (with the plan lowering made) and the
// verifier, names included. It checks what LLVM's parser checks of the
// subset: every operand's type against the type written, each opcode's
// operand classes, a name defined once and every name used defined, a
// constant that fits its type. Anything amiss gives null and no message:
// the caller takes the general path, whose parser reports the mistake at
// the template. Bindings it takes: a type of \p Ctx that names no struct,
// for `$type`; for `$const` and `$opr`, any binding whose text (as
// valueText gives it) is one literal of the subset.
//
// The subset: `target datalayout` and `target triple` before any function;
// `declare` and `define` with a return type, a global name, typed and named
// parameters (a `declare` may end in `...`) and nothing else; labels; the
// integer and floating-point binary operators and fneg with their flags,
// icmp, fcmp, the casts, select, freeze, getelementptr [inbounds], load,
// store and alloca (with `align`), phi, br, ret, unreachable, and direct
// calls whose arguments carry no attributes. Types: void, iN, half, bfloat,
// float, double, ptr [addrspace(N)], vectors, arrays and literal structs.
// Constants: integers, decimal and hexadecimal floating-point numbers,
// true, false, null, poison, undef, zeroinitializer. Values are named:
// a numbered value (`%0`) is outside the subset.
//
// Why a program, not LLVM's parser: reading text costs more than building
// the same IR, and a template's text is the same at every use but for its
// antiquotes. The general path stays the reference, and the tests compare
// the two modules, printed, for every template the program covers.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_REPLAY_H
#define LLQUOTE_LIB_REPLAY_H

#include "LoweredText.h"
#include "Syntax.h"
#include "llquote/Binding.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>
#include <optional>

namespace llq {

class Program {
public:
  struct Impl;
  explicit Program(std::unique_ptr<Impl> P);
  Program(Program &&);
  Program &operator=(Program &&);
  ~Program();

  /// The module, named \p ModuleName, its variables in SSA form (through
  /// LLVM's PromoteMemToReg with \p Mem2Reg) and verified; or null (see
  /// above).
  std::unique_ptr<llvm::Module> build(llvm::LLVMContext &Ctx,
                                      llvm::StringRef ModuleName,
                                      const Bindings &Bound,
                                      bool Mem2Reg = false) const;

private:
  friend std::optional<Program>
  compileTemplate(const SyntaxTree &, const llvm::SourceMgr &, unsigned);
  std::unique_ptr<Impl> P;
};

std::optional<Program> compileTemplate(const SyntaxTree &Tree,
                                       const llvm::SourceMgr &SM,
                                       unsigned BufferID);

} // namespace llq

#endif // LLQUOTE_LIB_REPLAY_H
