#===- tests/scale/lower.cmake - Lower one generated function ----------------===#
#
# cmake -DLLQUOTE_FMT=... -DINPUT=... -DMODE=braun|mem2reg -P lower.cmake
# Lowers INPUT with --ssa=MODE; the output must pass the verifier (llquote-fmt
# verifies by default) and have the phis the generator's loops need. CTest's
# TIMEOUT on the test is what checks the time.
#
#===------------------------------------------------------------------------===#
execute_process(COMMAND ${LLQUOTE_FMT} --ssa=${MODE} ${INPUT} -o ${INPUT}.${MODE}.out.ll
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "llquote-fmt --ssa=${MODE} ${INPUT} failed: ${rc}")
endif()
file(STRINGS ${INPUT}.${MODE}.out.ll phis REGEX " = phi ")
list(LENGTH phis n)
if(n LESS 1000)
  message(FATAL_ERROR "only ${n} phis in ${INPUT}.${MODE}.out.ll")
endif()
message(STATUS "--ssa=${MODE}: ${n} phis")
