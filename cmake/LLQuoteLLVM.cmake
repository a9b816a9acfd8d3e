#===- LLQuoteLLVM.cmake - How llquote targets use LLVM ----------------------===#
#
# llq_use_llvm(<target>) gives a target LLVM's headers and definitions and links
# the shared libLLVM.  LLVM is built with RTTI and without exceptions; llquote
# follows the same model, so no llvm-config --cxxflags is needed.
#
#===------------------------------------------------------------------------===#
function(llq_use_llvm target)
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
  separate_arguments(_llq_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_definitions(${target} PUBLIC ${_llq_defs})
  target_link_libraries(${target} PUBLIC LLVM)
endfunction()
