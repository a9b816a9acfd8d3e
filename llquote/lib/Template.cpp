//===- Template.cpp - LLVM IR templates in C++ sources --------------------===//
//
// The template text is parsed once (std::call_once); afterwards the Impl is
// read-only, so instantiations may run concurrently. Each instantiation uses
// a SourceMgr of its own, and its diagnostics are moved from template lines
// and columns to those of the C++ file.
//
// A template smaller than a module is read inside a wrapper: module text
// around it that makes it one (a function around instructions, say). The
// wrapper's text before the template ends in a newline, so the template's
// lines and columns are those of the wrapped text shifted by a number of
// bytes; diagnostics in the wrapper itself are put at the template's start
// or end. Emitting reads the wrapper into the target module, whose globals
// and types it then uses, and moves its instructions into the function being
// built:
//
//   define <ret> @llq.quote(<one parameter per value of the environment>) {
//   llq.entry:                 ; instruction and terminator templates only
//     <the template>
//   llq.exit:                  ; where control falls off the template's end
//     call void (...) @llq.live(<the environment's values here>)
//     unreachable
//   <one stub block per block of the environment>
//   }
//
// Why a wrapper, and not instructions built at the IRBuilder's point: the
// template's instructions are read by LLVM's assembler, the one reader of
// every form LLVM IR has, and it reads whole functions into a module, never
// instructions into a function being built. A function whose parameters
// are the environment's values is the smallest text it reads that means
// the template; moving its blocks to the builder's point and replacing its
// parameters by the values is then plain IR surgery, checked by the
// verifier in the tests. Building at the point directly needs a reader of
// our own for the whole instruction set, which the front end does not have.
//
//===----------------------------------------------------------------------===//

#include "llquote/Template.h"
#include "Assemble.h"
#include "FindTemplates.h"
#include "Flatten.h"
#include "Hygiene.h"
#include "InternalNames.h"
#include "Parse.h"
#include "PrintedType.h"
#include "Replay.h"
#include "Splice.h"
#include "Tokens.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/ValueSymbolTable.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

using namespace llq;
using namespace llvm;

namespace {
/// A template inside its wrapper: the template starts at byte Begin.
struct Wrapped {
  std::string Text;
  size_t Begin = 0;
};

bool emits(Granularity G) {
  return G == Granularity::Instructions || G == Granularity::Terminator ||
         G == Granularity::Blocks;
}

/// What a template read inside a wrapper holds, for the error at text that
/// leaves the wrapper.
const char *wrappedContents(Granularity G) {
  switch (G) {
  case Granularity::Instructions:
    return "an instruction template holds instructions";
  case Granularity::Terminator:
    return "a terminator template holds one terminator";
  case Granularity::Blocks:
    return "a block template holds blocks";
  case Granularity::Type:
    return "a type template holds one type";
  case Granularity::Operand:
    return "an operand template holds one operand";
  case Granularity::Module:
  case Granularity::Definitions:
  case Granularity::Global:
  case Granularity::Text:
    break;
  }
  llvm_unreachable("only these granularities are read inside a wrapper");
}

/// A global name that \p M does not use yet, starting with \p Stem. When
/// \p Stem is taken (an earlier wrapper still in \p M), the module's symbol
/// table picks the suffix with its own counter, in amortised O(1), instead
/// of trying Stem.1, Stem.2, ... from 1: a placeholder takes the name and
/// gives it back for the wrapper's text.
std::string freshGlobal(Module &M, StringRef Stem) {
  if (!M.getNamedValue(Stem))
    return Stem.str();
  Function *Placeholder = Function::Create(
      FunctionType::get(Type::getVoidTy(M.getContext()), /*isVarArg=*/false),
      GlobalValue::ExternalLinkage, Stem, M);
  std::string Name = Placeholder->getName().str();
  Placeholder->eraseFromParent();
  return Name;
}
} // namespace

/// Adds a copy of \p Text, named \p Name, to \p SM.
static unsigned addBuffer(SourceMgr &SM, StringRef Text, StringRef Name) {
  return SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Text, Name),
                               SMLoc());
}

namespace {
/// A wrapper's parameters: each a name and the value it stands for (null
/// for a filler that keeps numbered names in sequence).
using ParamList = std::vector<std::pair<std::string, Value *>>;
} // namespace

/// The wrapper's parameters for the environment's values: numbered names
/// first, in sequence with fillers in the gaps, then the others by name.
/// Blocks are left out, or listed in \p Stubs when it is given.
static void environmentParams(const Values &Env, ParamList &Params,
                              std::vector<std::pair<std::string, BasicBlock *>>
                                  *Stubs) {
  unsigned Numbered = 0;
  for (const auto &[Name, V] : Env)
    if (!isa_and_nonnull<BasicBlock>(V) && !Name.empty() &&
        all_of(Name, isDigit))
      Numbered = std::max(Numbered, unsigned(std::stoul(Name.str()) + 1));
  for (unsigned N = 0; N < Numbered; ++N)
    Params.push_back({std::to_string(N), Env.lookup(std::to_string(N))});
  size_t FirstNamed = Params.size();
  for (const auto &[Name, V] : Env) {
    if (auto *Blk = dyn_cast_or_null<BasicBlock>(V)) {
      if (Stubs)
        Stubs->push_back({Name.str(), Blk});
    } else if (!all_of(Name, isDigit)) {
      Params.push_back({Name.str(), V});
    }
  }
  std::sort(Params.begin() + FirstNamed, Params.end(),
            [](auto &L, auto &R) { return L.first < R.first; });
}

/// `<type> %name, ...` for the parameters that stand for a value, and an
/// `i8` for each filler when \p WithFillers.
static std::string paramText(const ParamList &Params, bool WithFillers) {
  std::string S;
  for (const auto &[Name, V] : Params) {
    if (!V && !WithFillers)
      continue;
    S += (S.empty() ? "" : ", ") + (V ? printed(V->getType()) : "i8") + " %" +
         asmName(Name);
  }
  return S;
}

struct Template::Impl {
  std::string Text, File;
  unsigned Line, Column;
  Granularity G;
  /// An LLQ_HYGIENIC_ template: its names are its own (Hygiene.h).
  bool Hygienic = false;
  std::once_flag Parsed;
  std::optional<std::vector<SMDiagnostic>> ParseError;
  // What the template's own text says, found by the first parse.
  std::vector<AntiquoteSite> Sites;    ///< Offsets into Text.
  StringMap<uint32_t> Names;           ///< Local names, first occurrence.
  StringMap<unsigned> Defs;            ///< Local names defined, how often.
  StringMap<uint32_t> Uses;            ///< Local names read, first read.
  /// A hygienic template's own names where its text writes them.
  struct OwnToken {
    SrcRange Range;
    std::string Name; ///< As written, without '%', ':' and quotes.
    bool IsLabel;     ///< A label definition (`name:`).
  };
  std::vector<OwnToken> OwnTokens;
  /// Whether the text ends in a terminator, in emitted templates.
  bool EndsInTerminator = false;
  /// A block template's first label, if it starts with one.
  std::optional<std::string> FirstLabel;
  /// A module template whose lowered text is in the subset of Replay.h:
  /// its program and the plan by which its variables become SSA, made at
  /// the first instantiation that may use them.
  std::once_flag Compiled;
  std::optional<Program> Prog;

  /// The wrapper for syntax checks; emit() builds its own with parameters.
  Wrapped wrapForCheck() const {
    switch (G) {
    case Granularity::Module:
    case Granularity::Definitions:
    case Granularity::Global:
      return {Text, 0};
    case Granularity::Instructions:
    case Granularity::Terminator:
      return wrap(("define void @" + names::QuoteFn + "() {\n" +
                   names::EntryLabel + ":\n").str(),
                  ("\n" + names::ExitLabel + ":\n  unreachable\n}\n").str());
    case Granularity::Blocks:
      return wrap(("define void @" + names::QuoteFn + "() {\n").str(),
                  ("\n" + names::ExitLabel + ":\n  unreachable\n}\n").str());
    case Granularity::Type:
      return wrap(("%" + names::QuoteFn + " = type\n").str(), "\n");
    case Granularity::Operand:
      return wrapOperand(Text, "", names::QuoteFn, names::UseGlobal);
    case Granularity::Text:
      break;
    }
    llvm_unreachable("templates have a granularity");
  }

  Wrapped wrap(StringRef Before, StringRef After) const {
    return wrap(Before, Text, After);
  }
  static Wrapped wrap(StringRef Before, StringRef Body, StringRef After) {
    return {(Before + Body + After).str(), Before.size()};
  }

  /// An operand \p Body as the argument of a call to @\p Use in @\p Quote.
  static Wrapped wrapOperand(StringRef Body, StringRef Params,
                             StringRef Quote, StringRef Use) {
    return wrap(("define void @" + Twine(asmName(Quote)) + "(" + Params +
                 ") {\n" + names::EntryLabel + ":\n  call void (...) @" + asmName(Use) + "(\n")
                    .str(),
                Body,
                "\n)\n  unreachable\n}\ndeclare void @" + asmName(Use) +
                    "(...)\n");
  }

  /// A diagnostic of the template buffer, at the C++ file's line and column.
  SMDiagnostic toCpp(const SMDiagnostic &D) const {
    static const SourceMgr NoSM;
    if (D.getLineNo() <= 0)
      return D;
    int L = static_cast<int>(Line) + D.getLineNo() - 1;
    int Shift = D.getLineNo() == 1 ? static_cast<int>(Column) - 1 : 0;
    std::vector<std::pair<unsigned, unsigned>> Ranges;
    for (auto R : D.getRanges())
      Ranges.push_back({R.first + Shift, R.second + Shift});
    std::string Contents =
        std::string(Shift, ' ') + D.getLineContents().str();
    return SMDiagnostic(NoSM, SMLoc(), File, L, D.getColumnNo() + Shift,
                        D.getKind(), D.getMessage(), Contents, Ranges);
  }

  Error toCpp(Error E) const {
    return mapDiagnostics(std::move(E),
                          [&](const SMDiagnostic &D) { return toCpp(D); });
  }

  /// Moves diagnostics in the wrapped buffer \p WID to the template buffer
  /// \p TID, and on to the C++ file.
  Error fromWrapper(Error E, const SourceMgr &SM, unsigned WID, unsigned TID,
                    size_t Begin) const {
    auto Inside = [&](uint32_t Off) {
      return static_cast<uint32_t>(
          Off < Begin ? 0 : std::min<size_t>(Off - Begin, Text.size()));
    };
    return toCpp(remapDiagnostics(std::move(E), Inside, SM, WID, TID));
  }
  /// An error at byte \p Offset of the template, in C++ coordinates.
  Error errorAt(uint32_t Offset, const Twine &Message) const {
    SourceMgr SM;
    unsigned ID = addBuffer(SM, Text, File);
    return toCpp(makeError(SM, locAt(SM, ID, Offset), Message));
  }

  Error parse();
  void compile();
  Error checkShape(const SyntaxTree &Tree, size_t Begin);
  void collectNames(const SyntaxTree &Tree, size_t Begin);
  Error checkBindings(const Bindings &Bound, bool ValuesAllowed) const;
  Error checkHygiene();
  Expected<LoweredText> splice(const Bindings &Bound, SourceMgr &SM,
                               unsigned TID,
                               FragmentSplice *AsFragment = nullptr) const;
};

Error Template::Impl::parse() {
  Wrapped W = wrapForCheck();
  SourceMgr SM;
  unsigned TID = addBuffer(SM, Text, File);
  unsigned WID = addBuffer(SM, W.Text, File);
  SyntaxTree Tree(SM.getMemoryBuffer(WID)->getBuffer());
  if (Error E = parseSyntax(Tree, SM, WID))
    return fromWrapper(std::move(E), SM, WID, TID, W.Begin);
  if (Error E = checkShape(Tree, W.Begin))
    return E; // Already at the C++ file.
  for (AntiquoteSite Site : collectAntiquotes(Tree)) {
    Site.Range.Begin -= W.Begin;
    Site.Range.End -= W.Begin;
    Sites.push_back(std::move(Site));
  }
  collectNames(Tree, W.Begin);
  if (Hygienic)
    return checkHygiene();
  return Error::success();
}

/// A hygienic template reads only what it defines: everything else comes
/// through its antiquotes. Its own names are then found by the lexer.
Error Template::Impl::checkHygiene() {
  std::vector<std::pair<uint32_t, std::string>> Free;
  for (const auto &U : Uses)
    if (!Defs.count(U.getKey()))
      Free.push_back({U.second, U.getKey().str()});
  if (!Free.empty()) {
    auto [At, Name] = *std::min_element(Free.begin(), Free.end());
    bool CName = !Name.empty() && !isDigit(Name[0]) &&
                 all_of(Name, [](char C) { return isAlnum(C) || C == '_'; });
    return errorAt(At, "the hygienic fragment reads '%" + Name +
                           "', which it neither defines nor is given; pass "
                           "the value in through an antiquote ($opr:" +
                           (CName ? Name : std::string("name")) +
                           ", or $label: for a block)");
  }
  for (const Token &T : lexTokens(Text)) {
    if (T.Class != Token::LocalName && T.Class != Token::Label)
      continue;
    std::string Name =
        nameOfToken(StringRef(Text).slice(T.Range.Begin, T.Range.End));
    if (Defs.count(Name))
      OwnTokens.push_back({T.Range, std::move(Name), T.Class == Token::Label});
  }
  return Error::success();
}

/// A template of a granularity holds only what that granularity may.
Error Template::Impl::checkShape(const SyntaxTree &Tree, size_t Begin) {
  SourceMgr SM;
  unsigned ID = addBuffer(SM, Text, File);
  auto Inside = [&](const Node *N) { return N->Range.Begin >= Begin; };
  auto At = [&](const Node *N, const Twine &Message) {
    return toCpp(makeError(SM, locAt(SM, ID, N->Range.Begin - Begin), Message));
  };
  if (G == Granularity::Global) {
    unsigned N = 0;
    for (const Node *Top = Tree.Root->First; Top; Top = Top->Next) {
      bool IsGlobal =
          Top->is(NodeKind::GlobalVar) || Top->is(NodeKind::Alias) ||
          Top->is(NodeKind::IFunc) || Top->is(NodeKind::Define) ||
          Top->is(NodeKind::Declare) ||
          (Top->is(NodeKind::Antiquote) &&
           static_cast<AntiquoteKind>(Top->Sub) == AntiquoteKind::Def);
      if (!IsGlobal)
        return At(Top, "a global template holds one global variable, alias, "
                       "ifunc or function, and nothing else");
      if (++N == 2)
        return At(Top, "a global template holds one global value; this is a "
                       "second one (use LLQ_DEFINITIONS for several)");
    }
    if (N == 0)
      return errorAt(0, "a global template holds one global value; this one "
                        "is empty");
  }
  // A template read inside a wrapper stays inside it: nothing of the
  // module's top level may start in its text (a `}` that ends the wrapper's
  // function, then a definition, say).
  if (Begin > 0)
    for (const Node *Top = Tree.Root->First; Top; Top = Top->Next)
      if (Inside(Top) && Top->Range.Begin < Begin + Text.size())
        return At(Top, Twine(wrappedContents(G)) +
                           "; this stands outside it, at the module's top "
                           "level");
  if (!emits(G))
    return Error::success();
  const Node *Define = Tree.Root->First;
  const Node *Body = Define ? Define->Last : nullptr;
  if (!Body || !Body->is(NodeKind::Body))
    return Error::success();
  std::vector<const Node *> Items;
  for (const Node *C = Body->First; C; C = C->Next)
    if (Inside(C) && C->Range.Begin < Begin + Text.size())
      Items.push_back(C);
  EndsInTerminator = !Items.empty() && isTerminator(Items.back());
  if (G == Granularity::Blocks) {
    if (!Items.empty() && Items.front()->is(NodeKind::Label))
      FirstLabel = nameOfToken(Text.substr(Items.front()->Range.Begin - Begin,
                                           Items.front()->Range.End -
                                               Items.front()->Range.Begin));
    return Error::success();
  }
  for (const Node *C : Items)
    if (C->is(NodeKind::Label) ||
        (C->is(NodeKind::Antiquote) &&
         static_cast<AntiquoteKind>(C->Sub) == AntiquoteKind::LabelDef))
      return At(C, Twine(G == Granularity::Terminator ? "a terminator"
                                                      : "an instruction") +
                       " template holds no block labels; use LLQ_BLOCKS for "
                       "blocks");
  if (G != Granularity::Terminator)
    return Error::success();
  bool One = Items.size() == 1;
  if (One && Items[0]->is(NodeKind::Antiquote))
    return Error::success(); // An $instr:, checked when it is bound.
  if (!One || !Items[0]->is(NodeKind::Inst) || !EndsInTerminator)
    return errorAt(Items.empty() ? 0 : Items[0]->Range.Begin - Begin,
                   "a terminator template holds exactly one terminator "
                   "instruction (ret, br, switch, ...)");
  return Error::success();
}

void Template::Impl::collectNames(const SyntaxTree &Tree, size_t Begin) {
  size_t End = Begin + Text.size();
  // For the capture check, the names as the splicer sees them.
  for (const auto &[Name, At] : collectLocalNamesOf(Tree))
    if (At >= Begin && At < End)
      Names[Name] = static_cast<uint32_t>(At - Begin);
  // For emit(), the names the template defines and those it reads.
  SmallVector<const Node *, 64> Stack{Tree.Root};
  while (!Stack.empty()) {
    const Node *N = Stack.pop_back_val();
    for (const Node *C = N->First; C; C = C->Next)
      Stack.push_back(C);
    if (N->Range.Begin < Begin || N->Range.Begin >= End)
      continue;
    uint32_t At = static_cast<uint32_t>(N->Range.Begin - Begin);
    bool Def = N->is(NodeKind::LocalDef) || N->is(NodeKind::Label);
    bool Use = N->is(NodeKind::LocalRef) || N->is(NodeKind::LabelRef);
    if (!Def && !Use)
      continue;
    std::string Name = nameOfToken(Tree.text(N));
    if (Def) {
      ++Defs[Name];
    } else {
      auto [U, NewUse] = Uses.try_emplace(Name, At);
      if (!NewUse)
        U->second = std::min(U->second, At);
    }
  }
}

/// Every antiquote is bound, and llvm::Values are bound only for emit().
Error Template::Impl::checkBindings(const Bindings &Bound,
                                   bool ValuesAllowed) const {
  for (const AntiquoteSite &Site : Sites) {
    auto It = Bound.find(Site.Name);
    if (It == Bound.end())
      return errorAt(Site.Range.Begin,
                     "unbound antiquote '$" + antiquoteKindName(Site.Kind) +
                         ":" + Site.Name + "': nothing is bound to '" +
                         Site.Name + "'");
    const Binding &B = It->second;
    bool HasValue = B.kind() == Binding::Kind::Value;
    for (const Binding &E : B.list())
      HasValue |= E.kind() == Binding::Kind::Value;
    if (HasValue && !ValuesAllowed)
      return errorAt(Site.Range.Begin,
                     "'" + Site.Name + "' is bound to an llvm::Value of a "
                     "function, which only a template emitted into that "
                     "function takes; bind a constant, or use emit()");
  }
  return Error::success();
}

/// The template's text with \p Bound spliced in, mapped to the template;
/// errors are at the C++ file.
Expected<LoweredText> Template::Impl::splice(const Bindings &Bound,
                                             SourceMgr &SM, unsigned TID,
                                             FragmentSplice *AsFragment) const {
  if (Sites.empty() && (!AsFragment || AsFragment->Own.empty())) {
    LoweredText L;
    L.Storage = Text;
    L.Map.addVerbatim(0, 0, static_cast<uint32_t>(Text.size()));
    return L;
  }
  Expected<LoweredText> L =
      spliceAntiquotes(Text, Sites, Bound, Names, SM, TID, nullptr, AsFragment);
  if (!L)
    return toCpp(L.takeError());
  return L;
}

Template::Template(StringRef Text, StringRef File, unsigned Line,
                   unsigned Column, Granularity G, bool Hygienic)
    : P(std::make_unique<Impl>()) {
  P->Hygienic = Hygienic;
  P->Text = Text.str();
  P->File = File.str();
  P->Line = Line;
  P->Column = Column;
  P->G = G == Granularity::Text ? Granularity::Module : G;
}

Template::Template(StringRef Text, StringRef File, unsigned Line,
                   MacroLine Which, Granularity G, bool Hygienic)
    : Template(Text, File, macroStartLine(Line, Which, Text), 1, G, Hygienic) {}

bool Template::hygienic() const { return P->Hygienic; }

unsigned Template::macroStartLine(unsigned Line, MacroLine Which,
                                  StringRef Text) {
  if (Which == MacroLine::First)
    return Line;
  return Line - std::min<unsigned>(Line - 1, Text.count('\n'));
}

Template::~Template() = default;

StringRef Template::text() const { return P->Text; }

Granularity Template::granularity() const { return P->G; }

Error Template::check() const {
  std::call_once(P->Parsed, [&] {
    if (Error E = P->parse())
      handleAllErrors(std::move(E), [&](const DiagnosticError &D) {
        P->ParseError = D.diagnostics();
      });
  });
  if (!P->ParseError)
    return Error::success();
  auto E = std::make_unique<DiagnosticError>(P->ParseError->front());
  for (size_t I = 1; I < P->ParseError->size(); ++I)
    E->addNote((*P->ParseError)[I]);
  return Error(std::move(E));
}

/// The template's program, if it has one (Replay.h).
void Template::Impl::compile() {
  SourceMgr SM;
  unsigned ID = addBuffer(SM, Text, File);
  SyntaxTree Tree(SM.getMemoryBuffer(ID)->getBuffer());
  if (Error E = parseSyntax(Tree, SM, ID)) {
    consumeError(std::move(E));
    return;
  }
  Prog = compileTemplate(Tree, SM, ID);
}

Error Template::ready(const Bindings &Bound) const {
  if (Error E = check())
    return E;
  return P->checkBindings(Bound, /*ValuesAllowed=*/false);
}

/// An error for a template used in a way its granularity is not.
static Error wrongUse(const Template &T, StringRef Use, StringRef Takes) {
  return createStringError(
      inconvertibleErrorCode(),
      Twine(Use) + " takes " + Takes + " templates, and this is " +
          describe(T.granularity()) + " template:\n" + T.text());
}

Expected<std::unique_ptr<Module>>
Template::instantiate(LLVMContext &Ctx, const Bindings &Bound,
                      FrontendOptions Opts) const {
  if (P->G != Granularity::Module)
    return wrongUse(*this, "instantiate()", "module");
  if (Error E = ready(Bound))
    return std::move(E);
  // The program covers the default options; verification is its check.
  if (Opts.Replay && Opts.Verify && !Opts.AllowUndef && !Opts.TimePhases) {
    std::call_once(P->Compiled, [&] { P->compile(); });
    if (P->Prog)
      if (std::unique_ptr<Module> M = P->Prog->build(
              Ctx, P->File, Bound, Opts.SSA == SSAMode::Mem2Reg))
        return std::move(M);
  }
  SourceMgr SM;
  unsigned ID = addBuffer(SM, P->Text, P->File);
  Opts.Bound = &Bound;
  ParsedAntiquotes Parsed{&P->Sites, &P->Names};
  Opts.Parsed = &Parsed;
  Expected<std::unique_ptr<Module>> M = parseModule(SM, ID, Ctx, Opts);
  if (M)
    return M;
  return P->toCpp(M.takeError());
}

Expected<std::vector<GlobalValue *>>
Template::instantiateInto(Module &M, const Bindings &Bound,
                          FrontendOptions Opts) const {
  if (P->G != Granularity::Module && P->G != Granularity::Definitions &&
      P->G != Granularity::Global)
    return wrongUse(*this, "instantiateInto()", "definitions, global and module");
  if (Error E = ready(Bound))
    return std::move(E);
  SourceMgr SM;
  unsigned ID = addBuffer(SM, P->Text, P->File);
  Opts.Bound = &Bound;
  ParsedAntiquotes Parsed{&P->Sites, &P->Names};
  Opts.Parsed = &Parsed;
  Expected<std::vector<GlobalValue *>> New = parseInto(SM, ID, M, Opts);
  if (New)
    return New;
  return P->toCpp(New.takeError());
}

Expected<Type *> Template::instantiateType(Module &M,
                                           const Bindings &Bound) const {
  if (P->G != Granularity::Type)
    return wrongUse(*this, "instantiateType()", "type");
  if (Error E = ready(Bound))
    return std::move(E);
  SourceMgr SM;
  unsigned ID = addBuffer(SM, P->Text, P->File);
  Expected<LoweredText> Spliced = P->splice(Bound, SM, ID);
  if (!Spliced)
    return Spliced.takeError();
  Expected<Type *> T = assembleType(*Spliced, SM, ID, M);
  if (T)
    return T;
  return P->toCpp(T.takeError());
}

Expected<Type *> Template::instantiateType(LLVMContext &Ctx,
                                           const Bindings &Bound) const {
  Module Scratch(names::TypeModule, Ctx);
  return instantiateType(Scratch, Bound);
}

/// Deletes what a wrapper left in the module.
static void eraseWrapper(Module &M, StringRef Quote, StringRef Live) {
  for (StringRef Name : {Quote, Live})
    if (Function *F = M.getFunction(Name)) {
      F->dropAllReferences();
      F->eraseFromParent();
    }
}

Expected<Value *> Template::instantiateOperand(Module &M, const Bindings &Bound,
                                               const Values &Env) const {
  if (P->G != Granularity::Operand)
    return wrongUse(*this, "instantiateOperand()", "operand");
  if (Error E = ready(Bound))
    return std::move(E);
  std::string Quote = freshGlobal(M, names::QuoteFn);
  std::string Use = freshGlobal(M, names::UseGlobal);
  ParamList Params;
  environmentParams(Env, Params, /*Stubs=*/nullptr);
  Wrapped W = Impl::wrapOperand(P->Text, paramText(Params, true), Quote, Use);
  SourceMgr SM;
  unsigned TID = addBuffer(SM, P->Text, P->File);
  unsigned WID = addBuffer(SM, W.Text, P->File);
  FrontendOptions Opts;
  Opts.Verify = false;
  Opts.Bound = &Bound;
  Opts.Spliced = true;
  if (Error E = parseInto(SM, WID, M, Opts).takeError())
    return P->fromWrapper(std::move(E), SM, WID, TID, W.Begin);
  auto *Call = cast<CallInst>(&M.getFunction(Quote)->getEntryBlock().front());
  if (unsigned N = Call->arg_size(); N != 1) {
    eraseWrapper(M, Quote, Use);
    return P->errorAt(0, "an operand template holds one typed operand, and "
                         "this one holds " + Twine(N));
  }
  Value *Result = Call->getArgOperand(0);
  if (auto *A = dyn_cast<Argument>(Result))
    Result = Params[A->getArgNo()].second;
  eraseWrapper(M, Quote, Use);
  return Result;
}

Expected<Fragment> Template::fragment(const Bindings &Bound,
                                      std::vector<std::string> Outputs) const {
  if (Error E = ready(Bound))
    return std::move(E);
  SourceMgr SM;
  unsigned ID = addBuffer(SM, P->Text, P->File);
  FragmentSplice AsFragment;
  // A hygienic template's names become placeholders, new at each
  // fragment(); Outputs are then the names it exports.
  std::vector<std::pair<std::string, std::string>> Exports;
  if (P->Hygienic) {
    StringMap<std::string> Placeholder;
    for (const auto &D : P->Defs)
      Placeholder[D.getKey()] = freshPlaceholder(D.getKey());
    for (const std::string &Name : Outputs) {
      StringRef N = StringRef(Name);
      N.consume_front("%");
      auto It = Placeholder.find(N);
      if (It == Placeholder.end())
        return P->errorAt(0, "the fragment is to export '%" + N +
                                 "', which it does not define");
      Exports.push_back({N.str(), It->second});
    }
    for (const Impl::OwnToken &T : P->OwnTokens) {
      std::string New = asmName(Placeholder[T.Name]);
      AsFragment.Own.push_back({T.Range, T.IsLabel ? New + ":" : "%" + New});
    }
    // What it assigns of the code around it is what it is given by $id:.
    Outputs.clear();
    for (const AntiquoteSite &Site : P->Sites)
      if (Site.Kind == AntiquoteKind::Id)
        if (const Binding &B = Bound.find(Site.Name)->second;
            B.kind() == Binding::Kind::Name &&
            !is_contained(Outputs, StringRef(B.text()).ltrim('%')))
          Outputs.push_back(StringRef(B.text()).ltrim('%').str());
  }
  Expected<LoweredText> Spliced = P->splice(Bound, SM, ID, &AsFragment);
  if (!Spliced)
    return Spliced.takeError();
  Fragment F(Spliced->text().str(), std::move(Outputs),
             P->File + ":" + std::to_string(P->Line), P->G);
  F.Hygienic = P->Hygienic;
  F.Exports = std::move(Exports);
  for (std::string &Kept : AsFragment.Inherited)
    F.Exports.push_back({"", std::move(Kept)});
  if (P->G == Granularity::Operand) {
    // The operand without its type, for $opr: the value of the one typed
    // operand, found by reading the spliced text.
    Wrapped W = Impl::wrapOperand(F.Text, "", names::QuoteFn, names::UseGlobal);
    SourceMgr WSM;
    unsigned WID = addBuffer(WSM, W.Text, P->File);
    SyntaxTree Tree(WSM.getMemoryBuffer(WID)->getBuffer());
    if (Error E = parseSyntax(Tree, WSM, WID))
      return P->errorAt(0, "the spliced operand does not read as one: " +
                               toString(std::move(E)));
    SmallVector<const Node *, 32> Stack{Tree.Root};
    while (!Stack.empty()) {
      const Node *N = Stack.pop_back_val();
      if (N->is(NodeKind::TypedValue) && N->Last != N->First) {
        F.Untyped = Tree.text(N->Last).str();
        break;
      }
      for (const Node *C = N->First; C; C = C->Next)
        Stack.push_back(C);
    }
  }
  return F;
}

namespace {
/// Builds the wrapper emit() reads, and takes what it read apart.
class Emitter {
public:
  Emitter(const Template::Impl &P, IRBuilderBase &B, const Values &Env)
      : P(P), B(B), Env(Env) {}
  Expected<Emitted> run(const Bindings &Bound, FrontendOptions Opts);

private:
  Error checkEnvironment(const Bindings &Bound);
  Wrapped wrapper() const;
  Emitted takeApart();

  const Template::Impl &P;
  IRBuilderBase &B;
  const Values &Env;
  BasicBlock *BB = nullptr;
  Function *F = nullptr;
  Module *M = nullptr;
  std::string Quote, Live;
  /// Parameters of the wrapper: its name and the value it stands for (null
  /// for a filler that keeps numbered names in sequence).
  std::vector<std::pair<std::string, Value *>> Params;
  /// Stub blocks: the name and the block of the function.
  std::vector<std::pair<std::string, BasicBlock *>> Stubs;
  bool WithLive = false;
};
} // namespace

Error Emitter::checkEnvironment(const Bindings &Bound) {
  auto Check = [&](StringRef Name, Value *V) -> Error {
    std::string Why;
    if (!V)
      Why = "is null";
    else if (auto *I = dyn_cast<Instruction>(V); I && I->getFunction() != F)
      Why = "is an instruction of another function";
    else if (auto *A = dyn_cast<Argument>(V); A && A->getParent() != F)
      Why = "is an argument of another function";
    else if (auto *Blk = dyn_cast<BasicBlock>(V); Blk && Blk->getParent() != F)
      Why = "is a block of another function";
    else if (isa<BasicBlock>(V) && all_of(Name, isDigit))
      Why = "is a block, and blocks of the environment need names that are "
            "not numbers";
    else if (!isa<Constant, Instruction, Argument, BasicBlock>(V))
      Why = "is neither a constant nor a value of the function";
    if (Why.empty())
      return Error::success();
    return P.errorAt(0, "the environment's '%" + Name + "' " + Why);
  };
  for (const auto &[Name, V] : Env)
    if (Error E = Check(Name, V))
      return E;
  environmentParams(Env, Params, &Stubs);
  // Values bound to antiquotes are parameters (or stubs) too, under the
  // names the splicer writes for them.
  size_t FirstBound = Params.size();
  auto Add = [&](const std::string &Local, Value *V) -> Error {
    if (Error E = Check(Local, V))
      return E;
    if (auto *Blk = dyn_cast<BasicBlock>(V))
      Stubs.push_back({Local, Blk});
    else
      Params.push_back({Local, V});
    return Error::success();
  };
  for (const auto &[Name, Bind] : Bound) {
    if (Bind.kind() == Binding::Kind::Value)
      if (Error E = Add(boundValueName(Name), Bind.value()))
        return E;
    int I = 0;
    for (const Binding &E : Bind.list()) {
      if (E.kind() == Binding::Kind::Value)
        if (Error Err = Add(boundValueName(Name, I), E.value()))
          return Err;
      ++I;
    }
  }
  // A name the template reads must be defined by it or given.
  for (const auto &[Name, At] : P.Uses)
    if (!P.Defs.count(Name) && !Env.count(Name))
      return P.errorAt(At, "'%" + Name + "' is not defined in the template, "
                           "and the environment gives no value for it");
  // Keep the order stable: StringMap order is not.
  std::sort(Params.begin() + FirstBound, Params.end(),
            [](auto &L, auto &R) { return L.first < R.first; });
  std::sort(Stubs.begin(), Stubs.end(),
            [](auto &L, auto &R) { return L.first < R.first; });
  WithLive = P.G == Granularity::Blocks ||
             (P.G == Granularity::Instructions && !P.EndsInTerminator);
  return Error::success();
}

Wrapped Emitter::wrapper() const {
  std::string Head = "define " + printed(F->getReturnType()) + " @" +
                     asmName(Quote) + "(" + paramText(Params, true);
  std::string LiveArgs = paramText(Params, false);
  Head += ") {\n";
  // The function's blocks named by the template are stubs. Each is entered
  // from the wrapper's first block, as the function's are from its entry,
  // so that a value read at a stub's end (by a phi) is the parameter.
  std::string First = P.G != Granularity::Blocks ? names::EntryLabel.str()
                      : P.FirstLabel             ? *P.FirstLabel
                                                 : names::FirstLabel.str();
  if (!Stubs.empty()) {
    Head += names::ParamsLabel.str() + ":\n  switch i8 0, label %" + asmName(First) + " [";
    for (size_t I = 0; I < Stubs.size(); ++I)
      Head += " i8 " + std::to_string(I + 1) + ", label %" +
              asmName(Stubs[I].first);
    Head += " ]\n";
  }
  if (P.G != Granularity::Blocks || (!Stubs.empty() && !P.FirstLabel))
    Head += First + ":\n";
  // An explicit branch: falling through would make the function use the
  // dialect, and phis read their operands differently there.
  std::string Tail = P.EndsInTerminator
                         ? "\n"
                         : ("\n  br label %" + names::ExitLabel + "\n").str();
  Tail += (names::ExitLabel + ":\n").str();
  if (WithLive)
    Tail += "  call void (...) @" + asmName(Live) + "(" + LiveArgs + ")\n";
  Tail += "  unreachable\n";
  for (const auto &[Name, Blk] : Stubs)
    Tail += asmName(Name) + ":\n  unreachable\n";
  Tail += "}\ndeclare void @" + asmName(Live) + "(...)\n";
  return P.wrap(Head, Tail);
}

Expected<Emitted> Emitter::run(const Bindings &Bound, FrontendOptions Opts) {
  BB = B.GetInsertBlock();
  F = BB ? BB->getParent() : nullptr;
  M = F ? F->getParent() : nullptr;
  if (!M)
    return P.errorAt(0, "emit() needs an IRBuilder inserting into a block "
                        "of a function of a module");
  if (Error E = P.checkBindings(Bound, /*ValuesAllowed=*/true))
    return std::move(E);
  if (Error E = checkEnvironment(Bound))
    return std::move(E);
  Quote = freshGlobal(*M, names::QuoteFn);
  Live = freshGlobal(*M, names::LiveGlobal);
  Wrapped W = wrapper();
  SourceMgr SM;
  unsigned TID = addBuffer(SM, P.Text, P.File);
  unsigned WID = addBuffer(SM, W.Text, P.File);
  Opts.Verify = false; // The function is still being built.
  Opts.Bound = &Bound;
  Opts.Spliced = true; // The environment's names may be reassigned.
  Opts.TopLevelEntities = 2; // The wrapper and the live function's declaration.
  if (Error E = parseInto(SM, WID, *M, Opts).takeError())
    return P.fromWrapper(std::move(E), SM, WID, TID, W.Begin);
  return takeApart();
}

Emitted Emitter::takeApart() {
  Emitted Out;
  LLVMContext &Ctx = M->getContext();
  Function *WF = M->getFunction(Quote);
  if (!Stubs.empty()) {
    BasicBlock &Params = WF->front(); // llq.params: only its switch.
    Params.getTerminator()->eraseFromParent();
    Params.eraseFromParent();
    if (P.G == Granularity::Blocks && !P.FirstLabel)
      WF->front().setName(""); // llq.first.
  }
  BasicBlock *Exit = nullptr;
  StringMap<BasicBlock *> StubBlocks;
  for (BasicBlock &Blk : *WF) {
    if (Blk.getName() == names::ExitLabel)
      Exit = &Blk;
    for (const auto &[Name, Target] : Stubs)
      if (Blk.getName() == Name)
        StubBlocks[Name] = &Blk;
  }
  // What the template defines, by name, before anything moves.
  for (const auto &[Name, Count] : P.Defs)
    if (Count == 1)
      if (Value *V = WF->getValueSymbolTable()->lookup(Name))
        Out.Defined[Name] = V;
  // The environment's values after the template: the live call's arguments.
  CallInst *LiveCall =
      WithLive ? cast<CallInst>(Exit->getFirstNonPHI()) : nullptr;
  unsigned I = 0;
  for (const auto &[Name, V] : Params) {
    if (!V)
      continue;
    Value *After = LiveCall ? LiveCall->getArgOperand(I++) : V;
    if (!StringRef(Name).starts_with(names::BoundPrefix))
      Out.Defined[Name] = After;
  }
  if (LiveCall)
    LiveCall->eraseFromParent();
  for (auto &Entry : Out.Defined)
    if (auto *A = dyn_cast<Argument>(Entry.second); A && A->getParent() == WF)
      Entry.second = Params[A->getArgNo()].second;
  // Parameters become the values they stand for, stubs the blocks.
  for (Argument &A : WF->args())
    if (Value *V = Params[A.getArgNo()].second)
      A.replaceAllUsesWith(V);
  for (const auto &[Name, Target] : Stubs) {
    BasicBlock *Stub = StubBlocks.lookup(Name);
    for (BasicBlock &Blk : *WF)
      for (PHINode &Phi : Blk.phis())
        for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K)
          if (Phi.getIncomingBlock(K) == Stub)
            Phi.setIncomingBlock(K, Target);
    while (!Stub->use_empty())
      Stub->use_begin()->set(Target);
    Stub->eraseFromParent();
  }
  Exit->getTerminator()->eraseFromParent(); // Its `unreachable`.
  bool ExitReached = !Exit->hasNPredecessors(0) || !Exit->phis().empty();
  std::vector<BasicBlock *> Inner;
  for (BasicBlock &Blk : *WF)
    if (&Blk != Exit)
      Inner.push_back(&Blk);
  auto MoveBlock = [&](BasicBlock *Blk, BasicBlock *Before) {
    Blk->removeFromParent();
    Blk->insertInto(F, Before);
    Out.Blocks.push_back(Blk);
  };

  if (P.G == Granularity::Blocks) {
    BasicBlock *Before = BB->getNextNode();
    for (BasicBlock *Blk : Inner)
      MoveBlock(Blk, Before);
    if (ExitReached) {
      Exit->setName("");
      MoveBlock(Exit, Before);
      B.SetInsertPoint(Exit);
    }
  } else if (Inner.size() == 1 && Exit->phis().empty()) {
    // Straight-line code: its instructions go before the insertion point.
    BasicBlock *Entry = Inner.front();
    auto *Br = dyn_cast_or_null<BranchInst>(Entry->getTerminator());
    if (Br && Br->isUnconditional() && Br->getSuccessor(0) == Exit)
      Br->eraseFromParent();
    auto IP = B.GetInsertPoint();
    while (!Entry->empty()) {
      Instruction &Inst = Entry->front();
      Inst.moveBefore(*BB, IP);
      Out.Instructions.push_back(&Inst);
    }
  } else {
    // Control flow: the insertion block is split at the insertion point.
    BasicBlock *Entry = Inner.front();
    auto IP = B.GetInsertPoint();
    BasicBlock *Cont = BasicBlock::Create(
        Ctx, BB->hasName() ? BB->getName() + ".cont" : "", F,
        BB->getNextNode());
    Cont->splice(Cont->end(), BB, IP, BB->end());
    if (Instruction *T = Cont->getTerminator())
      for (BasicBlock *Succ : successors(T))
        Succ->replacePhiUsesWith(BB, Cont);
    if (Instruction *T = Entry->getTerminator())
      for (BasicBlock *Succ : successors(T))
        Succ->replacePhiUsesWith(Entry, BB);
    BB->splice(BB->end(), Entry);
    for (size_t K = 1; K < Inner.size(); ++K)
      MoveBlock(Inner[K], Cont);
    if (!Exit->phis().empty()) {
      Exit->setName("");
      BranchInst::Create(Cont, Exit);
      MoveBlock(Exit, Cont);
    } else {
      while (!Exit->use_empty())
        Exit->use_begin()->set(Cont);
    }
    Out.Blocks.push_back(Cont);
    B.SetInsertPoint(Cont, Cont->begin());
  }
  eraseWrapper(*M, Quote, Live);
  return Out;
}

Expected<Emitted> Template::emit(IRBuilderBase &B, const Bindings &Bound,
                                 const Values &Env, FrontendOptions Opts) const {
  if (!emits(P->G))
    return wrongUse(*this, "emit()", "instruction, terminator and block");
  if (Error E = check())
    return std::move(E);
  return Emitter(*P, B, Env).run(Bound, Opts);
}

Error llq::checkTemplatesInCpp(StringRef CppSource, StringRef FileName) {
  Expected<std::vector<TemplateSite>> Sites = findTemplates(CppSource);
  if (!Sites) {
    // The C++ around a template is malformed: say where, in the C++ file.
    SourceMgr SM;
    unsigned ID = addBuffer(SM, CppSource, FileName);
    Error Out = Error::success();
    handleAllErrors(Sites.takeError(), [&](const TemplateSiteError &E) {
      StringRef Msg = E.getMessage();
      Out = make_error<DiagnosticError>(
          SM.GetMessage(locAt(SM, ID, static_cast<uint32_t>(E.getOffset())),
                        SourceMgr::DK_Error, Msg));
    });
    return Out;
  }
  Error All = Error::success();
  for (const TemplateSite &Site : *Sites) {
    Template T(Site.Text, FileName, Site.Line, Site.Column, Site.Kind,
               Site.Hygienic);
    Error E = T.check();
    // A self-contained template (a prelude) is all there: read it whole,
    // so that LLVM's own checks (types, the verifier) run too.
    if (!E && Site.SelfContained) {
      LLVMContext Ctx;
      Module M("check", Ctx);
      auto Added = T.instantiateInto(M);
      E = Added ? Error::success() : Added.takeError();
    }
    if (!E)
      continue;
    // On the template's first line, show the C++ line as it is, with the
    // code before the template.
    size_t LineStart = CppSource.rfind('\n', Site.TextOffset);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    StringRef CppLine = CppSource.substr(LineStart).split('\n').first;
    E = mapDiagnostics(std::move(E), [&](const SMDiagnostic &D) {
      if (D.getLineNo() != static_cast<int>(Site.Line) ||
          D.getFilename() != FileName)
        return D;
      static const SourceMgr NoSM;
      return SMDiagnostic(NoSM, SMLoc(), D.getFilename(),
                          D.getLineNo(), D.getColumnNo(), D.getKind(),
                          D.getMessage(), CppLine, D.getRanges());
    });
    All = joinErrors(std::move(All), std::move(E));
  }
  return All;
}
