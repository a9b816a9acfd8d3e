#===- LLQuoteLLVM.cmake - How llquote targets use LLVM ----------------------===#
#
# llq_use_llvm(<target>) gives a target LLVM's headers and definitions and links
# LLVM: the shared libLLVM by default. LLVM is built with RTTI and without
# exceptions; llquote follows the same model, so no llvm-config --cxxflags is
# needed.
#
# With LLQ_STATIC_LLVM=ON, the components llquote uses are linked statically
# instead, with libstdc++, libgcc and fmt (header-only), so that a binary runs
# on a machine that has no LLVM 19 (the GPU machine, say): it then needs only
# the C library, zlib and zstd. Linking is slower and each binary
# is 60 to 120 MB, so this is for building the binaries to carry, not for
# development. llq_use_all_llvm_targets(<target>) adds every target LLVM was
# built with, for a tool that initializes them all (llquote-fmt).
#
#===------------------------------------------------------------------------===#
option(LLQ_STATIC_LLVM
       "Link LLVM statically, for binaries that run where LLVM 19 is not installed"
       OFF)

if(LLQ_STATIC_LLVM)
  llvm_map_components_to_libnames(LLQ_LLVM_LIBS
    core support analysis irreader asmparser bitreader bitwriter linker
    transformutils passes target mc object executionengine orcjit jitlink
    native NVPTX)
  add_link_options(-static-libstdc++ -static-libgcc LINKER:--as-needed)
  message(STATUS "llquote links LLVM statically: ${LLQ_LLVM_LIBS}")
endif()

function(llq_use_llvm target)
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
  separate_arguments(_llq_defs NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_definitions(${target} PUBLIC ${_llq_defs})
  if(LLQ_STATIC_LLVM)
    target_link_libraries(${target} PUBLIC ${LLQ_LLVM_LIBS})
  else()
    target_link_libraries(${target} PUBLIC LLVM)
  endif()
endfunction()

function(llq_use_all_llvm_targets target)
  if(LLQ_STATIC_LLVM)
    llvm_map_components_to_libnames(_llq_all ${LLVM_TARGETS_TO_BUILD})
    target_link_libraries(${target} PRIVATE ${_llq_all})
  endif()
endfunction()
