//===- Syntax.h - Concrete syntax tree of the llquote dialect ---*- C++ -*-===//
//
// The parser builds a concrete syntax tree (CST): every node remembers the
// byte range of source text it was parsed from. Lowering is a source-to-source
// rewrite of that tree, so text the dialect does not touch reaches LLVM's own
// assembler byte for byte and every LLVM diagnostic maps back to the user's
// text exactly.
//
// Only constructs that later passes need to see get nodes (definitions,
// blocks, instructions, operands, types, antiquotes and control structures).
// Attribute lists, metadata fields and similar token soup are checked by the
// grammar for shape only and stay inside the range of their parent.
//
// Nodes live in a bump allocator owned by SyntaxTree; they are never freed one
// by one, and nothing walks them recursively, so input size and nesting depth
// cannot overflow the stack here.
//
//===----------------------------------------------------------------------===//

#ifndef LLQUOTE_LIB_SYNTAX_H
#define LLQUOTE_LIB_SYNTAX_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace llq {

/// A half-open byte range [Begin, End) of the source buffer. It is also the
/// parser's location type: Bison combines ranges of a rule's right-hand side.
struct SrcRange {
  uint32_t Begin = 0;
  uint32_t End = 0;
};

enum class NodeKind : uint8_t {
  Group, ///< A transient list; make() splices its children into the parent.
  // Module level.
  Module,
  SourceFilename,
  TargetDecl,
  ModuleAsm,
  TypeDef,
  GlobalVar,
  Alias,
  IFunc,
  ComdatDef,
  AttrGroup,
  NamedMetadata,
  MetadataDef,
  UseListOrder,
  SummaryEntry,
  Declare,
  Define,
  // Functions.
  Param,
  Body,
  Label,
  Inst,       ///< Sub = opcode token; children: [Result] operands...
  Assign,     ///< Dialect: %x = <ty> <val>.
  DbgRecord,  ///< #dbg_value(...) and friends.
  // Operands.
  Type,
  TypedValue, ///< children: Type Value
  LocalRef,   ///< %x used as a value
  LocalDef,   ///< %x = ... (the defined name)
  GlobalRef,
  Constant,
  LabelRef,   ///< label %bb, or the block operand of a phi
  Metadata,
  // Dialect control structures.
  For,        ///< children: Type LocalDef From To [Step] Body; Sub: ForFlags
  While,      ///< children: Cond Body
  If,         ///< children: Cond Then [Else]
  Break,
  Continue,
  Antiquote,  ///< Sub = AntiquoteKind
};

/// Bits of a For node's Sub field.
enum ForFlags : uint16_t { ForDownto = 1, ForHasStep = 2 };

/// The kinds of `$kind:name` holes.
enum class AntiquoteKind : uint8_t {
  DataLayout, Triple, Def, Defs, BB, BBs, Instr, Instrs, Type, Opr, Const,
  Id, GId, Param, Params, Label, Args,
  LabelDef, ///< A `$label:` that stands where a block's label is defined.
};

/// Where an antiquote of kind \p K may stand ("where a type may"), for the
/// error at one that stands elsewhere.
llvm::StringRef whereAntiquoteStands(AntiquoteKind K);

/// Instruction opcodes, as the Inst node's Sub field.
enum class Opcode : uint16_t {
  Ret, Br, Switch, IndirectBr, Invoke, CallBr, Resume, Unreachable,
  CleanupRet, CatchRet, CatchSwitch, CatchPad, CleanupPad,
  FNeg,
  Add, FAdd, Sub, FSub, Mul, FMul, UDiv, SDiv, FDiv, URem, SRem, FRem,
  Shl, LShr, AShr, And, Or, Xor,
  ICmp, FCmp,
  Trunc, ZExt, SExt, FPTrunc, FPExt, UIToFP, SIToFP, FPToUI, FPToSI,
  IntToPtr, PtrToInt, BitCast, AddrSpaceCast,
  Select, VAArg, ExtractElement, InsertElement, ShuffleVector,
  ExtractValue, InsertValue, Phi, LandingPad, Freeze, Call,
  Alloca, Load, Store, Fence, CmpXchg, AtomicRMW, GetElementPtr,
};

/// The spelling of an antiquote kind, as written after `$`.
llvm::StringRef antiquoteKindName(AntiquoteKind K);

/// The text of a string or quoted name, its `\XX` and `\\` escapes decoded.
std::string unescapeAsm(llvm::StringRef Body);

/// The name a `%name`, `@name`, `%"quoted\22name"` or `label:` token gives:
/// without its sigil, colon and quotes, escapes decoded.
std::string nameOfToken(llvm::StringRef Token);

/// \p Name as LLVM writes it after a sigil: bare when it can be (a number
/// names an unnamed value), otherwise quoted and escaped.
std::string asmName(llvm::StringRef Name);

struct Node {
  NodeKind Kind;
  uint16_t Sub = 0; ///< Kind-specific detail (opcode token, antiquote kind).
  SrcRange Range;
  Node *First = nullptr;
  Node *Last = nullptr;
  Node *Next = nullptr;

  Node(NodeKind K, SrcRange R) : Kind(K), Range(R) {}
  /// Appends \p Child; a Group child donates its children instead.
  void add(Node *Child);
  bool is(NodeKind K) const { return Kind == K; }
};

/// A parsed source buffer: the CST and the arena that owns it.
class SyntaxTree {
public:
  explicit SyntaxTree(llvm::StringRef Source) : Source(Source) {}

  Node *make(NodeKind K, SrcRange R, std::initializer_list<Node *> Children = {});
  Node *group(std::initializer_list<Node *> Children = {}) {
    return make(NodeKind::Group, SrcRange(), Children);
  }
  /// An instruction node; its Sub is the opcode.
  Node *inst(Opcode Op, SrcRange R, std::initializer_list<Node *> Operands);
  /// Gives \p Inst its defined name: the node is extended to cover it.
  Node *withResult(Node *Inst, Node *Result);
  Node *antiquote(AntiquoteKind K, SrcRange R);
  /// A for loop; children are Type, LocalDef, From, To, Step (or null), Body.
  Node *forLoop(bool Downto, SrcRange R, std::initializer_list<Node *> Parts);
  /// Appends \p Item to the list \p List (a Group); returns the list.
  Node *append(Node *List, Node *Item) {
    List->add(Item);
    return List;
  }
  llvm::StringRef text(SrcRange R) const {
    return Source.substr(R.Begin, R.End - R.Begin);
  }
  llvm::StringRef text(const Node *N) const { return text(N->Range); }

  llvm::StringRef Source;
  Node *Root = nullptr;
  /// Counts of dialect constructs, so plain LLVM IR skips the dialect passes.
  /// Every antiquote read, in the order the parser made them; a rule that
  /// has no place for one leaves it out of the tree, and only this finds it.
  std::vector<const Node *> Antiquotes;
  /// The first of Antiquotes in source order, or null.
  const Node *firstAntiquote() const {
    const Node *First = nullptr;
    for (const Node *A : Antiquotes)
      if (!First || A->Range.Begin < First->Range.Begin)
        First = A;
    return First;
  }
  unsigned NumControl = 0;
  /// The type definitions read so far, in source order: all of them once
  /// the tree is whole, those before the error when parsing stopped on one.
  std::vector<const Node *> TypeDefs;
  /// The numbered metadata definitions (`!N = ...`), in source order.
  std::vector<const Node *> MetadataDefs;
  /// Set by the lexer on the dialect's keywords.
  bool SawDialectKeyword = false;
  /// Where parsing stopped on an error, and whether the lexer found it.
  uint32_t ErrorOffset = 0;
  bool LexicalError = false;
  /// Whether anything outside plain LLVM IR has been read so far.
  bool sawDialect() const {
    return !Antiquotes.empty() || NumControl || SawDialectKeyword;
  }

private:
  llvm::BumpPtrAllocator Arena;
};

/// Whether instruction node \p N ends a basic block.
bool isTerminator(const Node *N);

/// Whether \p N writes a local name: a value or label defined or used.
inline bool isLocalName(const Node *N) {
  return N->is(NodeKind::Label) || N->is(NodeKind::LocalDef) ||
         N->is(NodeKind::LocalRef) || N->is(NodeKind::LabelRef);
}

/// The name a label or a `%name` token gives, without '%' and ':'.
llvm::StringRef localName(const SyntaxTree &Tree, const Node *N);

/// Every local name written in \p Body (values and labels), to keep
/// generated names apart from them.
void collectLocalNames(const SyntaxTree &Tree, const Node *Body,
                       llvm::StringSet<> &Names);

/// Calls \p Fn on every node below \p Root in source order, without recursion.
template <typename Fn> void forEachNode(const Node *Root, Fn &&Visit) {
  llvm::SmallVector<const Node *, 32> Stack;
  for (const Node *C = Root->First; C; C = C->Next)
    Stack.push_back(C);
  std::reverse(Stack.begin(), Stack.end());
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    Visit(N);
    size_t Mark = Stack.size();
    for (const Node *C = N->First; C; C = C->Next)
      Stack.push_back(C);
    std::reverse(Stack.begin() + Mark, Stack.end());
  }
}

} // namespace llq

#endif // LLQUOTE_LIB_SYNTAX_H
