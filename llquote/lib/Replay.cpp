//===- Replay.cpp - Module templates built from a program -----------------===//
//
// compileProgram reads the text with a small lexer of its own (the subset's
// tokens only; anything else ends the compile) into a tree of plain
// structs: types and constants as recipes, local names as slots of their
// function. build() walks that tree with LLVM's constructors, in the order
// LLVM's parser creates things, so that the module prints the same.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"
#include "Lower.h"
#include "ParseState.h"
#include "RestoreSSA.h"
#include "Splice.h"
#include "Syntax.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cctype>

using namespace llq;
using namespace llvm;

namespace {

//===-- Lexer -------------------------------------------------------------===//

struct Tok {
  enum Kind : uint8_t {
    End,
    Bad,
    Local,
    Global,
    LabelDef,
    Word,
    Int,
    FP,
    Str,
    Hole,
    Punct,
    Dots
  } K = End;
  StringRef Text;   ///< The token as written.
  std::string Name; ///< Local, Global, LabelDef: the name; Hole: its name.
  AntiquoteKind AK = AntiquoteKind::Type; ///< Hole: its kind.
};

class Lexer {
public:
  explicit Lexer(StringRef S) : S(S) {}
  Tok next();

private:
  /// A name after a sigil, bare or quoted; empty if there is none.
  bool name(std::string &Out);
  StringRef S;
  size_t P = 0;
};

/// A character of a bare name. LLVM's names may also hold '$', which here
/// starts an antiquote: a name with one is outside the subset.
bool isNameChar(char C) {
  return isalnum(static_cast<unsigned char>(C)) || C == '.' || C == '_' ||
         C == '-';
}

bool Lexer::name(std::string &Out) {
  if (P < S.size() && S[P] == '"') {
    size_t E = S.find('"', P + 1);
    if (E == StringRef::npos)
      return false;
    Out = unescapeAsm(S.slice(P + 1, E));
    P = E + 1;
    return !Out.empty() && Out.find('\0') == std::string::npos;
  }
  size_t B = P;
  while (P < S.size() && isNameChar(S[P]))
    ++P;
  Out = S.slice(B, P).str();
  return !Out.empty() && (P == S.size() || S[P] != '$');
}

Tok Lexer::next() {
  for (;;) {
    // LLVM's blanks; a vertical tab or form feed is its error.
    while (P < S.size() &&
           (S[P] == ' ' || S[P] == '\t' || S[P] == '\n' || S[P] == '\r'))
      ++P;
    if (P < S.size() && S[P] == ';') { // To the end of the line, or a CR.
      size_t E = S.find_first_of("\n\r", P);
      P = E == StringRef::npos ? S.size() : E;
      continue;
    }
    break;
  }
  Tok T;
  if (P >= S.size())
    return T;
  size_t B = P;
  char C = S[P];
  auto Done = [&](Tok::Kind K) {
    T.K = K;
    T.Text = S.slice(B, P);
    return T;
  };
  if (C == '%' || C == '@') {
    ++P;
    if (!name(T.Name))
      return Done(Tok::Bad);
    // `@0`: a numbered global, outside the subset as numbered values are.
    if (C == '@' && S[B + 1] != '"' &&
        T.Name.find_first_not_of("0123456789") == std::string::npos)
      return Done(Tok::Bad);
    return Done(C == '%' ? Tok::Local : Tok::Global);
  }
  if (C == '$') {
    size_t Colon = S.find(':', P);
    if (Colon == StringRef::npos)
      return Done(Tok::Bad);
    StringRef Kind = S.slice(P + 1, Colon);
    P = Colon + 1;
    size_t NB = P;
    while (P < S.size() &&
           (isalnum(static_cast<unsigned char>(S[P])) || S[P] == '_'))
      ++P;
    T.Name = S.slice(NB, P).str();
    if (Kind == "type")
      T.AK = AntiquoteKind::Type;
    else if (Kind == "const")
      T.AK = AntiquoteKind::Const;
    else if (Kind == "opr")
      T.AK = AntiquoteKind::Opr;
    else
      return Done(Tok::Bad);
    return Done(T.Name.empty() ? Tok::Bad : Tok::Hole);
  }
  if (C == '"') {
    size_t E = S.find('"', P + 1);
    if (E == StringRef::npos)
      return Done(Tok::Bad);
    T.Name = unescapeAsm(S.slice(P + 1, E));
    P = E + 1;
    return Done(Tok::Str);
  }
  if (C == '.' && S.substr(P).starts_with("...")) {
    P += 3;
    return Done(Tok::Dots);
  }
  if (isdigit(static_cast<unsigned char>(C)) || C == '-') {
    if (S.substr(P).starts_with("0x")) {
      P += 2;
      if (P < S.size() && isupper(static_cast<unsigned char>(S[P])) &&
          !isxdigit(static_cast<unsigned char>(S[P])))
        ++P; // 0xH, 0xR, 0xK...: the format letter.
      while (P < S.size() && isxdigit(static_cast<unsigned char>(S[P])))
        ++P;
      return Done(Tok::FP);
    }
    ++P;
    while (P < S.size() && isdigit(static_cast<unsigned char>(S[P])))
      ++P;
    bool IsFP = false;
    if (P < S.size() && S[P] == '.') {
      IsFP = true;
      ++P;
      while (P < S.size() && isdigit(static_cast<unsigned char>(S[P])))
        ++P;
      if (P < S.size() && (S[P] == 'e' || S[P] == 'E')) {
        ++P;
        if (P < S.size() && (S[P] == '+' || S[P] == '-'))
          ++P;
        while (P < S.size() && isdigit(static_cast<unsigned char>(S[P])))
          ++P;
      }
    }
    if (P < S.size() && (isNameChar(S[P]) || S[P] == ':'))
      return Done(Tok::Bad); // A numbered label, or worse.
    if (T.Text = S.slice(B, P); T.Text == "-")
      return Done(Tok::Bad);
    return Done(IsFP ? Tok::FP : Tok::Int);
  }
  if (isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '.') {
    while (P < S.size() && isNameChar(S[P]))
      ++P;
    if (P < S.size() && S[P] == '$')
      return Done(Tok::Bad);
    if (P < S.size() && S[P] == ':') {
      ++P;
      T.Name = S.slice(B, P - 1).str();
      return Done(Tok::LabelDef);
    }
    return Done(Tok::Word);
  }
  if (StringRef("=,()[]{}<>*").contains(C)) {
    ++P;
    return Done(Tok::Punct);
  }
  return Done(Tok::Bad);
}

//===-- The program -------------------------------------------------------===//

/// A type: Kind, and for iN its width, for vectors and arrays the count and
/// element, for structs the elements, for ptr the address space, for a hole
/// its name.
struct TypeRecipe {
  enum Kind : uint8_t {
    Void,
    Int,
    Half,
    BFloat,
    Float,
    Double,
    Ptr,
    Vector,
    Array,
    Struct,
    Hole
  } K;
  uint64_t N = 0;
  std::vector<unsigned> Elems; ///< Indices of recipes.
  std::string HoleName;
};

/// An operand.
struct Operand {
  enum Kind : uint8_t {
    Local,
    Global,
    Int,
    FP,
    True,
    False,
    Null,
    Poison,
    Undef,
    Zero,
    Hole
  } K;
  unsigned Slot = 0; ///< Local: the function's slot.
  std::string Text;  ///< Global: the name; Int, FP: the literal; Hole: name.
};

/// The kind of a literal written as a word: `true`, `null`, ...
std::optional<Operand::Kind> literalWord(StringRef W) {
  return StringSwitch<std::optional<Operand::Kind>>(W)
      .Case("true", Operand::True)
      .Case("false", Operand::False)
      .Case("null", Operand::Null)
      .Case("poison", Operand::Poison)
      .Case("undef", Operand::Undef)
      .Case("zeroinitializer", Operand::Zero)
      .Default(std::nullopt);
}

struct TypedOperand {
  unsigned Type;
  Operand V;
};

enum class Op : uint8_t {
  Binary,
  FNeg,
  ICmp,
  FCmp,
  Cast,
  Select,
  Freeze,
  GEP,
  Load,
  Store,
  Alloca,
  Phi,
  Br,
  CondBr,
  Ret,
  RetVoid,
  Unreachable,
  Call
};

struct InstRecipe {
  Op O;
  unsigned Opcode = 0; ///< Binary, Cast: llvm::Instruction's opcode.
  unsigned Pred = 0;   ///< ICmp, FCmp.
  int Result = -1;     ///< The slot defined, or -1.
  std::string Name;
  unsigned Type = 0;  ///< The type written first.
  unsigned Type2 = 0; ///< Cast: the destination; Call: unused.
  std::vector<TypedOperand> Ops;
  std::vector<unsigned> Blocks; ///< Phi: per incoming; Br: the targets.
  uint64_t Align = 0;
  unsigned Flags = 0; ///< Wrap flags / exact / disjoint / nneg.
  FastMathFlags FMF;
  bool InBounds = false;
};

enum FlagBits : unsigned {
  NUW = 1,
  NSW = 2,
  Exact = 4,
  Disjoint = 8,
  NNeg = 16
};

struct BlockRecipe {
  std::string Name; ///< Empty: an unlabeled entry block.
  std::vector<InstRecipe> Insts;
};

struct FunctionRecipe {
  std::string Name;
  unsigned Ret;
  std::vector<unsigned> Params;
  std::vector<int> ParamSlots; ///< -1: unnamed (declarations).
  std::vector<std::string> ParamNames;
  bool VarArg = false;
  bool IsDefine = false;
  std::vector<BlockRecipe> Blocks;
  unsigned NumSlots = 0;
};

} // namespace

struct Program::Impl {
  std::vector<TypeRecipe> Types;
  std::vector<FunctionRecipe> Functions;
  std::optional<std::string> DataLayout, Triple;
  /// What restoreSSA reads of the lowered text: its plan of SSA
  /// construction, and the template's text for the messages it would make
  /// (which the general path gives instead).
  LoweredText Plan;
  std::string Source;
};

namespace {

//===-- Compiling ---------------------------------------------------------===//

class Compiler {
public:
  explicit Compiler(StringRef Text) : Whole(Text), L(Text) { advance(); }
  bool run(Program::Impl &P);

private:
  void advance() { T = L.next(); }
  bool word(StringRef W) {
    if (T.K != Tok::Word || T.Text != W)
      return false;
    advance();
    return true;
  }
  bool punct(char C) {
    if (T.K != Tok::Punct || T.Text[0] != C)
      return false;
    advance();
    return true;
  }
  unsigned addType(TypeRecipe R) {
    // Scalars are shared; composite recipes are few.
    if (R.K != TypeRecipe::Vector && R.K != TypeRecipe::Array &&
        R.K != TypeRecipe::Struct)
      for (unsigned I = 0; I < P->Types.size(); ++I)
        if (P->Types[I].K == R.K && P->Types[I].N == R.N &&
            P->Types[I].HoleName == R.HoleName)
          return I;
    P->Types.push_back(std::move(R));
    return unsigned(P->Types.size() - 1);
  }
  std::optional<unsigned> type();
  std::optional<Operand> value();
  std::optional<TypedOperand> typedValue() {
    std::optional<unsigned> Ty = type();
    if (!Ty)
      return std::nullopt;
    std::optional<Operand> V = value();
    if (!V)
      return std::nullopt;
    return TypedOperand{*Ty, std::move(*V)};
  }
  std::optional<unsigned> slot(const std::string &Name) {
    if (Name.empty() ||
        Name.find_first_not_of("0123456789") == std::string::npos)
      return std::nullopt; // Numbered values: outside the subset.
    auto [It, New] = Slots.try_emplace(Name, F->NumSlots);
    if (New)
      ++F->NumSlots;
    return It->second;
  }
  std::optional<unsigned> blockRef() {
    if (!word("label") || T.K != Tok::Local)
      return std::nullopt;
    auto It = BlockIds.find(T.Name);
    if (It == BlockIds.end())
      return std::nullopt;
    advance();
    return It->second;
  }
  bool fastMath(FastMathFlags &FMF);
  bool wrapFlags(unsigned &Flags);
  bool align(uint64_t &A);
  bool header(FunctionRecipe &FR);
  bool body(FunctionRecipe &FR, StringRef Text);
  bool instruction(InstRecipe &I);

  StringRef Whole;
  Lexer L;
  Tok T;
  Program::Impl *P = nullptr;
  FunctionRecipe *F = nullptr;
  StringMap<unsigned> Slots, BlockIds;
};

std::optional<unsigned> Compiler::type() {
  TypeRecipe R{TypeRecipe::Void};
  if (T.K == Tok::Hole && T.AK == AntiquoteKind::Type) {
    R.K = TypeRecipe::Hole;
    R.HoleName = T.Name;
    advance();
    return addType(std::move(R));
  }
  if (T.K == Tok::Word) {
    StringRef W = T.Text;
    if (W.size() > 1 && W[0] == 'i' &&
        W.drop_front().find_first_not_of("0123456789") == StringRef::npos) {
      R.K = TypeRecipe::Int;
      if (W.drop_front().getAsInteger(10, R.N) || R.N == 0 ||
          R.N > IntegerType::MAX_INT_BITS)
        return std::nullopt;
      advance();
    } else if (W == "ptr") {
      R.K = TypeRecipe::Ptr;
      advance();
      if (word("addrspace")) {
        if (!punct('(') || T.K != Tok::Int || T.Text.getAsInteger(10, R.N) ||
            R.N > 0xFFFFFF)
          return std::nullopt;
        advance();
        if (!punct(')'))
          return std::nullopt;
      }
    } else {
      auto K = StringSwitch<std::optional<TypeRecipe::Kind>>(W)
                   .Case("void", TypeRecipe::Void)
                   .Case("half", TypeRecipe::Half)
                   .Case("bfloat", TypeRecipe::BFloat)
                   .Case("float", TypeRecipe::Float)
                   .Case("double", TypeRecipe::Double)
                   .Default(std::nullopt);
      if (!K)
        return std::nullopt;
      R.K = *K;
      advance();
    }
  } else if (T.K == Tok::Punct && (T.Text[0] == '<' || T.Text[0] == '[')) {
    char Close = T.Text[0] == '<' ? '>' : ']';
    R.K = Close == '>' ? TypeRecipe::Vector : TypeRecipe::Array;
    advance();
    if (T.K != Tok::Int || T.Text.getAsInteger(10, R.N))
      return std::nullopt;
    advance();
    if (!word("x"))
      return std::nullopt;
    std::optional<unsigned> E = type();
    if (!E || !punct(Close))
      return std::nullopt;
    R.Elems.push_back(*E);
  } else if (punct('{')) {
    R.K = TypeRecipe::Struct;
    if (!punct('}')) {
      do {
        std::optional<unsigned> E = type();
        if (!E)
          return std::nullopt;
        R.Elems.push_back(*E);
      } while (punct(','));
      if (!punct('}'))
        return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  if (T.K == Tok::Punct && (T.Text[0] == '*' || T.Text[0] == '('))
    return std::nullopt; // Pointers to, and function types: not here.
  return addType(std::move(R));
}

std::optional<Operand> Compiler::value() {
  Operand O{Operand::Local};
  switch (T.K) {
  case Tok::Local: {
    std::optional<unsigned> S = slot(T.Name);
    if (!S)
      return std::nullopt;
    O.Slot = *S;
    break;
  }
  case Tok::Global:
    O.K = Operand::Global;
    O.Text = T.Name;
    break;
  case Tok::Int:
    O.K = Operand::Int;
    O.Text = T.Text.str();
    break;
  case Tok::FP:
    O.K = Operand::FP;
    O.Text = T.Text.str();
    break;
  case Tok::Hole:
    if (T.AK == AntiquoteKind::Type)
      return std::nullopt;
    O.K = Operand::Hole;
    O.Text = T.Name;
    break;
  case Tok::Word: {
    std::optional<Operand::Kind> K = literalWord(T.Text);
    if (!K)
      return std::nullopt;
    O.K = *K;
    break;
  }
  default:
    return std::nullopt;
  }
  advance();
  return O;
}

bool Compiler::fastMath(FastMathFlags &FMF) {
  for (;;) {
    if (word("fast"))
      FMF.setFast();
    else if (word("nnan"))
      FMF.setNoNaNs();
    else if (word("ninf"))
      FMF.setNoInfs();
    else if (word("nsz"))
      FMF.setNoSignedZeros();
    else if (word("arcp"))
      FMF.setAllowReciprocal();
    else if (word("contract"))
      FMF.setAllowContract();
    else if (word("afn"))
      FMF.setApproxFunc();
    else if (word("reassoc"))
      FMF.setAllowReassoc();
    else
      return true;
  }
}

bool Compiler::wrapFlags(unsigned &Flags) {
  for (;;) {
    if (word("nuw"))
      Flags |= NUW;
    else if (word("nsw"))
      Flags |= NSW;
    else if (word("exact"))
      Flags |= Exact;
    else if (word("disjoint"))
      Flags |= Disjoint;
    else if (word("nneg"))
      Flags |= NNeg;
    else
      return true;
  }
}

/// `, align N` if it follows; false on a comma followed by anything else.
bool Compiler::align(uint64_t &A) {
  if (!punct(','))
    return true;
  if (!word("align") || T.K != Tok::Int || T.Text.getAsInteger(10, A) ||
      A == 0 || !isPowerOf2_64(A) || A > Value::MaximumAlignment)
    return false;
  advance();
  return true;
}

bool Compiler::instruction(InstRecipe &I) {
  if (T.K == Tok::Local) {
    std::optional<unsigned> S = slot(T.Name);
    if (!S)
      return false;
    I.Result = int(*S);
    I.Name = T.Name;
    advance();
    if (!punct('='))
      return false;
  }
  if (T.K != Tok::Word)
    return false;
  StringRef W = T.Text;
  advance();
  unsigned Bin = StringSwitch<unsigned>(W)
                     .Case("add", Instruction::Add)
                     .Case("sub", Instruction::Sub)
                     .Case("mul", Instruction::Mul)
                     .Case("udiv", Instruction::UDiv)
                     .Case("sdiv", Instruction::SDiv)
                     .Case("urem", Instruction::URem)
                     .Case("srem", Instruction::SRem)
                     .Case("shl", Instruction::Shl)
                     .Case("lshr", Instruction::LShr)
                     .Case("ashr", Instruction::AShr)
                     .Case("and", Instruction::And)
                     .Case("or", Instruction::Or)
                     .Case("xor", Instruction::Xor)
                     .Case("fadd", Instruction::FAdd)
                     .Case("fsub", Instruction::FSub)
                     .Case("fmul", Instruction::FMul)
                     .Case("fdiv", Instruction::FDiv)
                     .Case("frem", Instruction::FRem)
                     .Default(0);
  unsigned Cast = StringSwitch<unsigned>(W)
                      .Case("trunc", Instruction::Trunc)
                      .Case("zext", Instruction::ZExt)
                      .Case("sext", Instruction::SExt)
                      .Case("fptrunc", Instruction::FPTrunc)
                      .Case("fpext", Instruction::FPExt)
                      .Case("uitofp", Instruction::UIToFP)
                      .Case("sitofp", Instruction::SIToFP)
                      .Case("fptoui", Instruction::FPToUI)
                      .Case("fptosi", Instruction::FPToSI)
                      .Case("ptrtoint", Instruction::PtrToInt)
                      .Case("inttoptr", Instruction::IntToPtr)
                      .Case("bitcast", Instruction::BitCast)
                      .Default(0);
  auto Typed = [&] {
    std::optional<TypedOperand> V = typedValue();
    if (V)
      I.Ops.push_back(std::move(*V));
    return V.has_value();
  };
  auto Untyped = [&] { // A second operand of the type written first.
    std::optional<Operand> V = value();
    if (V)
      I.Ops.push_back({I.Type, std::move(*V)});
    return V.has_value();
  };
  auto First = [&] {
    std::optional<unsigned> Ty = type();
    if (Ty)
      I.Type = *Ty;
    return Ty.has_value();
  };
  if (Bin) {
    I.O = Op::Binary;
    I.Opcode = Bin;
    if (!wrapFlags(I.Flags) || !fastMath(I.FMF) || !First() || !Untyped() ||
        !punct(',') || !Untyped())
      return false;
    return true;
  }
  if (Cast) {
    I.O = Op::Cast;
    I.Opcode = Cast;
    if (!wrapFlags(I.Flags) || !fastMath(I.FMF) || !First() || !Untyped() ||
        !word("to"))
      return false;
    std::optional<unsigned> To = type();
    if (!To)
      return false;
    I.Type2 = *To;
    return true;
  }
  if (W == "fneg") {
    I.O = Op::FNeg;
    return fastMath(I.FMF) && First() && Untyped();
  }
  if (W == "icmp" || W == "fcmp") {
    I.O = W == "icmp" ? Op::ICmp : Op::FCmp;
    if (I.O == Op::FCmp && !fastMath(I.FMF))
      return false;
    if (T.K != Tok::Word)
      return false;
    std::optional<CmpInst::Predicate> Pred;
    if (I.O == Op::ICmp)
      Pred = StringSwitch<std::optional<CmpInst::Predicate>>(T.Text)
                 .Case("eq", CmpInst::ICMP_EQ)
                 .Case("ne", CmpInst::ICMP_NE)
                 .Case("slt", CmpInst::ICMP_SLT)
                 .Case("sle", CmpInst::ICMP_SLE)
                 .Case("sgt", CmpInst::ICMP_SGT)
                 .Case("sge", CmpInst::ICMP_SGE)
                 .Case("ult", CmpInst::ICMP_ULT)
                 .Case("ule", CmpInst::ICMP_ULE)
                 .Case("ugt", CmpInst::ICMP_UGT)
                 .Case("uge", CmpInst::ICMP_UGE)
                 .Default(std::nullopt);
    else
      Pred = StringSwitch<std::optional<CmpInst::Predicate>>(T.Text)
                 .Case("false", CmpInst::FCMP_FALSE)
                 .Case("oeq", CmpInst::FCMP_OEQ)
                 .Case("ogt", CmpInst::FCMP_OGT)
                 .Case("oge", CmpInst::FCMP_OGE)
                 .Case("olt", CmpInst::FCMP_OLT)
                 .Case("ole", CmpInst::FCMP_OLE)
                 .Case("one", CmpInst::FCMP_ONE)
                 .Case("ord", CmpInst::FCMP_ORD)
                 .Case("uno", CmpInst::FCMP_UNO)
                 .Case("ueq", CmpInst::FCMP_UEQ)
                 .Case("ugt", CmpInst::FCMP_UGT)
                 .Case("uge", CmpInst::FCMP_UGE)
                 .Case("ult", CmpInst::FCMP_ULT)
                 .Case("ule", CmpInst::FCMP_ULE)
                 .Case("une", CmpInst::FCMP_UNE)
                 .Case("true", CmpInst::FCMP_TRUE)
                 .Default(std::nullopt);
    if (!Pred)
      return false;
    I.Pred = *Pred;
    advance();
    return First() && Untyped() && punct(',') && Untyped();
  }
  if (W == "select") {
    I.O = Op::Select;
    return fastMath(I.FMF) && Typed() && punct(',') && Typed() && punct(',') &&
           Typed();
  }
  if (W == "freeze") {
    I.O = Op::Freeze;
    return First() && Untyped();
  }
  if (W == "getelementptr") {
    I.O = Op::GEP;
    I.InBounds = word("inbounds");
    if (!First() || !punct(',') || !Typed())
      return false;
    while (punct(','))
      if (!Typed())
        return false;
    return true;
  }
  if (W == "load") {
    I.O = Op::Load;
    return First() && punct(',') && Typed() && align(I.Align);
  }
  if (W == "store") {
    I.O = Op::Store;
    return Typed() && punct(',') && Typed() && align(I.Align);
  }
  if (W == "alloca") {
    I.O = Op::Alloca;
    return First() && align(I.Align);
  }
  if (W == "phi") {
    I.O = Op::Phi;
    if (!fastMath(I.FMF) || !First())
      return false;
    do {
      if (!punct('[') || !Untyped() || !punct(','))
        return false;
      if (T.K != Tok::Local)
        return false;
      auto It = BlockIds.find(T.Name);
      if (It == BlockIds.end())
        return false;
      I.Blocks.push_back(It->second);
      advance();
      if (!punct(']'))
        return false;
    } while (punct(','));
    return true;
  }
  if (W == "br") {
    if (T.K == Tok::Word && T.Text == "label") {
      I.O = Op::Br;
      std::optional<unsigned> B = blockRef();
      if (!B)
        return false;
      I.Blocks.push_back(*B);
      return true;
    }
    I.O = Op::CondBr;
    if (!Typed() || !punct(','))
      return false;
    std::optional<unsigned> A = blockRef();
    if (!A || !punct(','))
      return false;
    std::optional<unsigned> B = blockRef();
    if (!B)
      return false;
    I.Blocks = {*A, *B};
    return true;
  }
  if (W == "ret") {
    if (word("void")) {
      I.O = Op::RetVoid;
      return true;
    }
    I.O = Op::Ret;
    return Typed();
  }
  if (W == "unreachable") {
    I.O = Op::Unreachable;
    return true;
  }
  if (W == "call") {
    I.O = Op::Call;
    if (!First() || T.K != Tok::Global)
      return false;
    I.Ops.push_back({I.Type, Operand{Operand::Global, 0, T.Name}});
    advance();
    if (!punct('('))
      return false;
    if (!punct(')')) {
      do
        if (!Typed())
          return false;
      while (punct(','));
      if (!punct(')'))
        return false;
    }
    return true;
  }
  return false;
}

bool Compiler::header(FunctionRecipe &FR) {
  std::optional<unsigned> Ret = type();
  if (!Ret || T.K != Tok::Global)
    return false;
  FR.Ret = *Ret;
  FR.Name = T.Name;
  advance();
  if (!punct('('))
    return false;
  if (punct(')'))
    return true;
  do {
    if (T.K == Tok::Dots) {
      FR.VarArg = true;
      advance();
      break;
    }
    std::optional<unsigned> Ty = type();
    if (!Ty)
      return false;
    FR.Params.push_back(*Ty);
    if (T.K == Tok::Local && FR.IsDefine) {
      std::optional<unsigned> S = slot(T.Name);
      if (!S)
        return false;
      FR.ParamSlots.push_back(int(*S));
      FR.ParamNames.push_back(T.Name);
      advance();
    } else if (FR.IsDefine) {
      return false; // Unnamed parameters are numbered.
    } else {
      FR.ParamSlots.push_back(-1);
      FR.ParamNames.emplace_back();
    }
  } while (punct(','));
  return punct(')');
}

bool Compiler::body(FunctionRecipe &FR, StringRef Text) {
  // The labels first, so that branches and phis may name later blocks.
  {
    Lexer Scan(Text);
    int Depth = 0;
    for (Tok K = Scan.next(); K.K != Tok::End; K = Scan.next()) {
      if (K.K == Tok::Bad)
        return false;
      if (K.K == Tok::Punct && K.Text[0] == '{')
        ++Depth;
      if (K.K == Tok::Punct && K.Text[0] == '}' && --Depth == 0)
        break;
      if (K.K != Tok::LabelDef || Depth != 1)
        continue;
      if (!BlockIds.try_emplace(K.Name, unsigned(FR.Blocks.size())).second)
        return false;
      FR.Blocks.push_back({K.Name, {}});
    }
  }
  if (!punct('{'))
    return false;
  unsigned Current = 0;
  bool Started = false;
  while (!punct('}')) {
    if (T.K == Tok::End || T.K == Tok::Bad)
      return false;
    if (T.K == Tok::LabelDef) {
      Current = BlockIds.lookup(T.Name);
      if (Started && Current == 0)
        return false;
      if (!Started && Current != 0)
        return false;
      Started = true;
      advance();
      continue;
    }
    if (!Started) {
      // An unlabeled entry block.
      FR.Blocks.insert(FR.Blocks.begin(), {"", {}});
      for (auto &E : BlockIds)
        ++E.second;
      Started = true;
    }
    InstRecipe I;
    if (!instruction(I))
      return false;
    FR.Blocks[Current].Insts.push_back(std::move(I));
  }
  return !FR.Blocks.empty();
}

bool Compiler::run(Program::Impl &Prog) {
  P = &Prog;
  while (word("target")) {
    bool DL = word("datalayout");
    if (!DL && !word("triple"))
      return false;
    if (!punct('=') || T.K != Tok::Str)
      return false;
    (DL ? P->DataLayout : P->Triple) = T.Name;
    advance();
  }
  while (T.K != Tok::End) {
    bool Define = word("define");
    if (!Define && !word("declare"))
      return false;
    P->Functions.emplace_back();
    F = &P->Functions.back();
    F->IsDefine = Define;
    Slots.clear();
    BlockIds.clear();
    if (!header(*F))
      return false;
    if (!Define)
      continue;
    if (F->VarArg)
      return false;
    if (T.K != Tok::Punct || T.Text[0] != '{')
      return false;
    if (!body(*F, Whole.substr(T.Text.data() - Whole.data())))
      return false;
  }
  return !P->Functions.empty();
}

} // namespace

namespace {

//===-- Building ----------------------------------------------------------===//

bool isTerminator(Op O) {
  return O == Op::Br || O == Op::CondBr || O == Op::Ret || O == Op::RetVoid ||
         O == Op::Unreachable;
}

/// Whether a bound type \p T must take the general path: it names a struct
/// type somewhere (the name means nothing in a new module), or it holds a
/// vector longer than the front end reads (MaxVectorElements), which the
/// general path refuses with its message.
bool needsGeneralPath(Type *T) {
  if (auto *S = dyn_cast<StructType>(T); S && !S->isLiteral())
    return true;
  if (auto *V = dyn_cast<VectorType>(T);
      V && V->getElementCount().getKnownMinValue() > MaxVectorElements)
    return true;
  for (Type *Sub : T->subtypes())
    if (needsGeneralPath(Sub))
      return true;
  return false;
}

class Builder {
public:
  Builder(const Program::Impl &P, LLVMContext &Ctx, const Bindings &Bound)
      : P(P), Ctx(Ctx), Bound(Bound), Types(P.Types.size(), nullptr) {}
  std::unique_ptr<Module> run(StringRef Name);

private:
  Type *type(unsigned I);
  Constant *literal(Operand::Kind K, StringRef Text, Type *Ty);
  Constant *hole(const std::string &Name, Type *Ty);
  Value *value(const Operand &O, Type *Ty);
  Value *operand(const Operand &O, Type *Ty);
  Value *value(const TypedOperand &O) {
    Type *Ty = type(O.Type);
    return Ty ? value(O.V, Ty) : nullptr;
  }
  bool define(int Slot, Instruction *I, const std::string &Name);
  Instruction *make(const InstRecipe &I);
  bool body(const FunctionRecipe &FR, Function *Fn);

  const Program::Impl &P;
  LLVMContext &Ctx;
  const Bindings &Bound;
  std::vector<Type *> Types;
  Module *M = nullptr;
  Function *Fn = nullptr;
  std::vector<Value *> Slots;
  std::vector<Argument *> Forward;
  std::vector<BasicBlock *> Blocks;
};

Type *Builder::type(unsigned I) {
  if (Types[I])
    return Types[I];
  const TypeRecipe &R = P.Types[I];
  Type *T = nullptr;
  switch (R.K) {
  case TypeRecipe::Void:
    T = Type::getVoidTy(Ctx);
    break;
  case TypeRecipe::Int:
    T = IntegerType::get(Ctx, unsigned(R.N));
    break;
  case TypeRecipe::Half:
    T = Type::getHalfTy(Ctx);
    break;
  case TypeRecipe::BFloat:
    T = Type::getBFloatTy(Ctx);
    break;
  case TypeRecipe::Float:
    T = Type::getFloatTy(Ctx);
    break;
  case TypeRecipe::Double:
    T = Type::getDoubleTy(Ctx);
    break;
  case TypeRecipe::Ptr:
    T = PointerType::get(Ctx, unsigned(R.N));
    break;
  case TypeRecipe::Vector:
  case TypeRecipe::Array: {
    Type *E = type(R.Elems[0]);
    if (!E)
      return nullptr;
    if (R.K == TypeRecipe::Vector) {
      if (R.N == 0 || R.N > UINT32_MAX || !VectorType::isValidElementType(E))
        return nullptr;
      T = FixedVectorType::get(E, unsigned(R.N));
    } else {
      if (!ArrayType::isValidElementType(E))
        return nullptr;
      T = ArrayType::get(E, R.N);
    }
    break;
  }
  case TypeRecipe::Struct: {
    SmallVector<Type *, 8> Elems;
    for (unsigned E : R.Elems) {
      Type *ET = type(E);
      if (!ET || !StructType::isValidElementType(ET))
        return nullptr;
      Elems.push_back(ET);
    }
    T = StructType::get(Ctx, Elems);
    break;
  }
  case TypeRecipe::Hole: {
    auto It = Bound.find(R.HoleName);
    if (It == Bound.end() || It->second.kind() != Binding::Kind::Type)
      return nullptr;
    T = It->second.type();
    if (!T || &T->getContext() != &Ctx || needsGeneralPath(T))
      return nullptr;
    break;
  }
  }
  return Types[I] = T;
}

/// A literal of type \p Ty, as LLVM's parser makes it, or null where it
/// reports an error.
Constant *Builder::literal(Operand::Kind K, StringRef Text, Type *Ty) {
  switch (K) {
  case Operand::Int: {
    if (!Ty->isIntegerTy())
      return nullptr;
    APSInt V(Text);
    return ConstantInt::get(Ctx, V.extOrTrunc(Ty->getIntegerBitWidth()));
  }
  case Operand::FP: {
    if (!Ty->isHalfTy() && !Ty->isBFloatTy() && !Ty->isFloatTy() &&
        !Ty->isDoubleTy())
      return nullptr;
    std::optional<APFloat> V;
    if (Text.starts_with("0xH") || Text.starts_with("0xR")) {
      uint64_t Bits;
      if (Text.size() > 7 || Text.drop_front(3).getAsInteger(16, Bits))
        return nullptr;
      V.emplace(Text[2] == 'H' ? APFloat::IEEEhalf() : APFloat::BFloat(),
                APInt(16, Bits));
    } else if (Text.starts_with("0x")) {
      uint64_t Bits;
      if (Text.size() > 18 || Text.drop_front(2).getAsInteger(16, Bits))
        return nullptr;
      V.emplace(APFloat::IEEEdouble(), APInt(64, Bits));
    } else {
      V.emplace(APFloat::IEEEdouble());
      Expected<APFloat::opStatus> S =
          V->convertFromString(Text, APFloat::rmNearestTiesToEven);
      if (!S) {
        consumeError(S.takeError());
        return nullptr;
      }
    }
    if (V->isNaN() || !ConstantFP::isValueValidForType(Ty, *V))
      return nullptr; // NaNs: the general path keeps their payload rules.
    if (&V->getSemantics() == &APFloat::IEEEdouble() && !Ty->isDoubleTy()) {
      bool Lost;
      V->convert(Ty->getFltSemantics(), APFloat::rmNearestTiesToEven, &Lost);
    }
    return ConstantFP::get(Ctx, *V);
  }
  case Operand::True:
  case Operand::False:
    if (!Ty->isIntegerTy(1))
      return nullptr;
    return K == Operand::True ? ConstantInt::getTrue(Ctx)
                              : ConstantInt::getFalse(Ctx);
  case Operand::Null:
    if (!Ty->isPointerTy())
      return nullptr;
    return ConstantPointerNull::get(cast<PointerType>(Ty));
  case Operand::Poison:
  case Operand::Undef:
  case Operand::Zero:
    if (!Ty->isFirstClassType() || Ty->isLabelTy() || Ty->isTokenTy())
      return nullptr;
    if (K == Operand::Poison)
      return PoisonValue::get(Ty);
    if (K == Operand::Undef)
      return UndefValue::get(Ty);
    return Constant::getNullValue(Ty);
  default:
    return nullptr;
  }
}

/// A `$const:` or `$opr:` antiquote: the text splicing would give it, read
/// as one literal.
Constant *Builder::hole(const std::string &Name, Type *Ty) {
  auto It = Bound.find(Name);
  if (It == Bound.end())
    return nullptr;
  std::optional<std::string> Text = valueText(It->second, AntiquoteKind::Const);
  if (!Text)
    return nullptr;
  Lexer L(*Text);
  Tok T = L.next();
  if (L.next().K != Tok::End)
    return nullptr;
  Operand::Kind K;
  switch (T.K) {
  case Tok::Int:
    K = Operand::Int;
    break;
  case Tok::FP:
    K = Operand::FP;
    break;
  case Tok::Word: {
    std::optional<Operand::Kind> W = literalWord(T.Text);
    if (!W)
      return nullptr;
    K = *W;
    break;
  }
  default:
    return nullptr;
  }
  return literal(K, T.Text, Ty);
}

Value *Builder::value(const Operand &O, Type *Ty) {
  Value *V = operand(O, Ty);
  // A literal of another format (`0xH...` read as float) is LLVM's error.
  return V && V->getType() == Ty ? V : nullptr;
}

Value *Builder::operand(const Operand &O, Type *Ty) {
  switch (O.K) {
  case Operand::Local: {
    if (Value *V = Slots[O.Slot])
      return V->getType() == Ty ? V : nullptr;
    if (Argument *A = Forward[O.Slot])
      return A->getType() == Ty ? A : nullptr;
    if (!Ty->isFirstClassType() || Ty->isLabelTy())
      return nullptr;
    return Forward[O.Slot] = new Argument(Ty);
  }
  case Operand::Global: {
    GlobalValue *G = M->getNamedValue(O.Text);
    return G && G->getType() == Ty ? G : nullptr;
  }
  case Operand::Hole:
    return hole(O.Text, Ty);
  default:
    return literal(O.K, O.Text, Ty);
  }
}

bool Builder::define(int Slot, Instruction *I, const std::string &Name) {
  if (Slot < 0)
    return true;
  if (I->getType()->isVoidTy() || Slots[Slot])
    return false;
  if (!Name.empty()) {
    I->setName(Name);
    if (I->getName() != Name)
      return false; // Taken by a block or an argument.
  }
  if (Argument *A = Forward[Slot]) {
    if (A->getType() != I->getType())
      return false;
    A->replaceAllUsesWith(I);
    delete A;
    Forward[Slot] = nullptr;
  }
  Slots[Slot] = I;
  return true;
}

Instruction *Builder::make(const InstRecipe &I) {
  Type *Ty = type(I.Type);
  if (!Ty)
    return nullptr;
  auto Ops = [&](size_t K) { return value(I.Ops[K]); };
  const DataLayout &DL = M->getDataLayout();
  switch (I.O) {
  case Op::Binary: {
    bool FP = Instruction::isBinaryOp(I.Opcode) &&
              (I.Opcode == Instruction::FAdd || I.Opcode == Instruction::FSub ||
               I.Opcode == Instruction::FMul || I.Opcode == Instruction::FDiv ||
               I.Opcode == Instruction::FRem);
    if (FP ? !Ty->isFPOrFPVectorTy() || I.Flags
           : !Ty->isIntOrIntVectorTy() || I.FMF.any())
      return nullptr;
    bool Wraps = I.Opcode == Instruction::Add || I.Opcode == Instruction::Sub ||
                 I.Opcode == Instruction::Mul || I.Opcode == Instruction::Shl;
    bool Exacts =
        I.Opcode == Instruction::UDiv || I.Opcode == Instruction::SDiv ||
        I.Opcode == Instruction::LShr || I.Opcode == Instruction::AShr;
    if (((I.Flags & (NUW | NSW)) && !Wraps) || ((I.Flags & Exact) && !Exacts) ||
        ((I.Flags & Disjoint) && I.Opcode != Instruction::Or) ||
        (I.Flags & NNeg))
      return nullptr;
    Value *L = Ops(0), *R = Ops(1);
    if (!L || !R)
      return nullptr;
    auto *B = BinaryOperator::Create(Instruction::BinaryOps(I.Opcode), L, R);
    if (I.Flags & NUW)
      B->setHasNoUnsignedWrap(true);
    if (I.Flags & NSW)
      B->setHasNoSignedWrap(true);
    if (I.Flags & Exact)
      B->setIsExact(true);
    if (I.Flags & Disjoint)
      cast<PossiblyDisjointInst>(B)->setIsDisjoint(true);
    if (FP)
      B->setFastMathFlags(I.FMF);
    return B;
  }
  case Op::FNeg: {
    Value *V = Ops(0);
    if (!V || !Ty->isFPOrFPVectorTy())
      return nullptr;
    auto *U = UnaryOperator::Create(Instruction::FNeg, V);
    U->setFastMathFlags(I.FMF);
    return U;
  }
  case Op::ICmp:
  case Op::FCmp: {
    bool Ok = I.O == Op::ICmp
                  ? Ty->isIntOrIntVectorTy() || Ty->isPtrOrPtrVectorTy()
                  : Ty->isFPOrFPVectorTy();
    Value *L = Ops(0), *R = Ops(1);
    if (!Ok || !L || !R)
      return nullptr;
    if (I.O == Op::ICmp)
      return new ICmpInst(CmpInst::Predicate(I.Pred), L, R);
    auto *C = new FCmpInst(CmpInst::Predicate(I.Pred), L, R);
    C->setFastMathFlags(I.FMF);
    return C;
  }
  case Op::Cast: {
    Type *To = type(I.Type2);
    Value *V = Ops(0);
    if (!To || !V || I.FMF.any() || (I.Flags & ~unsigned(NNeg)) ||
        ((I.Flags & NNeg) && I.Opcode != Instruction::ZExt) ||
        !CastInst::castIsValid(Instruction::CastOps(I.Opcode), V, To))
      return nullptr;
    auto *C = CastInst::Create(Instruction::CastOps(I.Opcode), V, To);
    if (I.Flags & NNeg)
      C->setNonNeg(true);
    return C;
  }
  case Op::Select: {
    Value *C = Ops(0), *A = Ops(1), *B = Ops(2);
    if (!C || !A || !B || SelectInst::areInvalidOperands(C, A, B))
      return nullptr;
    SelectInst *S = SelectInst::Create(C, A, B);
    if (I.FMF.any()) {
      if (!isa<FPMathOperator>(S)) {
        S->deleteValue();
        return nullptr;
      }
      S->setFastMathFlags(I.FMF);
    }
    return S;
  }
  case Op::Freeze: {
    Value *V = Ops(0);
    if (!V || Ty->isVoidTy() || !Ty->isFirstClassType())
      return nullptr;
    return new FreezeInst(V);
  }
  case Op::GEP: {
    Value *Base = Ops(0);
    if (!Base || !Base->getType()->isPointerTy() || !Ty->isSized())
      return nullptr;
    SmallVector<Value *, 4> Idx;
    for (size_t K = 1; K < I.Ops.size(); ++K) {
      Value *V = Ops(K);
      if (!V || !V->getType()->isIntegerTy())
        return nullptr;
      Idx.push_back(V);
    }
    if (!GetElementPtrInst::getIndexedType(Ty, Idx))
      return nullptr;
    auto *G = GetElementPtrInst::Create(Ty, Base, Idx);
    if (I.InBounds)
      G->setIsInBounds(true);
    return G;
  }
  case Op::Load: {
    Value *Ptr = Ops(0);
    if (!Ptr || !Ptr->getType()->isPointerTy() || !Ty->isFirstClassType() ||
        !Ty->isSized())
      return nullptr;
    return new LoadInst(Ty, Ptr, "", false,
                        I.Align ? Align(I.Align) : DL.getABITypeAlign(Ty));
  }
  case Op::Store: {
    Value *V = Ops(0), *Ptr = Ops(1);
    if (!V || !Ptr || !Ptr->getType()->isPointerTy() ||
        !V->getType()->isFirstClassType() || !V->getType()->isSized())
      return nullptr;
    return new StoreInst(V, Ptr, false,
                         I.Align ? Align(I.Align)
                                 : DL.getABITypeAlign(V->getType()));
  }
  case Op::Alloca:
    if (!Ty->isSized())
      return nullptr;
    return new AllocaInst(Ty, DL.getAllocaAddrSpace(), nullptr,
                          I.Align ? Align(I.Align) : DL.getPrefTypeAlign(Ty));
  case Op::Phi: {
    if (!Ty->isFirstClassType() || Ty->isLabelTy())
      return nullptr;
    PHINode *PN = PHINode::Create(Ty, unsigned(I.Ops.size()));
    for (size_t K = 0; K < I.Ops.size(); ++K) {
      Value *V = Ops(K);
      if (!V) {
        PN->deleteValue();
        return nullptr;
      }
      PN->addIncoming(V, Blocks[I.Blocks[K]]);
    }
    if (I.FMF.any()) {
      if (!isa<FPMathOperator>(PN)) {
        PN->deleteValue();
        return nullptr;
      }
      PN->setFastMathFlags(I.FMF);
    }
    return PN;
  }
  case Op::Br:
    return BranchInst::Create(Blocks[I.Blocks[0]]);
  case Op::CondBr: {
    Value *C = Ops(0);
    if (!C || !C->getType()->isIntegerTy(1))
      return nullptr;
    return BranchInst::Create(Blocks[I.Blocks[0]], Blocks[I.Blocks[1]], C);
  }
  case Op::Ret: {
    Value *V = Ops(0);
    if (!V || V->getType()->isVoidTy() || V->getType() != Fn->getReturnType())
      return nullptr;
    return ReturnInst::Create(Ctx, V);
  }
  case Op::RetVoid:
    if (!Fn->getReturnType()->isVoidTy())
      return nullptr;
    return ReturnInst::Create(Ctx);
  case Op::Unreachable:
    return new UnreachableInst(Ctx);
  case Op::Call: {
    if (!FunctionType::isValidReturnType(Ty))
      return nullptr;
    auto *Callee =
        dyn_cast_or_null<Function>(M->getNamedValue(I.Ops[0].V.Text));
    if (!Callee || Callee->getAddressSpace() != DL.getProgramAddressSpace())
      return nullptr;
    SmallVector<Value *, 4> Args;
    SmallVector<Type *, 4> ArgTypes;
    for (size_t K = 1; K < I.Ops.size(); ++K) {
      Value *V = Ops(K);
      if (!V || !FunctionType::isValidArgumentType(V->getType()))
        return nullptr;
      Args.push_back(V);
      ArgTypes.push_back(V->getType());
    }
    return CallInst::Create(FunctionType::get(Ty, ArgTypes, false), Callee,
                            Args);
  }
  }
  return nullptr;
}

bool Builder::body(const FunctionRecipe &FR, Function *F) {
  Fn = F;
  Slots.assign(FR.NumSlots, nullptr);
  Forward.assign(FR.NumSlots, nullptr);
  Blocks.clear();
  bool Ok = true;
  for (size_t K = 0; K < FR.ParamSlots.size(); ++K) {
    Argument *A = F->getArg(unsigned(K));
    A->setName(FR.ParamNames[K]);
    if (A->getName() != FR.ParamNames[K] || Slots[FR.ParamSlots[K]])
      return false;
    Slots[FR.ParamSlots[K]] = A;
  }
  for (const BlockRecipe &B : FR.Blocks) {
    Blocks.push_back(BasicBlock::Create(Ctx, B.Name, F));
    if (Blocks.back()->getName() != B.Name)
      Ok = false;
  }
  for (size_t K = 0; Ok && K < FR.Blocks.size(); ++K) {
    const std::vector<InstRecipe> &Insts = FR.Blocks[K].Insts;
    if (Insts.empty() || !isTerminator(Insts.back().O)) {
      Ok = false;
      break;
    }
    for (const InstRecipe &R : Insts) {
      if (&R != &Insts.back() && isTerminator(R.O)) {
        Ok = false;
        break;
      }
      Instruction *I = make(R);
      if (!I) {
        Ok = false;
        break;
      }
      I->insertInto(Blocks[K], Blocks[K]->end());
      if (!define(R.Result, I, R.Name)) {
        Ok = false;
        break;
      }
    }
  }
  for (Argument *&A : Forward) {
    if (!A)
      continue;
    Ok = false; // Used, never defined.
    A->replaceAllUsesWith(PoisonValue::get(A->getType()));
    delete A;
    A = nullptr;
  }
  return Ok;
}

std::unique_ptr<Module> Builder::run(StringRef Name) {
  auto Owned = std::make_unique<Module>(Name, Ctx);
  M = Owned.get();
  if (P.DataLayout) {
    Expected<DataLayout> DL = DataLayout::parse(*P.DataLayout);
    if (!DL) {
      consumeError(DL.takeError());
      return nullptr;
    }
    M->setDataLayout(*DL);
  }
  if (P.Triple)
    M->setTargetTriple(*P.Triple);
  std::vector<Function *> Fns;
  for (const FunctionRecipe &FR : P.Functions) {
    Type *Ret = type(FR.Ret);
    if (!Ret || !FunctionType::isValidReturnType(Ret) ||
        StringRef(FR.Name).starts_with("llvm.") || M->getNamedValue(FR.Name))
      return nullptr;
    SmallVector<Type *, 8> Params;
    for (unsigned T : FR.Params) {
      Type *PT = type(T);
      if (!PT || !FunctionType::isValidArgumentType(PT))
        return nullptr;
      Params.push_back(PT);
    }
    Fns.push_back(Function::Create(
        FunctionType::get(Ret, Params, FR.VarArg), GlobalValue::ExternalLinkage,
        M->getDataLayout().getProgramAddressSpace(), FR.Name, M));
  }
  for (size_t K = 0; K < P.Functions.size(); ++K)
    if (P.Functions[K].IsDefine && !body(P.Functions[K], Fns[K]))
      return nullptr;
  return Owned;
}

} // namespace

Program::Program(std::unique_ptr<Impl> P) : P(std::move(P)) {}
Program::Program(Program &&) = default;
Program &Program::operator=(Program &&) = default;
Program::~Program() = default;

std::unique_ptr<Module> Program::build(LLVMContext &Ctx, StringRef ModuleName,
                                       const Bindings &Bound,
                                       bool Mem2Reg) const {
  std::unique_ptr<Module> M = Builder(*P, Ctx, Bound).run(ModuleName);
  if (!M)
    return nullptr;
  if (!P->Plan.SSA.empty()) {
    SourceMgr SM;
    unsigned ID = SM.AddNewSourceBuffer(
        MemoryBuffer::getMemBuffer(P->Source, ModuleName,
                                   /*RequiresNullTerminator=*/true),
        SMLoc());
    RestoreOptions R;
    R.Mem2Reg = Mem2Reg;
    if (Error E = restoreSSA(*M, P->Plan, R, SM, ID, nullptr)) {
      consumeError(std::move(E));
      return nullptr;
    }
  }
  bool BrokenDebugInfo = false;
  if (verifyModule(*M, nullptr, &BrokenDebugInfo) || BrokenDebugInfo)
    return nullptr;
  return M;
}

/// The lowered text read into a program, or nothing outside the subset.
static std::optional<Program> compileProgram(StringRef LoweredText,
                                             StringRef ReadFn) {
  auto P = std::make_unique<Program::Impl>();
  if (!Compiler(LoweredText).run(*P))
    return std::nullopt;
  // restoreSSA matches read placeholders by their place, not their name,
  // and deletes them: they are built unnamed. (Their names in the text,
  // `x.read`, are never a name anything else may take.)
  for (FunctionRecipe &F : P->Functions)
    for (BlockRecipe &B : F.Blocks)
      for (InstRecipe &I : B.Insts)
        if (I.O == Op::Call && !ReadFn.empty() && I.Ops[0].V.Text == ReadFn)
          I.Name.clear();
  return Program(std::move(P));
}

std::optional<Program> llq::compileTemplate(const SyntaxTree &Tree,
                                            const SourceMgr &SM,
                                            unsigned BufferID) {
  bool StepBound = false;
  forEachNode(Tree.Root, [&](const Node *N) {
    if (!N->is(NodeKind::For) || !(N->Sub & ForHasStep))
      return;
    const Node *Step = N->First; // Type, counter, from, to, step, body.
    for (int K = 0; K < 4 && Step; ++K)
      Step = Step->Next;
    StepBound |= Step && Step->is(NodeKind::Antiquote);
  });
  if (StepBound)
    return std::nullopt;
  // Lowering refuses antiquotes of the other kinds.
  LowerOptions Opts;
  Opts.KeepValueAntiquotes = true;
  Opts.Spliced = !Tree.Antiquotes.empty();
  Expected<LoweredText> L = lowerSyntax(Tree, SM, BufferID, Opts);
  if (!L) {
    consumeError(L.takeError());
    return std::nullopt;
  }
  std::optional<Program> P = compileProgram(L->text(), L->ReadFn);
  if (P) {
    P->P->Plan = std::move(*L);
    P->P->Plan.Storage.clear(); // The plan is all restoreSSA reads.
    P->P->Plan.Storage.shrink_to_fit();
    P->P->Source = Tree.Source.str();
  }
  return P;
}
