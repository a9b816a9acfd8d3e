//===- Template.h - LLVM IR templates in C++ sources ------------*- C++ -*-===//
//
// A Template is dialect text with `$kind:name` holes, written in a C++ source
// with LLQ_SKELETON, which records where:
//
//   static const llq::Template Axpy = LLQ_SKELETON(R"(
//   define void @axpy(i64 %n, $type:elt %a, ptr %x, ptr %y) {
//     for i64 %i in 0 to %n { ... }
//     ret void
//   })");
//   auto M = Axpy.instantiate(Ctx, {{"elt", Type::getFloatTy(Ctx)}});
//
// The template is parsed once, at its first use; each instantiate() splices
// the bindings in and builds a verified module. A module template within
// the subset of Replay.h (antiquotes of types and operands only) is lowered
// once into a program instead, and each instantiate() builds the same module
// from it without reading text. Errors, whether in the
// template's own syntax, in a binding, or in the IR after splicing, are
// DiagnosticErrors at the C++ file, line and column of the template text.
// instantiate() may run concurrently on one Template, each call with its own
// LLVMContext.
//
// A template has a granularity, as the original quoters had one quoter per
// AST type. Each has its macro and its way of being instantiated:
//
//   LLQ_SKELETON     a module            instantiate(Ctx, B) -> Module
//   LLQ_DEFINITIONS  top-level entities  instantiateInto(M, B) -> new globals
//   LLQ_GLOBAL       one global value    instantiateInto(M, B)
//   LLQ_BLOCKS       basic blocks        emit(Builder, B, Env) -> new blocks
//   LLQ_INSTRS       instructions        emit(Builder, B, Env), at the point
//   LLQ_TERMINATOR   one terminator      emit(Builder, B, Env)
//   LLQ_TYPE         a type              instantiateType(M, B) -> Type*
//   LLQ_OPERAND      a typed operand     instantiateOperand(M, B, Env) -> Value*
//
// and each can become a Fragment (fragment()) to splice into another
// template where that granularity may stand.
//
// emit() puts instructions where an llvm::IRBuilder points, so templates mix
// with hand-written IRBuilder code: the template's free local names are the
// values the environment gives (`Env`), and what it defines comes back by
// name. A template may reassign a name of the environment; its value after
// the template is returned. Control structures split the insertion block.
//
//   static const llq::Template Clamp = LLQ_INSTRS(R"(
//     %big = icmp sgt i32 %v, %hi
//     if %big { %v = i32 %hi }
//   )");
//   llq::Emitted E = cantFail(Clamp.emit(Builder, {}, {{"v", V}, {"hi", Hi}}));
//   Value *Clamped = E.value("v");
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_TEMPLATE_H
#define LLQUOTE_TEMPLATE_H

#include "llquote/Binding.h"
#include "llquote/Frontend.h"
#include "llvm/IR/IRBuilder.h"
#include <memory>

namespace llq {

/// The values of a template's free local names: `%name` reads a value,
/// `label %name` a block of the function it is emitted into.
using Values = llvm::StringMap<llvm::Value *>;

/// What Template::emit() added to a function.
struct Emitted {
  /// The instructions inserted at the builder's point, in order, when the
  /// template has no control flow of its own.
  std::vector<llvm::Instruction *> Instructions;
  /// New blocks of the function, in order.
  std::vector<llvm::BasicBlock *> Blocks;
  /// By name, the values after the template: every name the template
  /// defines once, every block label it defines, and every name of the
  /// environment, reassigned or not.
  Values Defined;

  /// The value named \p Name after the template, or null.
  llvm::Value *value(llvm::StringRef Name) const {
    return Defined.lookup(Name);
  }
};

class Template {
public:
  /// \p Line and \p Column (1-based) are where \p Text starts in \p File.
  /// With \p Hygienic, the template's names are its own: it reads only
  /// what its antiquotes give it (an error of check() otherwise), and as
  /// a fragment its names are renamed apart at each splice.
  Template(llvm::StringRef Text, llvm::StringRef File = "<template>",
           unsigned Line = 1, unsigned Column = 1,
           Granularity G = Granularity::Module, bool Hygienic = false);
  /// Which line of a macro call spanning several lines __LINE__ names:
  /// GCC gives the first, Clang the last (that of the closing parenthesis).
  enum class MacroLine { First, Last };
  /// The line a macro argument \p Text starts on, when \p Line is __LINE__
  /// of the macro call and Text starts on the call's first line.
  static unsigned macroStartLine(unsigned Line, MacroLine Which,
                                 llvm::StringRef Text);
  /// For the LLQ_ macros: \p Line is __LINE__ of the macro call.
  Template(llvm::StringRef Text, llvm::StringRef File, unsigned Line,
           MacroLine Which, Granularity G = Granularity::Module,
           bool Hygienic = false);
  ~Template();
  Template(const Template &) = delete;
  Template &operator=(const Template &) = delete;

  Granularity granularity() const;
  /// Whether it is an LLQ_HYGIENIC_ template.
  bool hygienic() const;

  /// Module templates: a new verified module.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  instantiate(llvm::LLVMContext &Ctx, const Bindings &Bound = {},
              FrontendOptions Opts = {}) const;

  /// Definitions and global templates (module templates too): adds the
  /// template's entities to \p M and returns them, in order. A function the
  /// template defines may have been declared in \p M: the declaration gets
  /// the body. The new functions are verified. On error \p M is unchanged.
  llvm::Expected<std::vector<llvm::GlobalValue *>>
  instantiateInto(llvm::Module &M, const Bindings &Bound = {},
                  FrontendOptions Opts = {}) const;

  /// Instruction, terminator and block templates: emits the template into
  /// the function \p B is building. Instructions go before \p B's insertion
  /// point; with control flow, the insertion block is split there and \p B
  /// is left at the start of the block that continues after the template.
  /// Blocks go after the insertion block; if control falls off the last one,
  /// \p B is left in the (new, empty) block it falls into.
  /// \p Env gives the template's free names; bindings may be llvm::Values
  /// of the function. The function itself is not verified: it is still
  /// being built. On error the function and module are unchanged.
  llvm::Expected<Emitted> emit(llvm::IRBuilderBase &B,
                               const Bindings &Bound = {},
                               const Values &Env = {},
                               FrontendOptions Opts = {}) const;

  /// Type templates. Named types are those of \p M.
  llvm::Expected<llvm::Type *> instantiateType(llvm::Module &M,
                                               const Bindings &Bound = {}) const;
  llvm::Expected<llvm::Type *> instantiateType(llvm::LLVMContext &Ctx,
                                               const Bindings &Bound = {}) const;

  /// Operand templates: a constant, or the value \p Env gives a local name.
  /// Globals are those of \p M.
  llvm::Expected<llvm::Value *> instantiateOperand(llvm::Module &M,
                                                   const Bindings &Bound = {},
                                                   const Values &Env = {}) const;

  /// Any template, with \p Bound spliced in, as a fragment of its
  /// granularity, to bind to an antiquote of another template: instructions
  /// and terminators to $instr(s), blocks to $bb(s), definitions and globals
  /// to $def(s), types to $type, operands to $opr (untyped) and $args.
  /// \p Outputs are the template variables it assigns; for a hygienic
  /// template, the names it exports (Fragment::value), and it assigns the
  /// names its $id: antiquotes are given.
  llvm::Expected<Fragment> fragment(const Bindings &Bound = {},
                                    std::vector<std::string> Outputs = {}) const;

  /// Checks the template alone: its syntax, and that every antiquote stands
  /// where its kind may.
  llvm::Error check() const;

  llvm::StringRef text() const;

  struct Impl; ///< Opaque.

private:
  /// check(), and every antiquote bound, to no function value.
  llvm::Error ready(const Bindings &Bound) const;

  std::unique_ptr<Impl> P;
};

/// Checks every LLQ_SKELETON template of the C++ source \p CppSource (named
/// \p FileName in diagnostics) with its antiquotes unbound: its syntax, and
/// that each antiquote stands where its kind may. All errors are returned,
/// joined, each at the C++ file's line and column.
llvm::Error checkTemplatesInCpp(llvm::StringRef CppSource,
                                llvm::StringRef FileName);

} // namespace llq

/// A template written inline; diagnostics point at this line of this file.
/// The text usually starts with a newline right after `R"(`, so its lines are
/// the C++ lines that follow. With Clang, the closing `)"` and `)` must end
/// the text's last line, as in `})");`, for the lines to be exact.
#if defined(__clang__)
#define LLQ_TEMPLATE_(Text, G)                                                 \
  ::llq::Template((Text), __FILE__, __LINE__,                                  \
                  ::llq::Template::MacroLine::Last, ::llq::Granularity::G)
#define LLQ_HYGIENIC_(Text, G)                                                 \
  ::llq::Template((Text), __FILE__, __LINE__,                                  \
                  ::llq::Template::MacroLine::Last, ::llq::Granularity::G,     \
                  /*Hygienic=*/true)
#else
#define LLQ_TEMPLATE_(Text, G)                                                 \
  ::llq::Template((Text), __FILE__, __LINE__,                                  \
                  ::llq::Template::MacroLine::First, ::llq::Granularity::G)
#define LLQ_HYGIENIC_(Text, G)                                                 \
  ::llq::Template((Text), __FILE__, __LINE__,                                  \
                  ::llq::Template::MacroLine::First, ::llq::Granularity::G,    \
                  /*Hygienic=*/true)
#endif
#define LLQ_SKELETON(Text) LLQ_TEMPLATE_(Text, Module)
#define LLQ_DEFINITIONS(Text) LLQ_TEMPLATE_(Text, Definitions)
#define LLQ_GLOBAL(Text) LLQ_TEMPLATE_(Text, Global)
#define LLQ_BLOCKS(Text) LLQ_TEMPLATE_(Text, Blocks)
#define LLQ_INSTRS(Text) LLQ_TEMPLATE_(Text, Instructions)
#define LLQ_TERMINATOR(Text) LLQ_TEMPLATE_(Text, Terminator)
#define LLQ_TYPE(Text) LLQ_TEMPLATE_(Text, Type)
#define LLQ_OPERAND(Text) LLQ_TEMPLATE_(Text, Operand)
/// Hygienic fragments (docs/Antiquotes.md): instructions or blocks whose
/// names are their own, spliced any number of times into one function.
#define LLQ_HYGIENIC_INSTRS(Text) LLQ_HYGIENIC_(Text, Instructions)
#define LLQ_HYGIENIC_BLOCKS(Text) LLQ_HYGIENIC_(Text, Blocks)

#endif // LLQUOTE_TEMPLATE_H
