//===- Checks.cpp - Checked mode: integer division faults become errors ---===//
//
// In LLVM IR, integer division by zero, and signed division of the least
// value by -1, are undefined; on x86 they trap, and the process dies of
// SIGFPE. With RuntimeOptions::Checks (LLQ_CHECKS=1) every such division in
// the kernel's scalar functions is guarded instead:
//
//   %q = sdiv i32 %a, %b
// becomes
//   %zero = icmp eq i32 %b, 0
//   %ovf  = (%b == -1) & (%a == INT_MIN)          ; signed division only
//   %bad  = or i1 %zero, %ovf                     ; reduced for vectors
//   %safe = select i1 %bad, i32 1, i32 %b
//   %q    = sdiv i32 %a, %safe
//   br i1 %bad, label %fault, label %go           ; fault: store the code
//
// The code stored in the launch's fault word (KernelGen::fault) is
// DivisionFault + 2 * function index (+1 for an overflow); the launch then
// fails with an ArrayError naming the operation and the function's C++ line.
// A divisor that is a constant the check proves safe costs nothing.
//
// The scalar functions are separate, always-inlined functions when this
// runs, so each function that divides takes the fault word as one more
// parameter; its calls pass the fault parameter of the phase they are in.
//
//===----------------------------------------------------------------------===//

#include "llquote/skeletons/Skeleton.h"
#include "llquote/skeletons/Node.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;
using namespace llq::detail;

namespace {

bool isDivision(const Instruction &I) {
  switch (I.getOpcode()) {
  case Instruction::SDiv:
  case Instruction::UDiv:
  case Instruction::SRem:
  case Instruction::URem:
    return true;
  default:
    return false;
  }
}

/// F with one more parameter, a ptr named "llq.fault", last; F's body moves
/// into it and every call of F is rewritten to pass FaultOf(caller).
Function *withFaultParam(Function &F,
                         function_ref<Value *(Function &)> FaultOf) {
  FunctionType *Old = F.getFunctionType();
  SmallVector<Type *, 8> Params(Old->params());
  Params.push_back(PointerType::get(F.getContext(), 0));
  auto *New = Function::Create(
      FunctionType::get(Old->getReturnType(), Params, Old->isVarArg()),
      F.getLinkage(), F.getAddressSpace(), "", F.getParent());
  New->copyAttributesFrom(&F);
  New->takeName(&F);
  New->splice(New->begin(), &F);
  for (auto [From, To] : zip(F.args(), New->args())) {
    From.replaceAllUsesWith(&To);
    To.takeName(&From);
  }
  New->getArg(New->arg_size() - 1)->setName("llq.fault");

  SmallVector<CallInst *, 8> Calls;
  for (User *U : F.users())
    if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F)
      Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    SmallVector<Value *, 8> Args(CI->args());
    Args.push_back(FaultOf(*CI->getFunction()));
    auto *NewCall = CallInst::Create(New, Args, "", CI->getIterator());
    NewCall->setCallingConv(CI->getCallingConv());
    NewCall->setAttributes(CI->getAttributes());
    NewCall->setTailCallKind(CI->getTailCallKind());
    NewCall->setDebugLoc(CI->getDebugLoc());
    NewCall->takeName(CI);
    CI->replaceAllUsesWith(NewCall);
    CI->eraseFromParent();
  }
  // Any use left (its address taken) keeps the old, unchecked definition
  // alive; the skeletons only call their functions.
  if (F.use_empty())
    F.eraseFromParent();
  return New;
}

/// Guards division I of F: a divisor that would trap is replaced by 1, and
/// Code is stored into the fault word Fault.
void guard(BinaryOperator &I, Value *Fault, int64_t Code) {
  IRBuilder<> B(&I);
  Value *Num = I.getOperand(0), *Den = I.getOperand(1);
  Type *T = Den->getType();
  Value *Zero = B.CreateICmpEQ(Den, Constant::getNullValue(T), "llq.zero");
  Value *Bad = Zero;
  Value *Ovf = nullptr;
  bool Signed = I.getOpcode() == Instruction::SDiv ||
                I.getOpcode() == Instruction::SRem;
  if (Signed) {
    unsigned Bits = T->getScalarSizeInBits();
    Value *MinusOne =
        B.CreateICmpEQ(Den, Constant::getAllOnesValue(T), "llq.minus1");
    Value *Least = B.CreateICmpEQ(
        Num, ConstantInt::get(T, APInt::getSignedMinValue(Bits)), "llq.least");
    Ovf = B.CreateAnd(MinusOne, Least, "llq.ovf");
    Bad = B.CreateOr(Zero, Ovf, "llq.bad");
  }
  // The divisor that cannot trap; a constant folds away.
  Value *Safe = B.CreateSelect(Bad, ConstantInt::get(T, 1), Den, "llq.den");
  I.setOperand(1, Safe);
  auto AnyOf = [&](Value *V) -> Value * {
    return V->getType()->isVectorTy() ? B.CreateOrReduce(V) : V;
  };
  Value *Any = AnyOf(Bad);
  if (auto *C = dyn_cast<ConstantInt>(Any); C && C->isZero())
    return; // A divisor proved safe: no branch.
  // The code: an overflow where the divisor is not zero anywhere.
  Value *Which = ConstantInt::get(B.getInt64Ty(), Code);
  if (Ovf) {
    Value *AnyZero = AnyOf(Zero);
    Which = B.CreateSelect(AnyZero, Which,
                           ConstantInt::get(B.getInt64Ty(), Code + 1),
                           "llq.code");
  }
  Instruction *Then = SplitBlockAndInsertIfThen(Any, I.getIterator(),
                                                /*Unreachable=*/false);
  B.SetInsertPoint(Then);
  StoreInst *S = B.CreateStore(Which, Fault);
  S->setAtomic(AtomicOrdering::Monotonic);
  S->setAlignment(Align(8));
}

} // namespace

void llq::detail::addDivisionChecks(Module &M, const KernelGen &G) {
  std::string FaultName = G.faultParam();
  // Code outside the phases (none that the skeletons write) reports into a
  // word of its own, which nobody reads: its divisions still cannot trap.
  GlobalVariable *Spare = nullptr;
  auto FaultOf = [&](Function &Caller) -> Value * {
    for (Argument &A : Caller.args())
      if (A.getName() == FaultName || A.getName() == "llq.fault")
        return &A;
    if (!Spare)
      Spare = new GlobalVariable(
          M, Type::getInt64Ty(M.getContext()), false,
          GlobalValue::InternalLinkage,
          ConstantInt::get(Type::getInt64Ty(M.getContext()), 0),
          "llq.unreported");
    return Spare;
  };
  for (size_t FnIx = 0; FnIx < G.numFunctions(); ++FnIx) {
    Function *F = M.getFunction(KernelGen::functionName(FnIx));
    if (!F || F->isDeclaration())
      continue;
    bool Divides = false;
    for (Instruction &I : instructions(*F))
      Divides |= isDivision(I);
    const std::vector<ArrayParam> &Arrays = G.function(FnIx).Arrays;
    if (!Divides && Arrays.empty())
      continue;
    Function *Checked = withFaultParam(*F, FaultOf);
    // The readers of its arrays (which only it calls) report into the same
    // word: @llq.read.fault(i64 K) becomes a store of the read's code.
    for (const ArrayParam &A : Arrays) {
      Function *R = M.getFunction(KernelGen::functionName(FnIx) + "." + A.Name);
      if (!R || R->isDeclaration())
        continue;
      Function *CR = withFaultParam(*R, FaultOf);
      Value *Word = CR->getArg(CR->arg_size() - 1);
      SmallVector<CallInst *, 4> Faults;
      for (Instruction &I : instructions(*CR))
        if (auto *CI = dyn_cast<CallInst>(&I);
            CI && CI->getCalledFunction() &&
            CI->getCalledFunction()->getName() == "llq.read.fault")
          Faults.push_back(CI);
      for (CallInst *CI : Faults) {
        IRBuilder<> B(CI);
        auto *K = cast<ConstantInt>(CI->getArgOperand(0));
        StoreInst *S = B.CreateStore(
            B.getInt64(ReadFault + 64 * int64_t(FnIx) + K->getSExtValue()),
            Word);
        S->setAtomic(AtomicOrdering::Monotonic);
        S->setAlignment(Align(8));
        CI->eraseFromParent();
      }
    }
    if (!Divides)
      continue;
    Value *Fault = Checked->getArg(Checked->arg_size() - 1);
    SmallVector<BinaryOperator *, 8> Divisions;
    for (Instruction &I : instructions(*Checked))
      if (isDivision(I))
        Divisions.push_back(cast<BinaryOperator>(&I));
    for (BinaryOperator *D : Divisions)
      guard(*D, Fault, DivisionFault + 2 * int64_t(FnIx));
  }
  if (Function *Decl = M.getFunction("llq.read.fault"); Decl && Decl->use_empty())
    Decl->eraseFromParent();
}
