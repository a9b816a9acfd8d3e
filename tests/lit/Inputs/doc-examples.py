"""doc-examples.py DOC.md OUTDIR ROOT: check the examples of a document.

- A code block right after `<!-- example: NAME -->` is written to OUTDIR/NAME.ll
  for the lit test to run.
- In a code block right after `<!-- transcript -->`, each `$ CMD` line is run
  from ROOT (after a `#`, the rest is a comment); the lines that follow it, up
  to the next `$`, must be exactly what CMD prints (stdout then stderr). A
  command with no lines after it must succeed."""
import os
import re
import shlex
import subprocess
import sys

doc, outdir, root = sys.argv[1:4]
text = open(doc).read()
os.makedirs(outdir, exist_ok=True)
blocks = re.findall(r"<!-- (example: [\w-]+|transcript) -->\s*```\w*\n(.*?)```", text, re.S)
if not blocks:
    sys.exit("doc-examples: no examples in " + doc)
failures = 0
for tag, body in blocks:
    if tag.startswith("example: "):
        name = tag.split(": ", 1)[1]
        with open(os.path.join(outdir, name + ".ll"), "w") as f:
            f.write(body)
        print("wrote example", name)
        continue
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            sys.exit("doc-examples: output without a command: " + lines[i])
        cmd = lines[i][2:].split(" #", 1)[0].strip()
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        proc = subprocess.run(shlex.split(cmd), cwd=root, capture_output=True, text=True)
        got = (proc.stdout + proc.stderr).rstrip("\n").splitlines()
        if expected and got != expected:
            failures += 1
            print("FAIL: %s\n  expected:\n%s\n  got:\n%s" % (cmd, "\n".join(expected), "\n".join(got)))
        elif not expected and proc.returncode != 0:
            failures += 1
            print("FAIL: %s exited with %d:\n%s" % (cmd, proc.returncode, proc.stderr))
        else:
            print("ok:", cmd)
sys.exit(1 if failures else 0)
