//===- WidenLanes.cpp - A scalar function, run on every lane of vectors ---===//
//
// The chunk scan of Scan.cpp combines Lanes elements at once: its template
// declares @f.lanes(<L x T>, <L x T>), and calls it where the scalar scan
// calls @f(T, T). This pass defines @f.lanes from @f, the definition the
// kernel instantiated from the user's function, by giving each instruction
// its vector form:
//
//   %r = fadd float %a, %b              %r = fadd <8 x float> %a, %b
//   %c = fcmp olt float %a, 0.0    =>   %c = fcmp olt <8 x float> %a, zeroinitializer
//   %m = call float @llvm.maxnum.f32    %m = call <8 x float> @llvm.maxnum.v8f32
//
// Constants become splats; flags (nsw, fast-math) are kept. Lane i of the
// result is then @f of the arguments' lanes i, which is all the scan needs;
// LLVM's vectorizers would not find it themselves once the lanes were taken
// apart and put together around scalar calls (InstCombine folds the
// shuffles away lane by lane first).
//
// It applies where @f is one block, touches no memory, divides no integers
// (the scan runs @f on lanes whose result it drops: those must not trap) and
// calls only intrinsics that have a vector form (isTriviallyVectorizable).
// Otherwise it returns false and leaves the module as it was: the caller
// generates the scalar form instead.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// Whether I has a vector form this pass writes.
static bool widens(const Instruction &I) {
  if (I.getType()->isPointerTy() || I.getType()->isAggregateType() ||
      I.getType()->isVectorTy())
    return false;
  if (I.isIntDivRem() || I.mayReadOrWriteMemory() || I.mayThrow())
    // A call that may touch memory is not an intrinsic's vector form.
    return false;
  if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
    Intrinsic::ID ID = II->getIntrinsicID();
    if (!isTriviallyVectorizable(ID))
      return false;
    for (unsigned A = 0; A < II->arg_size(); ++A)
      if (isVectorIntrinsicWithScalarOpAtArg(ID, A) &&
          !isa<Constant>(II->getArgOperand(A)))
        return false;
    return true;
  }
  return isa<BinaryOperator, UnaryOperator, CmpInst, SelectInst, CastInst,
             FreezeInst, ReturnInst>(I);
}

bool llq::detail::widenLanes(Module &M, StringRef ScalarName,
                             StringRef VectorName) {
  Function *S = M.getFunction(ScalarName), *V = M.getFunction(VectorName);
  if (!S || !V || S->isDeclaration() || !V->isDeclaration() ||
      S->size() != 1 || S->arg_size() != V->arg_size())
    return false;
  auto *RT = dyn_cast<FixedVectorType>(V->getReturnType());
  if (!RT || RT->getElementType() != S->getReturnType())
    return false;
  ElementCount Lanes = RT->getElementCount();
  auto Wide = [&](Type *T) { return VectorType::get(T, Lanes); };
  for (unsigned A = 0; A < S->arg_size(); ++A)
    if (V->getArg(A)->getType() != Wide(S->getArg(A)->getType()))
      return false;
  for (const Instruction &I : S->front())
    if (!widens(I))
      return false;

  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", V));
  DenseMap<const Value *, Value *> Map;
  for (unsigned A = 0; A < S->arg_size(); ++A)
    Map[S->getArg(A)] = V->getArg(A);
  auto Get = [&](Value *X) -> Value * {
    if (auto *C = dyn_cast<Constant>(X))
      return ConstantVector::getSplat(Lanes, C);
    return Map.lookup(X);
  };
  for (Instruction &I : S->front()) {
    Value *R = nullptr;
    if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
      B.CreateRet(Get(Ret->getReturnValue()));
      continue;
    }
    if (auto *Bin = dyn_cast<BinaryOperator>(&I))
      R = B.CreateBinOp(Bin->getOpcode(), Get(Bin->getOperand(0)),
                        Get(Bin->getOperand(1)));
    else if (auto *Un = dyn_cast<UnaryOperator>(&I))
      R = B.CreateUnOp(Un->getOpcode(), Get(Un->getOperand(0)));
    else if (auto *Cmp = dyn_cast<CmpInst>(&I))
      R = B.CreateCmp(Cmp->getPredicate(), Get(Cmp->getOperand(0)),
                      Get(Cmp->getOperand(1)));
    else if (auto *Sel = dyn_cast<SelectInst>(&I))
      R = B.CreateSelect(Get(Sel->getCondition()), Get(Sel->getTrueValue()),
                         Get(Sel->getFalseValue()));
    else if (auto *Cast = dyn_cast<CastInst>(&I))
      R = B.CreateCast(Cast->getOpcode(), Get(Cast->getOperand(0)),
                       Wide(Cast->getDestTy()));
    else if (auto *Fr = dyn_cast<FreezeInst>(&I))
      R = B.CreateFreeze(Get(Fr->getOperand(0)));
    else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      Intrinsic::ID ID = II->getIntrinsicID();
      SmallVector<Value *, 4> Args;
      SmallVector<Type *, 2> Overloads;
      if (isVectorIntrinsicWithOverloadTypeAtArg(ID, -1))
        Overloads.push_back(Wide(II->getType()));
      for (unsigned A = 0; A < II->arg_size(); ++A) {
        Value *X = II->getArgOperand(A);
        Args.push_back(isVectorIntrinsicWithScalarOpAtArg(ID, A) ? X
                                                                 : Get(X));
        if (isVectorIntrinsicWithOverloadTypeAtArg(ID, int(A)))
          Overloads.push_back(Args.back()->getType());
      }
      R = B.CreateCall(Intrinsic::getDeclaration(&M, ID, Overloads), Args);
    }
    if (auto *New = dyn_cast<Instruction>(R))
      New->copyIRFlags(&I);
    R->setName(I.getName());
    Map[&I] = R;
  }
  V->setLinkage(GlobalValue::InternalLinkage);
  V->addFnAttr(Attribute::AlwaysInline);
  return true;
}
