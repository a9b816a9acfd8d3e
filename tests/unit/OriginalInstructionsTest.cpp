//===- OriginalInstructionsTest.cpp - The original instruction tests ------===//
//
// The Instructions and Module tests of the Haskell quasi-quoter llquote
// descends from, case by case, restated in LLVM 19 syntax. The original
// compared each quote with an instruction or a module written out as a
// Haskell AST. Here each instruction quote is emitted into a function being
// built, next to the same instruction built through LLVM's C++ API, and the
// two must be identical (Instruction::isIdenticalTo) and print alike; the
// original's helper quotes with antiquotes, once bound, must equal the
// literal quote as well. The module quotes must print like the module built
// through the API.
//
// Where LLVM 19 no longer reads the original's text, the case says what
// replaces it: typed pointers are `ptr`, `singlethread` is
// `syncscope("singlethread")`, cmpxchg takes a failure ordering, a constant
// getelementptr names its source type, and each constant expression LLVM 19
// removed becomes the instruction computing the same value, while the old
// spelling must be rejected.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llquote/Template.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include <doctest/doctest.h>
#include <functional>
#include <string>
#include <vector>

using namespace llq;
using namespace llvm;
using llq::test::emptyModule;
using llq::test::printModule;
using llq::test::printedQuote;

namespace {

//===----------------------------------------------------------------------===//
// The function the instruction quotes are emitted into
//===----------------------------------------------------------------------===//

/// One case's module. Its function
///   define void @t(i32 %a0, float %a1, ptr %a2, i64 %a3, i1 %a4,
///                  <2 x i32> %a5, { i32, i32 } %a6)
/// is being built at B (its entry block, no terminator yet); the environment
/// names the arguments %0 ... %6, as the original's quotes do. The module
/// also declares every global the cases call or point to.
struct Fixture {
  LLVMContext Ctx;
  Module M{"q", Ctx};
  IRBuilder<> B{Ctx};
  Type *Void = Type::getVoidTy(Ctx);
  IntegerType *I1 = Type::getInt1Ty(Ctx);
  IntegerType *I8 = Type::getInt8Ty(Ctx);
  IntegerType *I16 = Type::getInt16Ty(Ctx);
  IntegerType *I32 = Type::getInt32Ty(Ctx);
  IntegerType *I64 = Type::getInt64Ty(Ctx);
  Type *Half = Type::getHalfTy(Ctx);
  Type *Float = Type::getFloatTy(Ctx);
  Type *Double = Type::getDoubleTy(Ctx);
  PointerType *Ptr = PointerType::get(Ctx, 0);
  Function *F = nullptr; ///< @t
  BasicBlock *Entry = nullptr;
  Values Env;

  Fixture() {
    Type *Params[] = {I32, Float, Ptr, I64, I1, FixedVectorType::get(I32, 2),
                      StructType::get(Ctx, {I32, I32})};
    F = Function::Create(FunctionType::get(Void, Params, false),
                         GlobalValue::ExternalLinkage, "t", M);
    for (unsigned N = 0; N < F->arg_size(); ++N) {
      F->getArg(N)->setName("a" + std::to_string(N));
      Env[std::to_string(N)] = F->getArg(N);
    }
    Entry = BasicBlock::Create(Ctx, "entry", F);
    B.SetInsertPoint(Entry);

    declare("dummy_fuc", {I32});
    declare("myfunc", {Ptr});
    declare("myfunc2", {I32});
    declare("myfunc3", {Float});
    declare("myfunc4", {I8});
    declare("myfunc5", {Double});
    declare("myfunc6", {PointerType::get(Ctx, 1)});
    declare("myfunc7", {I1});
    declare("myfunc8", {FixedVectorType::get(I32, 5)});
    declare("myfunc9", {FixedVectorType::get(I32, 3)});
    declare("myfunc10", {StructType::get(Ctx, {I32, I8})});
    declare("g", {I32, I16});
    global("myglobal_str", ArrayType::get(I8, 4));
    global("myptr", I8);
    global("myglobal", I32);
  }

  void declare(StringRef Name, ArrayRef<Type *> Params) {
    Function::Create(FunctionType::get(Void, Params, false),
                     GlobalValue::ExternalLinkage, Name, M);
  }
  void global(StringRef Name, Type *T) {
    new GlobalVariable(M, T, /*isConstant=*/false,
                       GlobalValue::ExternalLinkage, nullptr, Name);
  }

  /// Argument %N of @t.
  Value *a(unsigned N) const { return F->getArg(N); }
  Function *fn(StringRef Name) const { return M.getFunction(Name); }
  ConstantInt *i8(uint8_t V) { return B.getInt8(V); }
  ConstantInt *i32(uint32_t V) { return B.getInt32(V); }
  Constant *f32(double V) { return ConstantFP::get(Float, V); }
  Constant *f64(double V) { return ConstantFP::get(Double, V); }

  /// A new block of @t that the quotes may name as `label %Name`.
  BasicBlock *block(StringRef Name) {
    BasicBlock *BB = BasicBlock::Create(Ctx, Name, F);
    Env[Name] = BB;
    return BB;
  }
  BasicBlock *label(StringRef Name) const {
    return cast<BasicBlock>(Env.lookup(Name));
  }
};

/// The instruction as LLVM prints it, without its result's name: the two
/// instructions compared are different values of one function.
std::string printedRhs(const Instruction &I) {
  std::string S;
  raw_string_ostream OS(S);
  I.print(OS);
  OS.flush();
  StringRef R = StringRef(S).ltrim();
  if (!I.getType()->isVoidTy())
    R = R.split(" = ").second;
  return R.str();
}

/// The quoted instruction \p Got equals the one built through the API.
void checkSame(const Instruction *Got, const Instruction *Want) {
  REQUIRE(static_cast<bool>(Got));
  CHECK(Got->isIdenticalTo(Want));
  CHECK(printedRhs(*Got) == printedRhs(*Want));
}

/// Emits the instruction template \p T at X.B and returns the one
/// instruction it inserted.
Instruction *emitOne(const Template &T, Fixture &X, const Bindings &Bound = {},
                     FrontendOptions Opts = {}) {
  Expected<Emitted> E = T.emit(X.B, Bound, X.Env, Opts);
  if (!E) {
    std::string Msg = toString(E.takeError());
    FAIL(Msg);
  }
  REQUIRE(E->Instructions.size() == 1u);
  return E->Instructions.front();
}

/// Emits the terminator template \p T into a new block of \p Into and
/// returns that block's terminator.
Instruction *emitTerminator(const Template &T, Fixture &X, Function *Into,
                            const Values &Env, const Bindings &Bound = {},
                            FrontendOptions Opts = {}) {
  BasicBlock *BB = BasicBlock::Create(X.Ctx, "quoted", Into);
  X.B.SetInsertPoint(BB);
  Expected<Emitted> E = T.emit(X.B, Bound, Env, Opts);
  if (!E) {
    std::string Msg = toString(E.takeError());
    FAIL(Msg);
  }
  Instruction *Term = BB->getTerminator();
  REQUIRE(static_cast<bool>(Term));
  return Term;
}

/// Options for IR that LLVM's verifier rejects out of context, such as a
/// landingpad in a function without a personality.
FrontendOptions unverified() {
  FrontendOptions Opts;
  Opts.Verify = false;
  return Opts;
}

/// LLVM 19 no longer reads the constant expression in \p Quote.
void checkRejected(const char *Quote, Fixture &X) {
  INFO("the original's spelling: " << Quote);
  Template T(Quote, __FILE__, __LINE__, 1, Granularity::Instructions);
  Expected<Emitted> E = T.emit(X.B, {}, X.Env);
  REQUIRE_FALSE(static_cast<bool>(E));
  std::string Msg = toString(E.takeError());
  INFO(Msg);
  CHECK(Msg.find("constexprs are no longer supported") != std::string::npos);
}

//===----------------------------------------------------------------------===//
// The "regular" instruction cases
//===----------------------------------------------------------------------===//

/// Builds the expected instruction at X.B.
using Build = std::function<Value *(Fixture &)>;

struct InstrCase {
  const char *Name;
  const char *Quote; ///< One instruction, in LLVM 19 syntax.
  Build Want;
  /// Set where the original's constant expression is gone from LLVM 19: its
  /// call, which must now be rejected. Quote is then the instruction that
  /// computes the same value from the same constants.
  const char *Removed = nullptr;
  /// A landingpad outside any EH context: emitted without verification.
  bool Unverified = false;
};

Build icmp(CmpInst::Predicate P) {
  return [P](Fixture &X) -> Value * {
    return X.B.CreateICmp(P, X.a(0), X.a(0));
  };
}

Build fcmp(CmpInst::Predicate P) {
  return [P](Fixture &X) -> Value * {
    return X.B.CreateFCmp(P, X.a(1), X.a(1));
  };
}

/// `call void @Callee(<C>)`; C is folded as LLVM folds constant expressions.
Build callWith(const char *Callee, std::function<Constant *(Fixture &)> C) {
  return [=](Fixture &X) -> Value * {
    return X.B.CreateCall(X.fn(Callee), {C(X)});
  };
}

/// `call void @myfunc2(i32 <op> (i32 1, i32 2))` for add, sub and mul, which
/// LLVM 19 still has as constant expressions.
using WrapExpr = Constant *(*)(Constant *, Constant *, bool, bool);
Build wrapExprCall(WrapExpr Get, bool NUW, bool NSW) {
  return callWith("myfunc2", [=](Fixture &X) -> Constant * {
    return Get(X.i32(1), X.i32(2), NUW, NSW);
  });
}

constexpr unsigned NoFlags = 0, WithNSW = 1, WithNUW = 2, WithExact = 4;

/// `<Op> i32 L, R`, unfolded: a removed integer constant expression.
Build intOp(Instruction::BinaryOps Op, uint32_t L, uint32_t R,
            unsigned Flags = NoFlags) {
  return [=](Fixture &X) -> Value * {
    BinaryOperator *I =
        X.B.Insert(BinaryOperator::Create(Op, X.i32(L), X.i32(R)));
    if (Flags & WithNSW)
      I->setHasNoSignedWrap(true);
    if (Flags & WithNUW)
      I->setHasNoUnsignedWrap(true);
    if (Flags & WithExact)
      I->setIsExact(true);
    return I;
  };
}

/// `<Op> float L, R`, unfolded: a removed floating-point constant expression.
Build floatOp(Instruction::BinaryOps Op, double L, double R) {
  return [=](Fixture &X) -> Value * {
    return X.B.Insert(BinaryOperator::Create(Op, X.f32(L), X.f32(R)));
  };
}

/// A cast of a constant, unfolded: a removed cast constant expression.
Build castOp(Instruction::CastOps Op, std::function<Constant *(Fixture &)> V,
             std::function<Type *(Fixture &)> To) {
  return [=](Fixture &X) -> Value * {
    return X.B.Insert(CastInst::Create(Op, V(X), To(X)));
  };
}

/// `{ i32 A, i8 B }`.
Constant *structOf(Fixture &X, uint32_t A, uint8_t B) {
  return ConstantStruct::getAnon({X.i32(A), X.i8(B)});
}

LandingPadInst *landingPad(Fixture &X, bool Cleanup, Constant *Clause) {
  LandingPadInst *LP =
      X.B.CreateLandingPad(StructType::get(X.Ctx, {X.Ptr, X.I32}), 1);
  LP->setCleanup(Cleanup);
  LP->addClause(Clause);
  return LP;
}

const InstrCase RegularCases[] = {
    // Arithmetic and logic: %0 is the i32 argument, %1 the float one.
    {"add", "add i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateAdd(X.a(0), X.a(0)); }},
    {"nsw", "add nsw i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateNSWAdd(X.a(0), X.a(0)); }},
    {"nuw", "add nuw i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateNUWAdd(X.a(0), X.a(0)); }},
    {"fadd", "fadd float %1, %1",
     [](Fixture &X) -> Value * { return X.B.CreateFAdd(X.a(1), X.a(1)); }},
    {"sub", "sub i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateSub(X.a(0), X.a(0)); }},
    {"fsub", "fsub float %1, %1",
     [](Fixture &X) -> Value * { return X.B.CreateFSub(X.a(1), X.a(1)); }},
    {"mul", "mul i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateMul(X.a(0), X.a(0)); }},
    {"fmul", "fmul float %1, %1",
     [](Fixture &X) -> Value * { return X.B.CreateFMul(X.a(1), X.a(1)); }},
    {"udiv", "udiv i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateUDiv(X.a(0), X.a(0)); }},
    {"exact", "udiv exact i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateExactUDiv(X.a(0), X.a(0)); }},
    {"sdiv", "sdiv i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateSDiv(X.a(0), X.a(0)); }},
    {"fdiv", "fdiv float %1, %1",
     [](Fixture &X) -> Value * { return X.B.CreateFDiv(X.a(1), X.a(1)); }},
    {"urem", "urem i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateURem(X.a(0), X.a(0)); }},
    {"srem", "srem i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateSRem(X.a(0), X.a(0)); }},
    {"frem", "frem float %1, %1",
     [](Fixture &X) -> Value * { return X.B.CreateFRem(X.a(1), X.a(1)); }},
    {"shl", "shl i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateShl(X.a(0), X.a(0)); }},
    {"ashr", "ashr i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateAShr(X.a(0), X.a(0)); }},
    {"lshr", "lshr i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateLShr(X.a(0), X.a(0)); }},
    {"and", "and i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateAnd(X.a(0), X.a(0)); }},
    {"or", "or i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateOr(X.a(0), X.a(0)); }},
    {"xor", "xor i32 %0, %0",
     [](Fixture &X) -> Value * { return X.B.CreateXor(X.a(0), X.a(0)); }},

    // Memory. Without `align`, LLVM 19's assembler gives allocas the
    // preferred and loads and stores the ABI alignment of the type, and
    // atomics its store size: 4 for i32 under the default data layout.
    {"alloca", "alloca i32",
     [](Fixture &X) -> Value * { return X.B.CreateAlloca(X.I32); }},
    {"alloca tricky", "alloca i7, i32 2, align 128",
     [](Fixture &X) -> Value * {
       AllocaInst *A = X.B.CreateAlloca(X.B.getIntNTy(7), X.i32(2));
       A->setAlignment(Align(128));
       return A;
     }},
    // %2 is the ptr argument; the original's `i32*` is `ptr`.
    {"load", "load i32, ptr %2",
     [](Fixture &X) -> Value * {
       return X.B.CreateAlignedLoad(X.I32, X.a(2), Align(4));
     }},
    {"volatile", "load volatile i32, ptr %2",
     [](Fixture &X) -> Value * {
       return X.B.CreateAlignedLoad(X.I32, X.a(2), Align(4),
                                    /*isVolatile=*/true);
     }},
    {"acquire", "load atomic i32, ptr %2 acquire, align 1",
     [](Fixture &X) -> Value * {
       LoadInst *L = X.B.CreateAlignedLoad(X.I32, X.a(2), Align(1));
       L->setAtomic(AtomicOrdering::Acquire);
       return L;
     }},
    // The bare `singlethread` of old is `syncscope("singlethread")`.
    {"singlethread",
     "load atomic i32, ptr %2 syncscope(\"singlethread\") monotonic, align 1",
     [](Fixture &X) -> Value * {
       LoadInst *L = X.B.CreateAlignedLoad(X.I32, X.a(2), Align(1));
       L->setAtomic(AtomicOrdering::Monotonic, SyncScope::SingleThread);
       return L;
     }},
    {"GEP", "getelementptr i32, ptr %2, i32 %0",
     [](Fixture &X) -> Value * {
       return X.B.CreateGEP(X.I32, X.a(2), {X.a(0)});
     }},
    {"inBounds", "getelementptr inbounds i32, ptr %2, i32 %0",
     [](Fixture &X) -> Value * {
       return X.B.CreateInBoundsGEP(X.I32, X.a(2), {X.a(0)});
     }},
    // cmpxchg takes a failure ordering too since LLVM 3.5. The original's
    // quote gave only the success ordering (its AST said `unordered` for the
    // failure, which LLVM never allowed): monotonic serves for both.
    {"cmpxchg", "cmpxchg ptr %2, i32 %0, i32 %0 monotonic monotonic",
     [](Fixture &X) -> Value * {
       return X.B.CreateAtomicCmpXchg(X.a(2), X.a(0), X.a(0), Align(4),
                                      AtomicOrdering::Monotonic,
                                      AtomicOrdering::Monotonic);
     }},
    {"atomicrmw", "atomicrmw umax ptr %2, i32 %0 release",
     [](Fixture &X) -> Value * {
       return X.B.CreateAtomicRMW(AtomicRMWInst::UMax, X.a(2), X.a(0),
                                  Align(4), AtomicOrdering::Release);
     }},

    // Conversions.
    {"trunc", "trunc i32 %0 to i16",
     [](Fixture &X) -> Value * { return X.B.CreateTrunc(X.a(0), X.I16); }},
    {"zext", "zext i32 %0 to i64",
     [](Fixture &X) -> Value * { return X.B.CreateZExt(X.a(0), X.I64); }},
    {"sext", "sext i32 %0 to i64",
     [](Fixture &X) -> Value * { return X.B.CreateSExt(X.a(0), X.I64); }},
    {"fptoui", "fptoui float %1 to i64",
     [](Fixture &X) -> Value * { return X.B.CreateFPToUI(X.a(1), X.I64); }},
    {"fptosi", "fptosi float %1 to i64",
     [](Fixture &X) -> Value * { return X.B.CreateFPToSI(X.a(1), X.I64); }},
    {"uitofp", "uitofp i32 %0 to float",
     [](Fixture &X) -> Value * { return X.B.CreateUIToFP(X.a(0), X.Float); }},
    {"sitofp", "sitofp i32 %0 to float",
     [](Fixture &X) -> Value * { return X.B.CreateSIToFP(X.a(0), X.Float); }},
    {"fptrunc", "fptrunc float %1 to half",
     [](Fixture &X) -> Value * { return X.B.CreateFPTrunc(X.a(1), X.Half); }},
    {"fpext", "fpext float %1 to double",
     [](Fixture &X) -> Value * { return X.B.CreateFPExt(X.a(1), X.Double); }},
    {"ptrtoint", "ptrtoint ptr %2 to i32",
     [](Fixture &X) -> Value * { return X.B.CreatePtrToInt(X.a(2), X.I32); }},
    {"inttoptr", "inttoptr i32 %0 to ptr",
     [](Fixture &X) -> Value * { return X.B.CreateIntToPtr(X.a(0), X.Ptr); }},
    {"bitcast", "bitcast i32 %0 to float",
     [](Fixture &X) -> Value * { return X.B.CreateBitCast(X.a(0), X.Float); }},
    {"addrspacecast", "addrspacecast ptr %2 to ptr addrspace(2)",
     [](Fixture &X) -> Value * {
       return X.B.CreateAddrSpaceCast(X.a(2), PointerType::get(X.Ctx, 2));
     }},

    // Other operators: %4 is i1, %5 <2 x i32>, %6 { i32, i32 }.
    {"select", "select i1 %4, i32 %0, i32 %0",
     [](Fixture &X) -> Value * {
       return X.B.Insert(SelectInst::Create(X.a(4), X.a(0), X.a(0)));
     }},
    {"vaarg", "va_arg ptr %2, i16",
     [](Fixture &X) -> Value * { return X.B.CreateVAArg(X.a(2), X.I16); }},
    {"extractelement", "extractelement <2 x i32> %5, i32 %0",
     [](Fixture &X) -> Value * {
       return X.B.CreateExtractElement(X.a(5), X.a(0));
     }},
    {"insertelement", "insertelement <2 x i32> %5, i32 %0, i32 %0",
     [](Fixture &X) -> Value * {
       return X.B.CreateInsertElement(X.a(5), X.a(0), X.a(0));
     }},
    {"shufflevector",
     "shufflevector <2 x i32> %5, <2 x i32> %5, <2 x i32> <i32 0, i32 1>",
     [](Fixture &X) -> Value * {
       return X.B.CreateShuffleVector(X.a(5), X.a(5), ArrayRef<int>({0, 1}));
     }},
    {"extractvalue", "extractvalue { i32, i32 } %6, 0",
     [](Fixture &X) -> Value * { return X.B.CreateExtractValue(X.a(6), {0}); }},
    {"insertvalue", "insertvalue { i32, i32 } %6, i32 %0, 0",
     [](Fixture &X) -> Value * {
       return X.B.CreateInsertValue(X.a(6), X.a(0), {0});
     }},
    // The original's `{ i8*, i32 }` is `{ ptr, i32 }`.
    {"landingpad-catch", "landingpad { ptr, i32 } catch ptr null",
     [](Fixture &X) -> Value * {
       return landingPad(X, false, ConstantPointerNull::get(X.Ptr));
     },
     nullptr, /*Unverified=*/true},
    {"landingpad-filter",
     "landingpad { ptr, i32 } filter [1 x ptr] zeroinitializer",
     [](Fixture &X) -> Value * {
       return landingPad(X, false,
                         ConstantAggregateZero::get(ArrayType::get(X.Ptr, 1)));
     },
     nullptr, /*Unverified=*/true},
    {"landingpad-catch-cleanup",
     "landingpad { ptr, i32 } cleanup catch ptr null",
     [](Fixture &X) -> Value * {
       return landingPad(X, true, ConstantPointerNull::get(X.Ptr));
     },
     nullptr, /*Unverified=*/true},
    {"landingpad-filter-cleanup",
     "landingpad { ptr, i32 } cleanup filter [1 x ptr] zeroinitializer",
     [](Fixture &X) -> Value * {
       return landingPad(X, true,
                         ConstantAggregateZero::get(ArrayType::get(X.Ptr, 1)));
     },
     nullptr, /*Unverified=*/true},

    // Comparisons.
    {"icmp-eq", "icmp eq i32 %0, %0", icmp(CmpInst::ICMP_EQ)},
    {"icmp-ne", "icmp ne i32 %0, %0", icmp(CmpInst::ICMP_NE)},
    {"icmp-ugt", "icmp ugt i32 %0, %0", icmp(CmpInst::ICMP_UGT)},
    {"icmp-uge", "icmp uge i32 %0, %0", icmp(CmpInst::ICMP_UGE)},
    {"icmp-ult", "icmp ult i32 %0, %0", icmp(CmpInst::ICMP_ULT)},
    {"icmp-ule", "icmp ule i32 %0, %0", icmp(CmpInst::ICMP_ULE)},
    {"icmp-sgt", "icmp sgt i32 %0, %0", icmp(CmpInst::ICMP_SGT)},
    {"icmp-sge", "icmp sge i32 %0, %0", icmp(CmpInst::ICMP_SGE)},
    {"icmp-slt", "icmp slt i32 %0, %0", icmp(CmpInst::ICMP_SLT)},
    {"icmp-sle", "icmp sle i32 %0, %0", icmp(CmpInst::ICMP_SLE)},
    {"fcmp-false", "fcmp false float %1, %1", fcmp(CmpInst::FCMP_FALSE)},
    {"fcmp-oeq", "fcmp oeq float %1, %1", fcmp(CmpInst::FCMP_OEQ)},
    {"fcmp-ogt", "fcmp ogt float %1, %1", fcmp(CmpInst::FCMP_OGT)},
    {"fcmp-oge", "fcmp oge float %1, %1", fcmp(CmpInst::FCMP_OGE)},
    {"fcmp-olt", "fcmp olt float %1, %1", fcmp(CmpInst::FCMP_OLT)},
    {"fcmp-ole", "fcmp ole float %1, %1", fcmp(CmpInst::FCMP_OLE)},
    {"fcmp-one", "fcmp one float %1, %1", fcmp(CmpInst::FCMP_ONE)},
    {"fcmp-ord", "fcmp ord float %1, %1", fcmp(CmpInst::FCMP_ORD)},
    {"fcmp-uno", "fcmp uno float %1, %1", fcmp(CmpInst::FCMP_UNO)},
    {"fcmp-ueq", "fcmp ueq float %1, %1", fcmp(CmpInst::FCMP_UEQ)},
    {"fcmp-ugt", "fcmp ugt float %1, %1", fcmp(CmpInst::FCMP_UGT)},
    {"fcmp-uge", "fcmp uge float %1, %1", fcmp(CmpInst::FCMP_UGE)},
    {"fcmp-ult", "fcmp ult float %1, %1", fcmp(CmpInst::FCMP_ULT)},
    {"fcmp-ule", "fcmp ule float %1, %1", fcmp(CmpInst::FCMP_ULE)},
    {"fcmp-une", "fcmp une float %1, %1", fcmp(CmpInst::FCMP_UNE)},
    {"fcmp-true", "fcmp true float %1, %1", fcmp(CmpInst::FCMP_TRUE)},

    {"store", "store i32 %0, ptr %2",
     [](Fixture &X) -> Value * {
       return X.B.CreateAlignedStore(X.a(0), X.a(2), Align(4));
     }},
    {"fence", "fence acquire",
     [](Fixture &X) -> Value * {
       return X.B.CreateFence(AtomicOrdering::Acquire);
     }},
    // The original called the function it was defined in, which was @0
    // there. A template emitted into a module reads `@0` as the first
    // unnamed global of its own text, never one of the module, so this one
    // calls its own function by name: @t, of the same type.
    {"call",
     "call void @t(i32 %0, float %1, ptr %2, i64 %3, i1 %4, <2 x i32> %5, "
     "{ i32, i32 } %6)",
     [](Fixture &X) -> Value * {
       return X.B.CreateCall(X.F, {X.a(0), X.a(1), X.a(2), X.a(3), X.a(4),
                                   X.a(5), X.a(6)});
     }},

    // Calls with constant expressions. LLVM folds those it still has as it
    // reads them, and ConstantExpr folds them the same way. A case whose
    // constant expression LLVM 19 no longer has quotes the instruction with
    // the same operands instead, and its old spelling must be rejected.
    {"call with nested constant expression",
     "call void @myfunc2(i32 add (i32 mul (i32 5, i32 10), i32 2))",
     callWith("myfunc2", [](Fixture &X) -> Constant * {
       return ConstantExpr::getAdd(ConstantExpr::getMul(X.i32(5), X.i32(10)),
                                   X.i32(2));
     })},
    {"call with constant add", "call void @myfunc2(i32 add (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getAdd, false, false)},
    {"call with constant add nsw",
     "call void @myfunc2(i32 add nsw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getAdd, false, true)},
    {"call with constant add nuw",
     "call void @myfunc2(i32 add nuw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getAdd, true, false)},
    {"call with constant add nsw nuw",
     "call void @myfunc2(i32 add nsw nuw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getAdd, true, true)},
    {"call with constant fadd", "fadd float 0.5, 0.25",
     floatOp(Instruction::FAdd, 0.5, 0.25),
     "call void @myfunc3(float fadd (float 0.5, float 0.25))"},
    {"call with constant sub", "call void @myfunc2(i32 sub (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getSub, false, false)},
    {"call with constant sub nsw",
     "call void @myfunc2(i32 sub nsw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getSub, false, true)},
    {"call with constant sub nuw",
     "call void @myfunc2(i32 sub nuw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getSub, true, false)},
    {"call with constant sub nsw nuw",
     "call void @myfunc2(i32 sub nsw nuw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getSub, true, true)},
    {"call with constant fsub", "fsub float 0.5, 0.25",
     floatOp(Instruction::FSub, 0.5, 0.25),
     "call void @myfunc3(float fsub (float 0.5, float 0.25))"},
    {"call with constant mul", "call void @myfunc2(i32 mul (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getMul, false, false)},
    {"call with constant mul nsw",
     "call void @myfunc2(i32 mul nsw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getMul, false, true)},
    {"call with constant mul nuw",
     "call void @myfunc2(i32 mul nuw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getMul, true, false)},
    {"call with constant mul nsw nuw",
     "call void @myfunc2(i32 mul nsw nuw (i32 1, i32 2))",
     wrapExprCall(ConstantExpr::getMul, true, true)},
    {"call with constant fmul", "fmul float 0.5, 0.25",
     floatOp(Instruction::FMul, 0.5, 0.25),
     "call void @myfunc3(float fmul (float 0.5, float 0.25))"},
    {"call with constant udiv", "udiv i32 4, 2", intOp(Instruction::UDiv, 4, 2),
     "call void @myfunc2(i32 udiv (i32 4, i32 2))"},
    {"call with constant udiv exact", "udiv exact i32 4, 2",
     intOp(Instruction::UDiv, 4, 2, WithExact),
     "call void @myfunc2(i32 udiv exact (i32 4, i32 2))"},
    {"call with constant sdiv", "sdiv i32 4, 2", intOp(Instruction::SDiv, 4, 2),
     "call void @myfunc2(i32 sdiv (i32 4, i32 2))"},
    {"call with constant sdiv exact", "sdiv exact i32 4, 2",
     intOp(Instruction::SDiv, 4, 2, WithExact),
     "call void @myfunc2(i32 sdiv exact (i32 4, i32 2))"},
    {"call with constant fdiv", "fdiv float 1.5, 0.5",
     floatOp(Instruction::FDiv, 1.5, 0.5),
     "call void @myfunc3(float fdiv (float 1.5, float 0.5))"},
    {"call with constant urem", "urem i32 4, 3", intOp(Instruction::URem, 4, 3),
     "call void @myfunc2(i32 urem (i32 4, i32 3))"},
    // The original named this second case "urem" too.
    {"call with constant srem", "srem i32 4, 3", intOp(Instruction::SRem, 4, 3),
     "call void @myfunc2(i32 srem (i32 4, i32 3))"},
    {"call with constant frem", "frem float 1.5, 0.5",
     floatOp(Instruction::FRem, 1.5, 0.5),
     "call void @myfunc3(float frem (float 1.5, float 0.5))"},
    {"call with constant shl", "shl i32 1, 2", intOp(Instruction::Shl, 1, 2),
     "call void @myfunc2(i32 shl (i32 1, i32 2))"},
    {"call with constant shl nsw", "shl nsw i32 1, 2",
     intOp(Instruction::Shl, 1, 2, WithNSW),
     "call void @myfunc2(i32 shl nsw (i32 1, i32 2))"},
    {"call with constant shl nuw", "shl nuw i32 1, 2",
     intOp(Instruction::Shl, 1, 2, WithNUW),
     "call void @myfunc2(i32 shl nuw (i32 1, i32 2))"},
    {"call with constant shl nsw nuw", "shl nsw nuw i32 1, 2",
     intOp(Instruction::Shl, 1, 2, WithNSW | WithNUW),
     "call void @myfunc2(i32 shl nsw nuw (i32 1, i32 2))"},
    {"call with constant lshr", "lshr i32 1, 2", intOp(Instruction::LShr, 1, 2),
     "call void @myfunc2(i32 lshr (i32 1, i32 2))"},
    {"call with constant lshr exact", "lshr exact i32 1, 2",
     intOp(Instruction::LShr, 1, 2, WithExact),
     "call void @myfunc2(i32 lshr exact (i32 1, i32 2))"},
    {"call with constant ashr", "ashr i32 1, 2", intOp(Instruction::AShr, 1, 2),
     "call void @myfunc2(i32 ashr (i32 1, i32 2))"},
    {"call with constant ashr exact", "ashr exact i32 1, 2",
     intOp(Instruction::AShr, 1, 2, WithExact),
     "call void @myfunc2(i32 ashr exact (i32 1, i32 2))"},
    {"call with constant and", "and i32 1, 2", intOp(Instruction::And, 1, 2),
     "call void @myfunc2(i32 and (i32 1, i32 2))"},
    {"call with constant or", "or i32 1, 2", intOp(Instruction::Or, 1, 2),
     "call void @myfunc2(i32 or (i32 1, i32 2))"},
    {"call with constant xor", "call void @myfunc2(i32 xor (i32 1, i32 2))",
     callWith("myfunc2", [](Fixture &X) -> Constant * {
       return ConstantExpr::getXor(X.i32(1), X.i32(2));
     })},
    // A constant getelementptr names its source type since LLVM 3.7; with
    // all-zero indices LLVM 19 folds it to @myglobal_str itself.
    {"call with constant getelementptr",
     "call void @myfunc(ptr getelementptr ([4 x i8], ptr @myglobal_str, i32 0, "
     "i32 0))",
     callWith("myfunc", [](Fixture &X) -> Constant * {
       Constant *Idx[] = {X.i32(0), X.i32(0)};
       return ConstantExpr::getGetElementPtr(
           ArrayType::get(X.I8, 4), X.M.getNamedGlobal("myglobal_str"), Idx);
     })},
    {"call with constant getelementptr inbounds",
     "call void @myfunc(ptr getelementptr inbounds ([4 x i8], ptr "
     "@myglobal_str, i32 0, i32 0))",
     callWith("myfunc", [](Fixture &X) -> Constant * {
       Constant *Idx[] = {X.i32(0), X.i32(0)};
       return ConstantExpr::getInBoundsGetElementPtr(
           ArrayType::get(X.I8, 4), X.M.getNamedGlobal("myglobal_str"), Idx);
     })},
    {"call with constant trunc", "call void @myfunc4(i8 trunc (i32 257 to i8))",
     callWith("myfunc4", [](Fixture &X) -> Constant * {
       return ConstantExpr::getTrunc(X.i32(257), X.I8);
     })},
    {"call with constant zext", "zext i8 2 to i32",
     castOp(Instruction::ZExt, [](Fixture &X) -> Constant * { return X.i8(2); },
            [](Fixture &X) -> Type * { return X.I32; }),
     "call void @myfunc2(i32 zext (i8 2 to i32))"},
    {"call with constant sext", "sext i8 2 to i32",
     castOp(Instruction::SExt, [](Fixture &X) -> Constant * { return X.i8(2); },
            [](Fixture &X) -> Type * { return X.I32; }),
     "call void @myfunc2(i32 sext (i8 2 to i32))"},
    {"call with constant fptoui", "fptoui float 123.0 to i32",
     castOp(Instruction::FPToUI,
            [](Fixture &X) -> Constant * { return X.f32(123.0); },
            [](Fixture &X) -> Type * { return X.I32; }),
     "call void @myfunc2(i32 fptoui (float 123.0 to i32))"},
    {"call with constant fptosi", "fptosi float 123.0 to i32",
     castOp(Instruction::FPToSI,
            [](Fixture &X) -> Constant * { return X.f32(123.0); },
            [](Fixture &X) -> Type * { return X.I32; }),
     "call void @myfunc2(i32 fptosi (float 123.0 to i32))"},
    {"call with constant uitofp", "uitofp i32 123 to float",
     castOp(Instruction::UIToFP,
            [](Fixture &X) -> Constant * { return X.i32(123); },
            [](Fixture &X) -> Type * { return X.Float; }),
     "call void @myfunc3(float uitofp (i32 123 to float))"},
    {"call with constant sitofp", "sitofp i32 123 to float",
     castOp(Instruction::SIToFP,
            [](Fixture &X) -> Constant * { return X.i32(123); },
            [](Fixture &X) -> Type * { return X.Float; }),
     "call void @myfunc3(float sitofp (i32 123 to float))"},
    {"call with constant fptrunc", "fptrunc double 123.0 to float",
     castOp(Instruction::FPTrunc,
            [](Fixture &X) -> Constant * { return X.f64(123.0); },
            [](Fixture &X) -> Type * { return X.Float; }),
     "call void @myfunc3(float fptrunc (double 123.0 to float))"},
    {"call with constant fpext", "fpext float 123.0 to double",
     castOp(Instruction::FPExt,
            [](Fixture &X) -> Constant * { return X.f32(123.0); },
            [](Fixture &X) -> Type * { return X.Double; }),
     "call void @myfunc5(double fpext (float 123.0 to double))"},
    {"call with constant ptrtoint",
     "call void @myfunc2(i32 ptrtoint (ptr @myptr to i32))",
     callWith("myfunc2", [](Fixture &X) -> Constant * {
       return ConstantExpr::getPtrToInt(X.M.getNamedGlobal("myptr"), X.I32);
     })},
    {"call with constant inttoptr",
     "call void @myfunc(ptr inttoptr (i32 4 to ptr))",
     callWith("myfunc", [](Fixture &X) -> Constant * {
       return ConstantExpr::getIntToPtr(X.i32(4), X.Ptr);
     })},
    // With opaque pointers the original's i1* to i8* cast is ptr to ptr,
    // which folds to @myglobal.
    {"call with constant bitcast",
     "call void @myfunc(ptr bitcast (ptr @myglobal to ptr))",
     callWith("myfunc", [](Fixture &X) -> Constant * {
       return ConstantExpr::getBitCast(X.M.getNamedGlobal("myglobal"), X.Ptr);
     })},
    {"call with constant addrspacecast",
     "call void @myfunc6(ptr addrspace(1) addrspacecast (ptr @myglobal to ptr "
     "addrspace(1)))",
     callWith("myfunc6", [](Fixture &X) -> Constant * {
       return ConstantExpr::getAddrSpaceCast(X.M.getNamedGlobal("myglobal"),
                                             PointerType::get(X.Ctx, 1));
     })},
    {"call with constant icmp eq", "icmp eq i32 4, 1",
     [](Fixture &X) -> Value * {
       return X.B.Insert(new ICmpInst(CmpInst::ICMP_EQ, X.i32(4), X.i32(1)));
     },
     "call void @myfunc7(i1 icmp eq (i32 4, i32 1))"},
    {"call with constant icmp ne", "icmp ne i32 4, 1",
     [](Fixture &X) -> Value * {
       return X.B.Insert(new ICmpInst(CmpInst::ICMP_NE, X.i32(4), X.i32(1)));
     },
     "call void @myfunc7(i1 icmp ne (i32 4, i32 1))"},
    {"call with constant fcmp oeq", "fcmp oeq float 1.5, 0.5",
     [](Fixture &X) -> Value * {
       return X.B.Insert(
           new FCmpInst(CmpInst::FCMP_OEQ, X.f32(1.5), X.f32(0.5)));
     },
     "call void @myfunc7(i1 fcmp oeq (float 1.5, float 0.5))"},
    {"call with constant fcmp one", "fcmp one float 1.5, 0.5",
     [](Fixture &X) -> Value * {
       return X.B.Insert(
           new FCmpInst(CmpInst::FCMP_ONE, X.f32(1.5), X.f32(0.5)));
     },
     "call void @myfunc7(i1 fcmp one (float 1.5, float 0.5))"},
    {"call with constant select", "select i1 false, i32 1, i32 2",
     [](Fixture &X) -> Value * {
       return X.B.Insert(
           SelectInst::Create(X.B.getFalse(), X.i32(1), X.i32(2)));
     },
     "call void @myfunc2(i32 select (i1 false, i32 1, i32 2))"},
    {"call with constant extractelement",
     "call void @myfunc2(i32 extractelement (<4 x i32> undef, i32 1))",
     callWith("myfunc2", [](Fixture &X) -> Constant * {
       return ConstantExpr::getExtractElement(
           UndefValue::get(FixedVectorType::get(X.I32, 4)), X.i32(1));
     })},
    {"call with constant insertelement",
     "call void @myfunc8(<5 x i32> insertelement (<5 x i32> undef, i32 35, "
     "i32 0))",
     callWith("myfunc8", [](Fixture &X) -> Constant * {
       return ConstantExpr::getInsertElement(
           UndefValue::get(FixedVectorType::get(X.I32, 5)), X.i32(35),
           X.i32(0));
     })},
    {"call with constant shufflevector",
     "call void @myfunc9(<3 x i32> shufflevector (<3 x i32> undef, <3 x i32> "
     "undef, <3 x i32> <i32 0, i32 4, i32 1>))",
     callWith("myfunc9", [](Fixture &X) -> Constant * {
       Constant *U = UndefValue::get(FixedVectorType::get(X.I32, 3));
       return ConstantExpr::getShuffleVector(U, U, ArrayRef<int>({0, 4, 1}));
     })},
    {"call with constant extractvalue",
     "extractvalue {i32, i8} {i32 23, i8 2}, 0",
     [](Fixture &X) -> Value * {
       return X.B.Insert(ExtractValueInst::Create(structOf(X, 23, 2), {0}));
     },
     "call void @myfunc2(i32 extractvalue ({i32, i8} {i32 23, i8 2}, 0))"},
    {"call with constant insertvalue",
     "insertvalue {i32, i8} {i32 41, i8 2}, i32 23, 0",
     [](Fixture &X) -> Value * {
       return X.B.Insert(
           InsertValueInst::Create(structOf(X, 41, 2), X.i32(23), {0}));
     },
     "call void @myfunc10({i32, i8} insertvalue ({i32, i8} {i32 41, i8 2}, "
     "i32 23, 0))"},
};

} // namespace

TEST_CASE("original_instructions_regular") {
  for (const InstrCase &Case : RegularCases) {
    INFO(Case.Name);
    INFO(Case.Quote);
    Fixture X;
    auto *Want = dyn_cast_or_null<Instruction>(Case.Want(X));
    REQUIRE(static_cast<bool>(Want));
    Template T(Case.Quote, __FILE__, __LINE__, 1, Granularity::Instructions);
    Instruction *Got =
        emitOne(T, X, {}, Case.Unverified ? unverified() : FrontendOptions());
    checkSame(Got, Want);
    if (Case.Removed)
      checkRejected(Case.Removed, X);
  }
}

//===----------------------------------------------------------------------===//
// The original's helper quotes, with antiquotes
//===----------------------------------------------------------------------===//

namespace {
// `$opr:` is an untyped operand here, so the branch condition's type is
// written out; a label operand takes `$label:`, which the original spelled
// `$id:`.
const Template CallDummy =
    LLQ_INSTRS(R"(call void @dummy_fuc($type:ty $opr:op))");
const Template RetZero = LLQ_TERMINATOR(R"(ret i32 0)");
const Template BrWithName =
    LLQ_TERMINATOR(R"(br i1 $id:c, label $label:n1, label $label:n2)");
const Template BrWithOp =
    LLQ_TERMINATOR(R"(br i1 $opr:cond, label $label:n1, label $label:n2)");
const Template Phi1 =
    LLQ_INSTRS(R"(phi $type:ty [$id:v1, $label:l1], [$id:v2, $label:l2])");
const Template Phi2 =
    LLQ_INSTRS(R"(phi $type:ty [$opr:o1, $label:l1], [$opr:o2, $label:l2])");
const Template RetWithName = LLQ_TERMINATOR(R"(ret $type:ty $id:name)");
const Template RetWithOp = LLQ_TERMINATOR(R"(ret $type:ty $opr:op)");
// A declaration with a function attribute; `i8**, i8*` are `ptr, ptr`.
const Template Def1 =
    LLQ_DEFINITIONS(R"(declare void @llvm.gcroot(ptr, ptr) nounwind)");

Template instrs(const char *Text) {
  return Template(Text, __FILE__, __LINE__, 1, Granularity::Instructions);
}
Template terminator(const char *Text) {
  return Template(Text, __FILE__, __LINE__, 1, Granularity::Terminator);
}
} // namespace

TEST_CASE("original_helper_call_with_type_and_operand") {
  Fixture X;
  Function *Dummy = X.fn("dummy_fuc");
  // The operand is an argument of the function, or a constant.
  const std::pair<const char *, Value *> Cases[] = {
      {"call void @dummy_fuc(i32 %0)", X.a(0)},
      {"call void @dummy_fuc(i32 5)", X.i32(5)}};
  for (const auto &Case : Cases) {
    INFO(Case.first);
    Instruction *Want = X.B.CreateCall(Dummy, {Case.second});
    checkSame(emitOne(instrs(Case.first), X), Want);
    checkSame(emitOne(CallDummy, X, {{"ty", X.I32}, {"op", Case.second}}),
              Want);
  }
}

TEST_CASE("original_helper_phis") {
  // Each phi starts the block `join`, which @t's blocks bb1 and bb2 branch
  // to. The incoming values are the argument %0 and %x, an instruction of
  // the entry block.
  Fixture X;
  Value *XV = IRBuilder<>(X.Entry).CreateAdd(X.a(0), X.i32(1), "x");
  X.Env["x"] = XV;
  BasicBlock *BB1 = X.block("bb1");
  BasicBlock *BB2 = X.block("bb2");
  BasicBlock *Join = X.block("join");
  IRBuilder<>(BB1).CreateBr(Join);
  IRBuilder<>(BB2).CreateBr(Join);
  X.B.SetInsertPoint(Join);
  SUBCASE("incoming values named") {
    PHINode *Want = X.B.CreatePHI(X.I32, 2);
    Want->addIncoming(X.a(0), BB1);
    Want->addIncoming(XV, BB2);
    checkSame(emitOne(instrs("phi i32 [%0, %bb1], [%x, %bb2]"), X), Want);
    checkSame(emitOne(Phi1, X,
                      {{"ty", X.I32},
                       {"v1", "0"},
                       {"v2", "x"},
                       {"l1", "bb1"},
                       {"l2", "bb2"}}),
              Want);
  }
  SUBCASE("incoming values as operands") {
    PHINode *Want = X.B.CreatePHI(X.I32, 2);
    Want->addIncoming(X.a(0), BB1);
    Want->addIncoming(X.i32(5), BB2);
    checkSame(emitOne(instrs("phi i32 [%0, %bb1], [5, %bb2]"), X), Want);
    checkSame(emitOne(Phi2, X,
                      {{"ty", X.I32},
                       {"o1", X.a(0)},
                       {"o2", X.i32(5)},
                       {"l1", "bb1"},
                       {"l2", "bb2"}}),
              Want);
  }
}

TEST_CASE("original_helper_conditional_branches") {
  // Each branch ends a block of its own in @t; %4 is the i1 argument.
  Fixture X;
  BasicBlock *BB1 = X.block("bb1");
  BasicBlock *BB2 = X.block("bb2");
  Bindings Labels{{"n1", "bb1"}, {"n2", "bb2"}};
  auto WantBr = [&](Value *Cond) -> Instruction * {
    X.B.SetInsertPoint(BasicBlock::Create(X.Ctx, "want", X.F));
    return X.B.CreateCondBr(Cond, BB1, BB2);
  };
  SUBCASE("condition named") {
    Instruction *Want = WantBr(X.a(4));
    checkSame(emitTerminator(terminator("br i1 %4, label %bb1, label %bb2"), X,
                             X.F, X.Env),
              Want);
    Bindings B = Labels;
    B.insert({"c", Binding("4")});
    checkSame(emitTerminator(BrWithName, X, X.F, X.Env, B), Want);
  }
  SUBCASE("condition as an operand") {
    Instruction *Want = WantBr(X.a(4));
    Bindings B = Labels;
    B.insert({"cond", Binding(X.a(4))});
    checkSame(emitTerminator(BrWithOp, X, X.F, X.Env, B), Want);
  }
  SUBCASE("constant condition") {
    Instruction *Want = WantBr(X.B.getTrue());
    checkSame(emitTerminator(terminator("br i1 true, label %bb1, label %bb2"),
                             X, X.F, X.Env),
              Want);
    Bindings B = Labels;
    B.insert({"cond", Binding(X.B.getTrue())});
    checkSame(emitTerminator(BrWithOp, X, X.F, X.Env, B), Want);
  }
}

TEST_CASE("original_helper_returns") {
  // `ret i32` needs a function returning i32: i32 @r(i32 %r0), whose
  // argument the quotes name %0.
  Fixture X;
  Function *R = Function::Create(FunctionType::get(X.I32, {X.I32}, false),
                                 GlobalValue::ExternalLinkage, "r", X.M);
  R->getArg(0)->setName("r0");
  Values Env;
  Env["0"] = R->getArg(0);
  auto WantRet = [&](Value *V) -> Instruction * {
    X.B.SetInsertPoint(BasicBlock::Create(X.Ctx, "want", R));
    return X.B.CreateRet(V);
  };
  SUBCASE("constant") {
    Instruction *Want = WantRet(X.i32(0));
    checkSame(emitTerminator(RetZero, X, R, Env), Want);
    checkSame(emitTerminator(RetWithOp, X, R, Env,
                             {{"ty", X.I32}, {"op", X.i32(0)}}),
              Want);
  }
  SUBCASE("argument") {
    Instruction *Want = WantRet(R->getArg(0));
    checkSame(emitTerminator(terminator("ret i32 %0"), X, R, Env), Want);
    checkSame(emitTerminator(RetWithName, X, R, Env,
                             {{"ty", X.I32}, {"name", "0"}}),
              Want);
    checkSame(emitTerminator(RetWithOp, X, R, Env,
                             {{"ty", X.I32}, {"op", R->getArg(0)}}),
              Want);
  }
}

TEST_CASE("original_helper_declaration_with_function_attribute") {
  LLVMContext Ctx;
  Module Got("q", Ctx);
  Expected<std::vector<GlobalValue *>> New = Def1.instantiateInto(Got);
  if (!New) {
    std::string Msg = toString(New.takeError());
    FAIL(Msg);
  }
  REQUIRE(New->size() == 1u);
  CHECK(New->front() == Got.getFunction("llvm.gcroot"));

  Module Want("q", Ctx);
  Type *Ptr = PointerType::get(Ctx, 0);
  Function *G = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr}, false),
      GlobalValue::ExternalLinkage, "llvm.gcroot", Want);
  G->setAttributes(AttributeList().addFnAttribute(Ctx, Attribute::NoUnwind));
  CHECK(printModule(Got) == printModule(Want));
}

//===----------------------------------------------------------------------===//
// The terminator cases
//===----------------------------------------------------------------------===//

namespace {

Function *voidFunction(Module &M, StringRef Name,
                       ArrayRef<Type *> Params = {}) {
  return Function::Create(
      FunctionType::get(Type::getVoidTy(M.getContext()), Params, false),
      GlobalValue::ExternalLinkage, Name, M);
}

/// The original wrote each terminator in a module of its own.
struct ModuleCase {
  const char *Name;
  const char *Quote;
  /// False where LLVM 19's verifier rejects the original's IR (the original
  /// never verified it): it is then instantiated without verification.
  bool Verifies;
  std::function<void(Module &)> Make; ///< Builds the module through the API.
};

const ModuleCase TerminatorModules[] = {
    {"ret", R"(
define void @0() {
entry:
  ret void
}
)",
     true,
     [](Module &M) {
       Function *F = voidFunction(M, "");
       IRBuilder<>(BasicBlock::Create(M.getContext(), "entry", F))
           .CreateRetVoid();
     }},
    {"br", R"(
define void @0() {
entry:
  br label %foo

foo:
  ret void
}
)",
     true,
     [](Module &M) {
       Function *F = voidFunction(M, "");
       BasicBlock *Entry = BasicBlock::Create(M.getContext(), "entry", F);
       BasicBlock *Foo = BasicBlock::Create(M.getContext(), "foo", F);
       IRBuilder<>(Entry).CreateBr(Foo);
       IRBuilder<>(Foo).CreateRetVoid();
     }},
    // The entry block branches to itself.
    {"condbr", R"(
define void @0() {
bar:
  br i1 true, label %foo, label %bar

foo:
  ret void
}
)",
     false,
     [](Module &M) {
       Function *F = voidFunction(M, "");
       BasicBlock *Bar = BasicBlock::Create(M.getContext(), "bar", F);
       BasicBlock *Foo = BasicBlock::Create(M.getContext(), "foo", F);
       IRBuilder<>(Bar).CreateCondBr(ConstantInt::getTrue(M.getContext()), Foo,
                                     Bar);
       IRBuilder<>(Foo).CreateRetVoid();
     }},
    // The entry block is a destination of its own switch.
    {"switch", R"(
define void @0() {
entry:
  switch i16 2, label %foo [
    i16 0, label %entry
    i16 2, label %foo
    i16 3, label %entry
  ]

foo:
  ret void
}
)",
     false,
     [](Module &M) {
       Function *F = voidFunction(M, "");
       BasicBlock *Entry = BasicBlock::Create(M.getContext(), "entry", F);
       BasicBlock *Foo = BasicBlock::Create(M.getContext(), "foo", F);
       IRBuilder<> B(Entry);
       SwitchInst *S = B.CreateSwitch(B.getInt16(2), Foo, 3);
       S->addCase(B.getInt16(0), Entry);
       S->addCase(B.getInt16(2), Foo);
       S->addCase(B.getInt16(3), Entry);
       IRBuilder<>(Foo).CreateRetVoid();
     }},
    // `i8*` and `i8**` are `ptr`; the load gets ptr's ABI alignment, 8.
    {"indirectbr", R"(
@0 = global ptr blockaddress(@foo, %end)

define void @foo() {
entry:
  %0 = load ptr, ptr @0
  indirectbr ptr %0, [label %end]

end:
  ret void
}
)",
     true,
     [](Module &M) {
       LLVMContext &Ctx = M.getContext();
       Function *F = voidFunction(M, "foo");
       BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
       BasicBlock *End = BasicBlock::Create(Ctx, "end", F);
       PointerType *Ptr = PointerType::get(Ctx, 0);
       auto *G = new GlobalVariable(M, Ptr, false, GlobalValue::ExternalLinkage,
                                    BlockAddress::get(F, End));
       IRBuilder<> B(Entry);
       IndirectBrInst *I =
           B.CreateIndirectBr(B.CreateAlignedLoad(Ptr, G, Align(8)), 1);
       I->addDestination(End);
       IRBuilder<>(End).CreateRetVoid();
     }},
    // A landingpad in a function without a personality; `{ i8*, i32 }` is
    // `{ ptr, i32 }`.
    {"invoke", R"(
define void @0(i32 %a, i16 %b) {
entry:
  invoke void @0(i32 4, i16 8)
          to label %foo unwind label %bar

foo:
  ret void

bar:
  %0 = landingpad { ptr, i32 }
          cleanup
          catch ptr null
  ret void
}
)",
     false,
     [](Module &M) {
       LLVMContext &Ctx = M.getContext();
       Type *I32 = Type::getInt32Ty(Ctx);
       PointerType *Ptr = PointerType::get(Ctx, 0);
       Function *F = voidFunction(M, "", {I32, Type::getInt16Ty(Ctx)});
       F->getArg(0)->setName("a");
       F->getArg(1)->setName("b");
       BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
       BasicBlock *Foo = BasicBlock::Create(Ctx, "foo", F);
       BasicBlock *Bar = BasicBlock::Create(Ctx, "bar", F);
       IRBuilder<> B(Entry);
       B.CreateInvoke(F, Foo, Bar, {B.getInt32(4), B.getInt16(8)});
       B.SetInsertPoint(Foo);
       B.CreateRetVoid();
       B.SetInsertPoint(Bar);
       LandingPadInst *LP =
           B.CreateLandingPad(StructType::get(Ctx, {Ptr, I32}), 1);
       LP->setCleanup(true);
       LP->addClause(ConstantPointerNull::get(Ptr));
       B.CreateRetVoid();
     }},
    // A resume in a function without a personality.
    {"resume", R"(
define void @0() {
entry:
  resume i32 1
}
)",
     false,
     [](Module &M) {
       Function *F = voidFunction(M, "");
       IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
       B.CreateResume(B.getInt32(1));
     }},
    {"unreachable", R"(
define void @0() {
entry:
  unreachable
}
)",
     true,
     [](Module &M) {
       Function *F = voidFunction(M, "");
       IRBuilder<>(BasicBlock::Create(M.getContext(), "entry", F))
           .CreateUnreachable();
     }},
};

/// The same terminators, emitted one by one into @t at Terminator
/// granularity. Their labels are blocks of @t; the indirectbr jumps through
/// the ptr argument %2 and the invoke calls @g, a `void (i32, i16)`, where
/// the original loaded a block address and called its own function.
struct TermCase {
  const char *Name;
  const char *Quote;
  std::function<Instruction *(Fixture &)> Want;
  bool Unverified = false; ///< An EH instruction outside any EH context.
};

const TermCase TermCases[] = {
    {"ret", "ret void",
     [](Fixture &X) -> Instruction * { return X.B.CreateRetVoid(); }},
    {"br", "br label %foo",
     [](Fixture &X) -> Instruction * { return X.B.CreateBr(X.label("foo")); }},
    {"condbr", "br i1 true, label %foo, label %bar",
     [](Fixture &X) -> Instruction * {
       return X.B.CreateCondBr(X.B.getTrue(), X.label("foo"), X.label("bar"));
     }},
    {"switch",
     "switch i16 2, label %foo [\n"
     "  i16 0, label %entry\n"
     "  i16 2, label %foo\n"
     "  i16 3, label %entry\n"
     "]",
     [](Fixture &X) -> Instruction * {
       SwitchInst *S = X.B.CreateSwitch(X.B.getInt16(2), X.label("foo"), 3);
       S->addCase(X.B.getInt16(0), X.label("entry"));
       S->addCase(X.B.getInt16(2), X.label("foo"));
       S->addCase(X.B.getInt16(3), X.label("entry"));
       return S;
     }},
    {"indirectbr", "indirectbr ptr %2, [label %end]",
     [](Fixture &X) -> Instruction * {
       IndirectBrInst *I = X.B.CreateIndirectBr(X.a(2), 1);
       I->addDestination(X.label("end"));
       return I;
     }},
    {"invoke", "invoke void @g(i32 4, i16 8) to label %foo unwind label %bar",
     [](Fixture &X) -> Instruction * {
       return X.B.CreateInvoke(X.fn("g"), X.label("foo"), X.label("bar"),
                               {X.i32(4), X.B.getInt16(8)});
     },
     /*Unverified=*/true},
    {"resume", "resume i32 1",
     [](Fixture &X) -> Instruction * { return X.B.CreateResume(X.i32(1)); },
     /*Unverified=*/true},
    {"unreachable", "unreachable",
     [](Fixture &X) -> Instruction * { return X.B.CreateUnreachable(); }},
};
} // namespace

TEST_CASE("original_terminators_in_modules") {
  for (const ModuleCase &Case : TerminatorModules) {
    INFO(Case.Name);
    LLVMContext Ctx;
    auto Want = emptyModule(Ctx);
    Case.Make(*Want);
    Template T(Case.Quote, __FILE__, __LINE__);
    FrontendOptions Opts;
    Opts.Verify = Case.Verifies;
    CHECK(printedQuote(T.instantiate(Ctx, {}, Opts)) == printModule(*Want));
    if (!Case.Verifies) {
      // Verified, as by default, the module is an error.
      Expected<std::unique_ptr<Module>> Checked = T.instantiate(Ctx);
      CHECK_FALSE(static_cast<bool>(Checked));
      if (!Checked)
        consumeError(Checked.takeError());
    }
  }
}

TEST_CASE("original_terminators_emitted") {
  for (const TermCase &Case : TermCases) {
    INFO(Case.Name);
    INFO(Case.Quote);
    Fixture X;
    X.Env["entry"] = X.Entry;
    for (const char *Label : {"foo", "bar", "end"})
      X.block(Label);
    X.B.SetInsertPoint(BasicBlock::Create(X.Ctx, "want", X.F));
    Instruction *Want = Case.Want(X);
    Template T(Case.Quote, __FILE__, __LINE__, 1, Granularity::Terminator);
    FrontendOptions Opts = Case.Unverified ? unverified() : FrontendOptions();
    checkSame(emitTerminator(T, X, X.F, X.Env, {}, Opts), Want);
  }
}

//===----------------------------------------------------------------------===//
// Module.hs
//===----------------------------------------------------------------------===//

TEST_CASE("original_module_calls_have_the_proper_type") {
  static const Template T = LLQ_SKELETON(R"(
define void @f() {
entry:
  call void @g()
  ret void
}

define void @g() {
entry:
  ret void
})");
  LLVMContext Ctx;
  auto Want = emptyModule(Ctx);
  Function *F = voidFunction(*Want, "f");
  Function *G = voidFunction(*Want, "g");
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  B.CreateCall(G);
  B.CreateRetVoid();
  B.SetInsertPoint(BasicBlock::Create(Ctx, "entry", G));
  B.CreateRetVoid();

  auto M = T.instantiate(Ctx);
  if (!M) {
    std::string Msg = toString(M.takeError());
    FAIL(Msg);
  }
  // The call's type is that of @g.
  Function *GotF = (*M)->getFunction("f");
  Function *GotG = (*M)->getFunction("g");
  REQUIRE(static_cast<bool>(GotF));
  REQUIRE(static_cast<bool>(GotG));
  auto *Call = dyn_cast<CallInst>(&GotF->getEntryBlock().front());
  REQUIRE(static_cast<bool>(Call));
  CHECK(Call->getCalledFunction() == GotG);
  CHECK(Call->getFunctionType() == GotG->getFunctionType());
  CHECK(printedQuote(std::move(M)) == printModule(*Want));
}

TEST_CASE("original_module_saxpy") {
  // `i32*` is `ptr`. The unnamed values start at %1 as in the original:
  // LLVM 19 accepts numbering that skips a number (its printer renumbers
  // from %0).
  static const Template T = LLQ_SKELETON(R"(
define void @saxpy(ptr noalias nocapture %x, ptr noalias nocapture %y, i32 %a, i64 %i) {
entry:
  %1 = getelementptr inbounds i32, ptr %x, i64 %i
  %2 = load i32, ptr %1, align 4
  %3 = mul nsw i32 %2, %a
  %4 = getelementptr inbounds i32, ptr %y, i64 %i
  %5 = load i32, ptr %4, align 4
  %6 = add nsw i32 %3, %5
  store i32 %6, ptr %1, align 4
  %7 = add i64 %i, 1
  %8 = getelementptr inbounds i32, ptr %x, i64 %7
  %9 = load i32, ptr %8, align 4
  %10 = mul nsw i32 %9, %a
  %11 = getelementptr inbounds i32, ptr %y, i64 %7
  %12 = load i32, ptr %11, align 4
  %13 = add nsw i32 %10, %12
  store i32 %13, ptr %8, align 4
  %14 = add i64 %i, 2
  %15 = getelementptr inbounds i32, ptr %x, i64 %14
  %16 = load i32, ptr %15, align 4
  %17 = mul nsw i32 %16, %a
  %18 = getelementptr inbounds i32, ptr %y, i64 %14
  %19 = load i32, ptr %18, align 4
  %20 = add nsw i32 %17, %19
  store i32 %20, ptr %15, align 4
  %21 = add i64 %i, 3
  %22 = getelementptr inbounds i32, ptr %x, i64 %21
  %23 = load i32, ptr %22, align 4
  %24 = mul nsw i32 %23, %a
  %25 = getelementptr inbounds i32, ptr %y, i64 %21
  %26 = load i32, ptr %25, align 4
  %27 = add nsw i32 %24, %26
  store i32 %27, ptr %22, align 4
  ret void
})");
  LLVMContext Ctx;
  auto Want = emptyModule(Ctx);
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *Ptr = PointerType::get(Ctx, 0);
  Function *F = voidFunction(*Want, "saxpy", {Ptr, Ptr, I32, I64});
  for (unsigned P : {0u, 1u}) {
    F->addParamAttr(P, Attribute::NoAlias);
    F->addParamAttr(P, Attribute::NoCapture);
  }
  Argument *X = F->getArg(0), *Y = F->getArg(1), *A = F->getArg(2),
           *I = F->getArg(3);
  X->setName("x");
  Y->setName("y");
  A->setName("a");
  I->setName("i");
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  // Four unrolled steps of y := a * x + y, stored into x as the original does.
  for (uint64_t K = 0; K < 4; ++K) {
    Value *Idx =
        K == 0 ? static_cast<Value *>(I) : B.CreateAdd(I, B.getInt64(K));
    Value *PX = B.CreateInBoundsGEP(I32, X, {Idx});
    Value *AX = B.CreateNSWMul(B.CreateAlignedLoad(I32, PX, Align(4)), A);
    Value *PY = B.CreateInBoundsGEP(I32, Y, {Idx});
    Value *Sum = B.CreateNSWAdd(AX, B.CreateAlignedLoad(I32, PY, Align(4)));
    B.CreateAlignedStore(Sum, PX, Align(4));
  }
  B.CreateRetVoid();
  CHECK(printedQuote(T.instantiate(Ctx)) == printModule(*Want));
}
