# Configures and builds the check-fail project; the build must fail, and say
# where: kernels.cpp:9:21, the position of the mistake in the C++ file.
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${PROJECT_DIR} -B ${WORK_DIR} -G ${GENERATOR}
                        -DLLQUOTE_FMT=${LLQUOTE_FMT} -DMODULE=${MODULE}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "configuring the check-fail project failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc)
  message(FATAL_ERROR "the build succeeded although its template is broken")
endif()
if(NOT "${out}${err}" MATCHES "kernels\\.cpp:9:21: error: expected ")
  message(FATAL_ERROR "the build failed without the located error:\n${out}${err}")
endif()
message(STATUS "the broken template failed the build at kernels.cpp:9:21")
