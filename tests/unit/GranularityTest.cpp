//===- GranularityTest.cpp - Templates smaller than a module --------------===//
//
// Instruction, terminator and block templates emitted at an IRBuilder's
// point; definitions and global templates read into an existing module;
// type and operand templates; and every granularity made a fragment and
// spliced into another template. Each result is checked against what LLVM's
// C++ API builds, and the function it lands in must verify.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llquote/Template.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"
#include <doctest/doctest.h>

using namespace llq;
using namespace llvm;
using llq::test::printModule;

namespace {
std::string errorOf(Error E) {
  std::string S;
  handleAllErrors(std::move(E), [&](const ErrorInfoBase &EI) {
    S += EI.message();
  });
  return S;
}

template <typename T> T require(Expected<T> V) {
  if (!V)
    FAIL(toString(V.takeError()));
  return std::move(*V);
}

template <typename T> std::string errorOf(Expected<T> V) {
  if (V)
    return "no error";
  return toString(V.takeError());
}

std::string printed(const Value *V) {
  std::string S;
  raw_string_ostream OS(S);
  V->print(OS);
  return S;
}

/// A function `i32 @f(i32 %a, i32 %b, ptr %p)` with an entry block and a
/// builder at its end.
struct Fixture {
  LLVMContext Ctx;
  Module M{"m", Ctx};
  Function *F;
  BasicBlock *Entry;
  IRBuilder<> B{Ctx};
  Argument *A, *Bv, *Ptr;

  Fixture() {
    auto *I32 = B.getInt32Ty();
    F = Function::Create(FunctionType::get(I32, {I32, I32, B.getPtrTy()}, false),
                         Function::ExternalLinkage, "f", M);
    A = F->getArg(0);
    Bv = F->getArg(1);
    Ptr = F->getArg(2);
    A->setName("a");
    Bv->setName("b");
    Ptr->setName("p");
    Entry = BasicBlock::Create(Ctx, "entry", F);
    B.SetInsertPoint(Entry);
  }

  bool verifies() {
    std::string S;
    raw_string_ostream OS(S);
    bool Broken = verifyModule(M, &OS);
    if (Broken)
      MESSAGE(S << printModule(M));
    return !Broken;
  }
};
} // namespace

TEST_CASE("emit_straight_line_instructions_at_the_builder") {
  Fixture X;
  Value *Before = X.B.CreateAdd(X.A, X.Bv, "before");
  static const Template Mul = LLQ_INSTRS(R"(
    %t = mul nsw i32 %x, $opr:y
    %u = sub i32 %t, 1
  )");
  Emitted E = require(Mul.emit(X.B, {{"y", X.Bv}}, {{"x", Before}}));
  REQUIRE(E.Instructions.size() == 2);
  CHECK(E.Blocks.empty());
  Value *T = E.value("t");
  Value *U = E.value("u");
  REQUIRE(T);
  REQUIRE(U);
  CHECK(E.Instructions[0] == T);
  CHECK(E.Instructions[1] == U);
  // The builder carries on after the template.
  X.B.CreateRet(U);
  REQUIRE(X.verifies());
  // The same instructions, built through the API, print the same.
  Fixture Y;
  Value *YBefore = Y.B.CreateAdd(Y.A, Y.Bv, "before");
  Value *YT = Y.B.CreateNSWMul(YBefore, Y.Bv, "t");
  Y.B.CreateRet(Y.B.CreateSub(YT, Y.B.getInt32(1), "u"));
  CHECK(printModule(X.M) == printModule(Y.M));
  // No wrapper is left behind.
  CHECK(X.M.getFunctionList().size() == 1);
}

TEST_CASE("emit_in_the_middle_of_a_block") {
  Fixture X;
  Value *One = X.B.CreateAdd(X.A, X.B.getInt32(1), "one");
  ReturnInst *Ret = X.B.CreateRet(One);
  X.B.SetInsertPoint(Ret);
  static const Template Twice = LLQ_INSTRS(R"(%two = shl i32 %v, 1)");
  Emitted E = require(Twice.emit(X.B, {}, {{"v", One}}));
  Ret->setOperand(0, E.value("two"));
  REQUIRE(X.verifies());
  CHECK(E.Instructions.size() == 1);
  CHECK(E.Instructions[0]->getNextNode() == Ret);
}

TEST_CASE("emit_control_flow_splits_the_block_and_returns_the_variable") {
  Fixture X;
  // acc = a; for i in 0 to b: acc += i. The variable comes back as a phi.
  static const Template Sum = LLQ_INSTRS(R"(
    for i32 %i in 0 to %n {
      %acc = add i32 %acc, %i
    }
  )");
  Emitted E = require(Sum.emit(X.B, {}, {{"acc", X.A}, {"n", X.Bv}}));
  Value *Acc = E.value("acc");
  REQUIRE(Acc);
  CHECK(Acc != X.A);
  CHECK(isa<PHINode>(Acc));
  CHECK(E.Instructions.empty());
  REQUIRE(!E.Blocks.empty());
  // The builder continues in the block after the loop.
  CHECK(X.B.GetInsertBlock() == E.Blocks.back());
  X.B.CreateRet(Acc);
  REQUIRE(X.verifies());
  unsigned Phis = 0;
  for (BasicBlock &Blk : *X.F)
    Phis += static_cast<unsigned>(std::distance(Blk.phis().begin(), Blk.phis().end()));
  // Minimal SSA: one phi for i and one for acc in the header; acc's value
  // after the loop is the header's phi itself (single exit).
  CHECK(Phis == 2);
}

TEST_CASE("emit_control_flow_before_existing_instructions") {
  Fixture X;
  Value *Keep = X.B.CreateAdd(X.A, X.Bv, "keep");
  ReturnInst *Ret = X.B.CreateRet(Keep);
  X.B.SetInsertPoint(Ret);
  static const Template Clamp = LLQ_INSTRS(R"(
    %big = icmp sgt i32 %v, %hi
    if %big {
      %v = i32 %hi
    }
  )");
  Emitted E = require(Clamp.emit(X.B, {}, {{"v", Keep}, {"hi", X.Bv}}));
  Ret->setOperand(0, E.value("v"));
  REQUIRE(X.verifies());
  CHECK(isa<PHINode>(E.value("v")));
  CHECK(Ret->getParent() == E.Blocks.back());
  CHECK(Ret->getParent() != X.Entry);
}

TEST_CASE("emit_terminators_and_blocks_with_the_functions_blocks") {
  Fixture X;
  BasicBlock *Yes = BasicBlock::Create(X.Ctx, "yes", X.F);
  BasicBlock *No = BasicBlock::Create(X.Ctx, "no", X.F);
  static const Template Branch = LLQ_TERMINATOR(R"(
    br i1 $opr:c, label %yes, label $label:no
  )");
  Value *C = X.B.CreateICmpSLT(X.A, X.Bv, "c");
  Emitted E = require(Branch.emit(X.B, {{"c", C}, {"no", No}}, {{"yes", Yes}}));
  REQUIRE(E.Instructions.size() == 1);
  auto *Br = dyn_cast<BranchInst>(E.Instructions[0]);
  REQUIRE(Br);
  CHECK(Br->getSuccessor(0) == Yes);
  CHECK(Br->getSuccessor(1) == No);
  // Blocks that phi over the function's own blocks.
  static const Template Join = LLQ_BLOCKS(R"(
  join:
    %r = phi i32 [ %a, %yes ], [ %b, %no ]
    ret i32 %r
  )");
  X.B.SetInsertPoint(Yes);
  X.B.CreateBr(Yes); // Replaced below, once join exists.
  Emitted J = require(Join.emit(X.B, {}, {{"a", X.A}, {"b", X.Bv}, {"yes", Yes}, {"no", No}}));
  REQUIRE(J.Blocks.size() == 1);
  BasicBlock *JoinBB = J.Blocks[0];
  CHECK(J.value("join") == JoinBB);
  Yes->getTerminator()->setSuccessor(0, JoinBB);
  X.B.SetInsertPoint(No);
  X.B.CreateBr(JoinBB);
  REQUIRE(X.verifies());
  auto *Phi = cast<PHINode>(J.value("r"));
  CHECK(Phi->getIncomingBlock(0) == Yes);
  CHECK(Phi->getIncomingBlock(1) == No);
}

TEST_CASE("emit_blocks_that_fall_off_their_end") {
  Fixture X;
  static const Template Loop = LLQ_BLOCKS(R"(
  loop:
    %small = icmp slt i32 %x, 100
    while %small {
      %x = mul i32 %x, 2
      %small = icmp slt i32 %x, 100
    }
  )");
  Emitted E = require(Loop.emit(X.B, {}, {{"x", X.A}}));
  // The builder is left where control falls off the last block.
  REQUIRE(X.B.GetInsertBlock() == E.Blocks.back());
  X.B.CreateRet(E.value("x"));
  X.B.SetInsertPoint(X.Entry);
  X.B.CreateBr(cast<BasicBlock>(E.value("loop")));
  CHECK(isa<PHINode>(E.value("x")));
  REQUIRE(X.verifies());
}

TEST_CASE("emit_errors_are_located_in_the_cpp_file") {
  Fixture X;
  Template Bad("%t = add i32 %x, %nope\n", "k.cpp", 10, 5,
               Granularity::Instructions);
  std::string E = errorOf(Bad.emit(X.B, {}, {{"x", X.A}}));
  CHECK(E.find("k.cpp:10:22: error: '%nope' is not defined in the template, "
               "and the environment gives no value for it") == 0);
  Template Typed("%t = add i64 %x, 1\n", "k.cpp", 3, 1,
                 Granularity::Instructions);
  E = errorOf(Typed.emit(X.B, {}, {{"x", X.A}}));
  CHECK(E.find("k.cpp:3:14: error: '%x' defined with type 'i32' but expected "
               "'i64'") == 0);
  // The failed emissions left nothing behind.
  CHECK(X.Entry->empty());
  CHECK(X.M.getFunctionList().size() == 1);
  Template Labelled("bb:\n  ret i32 0\n", "k.cpp", 1, 1,
                    Granularity::Instructions);
  CHECK(errorOf(Labelled.check()).find(
            "k.cpp:1:1: error: an instruction template holds no block labels") == 0);
  Template TwoTerms("ret i32 0\nret i32 1\n", "k.cpp", 1, 1,
                    Granularity::Terminator);
  CHECK(errorOf(TwoTerms.check()).find(
            "k.cpp:1:1: error: a terminator template holds exactly one "
            "terminator") == 0);
  // A template that closes what it is read in, then goes on at the module's
  // top level, is refused; emitting it adds nothing to the module.
  Template Escaping("ret i32 0\n}\ndefine void @out() {\nentry:\n"
                    "  ret void\n",
                    "k.cpp", 1, 1, Granularity::Instructions);
  CHECK(errorOf(Escaping.check()).find(
            "k.cpp:3:1: error: an instruction template holds instructions; "
            "this stands outside it, at the module's top level") == 0);
  CHECK(errorOf(Escaping.emit(X.B, {}, {})).find("k.cpp:3:1: error:") == 0);
  CHECK(X.M.getFunction("out") == nullptr);
  CHECK(X.Entry->empty());
  Template EscapingBlocks("b:\n  ret i32 0\n}\ndefine void @out() {\n"
                          "c:\n  ret void\n",
                          "k.cpp", 1, 1, Granularity::Blocks);
  CHECK(errorOf(EscapingBlocks.check()).find(
            "k.cpp:4:1: error: a block template holds blocks;") == 0);
  Template EscapingTerminator("ret i32 0\n}\ndefine void @out() {\n"
                              "entry:\n  ret void\n",
                              "k.cpp", 1, 1, Granularity::Terminator);
  CHECK(errorOf(EscapingTerminator.check()).find(
            "k.cpp:3:1: error: a terminator template holds one terminator; "
            "this stands outside it, at the module's top level") == 0);
  Template EscapingType("i32\n@out = global i32 0\n", "k.cpp", 1, 1,
                        Granularity::Type);
  CHECK(errorOf(EscapingType.check()).find(
            "k.cpp:2:1: error: a type template holds one type;") == 0);
  Template EscapingOperand("i32 1)\n  unreachable\n}\ndefine void @out() {\n"
                           "entry:\n  call void @f(i32 2",
                           "k.cpp", 1, 1, Granularity::Operand);
  CHECK(errorOf(EscapingOperand.check()).find(
            "k.cpp:4:1: error: an operand template holds one operand;") == 0);
  // So is text bound to one of its antiquotes that does the same.
  Template Spliced("$instrs:body\n", "k.cpp", 1, 1, Granularity::Instructions);
  std::string SE = errorOf(Spliced.emit(
      X.B, {{"body", "ret i32 0\n}\ndefine void @out() {\nentry:\n  ret void"}},
      {}));
  CHECK(SE.find("k.cpp:1:1: error: this closes the function it is emitted "
                "into: what follows would stand at the module's top level") ==
        0);
  CHECK(X.M.getFunction("out") == nullptr);
  CHECK(X.Entry->empty());
  Template Other("%x = add i32 1, 2\n", "k.cpp", 1, 1, Granularity::Instructions);
  Function *G = Function::Create(X.F->getFunctionType(), Function::ExternalLinkage,
                                 "g", X.M);
  X.B.SetInsertPoint(BasicBlock::Create(X.Ctx, "e", G));
  CHECK(errorOf(Other.emit(X.B, {}, {{"v", X.A}})).find(
            "the environment's '%v' is an argument of another function") !=
        std::string::npos);
}

TEST_CASE("definitions_go_into_an_existing_module") {
  Fixture X;
  X.B.CreateRet(X.A);
  Function *Decl = Function::Create(
      FunctionType::get(X.B.getInt32Ty(), {X.B.getInt32Ty()}, false),
      Function::ExternalLinkage, "twice", X.M);
  // A caller of the declaration, which must end up calling the definition.
  Function *User = Function::Create(X.F->getFunctionType(),
                                    Function::ExternalLinkage, "user", X.M);
  IRBuilder<> UB(BasicBlock::Create(X.Ctx, "entry", User));
  UB.CreateRet(UB.CreateCall(Decl, {User->getArg(0)}));
  static const Template Defs = LLQ_DEFINITIONS(R"(
    @counter = global i32 0
    define i32 @twice(i32 %x) {
      %c = load i32, ptr @counter
      %c1 = add i32 %c, 1
      store i32 %c1, ptr @counter
      %r = call i32 @f(i32 %x, i32 %x, ptr @counter)
      %y = shl i32 %r, 1
      ret i32 %y
    }
  )");
  std::vector<GlobalValue *> New = require(Defs.instantiateInto(X.M));
  REQUIRE(New.size() == 2);
  Function *Twice = X.M.getFunction("twice");
  REQUIRE(Twice);
  CHECK(!Twice->isDeclaration());
  CHECK(cast<CallInst>(User->getEntryBlock().front()).getCalledFunction() == Twice);
  REQUIRE(X.verifies());
}

TEST_CASE("a_failed_instantiation_leaves_the_module_as_it_was") {
  Fixture X;
  X.B.CreateRet(X.A);
  std::string Before = printModule(X.M);
  // The second function is wrong; the first, and the global, must not stay.
  Template Defs("@g = global i32 1\n"
                "define void @ok() {\n  ret void\n}\n"
                "define void @bad() {\n  %x = add i32 1, %y\n  ret void\n}\n",
                "k.cpp", 20);
  std::string E = errorOf(Defs.instantiateInto(X.M));
  INFO(E);
  CHECK(E.find("k.cpp:25:19: error: use of undefined value '%y'") == 0);
  CHECK(printModule(X.M) == Before);
  // A verifier error, too.
  Template Unverified("define i32 @h(i1 %c) {\n  br i1 %c, label %a, label %b\n"
                      "a:\n  %v = add i32 1, 2\n  br label %b\nb:\n  ret i32 %v\n}\n",
                      "k.cpp", 1);
  E = errorOf(Unverified.instantiateInto(X.M));
  INFO(E);
  CHECK(E.find("k.cpp:4:3: error: Instruction does not dominate all uses!") == 0);
  CHECK(printModule(X.M) == Before);
  // A definition whose type is not its declaration's.
  Function::Create(FunctionType::get(X.B.getVoidTy(), false),
                   Function::ExternalLinkage, "k", X.M);
  Before = printModule(X.M);
  Template Mismatch("define i32 @k() {\n  ret i32 0\n}\n", "k.cpp", 1);
  E = errorOf(Mismatch.instantiateInto(X.M));
  CHECK(E.find("k.cpp:1:1: error: this defines '@k', which the module declares "
               "with type 'void ()'") == 0);
  CHECK(printModule(X.M) == Before);
}

TEST_CASE("a_global_template_holds_one_global") {
  Fixture X;
  static const Template G = LLQ_GLOBAL(R"(@table = constant [2 x i32] [i32 1, i32 $const:k])");
  std::vector<GlobalValue *> New = require(G.instantiateInto(X.M, {{"k", 7}}));
  REQUIRE(New.size() == 1);
  auto *GV = cast<GlobalVariable>(New[0]);
  CHECK(GV->getName() == "table");
  CHECK(GV->isConstant());
  Template Two("@a = global i32 0\n@b = global i32 1\n", "k.cpp", 1, 1,
               Granularity::Global);
  CHECK(errorOf(Two.check()).find("k.cpp:2:1: error: a global template holds "
                                  "one global value; this is a second one") == 0);
}

TEST_CASE("type_templates") {
  LLVMContext Ctx;
  Module M("m", Ctx);
  StructType *Pair = StructType::create(Ctx, {Type::getInt32Ty(Ctx), Type::getFloatTy(Ctx)}, "pair");
  static const Template Vec = LLQ_TYPE(R"(<$const:n x $type:elt>)");
  Type *T = require(Vec.instantiateType(Ctx, {{"n", 4}, {"elt", Type::getFloatTy(Ctx)}}));
  CHECK(T == FixedVectorType::get(Type::getFloatTy(Ctx), 4));
  static const Template Named = LLQ_TYPE(R"({ %pair, ptr })");
  T = require(Named.instantiateType(M));
  CHECK(T == StructType::get(Ctx, {Pair, PointerType::get(Ctx, 0)}));
  static const Template Fn = LLQ_TYPE(R"(void (i32, ...))");
  T = require(Fn.instantiateType(Ctx));
  CHECK(T == FunctionType::get(Type::getVoidTy(Ctx), {Type::getInt32Ty(Ctx)}, true));
  Template Bad("[4 x i32] junk", "k.cpp", 2, 7, Granularity::Type);
  CHECK(errorOf(Bad.instantiateType(Ctx)).find(
            "k.cpp:2:17: error: expected end of file, found keyword 'junk'") == 0);
  Template Unknown("%nosuch", "k.cpp", 2, 7, Granularity::Type);
  CHECK(errorOf(Unknown.instantiateType(M)).find(
            "k.cpp:2:7: error: use of undefined type named 'nosuch'") == 0);
  // A quoted name is a name too: it is not made up as a new opaque type.
  Template Quoted("{ i8, %\"no such\" }", "k.cpp", 2, 7, Granularity::Type);
  CHECK(errorOf(Quoted.instantiateType(M)).find(
            "k.cpp:2:13: error: use of undefined type named 'no such'") == 0);
  CHECK(StructType::getTypeByName(Ctx, "no such") == nullptr);
}

TEST_CASE("operand_templates") {
  Fixture X;
  static const Template C = LLQ_OPERAND(R"(i64 ptrtoint (ptr @f to i64))");
  Value *V = require(C.instantiateOperand(X.M));
  CHECK(V == ConstantExpr::getPtrToInt(X.F, X.B.getInt64Ty()));
  static const Template Local = LLQ_OPERAND(R"(i32 %a)");
  CHECK(require(Local.instantiateOperand(X.M, {}, {{"a", X.A}})) == X.A);
  // Numbered names of the environment, in any order, with a gap.
  static const Template Numbered = LLQ_OPERAND(R"(ptr %3)");
  CHECK(require(Numbered.instantiateOperand(
            X.M, {}, {{"3", X.Ptr}, {"1", X.Bv}, {"0", X.A}})) == X.Ptr);
  CHECK(X.M.getFunctionList().size() == 1);
  Template Two("i32 1, i32 2", "k.cpp", 1, 1, Granularity::Operand);
  CHECK(errorOf(Two.instantiateOperand(X.M)).find(
            "k.cpp:1:1: error: an operand template holds one typed operand") == 0);
  CHECK(X.M.getFunctionList().size() == 1);
}

TEST_CASE("fragments_splice_where_their_granularity_may_stand") {
  Fixture X;
  static const Template Elt = LLQ_TYPE(R"(<4 x i32>)");
  static const Template Four = LLQ_OPERAND(R"(i32 4)");
  static const Template Body = LLQ_INSTRS(R"(
    %s = add <4 x i32> %v, %v
  )");
  static const Template Fn = LLQ_SKELETON(R"(
    define $type:elt @g($type:elt %v) {
      $instrs:body
      %e = extractelement $type:elt %s, i32 $opr:k
      %w = insertelement $type:elt %s, i32 %e, i32 0
      call void @h($args:k)
      ret $type:elt %w
    }
    declare void @h(i32)
  )");
  Fragment EltF = require(Elt.fragment());
  CHECK(EltF.Kind == Granularity::Type);
  Fragment FourF = require(Four.fragment());
  CHECK(FourF.Untyped == "4");
  Bindings Bound{{"elt", EltF}, {"k", FourF}, {"body", require(Body.fragment({}, {"s"}))}};
  std::unique_ptr<Module> M = require(Fn.instantiate(X.Ctx, Bound));
  LLVMContext Ctx2;
  auto Expected = require(parseModuleString(
      "define <4 x i32> @g(<4 x i32> %v) {\n  %s = add <4 x i32> %v, %v\n"
      "  %e = extractelement <4 x i32> %s, i32 4\n"
      "  %w = insertelement <4 x i32> %s, i32 %e, i32 0\n"
      "  call void @h(i32 4)\n  ret <4 x i32> %w\n}\ndeclare void @h(i32)\n",
      "x", Ctx2));
  M->setModuleIdentifier("x");
  M->setSourceFileName("x");
  CHECK(printModule(*M) == printModule(*Expected));
  // A fragment where its granularity may not stand.
  Template Wrong("define void @g() {\n  $instrs:body\n  ret void\n}\n", "k.cpp", 1);
  CHECK(errorOf(Wrong.instantiate(X.Ctx, {{"body", EltF}})).find(
            "k.cpp:2:3: error: antiquote '$instrs:body' takes fragments or their "
            "text, or a list of them, but 'body' is bound to a type fragment") == 0);
}

TEST_CASE("values_of_a_function_are_spliced_only_by_emit") {
  Fixture X;
  Template T("define i32 @g() {\n  ret i32 $opr:v\n}\n", "k.cpp", 1);
  CHECK(errorOf(T.instantiate(X.Ctx, {{"v", X.A}})).find(
            "k.cpp:2:11: error: 'v' is bound to an llvm::Value of a function") == 0);
  // Through emit(), with $args taking a list of them.
  Function *H = Function::Create(
      FunctionType::get(X.B.getVoidTy(), {X.B.getInt32Ty(), X.B.getInt32Ty()}, false),
      Function::ExternalLinkage, "h", X.M);
  static const Template Call = LLQ_INSTRS(R"(call void @h($args:xs))");
  Emitted E = require(Call.emit(X.B, {{"xs", std::vector<Value *>{X.A, X.Bv}}}));
  REQUIRE(E.Instructions.size() == 1);
  auto *CI = cast<CallInst>(E.Instructions[0]);
  CHECK(CI->getCalledFunction() == H);
  CHECK(CI->getArgOperand(0) == X.A);
  CHECK(CI->getArgOperand(1) == X.Bv);
  X.B.CreateRet(X.A);
  REQUIRE(X.verifies());
}

TEST_CASE("use_of_a_template_against_its_granularity") {
  LLVMContext Ctx;
  static const Template Ty = LLQ_TYPE(R"(i32)");
  CHECK(errorOf(Ty.instantiate(Ctx)).find(
            "instantiate() takes module templates, and this is a type template") == 0);
  Module M("m", Ctx);
  CHECK(errorOf(Ty.instantiateOperand(M)).find(
            "instantiateOperand() takes operand templates") == 0);
  IRBuilder<> B(Ctx);
  static const Template Inst = LLQ_INSTRS(R"(%x = add i32 1, 2)");
  CHECK(errorOf(Inst.emit(B)).find("emit() needs an IRBuilder inserting into a "
                                   "block") != std::string::npos);
}

TEST_CASE("a_phi_over_the_functions_blocks_in_a_template_with_a_loop") {
  Fixture X;
  BasicBlock *Yes = BasicBlock::Create(X.Ctx, "yes", X.F);
  BasicBlock *No = BasicBlock::Create(X.Ctx, "no", X.F);
  BasicBlock *Join = BasicBlock::Create(X.Ctx, "join", X.F);
  X.B.CreateCondBr(X.B.CreateICmpSLT(X.A, X.Bv), Yes, No);
  IRBuilder<>(Yes).CreateBr(Join);
  IRBuilder<>(No).CreateBr(Join);
  X.B.SetInsertPoint(Join);
  static const Template T = LLQ_INSTRS(R"(
    %r = phi i32 [ %a, %yes ], [ %b, %no ]
    for i32 %i in 0 to 3 {
      %r = add i32 %r, %i
    }
  )");
  Emitted E = require(T.emit(X.B, {}, {{"a", X.A}, {"b", X.Bv}, {"yes", Yes}, {"no", No}}));
  X.B.CreateRet(E.value("r") ? E.value("r") : X.A);
  REQUIRE(X.verifies());
  auto *Phi = dyn_cast<PHINode>(&Join->front());
  REQUIRE(Phi);
  CHECK(Phi->getIncomingValueForBlock(Yes) == X.A);
  CHECK(Phi->getIncomingValueForBlock(No) == X.Bv);
}
