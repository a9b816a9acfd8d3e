//===- Node.h - Array expression trees and scalar functions -----*- C++ -*-===//
//
// The untyped form of an array program. An operation of Skeletons.h builds a
// Node: its element type and shape are computed (and checked) right away, so
// every mistake is found where the expression is built and kept in
// Node::Error for run() to report. Producers (Op::Use .. Op::EnumFromN) are
// fused into their consumer by KernelGen; a consumer (Op::Consumer) names the
// Skeleton that generates and launches its kernel.
//
// A node's structure (what KernelGen's code depends on) goes into
// structuralKey(); its run-time values (extents, buffers, constants) travel
// in the kernel's argument slots, so one kernel serves every shape of a rank.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_SKELETONS_NODE_H
#define LLQUOTE_SKELETONS_NODE_H

#include "llquote/Skeletons.h"
#include "llquote/skeletons/Expr.h"
#include "llquote/Template.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace llvm {
class Error;
class Function;
class LLVMContext;
class Type;
}
#include <mutex>

namespace llq::detail {

class Skeleton;

/// Text with some of its tokens replaced, in stages, and the way from a
/// column of the result back to the column the user wrote. Lines are never
/// added or removed.
struct Rewritten {
  /// One replacement: Len bytes at column Col of line Line (0-based, in the
  /// stage's input) became NewLen bytes.
  struct Edit {
    unsigned Line, Col, Len, NewLen;
  };
  std::string Text;
  std::vector<std::vector<Edit>> Stages;

  /// Replaces (offset, length, new text) of Text, sorted and apart, as one
  /// more stage.
  void replace(std::vector<std::tuple<size_t, size_t, std::string>> R);
  /// The column, in the text first given, of column Col of line Line of Text.
  unsigned originalColumn(unsigned Line, unsigned Col) const;
};

/// Whether C can be part of an LLVM name after its sigil.
bool isNameChar(char C);
/// FNV-1a of S, continuing from H: the hash of texts (functions, preludes).
uint64_t fnv1a(llvm::StringRef S, uint64_t H = 14695981039346656037ull);
/// An error at line Line, column Col (0-based) of File, showing LineText,
/// formatted as every located error is.
std::string locatedError(llvm::StringRef File, int Line, int Col,
                         llvm::StringRef Message, llvm::StringRef LineText);
/// E's diagnostics at the lines FirstLine... of File, which show the text R
/// made of Original, moved to the columns of Original and shown on its
/// lines; every message passed through Names (helpers' names as written).
llvm::Error mapToWritten(llvm::Error E, llvm::StringRef File, int FirstLine,
                         llvm::StringRef Original, const Rewritten &R,
                         llvm::function_ref<std::string(std::string)> Names);

/// Calls Visit(offset, length) for each global (`@name`, Sigil '@') or local
/// (`%name`, Sigil '%') name of Text outside comments and strings; length
/// counts the sigil. Quoted names ("%\"a b\"") are not visited.
void forEachName(llvm::StringRef Text, char Sigil,
                 llvm::function_ref<void(size_t, size_t)> Visit);

/// A call whose types differ from its callee's: LLVM accepts it (a call
/// names its own function type), but it is a mistake in a scalar function.
struct MismatchedCall {
  std::string Callee; ///< As the module names it.
  unsigned Nth;       ///< Which call of Callee in the caller, from 0.
  std::string Message;
};
/// The first such call in F, in the order of F's blocks.
std::optional<MismatchedCall> mismatchedCall(const llvm::Function &F);
/// The offset in Text of the Nth `@Name` (from 0) at or after From, or npos.
size_t nthName(llvm::StringRef Text, llvm::StringRef Name, unsigned Nth,
               size_t From = 0);

/// The type that Text spells, in Ctx, or null and Error set. Text is the
/// user's: it is read as the one parameter of a declaration, since
/// llvm::parseType can fail on text that LLVM's assembler reports.
llvm::Type *readType(llvm::StringRef Text, llvm::LLVMContext &Ctx,
                     std::string &Error);

/// What LLQ_PRELUDE read.
struct PreludeImpl {
  std::string Text, File;
  unsigned Line = 1;
  uint64_t Hash = 0;
  std::string Error;
  /// The named types, resolved: (name, LLVM type without named types).
  std::vector<std::pair<std::string, std::string>> Types;
  /// The names its helpers and globals have in the prelude, and in kernels:
  /// Name + Suffix.
  std::vector<std::string> Helpers;
  std::string Suffix;
  /// The prelude as kernels hold it (types substituted, type definitions
  /// blanked, helpers renamed), as a definitions template.
  std::unique_ptr<Template> Def;

  /// Text of a function that uses the prelude, with its type names replaced
  /// by their types and its helpers' names by theirs in kernels.
  Rewritten rewrite(llvm::StringRef Text) const;
  /// Message with the helpers' kernel names back to the user's.
  std::string unmangle(std::string Message) const;
};

/// A parameter `array<T, R> %name` of a function's signature: Fields `ptr`s
/// and Rank `i64` extents in the function's LLVM signature, and a helper
/// `@name(i64 ...)` that reads an element, checked in the checked mode.
struct ArrayParam {
  std::string Name, Type;
  std::vector<std::string> FieldTypes;
  unsigned Rank = 1;
};

/// Bindings of F's definition: its name Name, and its readers' names
/// ReaderPrefix + the array's name.
Bindings fnBindings(const FnImpl &F, const std::string &Name,
                    const std::string &ReaderPrefix);

/// `declare void @llq.read.fault(i64)`: what checked readers call with the
/// number of their array when an index is outside it (FnImpl::Arrays).
const Template &readFaultDeclaration();

/// What LLQ_FN read: the definition as a template whose function name is the
/// antiquote `$gid:name`, and its LLVM type.
struct FnImpl {
  std::string Signature, Body, File;
  unsigned Line = 1;
  uint64_t Id = 0;
  /// FNV-1a of the signature and body: equal texts, equal code.
  uint64_t Hash = 0;
  std::string Error;
  std::vector<std::string> Params;
  /// The parameters' names, without the %.
  std::vector<std::string> ParamNames;
  std::string Result;
  /// The atomicrmw operation equal to F(new, old) when F is one, or "".
  std::string AtomicOp;
  std::unique_ptr<Template> Def;
  /// The prelude it uses, if any.
  std::shared_ptr<const PreludeImpl> Uses;
  /// Its array<> parameters, in order, and their readers: definitions
  /// named by the antiquotes `$gid:array0`, ... (KernelGen::readerName),
  /// which Def calls. A checked reader, given an index outside its array,
  /// calls `@llq.read.fault(i64 k)` (k: which array) and yields zero.
  std::vector<ArrayParam> Arrays;
  std::unique_ptr<Template> Readers, CheckedReaders;
};

/// The LLVM spelling of an element type in registers ("float", "i1",
/// "{ i32, float }"), as function signatures write it: what a function's
/// types are checked against. Code is generated with llvm::Types
/// (KernelGen::type).
std::string irType(const ElemType &T);
std::string irType(ScalarKind K);

/// What Fn::bind made: the bound parameters and the first mistake.
struct FnBinds {
  std::vector<std::pair<unsigned, Scalar>> Values;
  std::string Error;
};

/// Sets N's functions, adding the arrays they read as kids and their bound
/// values as Consts.
void useFns(Node &N, std::vector<Fn> Fns);

/// Checks that F takes Params (and what its arrays add) and returns Result (empty: any); the error
/// is at F's place and names Operation.
std::string checkFn(const Fn &F, const char *Operation,
                    const std::vector<std::string> &Params,
                    const std::string &Result = "");
/// The error, or "", for Operation's combining function F of elements of
/// type T: (T, T) -> T, reading no arrays; and for its Seed, when it has
/// one, which must be of type T. The function's error comes first.
std::string checkCombine(const Fn &F, const char *Operation, const ElemType &T,
                         const Scalar *Seed);
/// The ElemType of an LLVM type spelling, if it is one of ours.
std::optional<ElemType> elemTypeOf(const std::string &IRType);

/// Appends N's structure (and its kids') to Key; Stable selects function
/// hashes instead of ids.
void structuralKey(const Node &N, std::vector<uint64_t> &Key);

} // namespace llq::detail

#endif // LLQUOTE_SKELETONS_NODE_H
