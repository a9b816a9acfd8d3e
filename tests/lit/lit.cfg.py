# lit configuration for llquote's CLI tests.
import os
import lit.formats

config.name = "llquote"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".test", ".c", ".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.llq_obj_root, "tests", "lit")

path = os.pathsep.join([config.llq_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

here = os.path.dirname(__file__)
config.substitutions.append(("%clangxx", config.clangxx))
config.substitutions.append(("%clang", config.clang))
config.substitutions.append(("%python", config.python))
# roundtrip FILE.ll: llquote-fmt must give the module llvm-as gives.
config.substitutions.append(
    ("%roundtrip", "bash " + os.path.join(here, "Inputs", "roundtrip.sh")))
# ssa-compare FILE: Braun and mem2reg agree on phis and on what runs.
config.substitutions.append(
    ("%ssa-compare", config.python + " " + os.path.join(here, "Inputs", "ssa-compare.py")))
# expect-exit N CMD...: CMD must exit with status N.
config.substitutions.append(
    ("%expect-exit", config.python + " " + os.path.join(here, "Inputs", "expect-exit.py")))

if config.clang and os.path.exists(config.clang):
    config.available_features.add("clang")
if os.path.exists("/usr/lib/llvm-19/lib/clang/19/include/omp.h") or \
   os.path.exists("/usr/lib/llvm-19/include/omp.h"):
    config.available_features.add("openmp")
