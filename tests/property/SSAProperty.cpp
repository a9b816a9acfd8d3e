//===- SSAProperty.cpp - Differential test of the SSA construction --------===//
//
// Generates random dialect programs (nested `for` with to/downto/step,
// `while`, `if`/`else`, `break`/`continue`/`ret`, labelled blocks that jump
// into a loop at two places (irreducible control flow), copies and several
// reassigned i32, i64 and double variables, i32 and i64 loop counters, some
// of them running up to their type's limits) and checks, in process, for
// each one:
//
// - both SSA modes (Braun and the mem2reg reference) give a verified module
//   that computes what an interpreter of the program computes;
// - Braun's output has no trivial phi, no phi in unreachable code, and no phi
//   that is trivial once its operands from unreachable blocks are left out;
// - Braun's phi count is never above the reference mode's, nor above that of
//   LLVM's PromoteMemToReg on an alloca form of the same program, lowered
//   here independently of llquote;
// - when a variable may be read unassigned, both modes report the same
//   located error, and a program without the error never reads a variable
//   without a value when it runs;
// - under --allow-undef, such a program gives a verified module in both modes,
//   with the same phi properties, that computes what the interpreter computes
//   on every run that reads no variable without a value.
//
// Usage: llquote_ssa_property [--seed=S] [--count=N] [--verbose] [--show-lower]
// Prints totals: programs, phis of each kind, how often Braun is lower.
//
//===----------------------------------------------------------------------===//

#include "llquote/Frontend.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/ADT/bit.h"
#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace llvm;

namespace {

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

/// The types of variables and operands.
enum class Ty : uint8_t { I32, I64, F64 };

struct Stmt {
  /// Irreducible: labelled blocks A (Then) and B (Else) in a loop that is
  /// entered at A or at B, as the If condition says, and goes round To
  /// times (at least once) with its trip count in counter Loop:
  ///   %iK = i64 0; br i1 cond, label %irrK.a, label %irrK.b
  ///   irrK.a: A; br label %irrK.b
  ///   irrK.b: B; %iK = add %iK, 1; br i1 (%iK < To), label %irrK.a, %irrK.x
  enum Kind { Arith, Copy, Const, If, For, While, Break, Continue, Ret,
              Irreducible } K;
  int Dst = 0, A = 0, B = -1; ///< Operands: >= 0 a variable, < 0 see below.
  int64_t C = 0;              ///< The constant when B < 0 (or Const/Ret).
  const char *Op = "add";     ///< Arith op, or the If predicate.
  bool HasElse = false, Downto = false, FromN = false, ToN = false;
  int64_t From = 0, To = 0, Step = 1;
  int Loop = 0;               ///< For/While: its counter's number.
  Ty CmpTy = Ty::I64;         ///< If: the type of the compared operands.
  std::vector<Stmt> Then, Else; ///< If arms; Then is a loop's body too.
};

/// Operands name program variables 0..NumVars-1 and, from NumVars on, the
/// counters of enclosing loops (i32 or i64), numbered by Loop.
struct Program {
  std::vector<Ty> Types;      ///< Per variable.
  std::vector<bool> Initialised;
  std::vector<Ty> LoopTypes;  ///< Per loop counter.
  std::vector<Stmt> Body;
  unsigned NumVars() const { return unsigned(Types.size()); }
  unsigned NumLoops() const { return unsigned(LoopTypes.size()); }
  Ty type(int Op) const {
    return Op < int(NumVars()) ? Types[Op] : LoopTypes[Op - NumVars()];
  }
};

class Generator {
public:
  explicit Generator(uint64_t Seed) : Rng(Seed) {}
  Program generate(bool AllowUndefined);

private:
  unsigned pick(unsigned N) { return unsigned(Rng() % N); }
  bool chance(unsigned Percent) { return pick(100) < Percent; }
  std::vector<Stmt> block(unsigned Depth, unsigned LoopDepth, unsigned Len);
  Stmt statement(unsigned Depth, unsigned LoopDepth);
  /// An operand of type \p T: a variable or a loop counter in scope.
  int operand(Ty T);
  /// A type that some variable has.
  Ty someVariableType();

  std::mt19937_64 Rng;
  Program P;
  std::vector<int> Counters; ///< In scope, as operand numbers.
};

Program Generator::generate(bool AllowUndefined) {
  P = Program();
  unsigned N = 2 + pick(4);
  for (unsigned I = 0; I < N; ++I) {
    unsigned R = pick(100);
    P.Types.push_back(I == 0 || R >= 45 ? Ty::I64 : R < 30 ? Ty::I32 : Ty::F64);
    P.Initialised.push_back(!AllowUndefined || I == 0 || chance(60));
  }
  P.Body = block(0, 0, 2 + pick(5));
  // A name assigned nowhere is no variable but LLVM's undefined value,
  // whose error is not the subject here: assign each one at the end.
  std::vector<bool> Assigned(P.Initialised);
  std::vector<const std::vector<Stmt> *> Work{&P.Body};
  while (!Work.empty()) {
    const std::vector<Stmt> *L = Work.back();
    Work.pop_back();
    for (const Stmt &S : *L) {
      if (S.K == Stmt::Arith || S.K == Stmt::Copy || S.K == Stmt::Const)
        Assigned[S.Dst] = true;
      Work.push_back(&S.Then);
      Work.push_back(&S.Else);
    }
  }
  for (unsigned I = 0; I < N; ++I)
    if (!Assigned[I]) {
      Stmt S{Stmt::Const};
      S.Dst = int(I);
      S.C = 1;
      P.Body.push_back(S);
    }
  return P;
}

int Generator::operand(Ty T) {
  std::vector<int> Cands;
  for (unsigned I = 0; I < P.NumVars(); ++I)
    if (P.Types[I] == T)
      Cands.push_back(int(I));
  for (int C : Counters)
    if (P.type(C) == T)
      Cands.push_back(C);
  return Cands[pick(unsigned(Cands.size()))];
}

Ty Generator::someVariableType() {
  return P.Types[pick(P.NumVars())];
}

std::vector<Stmt> Generator::block(unsigned Depth, unsigned LoopDepth,
                                   unsigned Len) {
  std::vector<Stmt> Out;
  for (unsigned I = 0; I < Len; ++I)
    Out.push_back(statement(Depth, LoopDepth));
  return Out;
}

Stmt Generator::statement(unsigned Depth, unsigned LoopDepth) {
  static const char *Ops[] = {"add", "sub", "mul", "xor", "and", "or"};
  static const char *FloatOps[] = {"fadd", "fsub", "fmul"};
  static const char *Preds[] = {"slt", "sgt", "eq", "ne", "sle", "ult"};
  static const char *FloatPreds[] = {"olt", "ogt", "oeq", "une", "ole"};
  unsigned R = pick(100);
  bool Nest = Depth < 3;
  Stmt S{Stmt::Arith};
  if (Nest && R < 14) {
    S.K = Stmt::If;
    S.CmpTy = chance(40) ? someVariableType() : Ty::I64;
    S.A = operand(S.CmpTy);
    S.B = chance(50) ? operand(S.CmpTy) : -1;
    S.C = int64_t(pick(7)) - 2;
    S.Op = S.CmpTy == Ty::F64 ? FloatPreds[pick(5)] : Preds[pick(6)];
    S.Then = block(Depth + 1, LoopDepth, 1 + pick(3));
    S.HasElse = chance(50);
    if (S.HasElse)
      S.Else = block(Depth + 1, LoopDepth, 1 + pick(3));
    return S;
  }
  if (Nest && R < 26) {
    S.K = chance(65) ? Stmt::For : Stmt::While;
    S.Loop = int(P.NumLoops());
    Ty CounterTy = S.K == Stmt::For && chance(25) ? Ty::I32 : Ty::I64;
    P.LoopTypes.push_back(CounterTy);
    if (S.K == Stmt::For) {
      S.Downto = chance(30);
      S.Step = chance(30) ? 1 + pick(3) : 1;
      if (chance(15)) {
        // Up to the counter type's limits, where a lowering that steps past
        // the bound before it compares would wrap round.
        bool Is32 = CounterTy == Ty::I32;
        int64_t Max = Is32 ? INT32_MAX : INT64_MAX;
        int64_t Min = Is32 ? INT32_MIN : INT64_MIN;
        S.From = Max - int64_t(pick(8));
        S.To = Max - int64_t(pick(3));
        if (S.Downto) {
          S.From = Min + int64_t(pick(8));
          S.To = Min + int64_t(pick(3));
        }
      } else {
        S.FromN = CounterTy == Ty::I64 && chance(20);
        S.ToN = CounterTy == Ty::I64 && !S.FromN && chance(25);
        S.From = int64_t(pick(5)) - 1;
        S.To = int64_t(pick(7)) - 1;
        if (S.Downto)
          std::swap(S.From, S.To);
      }
    } else {
      S.To = pick(5); // iterations at most
    }
    Counters.push_back(int(P.NumVars() + S.Loop));
    S.Then = block(Depth + 1, LoopDepth + 1, 1 + pick(4));
    Counters.pop_back();
    return S;
  }
  if (Nest && R < 30) {
    S.K = Stmt::Irreducible;
    S.A = operand(Ty::I64);
    S.B = chance(50) ? operand(Ty::I64) : -1;
    S.C = int64_t(pick(7)) - 2;
    S.Op = Preds[pick(6)];
    S.To = 1 + pick(3);
    S.Loop = int(P.NumLoops());
    P.LoopTypes.push_back(Ty::I64);
    Counters.push_back(int(P.NumVars() + S.Loop));
    S.Then = block(Depth + 1, LoopDepth, 1 + pick(3));
    S.Else = block(Depth + 1, LoopDepth, 1 + pick(3));
    Counters.pop_back();
    return S;
  }
  if (LoopDepth && R < 37) {
    S.K = chance(50) ? Stmt::Break : Stmt::Continue;
    return S;
  }
  if (R < 40) {
    S.K = Stmt::Ret;
    S.A = chance(70) ? operand(Ty::I64) : -1;
    S.C = pick(100);
    return S;
  }
  S.Dst = int(pick(P.NumVars()));
  Ty T = P.Types[S.Dst];
  if (R < 50) {
    S.K = Stmt::Copy;
    S.A = operand(T);
    return S;
  }
  if (R < 58) {
    S.K = Stmt::Const;
    S.C = pick(4);
    return S;
  }
  S.Op = T == Ty::F64 ? FloatOps[pick(3)] : Ops[pick(6)];
  S.A = operand(T);
  S.B = chance(60) ? operand(T) : -1;
  S.C = int64_t(pick(9)) - 3;
  return S;
}

//===----------------------------------------------------------------------===//
// The interpreter: the oracle
//===----------------------------------------------------------------------===//

/// Values are 64-bit patterns: integers sign-extended to 64 bits, so i32
/// compares and arithmetic (wrapped back to 32 bits) come out as LLVM
/// computes them; doubles as their bits.
uint64_t wrap(uint64_t V, bool Is32) {
  return Is32 ? uint64_t(int64_t(int32_t(uint32_t(V)))) : V;
}

double toDouble(uint64_t V) { return llvm::bit_cast<double>(V); }
uint64_t fromDouble(double D) { return llvm::bit_cast<uint64_t>(D); }

/// The pattern of the constant \p C as a value of type \p T.
uint64_t constant(int64_t C, Ty T) {
  return T == Ty::F64 ? fromDouble(double(C)) : wrap(uint64_t(C), T == Ty::I32);
}

uint64_t arith(StringRef Op, uint64_t A, uint64_t B) {
  if (Op == "add") return A + B;
  if (Op == "sub") return A - B;
  if (Op == "mul") return A * B;
  if (Op == "xor") return A ^ B;
  if (Op == "and") return A & B;
  if (Op == "or") return A | B;
  double X = toDouble(A), Y = toDouble(B);
  if (Op == "fadd") return fromDouble(X + Y);
  if (Op == "fsub") return fromDouble(X - Y);
  assert(Op == "fmul" && "an operation the generator does not make");
  return fromDouble(X * Y);
}

/// An icmp or fcmp predicate on two values whose integer type is i32 when
/// \p Is32.
bool compare(StringRef Pred, uint64_t A, uint64_t B, bool Is32) {
  int64_t SA = int64_t(A), SB = int64_t(B);
  uint64_t UA = Is32 ? uint32_t(A) : A, UB = Is32 ? uint32_t(B) : B;
  double X = toDouble(A), Y = toDouble(B);
  bool Ordered = X == X && Y == Y;
  if (Pred == "slt") return SA < SB;
  if (Pred == "sgt") return SA > SB;
  if (Pred == "sle") return SA <= SB;
  if (Pred == "sge") return SA >= SB;
  if (Pred == "eq") return A == B;
  if (Pred == "ne") return A != B;
  if (Pred == "ult") return UA < UB;
  if (Pred == "ule") return UA <= UB;
  if (Pred == "ugt") return UA > UB;
  if (Pred == "uge") return UA >= UB;
  if (Pred == "olt") return Ordered && X < Y;
  if (Pred == "ogt") return Ordered && X > Y;
  if (Pred == "oeq") return Ordered && X == Y;
  if (Pred == "ole") return Ordered && X <= Y;
  assert(Pred == "une" && "a predicate the generator does not make");
  return !Ordered || X != Y;
}

class Interpreter {
public:
  Interpreter(const Program &P, uint64_t A, uint64_t N) : P(P), N(N) {
    Vals.assign(P.NumVars() + P.NumLoops(), std::nullopt);
    for (unsigned I = 0; I < P.NumVars(); ++I)
      if (P.Initialised[I])
        Vals[I] = P.Types[I] == Ty::F64 ? fromDouble(double(int64_t(A + I)))
                                        : wrap(A + I, P.Types[I] == Ty::I32);
  }
  /// The result, or nullopt after a read of a variable without a value.
  std::optional<uint64_t> run();

private:
  enum class Flow { Next, Break, Continue, Return, Undefined };
  Flow stmts(const std::vector<Stmt> &L);
  Flow stmt(const Stmt &S);
  bool get(int Op, uint64_t &V) {
    if (!Vals[Op])
      return false;
    V = *Vals[Op];
    return true;
  }

  const Program &P;
  uint64_t N;
  std::vector<std::optional<uint64_t>> Vals;
  uint64_t Result = 0;
};

std::optional<uint64_t> Interpreter::run() {
  Flow F = stmts(P.Body);
  if (F == Flow::Undefined)
    return std::nullopt;
  if (F == Flow::Return)
    return Result;
  uint64_t H = 0;
  for (unsigned I = 0; I < P.NumVars(); ++I) {
    uint64_t V;
    if (!get(int(I), V))
      return std::nullopt;
    H = H * 31 + V;
  }
  return H;
}

Interpreter::Flow Interpreter::stmts(const std::vector<Stmt> &L) {
  for (const Stmt &S : L) {
    Flow F = stmt(S);
    if (F != Flow::Next)
      return F;
  }
  return Flow::Next;
}

Interpreter::Flow Interpreter::stmt(const Stmt &S) {
  uint64_t A = 0, B = 0;
  switch (S.K) {
  case Stmt::Arith:
  case Stmt::Copy:
  case Stmt::Const: {
    Ty T = P.Types[S.Dst];
    if (S.K == Stmt::Const) {
      Vals[S.Dst] = constant(S.C, T);
      return Flow::Next;
    }
    if (!get(S.A, A))
      return Flow::Undefined;
    if (S.K == Stmt::Arith) {
      if (S.B >= 0 && !get(S.B, B))
        return Flow::Undefined;
      A = arith(S.Op, A, S.B >= 0 ? B : constant(S.C, T));
    }
    Vals[S.Dst] = T == Ty::F64 ? A : wrap(A, T == Ty::I32);
    return Flow::Next;
  }
  case Stmt::If: {
    if (!get(S.A, A) || (S.B >= 0 && !get(S.B, B)))
      return Flow::Undefined;
    if (S.B < 0)
      B = constant(S.C, S.CmpTy);
    if (compare(S.Op, A, B, S.CmpTy == Ty::I32))
      return stmts(S.Then);
    return S.HasElse ? stmts(S.Else) : Flow::Next;
  }
  case Stmt::For: {
    // 128 bits: the counter may step past a bound at its type's limit.
    __int128 From = S.FromN ? int64_t(N) : S.From,
             To = S.ToN ? int64_t(N) : S.To;
    int Counter = int(P.NumVars() + S.Loop);
    for (__int128 I = From; S.Downto ? I > To : I < To;
         I += S.Downto ? -S.Step : S.Step) {
      Vals[Counter] = uint64_t(int64_t(I));
      Flow F = stmts(S.Then);
      if (F == Flow::Break)
        break;
      if (F == Flow::Return || F == Flow::Undefined)
        return F;
    }
    return Flow::Next;
  }
  case Stmt::While: {
    int Counter = int(P.NumVars() + S.Loop);
    for (int64_t I = 0; I < S.To;) {
      Vals[Counter] = uint64_t(++I);
      Flow F = stmts(S.Then);
      if (F == Flow::Break)
        break;
      if (F == Flow::Return || F == Flow::Undefined)
        return F;
    }
    return Flow::Next;
  }
  case Stmt::Irreducible: {
    if (!get(S.A, A) || (S.B >= 0 && !get(S.B, B)))
      return Flow::Undefined;
    if (S.B < 0)
      B = uint64_t(S.C);
    bool InA = compare(S.Op, A, B, false);
    int Counter = int(P.NumVars() + S.Loop);
    Vals[Counter] = 0;
    for (;;) {
      if (InA)
        if (Flow F = stmts(S.Then); F != Flow::Next)
          return F;
      if (Flow F = stmts(S.Else); F != Flow::Next)
        return F;
      Vals[Counter] = *Vals[Counter] + 1;
      if (int64_t(*Vals[Counter]) >= S.To)
        return Flow::Next;
      InA = true;
    }
  }
  case Stmt::Break:
    return Flow::Break;
  case Stmt::Continue:
    return Flow::Continue;
  case Stmt::Ret:
    if (S.A >= 0 && !get(S.A, Result))
      return Flow::Undefined;
    if (S.A < 0)
      Result = uint64_t(S.C);
    return Flow::Return;
  }
  return Flow::Next;
}

//===----------------------------------------------------------------------===//
// Text: the dialect, and an alloca form in plain LLVM IR
//===----------------------------------------------------------------------===//

/// The name and type of an operand; loop counters are %iN (i64).
std::string opName(const Program &P, int Op) {
  if (Op < int(P.NumVars()))
    return "%v" + std::to_string(Op);
  return "%i" + std::to_string(Op - int(P.NumVars()));
}
const char *typeName(Ty T) {
  return T == Ty::I32 ? "i32" : T == Ty::I64 ? "i64" : "double";
}
const char *opType(const Program &P, int Op) { return typeName(P.type(Op)); }
/// The constant \p C as an operand of type \p T.
std::string constText(int64_t C, Ty T) {
  return std::to_string(C) + (T == Ty::F64 ? ".0" : "");
}
/// The type of the second operand of \p S: the compared type for an If, the
/// assigned variable's type for arithmetic.
Ty rhsType(const Program &P, const Stmt &S) {
  return S.K == Stmt::If ? S.CmpTy
         : S.K == Stmt::Irreducible ? Ty::I64
                                    : P.type(S.Dst);
}

class DialectPrinter {
public:
  explicit DialectPrinter(const Program &P) : P(P) {}
  std::string print();

private:
  void stmts(const std::vector<Stmt> &L, unsigned Indent);
  void stmt(const Stmt &S, unsigned Indent);
  std::string rhs(const Stmt &S) {
    return S.B >= 0 ? opName(P, S.B) : constText(S.C, rhsType(P, S));
  }
  const Program &P;
  std::string Out;
  unsigned Temps = 0;
};

std::string DialectPrinter::print() {
  Out = "define i64 @f(i64 %a, i64 %n) {\nentry:\n";
  for (unsigned I = 0; I < P.NumVars(); ++I) {
    if (!P.Initialised[I])
      continue;
    std::string V = "%v" + std::to_string(I);
    std::string A = "%a" + std::to_string(I);
    Out += "  " + A + " = add i64 %a, " + std::to_string(I) + "\n";
    if (P.Types[I] == Ty::I32)
      Out += "  " + V + " = trunc i64 " + A + " to i32\n";
    else if (P.Types[I] == Ty::F64)
      Out += "  " + V + " = sitofp i64 " + A + " to double\n";
    else
      Out += "  " + V + " = i64 " + A + "\n";
  }
  stmts(P.Body, 1);
  Out += "  %h = i64 0\n";
  for (unsigned I = 0; I < P.NumVars(); ++I) {
    std::string V = "%v" + std::to_string(I);
    if (P.Types[I] != Ty::I64) {
      Out += "  %x" + std::to_string(I) +
             (P.Types[I] == Ty::I32 ? " = sext i32 " : " = bitcast double ") +
             V + " to i64\n";
      V = "%x" + std::to_string(I);
    }
    Out += "  %h = mul i64 %h, 31\n  %h = add i64 %h, " + V + "\n";
  }
  Out += "  ret i64 %h\n}\n";
  return Out;
}

void DialectPrinter::stmts(const std::vector<Stmt> &L, unsigned Indent) {
  for (const Stmt &S : L)
    stmt(S, Indent);
}

void DialectPrinter::stmt(const Stmt &S, unsigned Indent) {
  std::string Pad(2 * Indent, ' ');
  switch (S.K) {
  case Stmt::Arith:
    Out += Pad + opName(P, S.Dst) + " = " + S.Op + " " + opType(P, S.Dst) +
           " " + opName(P, S.A) + ", " + rhs(S) + "\n";
    return;
  case Stmt::Copy:
    Out += Pad + opName(P, S.Dst) + " = " + opType(P, S.Dst) + " " +
           opName(P, S.A) + "\n";
    return;
  case Stmt::Const:
    Out += Pad + opName(P, S.Dst) + " = " + opType(P, S.Dst) + " " +
           constText(S.C, P.type(S.Dst)) + "\n";
    return;
  case Stmt::If: {
    std::string C = "%c" + std::to_string(Temps++);
    Out += Pad + C + (S.CmpTy == Ty::F64 ? " = fcmp " : " = icmp ") + S.Op +
           " " + opType(P, S.A) + " " + opName(P, S.A) + ", " + rhs(S) + "\n";
    Out += Pad + "if " + C + " {\n";
    stmts(S.Then, Indent + 1);
    if (S.HasElse) {
      Out += Pad + "} else {\n";
      stmts(S.Else, Indent + 1);
    }
    Out += Pad + "}\n";
    return;
  }
  case Stmt::For: {
    std::string From = S.FromN ? "%n" : std::to_string(S.From);
    std::string To = S.ToN ? "%n" : std::to_string(S.To);
    Out += Pad + "for " + typeName(P.LoopTypes[S.Loop]) + " %i" +
           std::to_string(S.Loop) + " in " + From +
           (S.Downto ? " downto " : " to ") + To;
    if (S.Step != 1)
      Out += " step " + std::to_string(S.Step);
    Out += " {\n";
    stmts(S.Then, Indent + 1);
    Out += Pad + "}\n";
    return;
  }
  case Stmt::While: {
    std::string I = "%i" + std::to_string(S.Loop);
    std::string G = "%g" + std::to_string(S.Loop);
    std::string Limit = std::to_string(S.To);
    Out += Pad + I + " = i64 0\n";
    Out += Pad + G + " = icmp slt i64 " + I + ", " + Limit + "\n";
    Out += Pad + "while " + G + " {\n";
    Out += Pad + "  " + I + " = add i64 " + I + ", 1\n";
    Out += Pad + "  " + G + " = icmp slt i64 " + I + ", " + Limit + "\n";
    stmts(S.Then, Indent + 1);
    Out += Pad + "}\n";
    return;
  }
  case Stmt::Irreducible: {
    std::string K = std::to_string(S.Loop);
    std::string I = "%i" + K, C = "%c" + std::to_string(Temps++),
                D = "%j" + K, L = "%irr" + K;
    Out += Pad + I + " = i64 0\n";
    Out += Pad + C + " = icmp " + S.Op + " i64 " + opName(P, S.A) + ", " +
           rhs(S) + "\n";
    Out += Pad + "br i1 " + C + ", label " + L + ".a, label " + L + ".b\n";
    Out += Pad + L.substr(1) + ".a:\n";
    stmts(S.Then, Indent);
    Out += Pad + "br label " + L + ".b\n";
    Out += Pad + L.substr(1) + ".b:\n";
    stmts(S.Else, Indent);
    Out += Pad + I + " = add i64 " + I + ", 1\n";
    Out += Pad + D + " = icmp slt i64 " + I + ", " + std::to_string(S.To) +
           "\n";
    Out += Pad + "br i1 " + D + ", label " + L + ".a, label " + L + ".x\n";
    Out += Pad + L.substr(1) + ".x:\n";
    return;
  }
  case Stmt::Break:
    Out += Pad + "break\n";
    return;
  case Stmt::Continue:
    Out += Pad + "continue\n";
    return;
  case Stmt::Ret:
    Out += Pad + "ret i64 " +
           (S.A >= 0 ? opName(P, S.A) : std::to_string(S.C)) + "\n";
    return;
  }
}

/// The same program as clang would give it at -O0: a stack slot per
/// variable, loads and stores around every use and assignment, and the
/// control flow lowered here, the way Flatten.h documents it.
class AllocaPrinter {
public:
  explicit AllocaPrinter(const Program &P) : P(P) {}
  std::string print();

private:
  std::string load(int Op);
  void store(int Op, const std::string &V);
  std::string temp() { return "%t" + std::to_string(Temps++); }
  std::string label() { return "L" + std::to_string(Labels++); }
  void startBlock(const std::string &L) {
    Out += L + ":\n";
    Open = true;
  }
  void br(const std::string &L) {
    if (Open)
      Out += "  br label %" + L + "\n";
    Open = false;
  }
  void stmts(const std::vector<Stmt> &L);
  void stmt(const Stmt &S);
  std::string rhs(const Stmt &S) {
    return S.B >= 0 ? load(S.B) : constText(S.C, rhsType(P, S));
  }

  const Program &P;
  std::string Out;
  unsigned Temps = 0, Labels = 0;
  bool Open = false;
  struct LoopLabels {
    std::string Continue, Break;
  };
  std::vector<LoopLabels> Loops;
};

std::string AllocaPrinter::load(int Op) {
  std::string T = temp();
  Out += "  " + T + " = load " + opType(P, Op) + ", ptr " + opName(P, Op) +
         ".s\n";
  return T;
}

void AllocaPrinter::store(int Op, const std::string &V) {
  Out += "  store " + std::string(opType(P, Op)) + " " + V + ", ptr " +
         opName(P, Op) + ".s\n";
}

std::string AllocaPrinter::print() {
  Out = "define i64 @f(i64 %a, i64 %n) {\nentry:\n";
  Open = true;
  for (unsigned I = 0; I < P.NumVars() + P.NumLoops(); ++I)
    Out += "  " + opName(P, int(I)) + ".s = alloca " + opType(P, int(I)) +
           "\n";
  // A while loop's condition is a variable of the program, %gN.
  for (unsigned I = 0; I < P.NumLoops(); ++I)
    Out += "  %g" + std::to_string(I) + ".s = alloca i1\n";
  for (unsigned I = 0; I < P.NumVars(); ++I) {
    if (!P.Initialised[I])
      continue;
    std::string A = temp();
    Out += "  " + A + " = add i64 %a, " + std::to_string(I) + "\n";
    if (P.Types[I] != Ty::I64) {
      std::string T = temp();
      Out += "  " + T +
             (P.Types[I] == Ty::I32 ? " = trunc i64 " : " = sitofp i64 ") + A +
             " to " + opType(P, int(I)) + "\n";
      A = T;
    }
    store(int(I), A);
  }
  stmts(P.Body);
  if (!Open)
    startBlock(label());
  std::string H = "0";
  for (unsigned I = 0; I < P.NumVars(); ++I) {
    std::string V = load(int(I));
    if (P.Types[I] != Ty::I64) {
      std::string X = temp();
      Out += "  " + X +
             (P.Types[I] == Ty::I32 ? " = sext i32 " : " = bitcast double ") +
             V + " to i64\n";
      V = X;
    }
    std::string M = temp(), S = temp();
    Out += "  " + M + " = mul i64 " + H + ", 31\n";
    Out += "  " + S + " = add i64 " + M + ", " + V + "\n";
    H = S;
  }
  Out += "  ret i64 " + H + "\n}\n";
  return Out;
}

void AllocaPrinter::stmts(const std::vector<Stmt> &L) {
  for (const Stmt &S : L) {
    if (!Open)
      startBlock(label()); // code after a jump: unreachable
    stmt(S);
  }
}

void AllocaPrinter::stmt(const Stmt &S) {
  switch (S.K) {
  case Stmt::Arith: {
    std::string A = load(S.A), B = rhs(S), T = temp();
    Out += "  " + T + " = " + S.Op + " " + opType(P, S.Dst) + " " + A + ", " +
           B + "\n";
    store(S.Dst, T);
    return;
  }
  case Stmt::Copy:
    store(S.Dst, load(S.A));
    return;
  case Stmt::Const:
    store(S.Dst, constText(S.C, P.type(S.Dst)));
    return;
  case Stmt::If: {
    std::string A = load(S.A), B = rhs(S), C = temp();
    Out += "  " + C + (S.CmpTy == Ty::F64 ? " = fcmp " : " = icmp ") + S.Op +
           " " + opType(P, S.A) + " " + A + ", " + B + "\n";
    std::string Then = label(), Else = S.HasElse ? label() : "",
                End = label();
    Out += "  br i1 " + C + ", label %" + Then + ", label %" +
           (S.HasElse ? Else : End) + "\n";
    startBlock(Then);
    stmts(S.Then);
    br(End);
    if (S.HasElse) {
      startBlock(Else);
      stmts(S.Else);
      br(End);
    }
    startBlock(End);
    return;
  }
  case Stmt::For: {
    int Counter = int(P.NumVars() + S.Loop);
    std::string T = opType(P, Counter);
    std::string To = S.ToN ? "%n" : std::to_string(S.To);
    store(Counter, S.FromN ? "%n" : std::to_string(S.From));
    std::string Cond = label(), Body = label(),
                Latch = S.Step != 1 ? label() : "", Inc = label(),
                End = label();
    br(Cond);
    startBlock(Cond);
    std::string I = load(Counter), More = temp();
    Out += "  " + More + " = icmp " + (S.Downto ? "sgt " : "slt ") + T + " " +
           I + ", " + To + "\n";
    Out += "  br i1 " + More + ", label %" + Body + ", label %" + End + "\n";
    Open = false;
    startBlock(Body);
    Loops.push_back({S.Step != 1 ? Latch : Inc, End});
    stmts(S.Then);
    Loops.pop_back();
    br(S.Step != 1 ? Latch : Inc);
    if (S.Step != 1) {
      startBlock(Latch);
      std::string J = load(Counter), Left = temp(), Last = temp();
      Out += "  " + Left + " = sub " + T + " " + (S.Downto ? J : To) + ", " +
             (S.Downto ? To : J) + "\n";
      Out += "  " + Last + " = icmp ule " + T + " " + Left + ", " +
             std::to_string(S.Step) + "\n";
      Out += "  br i1 " + Last + ", label %" + End + ", label %" + Inc + "\n";
      Open = false;
    }
    startBlock(Inc);
    std::string K = load(Counter), Next = temp();
    Out += "  " + Next + " = " + (S.Downto ? "sub " : "add ") + T + " " + K +
           ", " + std::to_string(S.Step) + "\n";
    store(Counter, Next);
    br(Cond);
    startBlock(End);
    return;
  }
  case Stmt::While: {
    int Counter = int(P.NumVars() + S.Loop);
    std::string Limit = std::to_string(S.To);
    std::string Slot = "%g" + std::to_string(S.Loop) + ".s";
    auto StoreCond = [&](const std::string &I) {
      std::string G = temp();
      Out += "  " + G + " = icmp slt i64 " + I + ", " + Limit + "\n";
      Out += "  store i1 " + G + ", ptr " + Slot + "\n";
    };
    store(Counter, "0");
    StoreCond("0");
    std::string Cond = label(), Body = label(), End = label();
    br(Cond);
    startBlock(Cond);
    std::string G = temp();
    Out += "  " + G + " = load i1, ptr " + Slot + "\n";
    Out += "  br i1 " + G + ", label %" + Body + ", label %" + End + "\n";
    Open = false;
    startBlock(Body);
    std::string J = load(Counter), Next = temp();
    Out += "  " + Next + " = add i64 " + J + ", 1\n";
    store(Counter, Next);
    StoreCond(Next);
    Loops.push_back({Cond, End});
    stmts(S.Then);
    Loops.pop_back();
    br(Cond);
    startBlock(End);
    return;
  }
  case Stmt::Irreducible: {
    int Counter = int(P.NumVars() + S.Loop);
    store(Counter, "0");
    std::string A = load(S.A), B = rhs(S), C = temp();
    Out += "  " + C + " = icmp " + S.Op + " i64 " + A + ", " + B + "\n";
    std::string LA = label(), LB = label(), LX = label();
    Out += "  br i1 " + C + ", label %" + LA + ", label %" + LB + "\n";
    Open = false;
    startBlock(LA);
    stmts(S.Then);
    br(LB);
    startBlock(LB);
    stmts(S.Else);
    if (!Open)
      startBlock(label());
    std::string J = load(Counter), Next = temp(), More = temp();
    Out += "  " + Next + " = add i64 " + J + ", 1\n";
    store(Counter, Next);
    Out += "  " + More + " = icmp slt i64 " + Next + ", " +
           std::to_string(S.To) + "\n";
    Out += "  br i1 " + More + ", label %" + LA + ", label %" + LX + "\n";
    Open = false;
    startBlock(LX);
    return;
  }
  case Stmt::Break:
    br(Loops.back().Break);
    return;
  case Stmt::Continue:
    br(Loops.back().Continue);
    return;
  case Stmt::Ret:
    Out += "  ret i64 " + (S.A >= 0 ? load(S.A) : std::to_string(S.C)) + "\n";
    Open = false;
    return;
  }
}

//===----------------------------------------------------------------------===//
// Running and inspecting LLVM IR
//===----------------------------------------------------------------------===//

/// Runs \p F, which must be free of memory operations, on (A, N). Fails on a
/// branch on poison, a poison result, or too many steps.
std::optional<uint64_t> runIR(Function &F, uint64_t A, uint64_t N,
                              std::string &Why) {
  DenseMap<const Value *, uint64_t> Vals;
  SmallPtrSet<const Value *, 8> Poison;
  auto It = F.arg_begin();
  Vals[&*It++] = A;
  Vals[&*It] = N;
  auto Get = [&](const Value *V, bool &IsPoison) -> uint64_t {
    if (isa<PoisonValue>(V) || isa<UndefValue>(V) || Poison.count(V)) {
      IsPoison = true;
      return 0;
    }
    if (auto *C = dyn_cast<ConstantInt>(V))
      return C->getValue().getSExtValue();
    if (auto *C = dyn_cast<ConstantFP>(V))
      return fromDouble(C->getValueAPF().convertToDouble());
    return Vals.lookup(V);
  };
  BasicBlock *Prev = nullptr, *BB = &F.getEntryBlock();
  for (unsigned Steps = 0; Steps < 1000000; ++Steps) {
    // Phis read their operands all at once, on entry to the block.
    SmallVector<std::pair<PHINode *, std::pair<uint64_t, bool>>, 8> PhiVals;
    for (PHINode &Phi : BB->phis()) {
      bool P = false;
      uint64_t V = Get(Phi.getIncomingValueForBlock(Prev), P);
      PhiVals.push_back({&Phi, {V, P}});
    }
    for (auto &[Phi, V] : PhiVals) {
      Vals[Phi] = V.first;
      if (V.second)
        Poison.insert(Phi);
      else
        Poison.erase(Phi);
    }
    for (Instruction &I : *BB) {
      if (isa<PHINode>(I))
        continue;
      bool P = false;
      if (auto *Br = dyn_cast<BranchInst>(&I)) {
        Prev = BB;
        if (Br->isUnconditional()) {
          BB = Br->getSuccessor(0);
        } else {
          uint64_t C = Get(Br->getCondition(), P);
          if (P) {
            Why = "branch on poison";
            return std::nullopt;
          }
          BB = Br->getSuccessor(C & 1 ? 0 : 1);
        }
        break;
      }
      if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
        uint64_t V = Get(Ret->getReturnValue(), P);
        if (P) {
          Why = "poison returned";
          return std::nullopt;
        }
        return V;
      }
      uint64_t R = 0;
      bool Is32 = I.getType()->isIntegerTy(32);
      if (auto *B = dyn_cast<BinaryOperator>(&I)) {
        uint64_t X = Get(B->getOperand(0), P), Y = Get(B->getOperand(1), P);
        R = wrap(arith(B->getOpcodeName(), X, Y), Is32);
        if (I.getType()->isIntegerTy(1))
          R = R & 1 ? ~0ull : 0;
      } else if (auto *C = dyn_cast<CmpInst>(&I)) {
        uint64_t X = Get(C->getOperand(0), P), Y = Get(C->getOperand(1), P);
        bool Op32 = C->getOperand(0)->getType()->isIntegerTy(32);
        R = compare(CmpInst::getPredicateName(C->getPredicate()), X, Y, Op32)
                ? ~0ull
                : 0;
      } else if (isa<TruncInst>(I) || isa<SExtInst>(I)) {
        R = wrap(Get(I.getOperand(0), P), Is32);
      } else if (isa<SIToFPInst>(I) &&
                 I.getOperand(0)->getType()->isIntegerTy(64)) {
        R = fromDouble(double(int64_t(Get(I.getOperand(0), P))));
      } else if (isa<BitCastInst>(I)) {
        R = Get(I.getOperand(0), P);
      } else {
        Why = "cannot run '" + std::string(I.getOpcodeName()) + "'";
        return std::nullopt;
      }
      Vals[&I] = R;
      if (P)
        Poison.insert(&I);
      else
        Poison.erase(&I);
    }
  }
  Why = "too many steps";
  return std::nullopt;
}

struct PhiReport {
  unsigned Count = 0;
  std::string Problem; ///< Empty when every phi is a real merge.
};

/// Counts the phis of \p F and, when \p Strict, checks that each merges at
/// least two values over the edges from reachable blocks, and sits in a
/// reachable block.
PhiReport inspectPhis(Function &F, bool Strict) {
  PhiReport R;
  SmallPtrSet<BasicBlock *, 32> Reachable;
  SmallVector<BasicBlock *, 32> Stack{&F.getEntryBlock()};
  Reachable.insert(&F.getEntryBlock());
  while (!Stack.empty())
    for (BasicBlock *S : successors(Stack.pop_back_val()))
      if (Reachable.insert(S).second)
        Stack.push_back(S);
  for (BasicBlock &BB : F)
    for (PHINode &Phi : BB.phis()) {
      ++R.Count;
      if (!Strict || !R.Problem.empty())
        continue;
      if (!Reachable.count(&BB)) {
        R.Problem = "a phi in unreachable code: " + Phi.getName().str();
        continue;
      }
      SmallPtrSet<Value *, 4> Distinct;
      for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K)
        if (Reachable.count(Phi.getIncomingBlock(K)) &&
            Phi.getIncomingValue(K) != &Phi)
          Distinct.insert(Phi.getIncomingValue(K));
      if (Distinct.size() < 2)
        R.Problem = "a trivial phi: " + Phi.getName().str();
    }
  return R;
}

std::string print(const Function &F) {
  std::string S;
  raw_string_ostream OS(S);
  F.print(OS);
  return S;
}

//===----------------------------------------------------------------------===//
// The property
//===----------------------------------------------------------------------===//

/// --show-lower: print the programs where Braun has fewer phis.
bool ShowLower = false;

struct Totals {
  unsigned long Programs = 0, Defined = 0, Rejected = 0;
  /// Rejected programs checked again under --allow-undef, and their runs
  /// that read a variable without a value (whose results are not compared).
  unsigned long UndefChecked = 0, UndefRuns = 0;
  unsigned long BraunPhis = 0, Mem2RegPhis = 0, LLVMPhis = 0;
  unsigned long BelowMem2Reg = 0, BelowLLVM = 0;
  unsigned long Failures = 0;
};

struct Outcome {
  std::unique_ptr<Module> M;
  std::string Error;
};

Outcome lower(const std::string &Text, llq::SSAMode Mode, LLVMContext &Ctx,
              bool AllowUndef = false) {
  llq::FrontendOptions Opts;
  Opts.SSA = Mode;
  Opts.AllowUndef = AllowUndef;
  Expected<std::unique_ptr<Module>> M =
      llq::parseModuleString(Text, "gen.ll", Ctx, Opts);
  if (!M)
    return {nullptr, toString(M.takeError())};
  return {std::move(*M), ""};
}

/// LLVM's PromoteMemToReg on every alloca of the entry block, as
/// `opt -passes=mem2reg` does.
std::unique_ptr<Module> promoteAllocaForm(const std::string &Text,
                                          LLVMContext &Ctx,
                                          std::string &Error) {
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseAssemblyString(Text, Diag, Ctx);
  if (!M) {
    raw_string_ostream OS(Error);
    Diag.print("alloca-form", OS);
    return nullptr;
  }
  Function &F = *M->getFunction("f");
  std::vector<AllocaInst *> Slots;
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (isAllocaPromotable(AI))
        Slots.push_back(AI);
  DominatorTree DT(F);
  PromoteMemToReg(Slots, DT);
  raw_string_ostream OS(Error);
  if (verifyModule(*M, &OS))
    return nullptr;
  return M;
}

using ArgSet = uint64_t[3][2];

/// Compares the modules both modes made of \p P, and LLVM's PromoteMemToReg
/// on its alloca form: results against the interpreter on \p Args, and phis.
/// Under \p AllowUndef a run that reads a variable without a value has no
/// expected result.
std::string compareModules(const Program &P, Module &Braun, Module &Ref,
                           const ArgSet &Args, bool AllowUndef, Totals &T) {
  std::string AllocaText = AllocaPrinter(P).print();
  std::string Error;
  std::unique_ptr<Module> LL =
      promoteAllocaForm(AllocaText, Braun.getContext(), Error);
  if (!LL)
    return "the alloca form is broken:\n" + Error + "\n" + AllocaText;
  Function &FB = *Braun.getFunction("f");
  Function &FR = *Ref.getFunction("f");
  Function &FL = *LL->getFunction("f");
  for (auto &AN : Args) {
    Interpreter I(P, AN[0], AN[1]);
    std::optional<uint64_t> Expected = I.run();
    if (!Expected && AllowUndef) {
      ++T.UndefRuns;
      continue;
    }
    if (!Expected)
      return "accepted, but reads a variable without a value when run";
    for (Function *F : {&FB, &FR, &FL}) {
      std::string Why;
      std::optional<uint64_t> Got = runIR(*F, AN[0], AN[1], Why);
      if (Got != Expected)
        return "wrong result (" + Why + ") from:\n" + print(*F);
    }
  }
  PhiReport RB = inspectPhis(FB, true);
  if (!RB.Problem.empty())
    return RB.Problem + " in:\n" + print(FB);
  unsigned NR = inspectPhis(FR, false).Count, NL = inspectPhis(FL, false).Count;
  T.BraunPhis += RB.Count;
  T.Mem2RegPhis += NR;
  T.LLVMPhis += NL;
  T.BelowMem2Reg += RB.Count < NR;
  T.BelowLLVM += RB.Count < NL;
  if (ShowLower && (RB.Count < NR || RB.Count < NL))
    std::printf("braun %u, mem2reg %u, PromoteMemToReg %u phis:\n%s\n", RB.Count,
                NR, NL, DialectPrinter(P).print().c_str());
  if (RB.Count > NR || RB.Count > NL)
    return "more phis than mem2reg (" + std::to_string(RB.Count) + " > " +
           std::to_string(NR) + " / " + std::to_string(NL) + ") in:\n" +
           print(FB) + "\n--- mem2reg:\n" + print(FR) + "\n--- LLVM:\n" +
           print(FL);
  return "";
}

/// Checks one program; returns a description of what went wrong, or "".
std::string checkProgram(const Program &P, uint64_t Seed, Totals &T) {
  std::string Text = DialectPrinter(P).print();
  LLVMContext Ctx;
  Outcome Braun = lower(Text, llq::SSAMode::Braun, Ctx);
  Outcome Ref = lower(Text, llq::SSAMode::Mem2Reg, Ctx);
  if (Braun.Error != Ref.Error)
    return "the modes disagree:\n--- braun:\n" + Braun.Error +
           "\n--- mem2reg:\n" + Ref.Error;
  std::mt19937_64 ArgRng(Seed);
  ArgSet Args;
  for (auto &AN : Args) {
    AN[0] = ArgRng() % 1000 - 500;
    AN[1] = ArgRng() % 7;
  }
  if (Braun.M) {
    ++T.Defined;
    return compareModules(P, *Braun.M, *Ref.M, Args, false, T);
  }
  // A name assigned nowhere is no variable: LLVM's own error.
  if (Braun.Error.find("use of undefined value") != std::string::npos) {
    ++T.Rejected;
    return "";
  }
  if (Braun.Error.find("is read here but is not assigned on every path") ==
      std::string::npos)
    return "unexpected error:\n" + Braun.Error;
  ++T.Rejected;
  // The same program under --allow-undef: such reads are poison.
  Outcome UBraun = lower(Text, llq::SSAMode::Braun, Ctx, true);
  Outcome URef = lower(Text, llq::SSAMode::Mem2Reg, Ctx, true);
  if (!UBraun.M || !URef.M)
    return "rejected under --allow-undef:\n--- braun:\n" + UBraun.Error +
           "\n--- mem2reg:\n" + URef.Error;
  ++T.UndefChecked;
  return compareModules(P, *UBraun.M, *URef.M, Args, true, T);
}

} // namespace

int main(int argc, char **argv) {
  uint64_t Seed = 1;
  unsigned long Count = 3000;
  bool Verbose = false;
  for (int I = 1; I < argc; ++I) {
    if (!strncmp(argv[I], "--seed=", 7))
      Seed = std::strtoull(argv[I] + 7, nullptr, 10);
    else if (!strncmp(argv[I], "--count=", 8))
      Count = std::strtoul(argv[I] + 8, nullptr, 10);
    else if (!strcmp(argv[I], "--verbose"))
      Verbose = true;
    else if (!strcmp(argv[I], "--show-lower"))
      ShowLower = true;
    else {
      std::fprintf(stderr, "usage: %s [--seed=S] [--count=N] [--verbose] [--show-lower]\n",
                   argv[0]);
      return 2;
    }
  }
  Totals T;
  for (unsigned long K = 0; K < Count; ++K) {
    uint64_t ProgramSeed = Seed * 1000003 + K;
    // One program in five may read variables it never assigned.
    Program P = Generator(ProgramSeed).generate(K % 5 == 4);
    ++T.Programs;
    std::string Problem = checkProgram(P, ProgramSeed, T);
    if (Problem.empty())
      continue;
    ++T.Failures;
    if (T.Failures <= 3 || Verbose)
      std::printf("FAIL program %lu (seed %llu): %s\n--- program:\n%s\n", K,
                  (unsigned long long)ProgramSeed, Problem.c_str(),
                  DialectPrinter(P).print().c_str());
  }
  std::printf("programs %lu (accepted %lu, rejected for undefined reads %lu, "
              "of which checked under --allow-undef %lu), failures %lu\n",
              T.Programs, T.Defined, T.Rejected, T.UndefChecked, T.Failures);
  std::printf("runs under --allow-undef that read a variable without a value "
              "(no result compared): %lu\n",
              T.UndefRuns);
  std::printf("phis: braun %lu, --ssa=mem2reg %lu, LLVM PromoteMemToReg on "
              "the alloca form %lu\n",
              T.BraunPhis, T.Mem2RegPhis, T.LLVMPhis);
  std::printf("braun strictly lower: than --ssa=mem2reg in %lu programs, "
              "than PromoteMemToReg in %lu\n",
              T.BelowMem2Reg, T.BelowLLVM);
  return T.Failures ? 1 : 0;
}
