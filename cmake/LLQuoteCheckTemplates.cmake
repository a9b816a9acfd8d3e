#===- LLQuoteCheckTemplates.cmake - Template checks at build time -----------===#
#
# llquote_check_templates(<target>) checks every LLQ_SKELETON template in the
# target's C++ sources with `llquote-fmt --check` before the target builds,
# so a broken template fails the build at file.cpp:LINE:COL, the way a
# compile error does. It needs the executable target llquote::llquote-fmt,
# which find_package(llquote) provides (and llquote's own build defines).
#
#===------------------------------------------------------------------------===#
function(llquote_check_templates target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(files)
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.(c|cc|cpp|cxx|h|hh|hpp|hxx)$")
      get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${source_dir}")
      list(APPEND files "${path}")
    endif()
  endforeach()
  if(NOT files)
    return()
  endif()
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${target}.llquote-check.stamp")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND llquote::llquote-fmt --check ${files}
    COMMAND ${CMAKE_COMMAND} -E touch "${stamp}"
    DEPENDS ${files} llquote::llquote-fmt
    COMMENT "Checking the llquote templates of ${target}"
    VERBATIM)
  add_custom_target(${target}_llquote_check DEPENDS "${stamp}")
  add_dependencies(${target} ${target}_llquote_check)
endfunction()
