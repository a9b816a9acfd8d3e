"""ssa-compare.py FILE: compare the two SSA modes of llquote-fmt on FILE.

Both `--ssa=braun` (the default) and `--ssa=mem2reg` must succeed, give the
same number of phis in every function, and run under lli with the same exit
status; the Braun output must hold no trivial phi (one whose incoming values,
apart from the phi itself, are all the same). Prints a summary for FileCheck."""
import re
import subprocess
import sys

path = sys.argv[1]


def lower(mode):
    out = subprocess.run(["llquote-fmt", "--ssa=" + mode, path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("ssa-compare: --ssa=%s failed:\n%s" % (mode, out.stderr))
    return out.stdout


def phis_by_function(text):
    counts, current = {}, None
    for line in text.splitlines():
        m = re.match(r"define .*@([-\w.$\"]+)\(", line)
        if m:
            current = m.group(1)
            counts[current] = 0
        elif " = phi " in line and current:
            counts[current] += 1
    return counts


def trivial_phis(text):
    bad = []
    for line in text.splitlines():
        m = re.match(r"\s*(%[-\w.$\"]+) = phi [^\[]*(.*)", line)
        if not m:
            continue
        values = set(re.findall(r"\[\s*([^,\]]+?)\s*,", m.group(2))) - {m.group(1)}
        if len(values) <= 1:
            bad.append(line.strip())
    return bad


def run(text):
    return subprocess.run(["lli", "-"], input=text, capture_output=True, text=True).returncode


braun, mem = lower("braun"), lower("mem2reg")
pb, pm = phis_by_function(braun), phis_by_function(mem)
failed = False
if pb != pm:
    print("phi counts differ: braun %s, mem2reg %s" % (pb, pm))
    failed = True
bad = trivial_phis(braun)
if bad:
    print("trivial phis: %s" % bad)
    failed = True
rb, rm = run(braun), run(mem)
if rb != rm:
    print("exit status differs: braun %d, mem2reg %d" % (rb, rm))
    failed = True
print("phis %d" % sum(pb.values()))
print("exit %d" % rb)
sys.exit(1 if failed else 0)
