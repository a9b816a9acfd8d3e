// A kernel template with a deliberate mistake on line 9: a missing comma.
// This file is never compiled: the template check fails first.
#define LLQ_SKELETON(Text) Text

const char *Scale = LLQ_SKELETON(R"(
define void @scale(i64 %n, float %a, ptr %x) {
  for i64 %i in 0 to %n {
    %p = getelementptr float, ptr %x, i64 %i
    %v = load float ptr %p
    %w = fmul float %v, %a
    store float %w, ptr %p
  }
  ret void
})");
