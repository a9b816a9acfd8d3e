"""printf-text.py OUTPUT FILE: the printf text run-fuzzer.sh printed in
OUTPUT for FILE gives back FILE's bytes, as printf reads it."""
import subprocess
import sys

lines = open(sys.argv[1]).read().splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("artifact ") and sys.argv[2] in l)
text = lines[at + 1]
assert text.startswith("'") and text.endswith("'"), text
made = subprocess.run(["bash", "-c", "printf " + text], capture_output=True, check=True).stdout
want = open(sys.argv[2], "rb").read()
if made != want:
    sys.exit("printf text gives %r, the input is %r" % (made, want))
