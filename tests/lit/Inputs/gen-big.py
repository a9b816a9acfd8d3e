"""gen-big.py chain|nest N: write a large dialect function to stdout.

chain N: N blocks in a chain, each adding to a reassigned variable; straight
         line code, so minimal SSA has no phi at all.
nest N:  N loops nested through labels and branches, the innermost body
         reassigning a variable; every loop header needs one phi."""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = ["define i32 @big(i32 %seed) {", "entry:", "  %x = i32 %seed", "  br label %b0"]
if kind == "chain":
    for k in range(n):
        out += ["b%d:" % k, "  %%x = add i32 %%x, %d" % (k % 7), "  br label %%b%d" % (k + 1)]
    out += ["b%d:" % n, "  ret i32 %x"]
else:
    for k in range(n):
        out += ["b%d:" % k, "  br label %%b%d" % (k + 1)]
    out += ["b%d:" % n, "  %x = add i32 %x, 1", "  br label %%l%d" % (n - 1)]
    for k in range(n - 1, -1, -1):
        nxt = "%%l%d" % (k - 1) if k else "%done"
        out += ["l%d:" % k, "  %%again%d = icmp slt i32 %%x, 0" % k,
                "  br i1 %%again%d, label %%b%d, label %s" % (k, k, nxt)]
    out += ["done:", "  ret i32 %x"]
out += ["}", "define i32 @main() {", "  %r = call i32 @big(i32 5)", "  ret i32 %r", "}"]
print("\n".join(out))
