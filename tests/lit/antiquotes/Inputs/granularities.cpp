// Templates of every granularity, for llquote-fmt --check; three are broken.
#include "llquote/Template.h"

static const llq::Template Mod = LLQ_SKELETON(R"(
define void @f() {
  ret void
})");
static const llq::Template Defs = LLQ_DEFINITIONS(R"(
@g = global i32 0
declare void @h($type:t)
)");
static const llq::Template Glob = LLQ_GLOBAL(R"(@a = global i32 0
@b = global i32 1)");
static const llq::Template Blocks = LLQ_BLOCKS(R"(
loop:
  br label %loop
)");
static const llq::Template Instrs = LLQ_INSTRS(R"(
  for i32 %i in 0 to %n { %acc = add i32 %acc, %i }
done:
)");
static const llq::Template Term = LLQ_TERMINATOR(R"(ret $type:t $opr:v)");
static const llq::Template Ty = LLQ_TYPE(R"({ i32, [$const:n x $type:elt] })");
static const llq::Template Opr = LLQ_OPERAND(R"(i32 1 2)");
