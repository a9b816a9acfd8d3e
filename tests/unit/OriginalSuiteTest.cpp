//===- OriginalSuiteTest.cpp - The original quoter's tests, case by case --===//
//
// The Constants, DataLayout, InlineAssembly and Metadata tests of the Haskell
// quasi-quoter llquote descends from, restated in LLVM 19 syntax. The
// original compared each quote with a module built by hand as a Haskell AST;
// here each quote, and the same quote with its parts spliced in through
// antiquotes, must equal the module built through LLVM's C++ API.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "llquote/Template.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include <doctest/doctest.h>
#include <functional>

using namespace llq;
using namespace llvm;
using llq::test::emptyModule;
using llq::test::printModule;
using llq::test::printedQuote;

namespace {

struct ConstantCase {
  const char *Name;
  const char *Quote; ///< `@0 = global <type> <value>`
  std::function<Constant *(LLVMContext &)> Value;
};

IntegerType *iN(LLVMContext &C, unsigned N) { return IntegerType::get(C, N); }

const ConstantCase ConstantCases[] = {
    {"integer", "@0 = global i32 1",
     [](LLVMContext &C) -> Constant * { return ConstantInt::get(iN(C, 32), 1); }},
    {"wide integer", "@0 = global i65 1",
     [](LLVMContext &C) -> Constant * { return ConstantInt::get(iN(C, 65), 1); }},
    {"big wide integer", "@0 = global i66 20000000000000000000",
     [](LLVMContext &C) -> Constant * {
       return ConstantInt::get(C, APInt(66, "20000000000000000000", 10));
     }},
    {"negative wide integer", "@0 = global i65 -1",
     [](LLVMContext &C) -> Constant * { return ConstantInt::getSigned(iN(C, 65), -1); }},
    {"float", "@0 = global float 1.000000e+00",
     [](LLVMContext &C) -> Constant * { return ConstantFP::get(Type::getFloatTy(C), 1.0); }},
    {"double", "@0 = global double 1.000000e+00",
     [](LLVMContext &C) -> Constant * { return ConstantFP::get(Type::getDoubleTy(C), 1.0); }},
    {"struct", "@0 = global { i32, i32 } { i32 1, i32 1 }",
     [](LLVMContext &C) -> Constant * {
       Constant *One = ConstantInt::get(iN(C, 32), 1);
       return ConstantStruct::getAnon({One, One});
     }},
    {"dataarray", "@0 = global [3 x i32] [i32 1, i32 2, i32 1]",
     [](LLVMContext &C) -> Constant * {
       return ConstantDataArray::get(C, ArrayRef<uint32_t>({1, 2, 1}));
     }},
    {"array", "@0 = global [3 x { i32 }] [{ i32 } { i32 1 }, { i32 } { i32 2 }, { i32 } { i32 1 }]",
     [](LLVMContext &C) -> Constant * {
       std::vector<Constant *> Elts;
       for (int V : {1, 2, 1})
         Elts.push_back(ConstantStruct::getAnon({ConstantInt::get(iN(C, 32), V)}));
       auto *T = ArrayType::get(StructType::get(iN(C, 32)), 3);
       return ConstantArray::get(T, Elts);
     }},
    {"datavector", "@0 = global <3 x i32> <i32 1, i32 2, i32 1>",
     [](LLVMContext &C) -> Constant * {
       return ConstantDataVector::get(C, ArrayRef<uint32_t>({1, 2, 1}));
     }},
    {"undef", "@0 = global i32 undef",
     [](LLVMContext &C) -> Constant * { return UndefValue::get(iN(C, 32)); }},
};
} // namespace

TEST_CASE("original_constants") {
  for (const ConstantCase &Case : ConstantCases) {
    INFO(Case.Name);
    LLVMContext Ctx;
    // The module built by hand: one unnamed global with the constant.
    auto Built = emptyModule(Ctx);
    Constant *C = Case.Value(Ctx);
    new GlobalVariable(*Built, C->getType(), /*isConstant=*/false,
                       GlobalValue::ExternalLinkage, C);
    std::string Want = printModule(*Built);
    CHECK(printedQuote(parseModuleString(Case.Quote, "q", Ctx)) == Want);
    Template T("@0 = global $type:t $const:c\n", "q");
    CHECK(printedQuote(T.instantiate(Ctx, {{"t", C->getType()}, {"c", C}})) == Want);
  }
}

TEST_CASE("original_data_layouts") {
  const std::pair<const char *, const char *> Cases[] = {
      {"little-endian", "e"},
      {"big-endian", "E"},
      {"native", "n8:32"},
      {"no pref", "p:8:64"},
      {"no pref, address space 1", "p1:8:32:64"},
      {"big", "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-"
              "f64:64:64-v64:64:64-v128:128:128-a0:0:64-s0:64:64-f80:128:128-"
              "n8:16:32:64-S128"}};
  LLVMContext Ctx;
  CHECK(printedQuote(parseModuleString("", "q", Ctx)) == printModule(*emptyModule(Ctx)));
  for (auto [Name, Layout] : Cases) {
    INFO(Name);
    auto Built = emptyModule(Ctx);
    Built->setDataLayout(DataLayout(Layout));
    std::string Want = printModule(*Built);
    std::string Quote = std::string("target datalayout = \"") + Layout + "\"\n";
    CHECK(printedQuote(parseModuleString(Quote, "q", Ctx)) == Want);
    Template T("target datalayout = $dl:dl\n", "q");
    CHECK(printedQuote(T.instantiate(Ctx, {{"dl", DataLayout(Layout)}})) == Want);
  }
}

TEST_CASE("original_inline_assembly_expression") {
  LLVMContext Ctx;
  auto Built = emptyModule(Ctx);
  Type *I32 = Type::getInt32Ty(Ctx);
  auto *FTy = FunctionType::get(I32, {I32}, false);
  Function *F = Function::Create(FTy, GlobalValue::ExternalLinkage, "foo", *Built);
  F->getArg(0)->setName("x");
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  Value *R = B.CreateCall(FTy, InlineAsm::get(FTy, "bswap $0", "=r,r", false),
                          {F->getArg(0)});
  B.CreateRet(R);
  std::string Want = printModule(*Built);
  CHECK(printedQuote(parseModuleString(R"(
define i32 @foo(i32 %x) {
entry:
  %0 = call i32 asm "bswap $0", "=r,r"(i32 %x)
  ret i32 %0
})",
                                  "q", Ctx)) == Want);
  // Spliced: the type, the callee's name and the argument.
  Template T(R"(
define $type:t $gid:fn($type:t $id:arg) {
entry:
  %0 = call $type:t asm "bswap $0", "=r,r"($args:as)
  ret $type:t %0
})",
             "q");
  CHECK(printedQuote(T.instantiate(Ctx, {{"t", I32}, {"fn", "foo"}, {"arg", "x"},
                                    {"as", "i32 %x"}})) == Want);
}

TEST_CASE("original_inline_assembly_module") {
  LLVMContext Ctx;
  auto Built = emptyModule(Ctx);
  Built->appendModuleInlineAsm("foo");
  Built->appendModuleInlineAsm("bar");
  new GlobalVariable(*Built, Type::getInt32Ty(Ctx), false,
                     GlobalValue::ExternalLinkage, nullptr);
  CHECK(printedQuote(parseModuleString("module asm \"foo\"\nmodule asm \"bar\"\n"
                                  "@0 = external global i32\n",
                                  "q", Ctx)) == printModule(*Built));
}

namespace {
/// `@foo` returning i32 0 (or void) from one block, for the metadata cases.
Function *retFunction(Module &M, bool Void, ReturnInst **Ret) {
  LLVMContext &Ctx = M.getContext();
  Type *RT = Void ? Type::getVoidTy(Ctx) : Type::getInt32Ty(Ctx);
  Function *F = Function::Create(FunctionType::get(RT, false),
                                 GlobalValue::ExternalLinkage, "foo", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  *Ret = Void ? B.CreateRetVoid()
              : B.CreateRet(ConstantInt::get(Type::getInt32Ty(Ctx), 0));
  return F;
}

Metadata *constantMD(LLVMContext &Ctx, int V) {
  return ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), V));
}
} // namespace

TEST_CASE("original_metadata_local") {
  LLVMContext Ctx;
  auto Built = emptyModule(Ctx);
  auto *G = new GlobalVariable(*Built, Type::getInt32Ty(Ctx), false,
                               GlobalValue::ExternalLinkage, nullptr);
  ReturnInst *Ret;
  retFunction(*Built, false, &Ret);
  IRBuilder<>(Ret).CreateLoad(Type::getInt32Ty(Ctx), G);
  Ret->setMetadata("my-metadatum", MDNode::get(Ctx, {MDString::get(Ctx, "super hyper")}));
  std::string Want = printModule(*Built);
  CHECK(printedQuote(parseModuleString(R"(
@0 = external global i32
define i32 @foo() {
entry:
  %0 = load i32, ptr @0
  ret i32 0, !my-metadatum !{!"super hyper"}
})",
                                  "q", Ctx)) == Want);
}

TEST_CASE("original_metadata_global_named_null") {
  LLVMContext Ctx;
  {
    auto Built = emptyModule(Ctx);
    ReturnInst *Ret;
    retFunction(*Built, false, &Ret);
    Ret->setMetadata("my-metadatum", MDNode::get(Ctx, {constantMD(Ctx, 1)}));
    const char *Quote = "define i32 @foo() {\nentry:\n  ret i32 0, !my-metadatum !0\n}\n"
                        "!0 = !{$type:t $const:one}\n";
    Template T(Quote, "q");
    CHECK(printedQuote(T.instantiate(Ctx, {{"t", Type::getInt32Ty(Ctx)}, {"one", 1}})) ==
          printModule(*Built));
  }
  {
    auto Built = emptyModule(Ctx);
    Built->getOrInsertNamedMetadata("my-module-metadata")
        ->addOperand(MDNode::get(Ctx, {constantMD(Ctx, 1)}));
    CHECK(printedQuote(parseModuleString("!my-module-metadata = !{!0}\n!0 = !{i32 1}\n", "q",
                                    Ctx)) == printModule(*Built));
  }
  {
    auto Built = emptyModule(Ctx);
    Built->getOrInsertNamedMetadata("my-module-metadata")
        ->addOperand(MDNode::get(Ctx, {nullptr}));
    CHECK(printedQuote(parseModuleString("!my-module-metadata = !{!0}\n!0 = !{null}\n", "q",
                                    Ctx)) == printModule(*Built));
  }
}

TEST_CASE("original_metadata_cyclic") {
  LLVMContext Ctx;
  {
    // !0 = !{!1}, !1 = !{!0}: built through a temporary node.
    auto Built = emptyModule(Ctx);
    auto Temp = MDTuple::getTemporary(Ctx, {});
    MDNode *N1 = MDNode::get(Ctx, {Temp.get()});
    MDNode *N0 = MDNode::get(Ctx, {N1});
    Temp->replaceAllUsesWith(N0);
    Built->getOrInsertNamedMetadata("my-module-metadata")->addOperand(N0);
    CHECK(printedQuote(parseModuleString("!my-module-metadata = !{!0}\n!0 = !{!1}\n!1 = !{!0}\n",
                                    "q", Ctx)) == printModule(*Built));
  }
  {
    auto Built = emptyModule(Ctx);
    ReturnInst *Ret;
    Function *F = retFunction(*Built, true, &Ret);
    Ret->setMetadata("my-metadatum", MDNode::get(Ctx, {ValueAsMetadata::get(F)}));
    Template T("define void $gid:f() {\nentry:\n  ret void, !my-metadatum !0\n}\n"
               "!0 = !{ptr $gid:f}\n",
               "q");
    CHECK(printedQuote(T.instantiate(Ctx, {{"f", "foo"}})) == printModule(*Built));
  }
}
