# Installs the build into a scratch prefix, then configures, builds and runs
# a separate project that uses find_package(llquote).
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "install failed")
endif()
# The consumer uses the same compiler; a sanitized llquote needs the
# sanitizer runtime at link time.
set(extra)
if(SANITIZE)
  list(APPEND extra "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${extra}
                        RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed")
endif()
foreach(program consumer arrays pipeline_app)
  # The array program compiles kernels: keep its disk cache in the scratch
  # directory, not the user's.
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LLQ_CACHE_DIR=${WORK_DIR}/cache
                          ${WORK_DIR}/build/${program} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "the installed package's ${program} program failed: ${rc}")
  endif()
endforeach()
message(STATUS "find_package(llquote) works from an installed prefix")
