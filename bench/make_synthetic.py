"""make_synthetic.py OUT: write ~40 MB of varied, valid LLVM IR for benchmarks."""
import sys

FN = """define i64 @f{n}(i64 %a, ptr %p) {{
entry:
  %c = icmp slt i64 %a, {n}
  br i1 %c, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i64 [ %a, %entry ], [ %s1, %loop ]
  %q = getelementptr inbounds i64, ptr %p, i64 %i
  %v = load i64, ptr %q, align 8
  %s1 = add nsw i64 %s, %v
  %i1 = add nuw nsw i64 %i, 1
  %e = icmp eq i64 %i1, {n}
  br i1 %e, label %done, label %loop
done:
  %r = phi i64 [ %a, %entry ], [ %s1, %loop ]
  ret i64 %r
}}
"""
with open(sys.argv[1], "w") as out:
    n = 0
    size = 0
    while size < 40_000_000:
        text = FN.format(n=n)
        out.write(text)
        size += len(text)
        n += 1
