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
// the bindings in and builds a verified module. Errors, whether in the
// template's own syntax, in a binding, or in the IR after splicing, are
// DiagnosticErrors at the C++ file, line and column of the template text.
// instantiate() may run concurrently on one Template, each call with its own
// LLVMContext.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_TEMPLATE_H
#define LLQUOTE_TEMPLATE_H

#include "llquote/Binding.h"
#include "llquote/Frontend.h"
#include <memory>

namespace llq {

class Template {
public:
  /// \p Line and \p Column (1-based) are where \p Text starts in \p File.
  Template(llvm::StringRef Text, llvm::StringRef File = "<template>",
           unsigned Line = 1, unsigned Column = 1);
  /// Which line of a macro call spanning several lines __LINE__ names:
  /// GCC gives the first, Clang the last (that of the closing parenthesis).
  enum class MacroLine { First, Last };
  /// For LLQ_SKELETON: \p Line is __LINE__ of the macro call.
  Template(llvm::StringRef Text, llvm::StringRef File, unsigned Line,
           MacroLine Which);
  ~Template();
  Template(const Template &) = delete;
  Template &operator=(const Template &) = delete;

  llvm::Expected<std::unique_ptr<llvm::Module>>
  instantiate(llvm::LLVMContext &Ctx, const Bindings &Bound = {},
              FrontendOptions Opts = {}) const;

  /// Checks the template alone: its syntax, and that every antiquote stands
  /// where its kind may.
  llvm::Error check() const;

  llvm::StringRef text() const;

private:
  struct Impl;
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
#define LLQ_SKELETON(Text)                                                     \
  ::llq::Template((Text), __FILE__, __LINE__, ::llq::Template::MacroLine::Last)
#else
#define LLQ_SKELETON(Text)                                                     \
  ::llq::Template((Text), __FILE__, __LINE__, ::llq::Template::MacroLine::First)
#endif

#endif // LLQUOTE_TEMPLATE_H
