#===- LLQuoteAot.cmake - Array pipelines compiled at build time -----------===#
#
# llquote_add_pipeline(<target>
#                      GENERATOR <source.cpp | executable target>
#                      PIPELINES <name>...
#                      [TRIPLE <triple>] [CPU <cpu>] [FEATURES <features>]
#                      [LIBRARIES <libraries the generator links>...])
#
# Builds the generator (a program that describes its pipelines with
# llq::aot::Pipeline, llquote/Aot.h, and compiles them to the directory its
# --out option names), runs it at build time, and adds what it writes for
# each pipeline NAME (NAME.a, the kernels; NAME.cpp, the plan; NAME.h, the
# function) to <target>, which links llquote::aot_runtime and no LLVM. The
# pipelines are compiled again when the generator changes. TRIPLE, CPU and
# FEATURES choose the machine the kernels are for (default: the one that
# builds); a target for another machine is for linking there.
#
#===------------------------------------------------------------------------===#

function(llquote_add_pipeline Target)
  cmake_parse_arguments(PARSE_ARGV 1 Arg "" "GENERATOR;TRIPLE;CPU;FEATURES"
                        "PIPELINES;LIBRARIES")
  if(NOT Arg_GENERATOR OR NOT Arg_PIPELINES)
    message(FATAL_ERROR "llquote_add_pipeline(${Target}): needs GENERATOR "
                        "and PIPELINES")
  endif()
  if(TARGET ${Arg_GENERATOR})
    set(Gen ${Arg_GENERATOR})
  else()
    get_filename_component(Stem ${Arg_GENERATOR} NAME_WE)
    set(Gen ${Target}-${Stem})
    if(NOT TARGET ${Gen})
      add_executable(${Gen} ${Arg_GENERATOR})
      if(TARGET llquote_skeletons)
        target_link_libraries(${Gen} PRIVATE llquote_skeletons ${Arg_LIBRARIES})
      else()
        target_link_libraries(${Gen} PRIVATE llquote::skeletons ${Arg_LIBRARIES})
      endif()
    endif()
  endif()
  set(Dir ${CMAKE_CURRENT_BINARY_DIR}/${Target}-pipelines)
  set(Args --out ${Dir})
  foreach(Opt TRIPLE CPU FEATURES)
    if(Arg_${Opt})
      string(TOLOWER ${Opt} Flag)
      list(APPEND Args --${Flag} ${Arg_${Opt}})
    endif()
  endforeach()
  set(Outputs)
  set(Sources)
  set(Archives)
  foreach(P IN LISTS Arg_PIPELINES)
    list(APPEND Outputs ${Dir}/${P}.a ${Dir}/${P}.h ${Dir}/${P}.cpp)
    list(APPEND Sources ${Dir}/${P}.cpp)
    list(APPEND Archives ${Dir}/${P}.a)
  endforeach()
  add_custom_command(OUTPUT ${Outputs}
    COMMAND ${Gen} ${Args}
    DEPENDS ${Gen}
    COMMENT "Compiling array pipelines ${Arg_PIPELINES} ahead of time"
    VERBATIM)
  target_sources(${Target} PRIVATE ${Sources})
  target_include_directories(${Target} PRIVATE ${Dir})
  if(TARGET llquote_aot_runtime)
    set(Host llquote_aot_runtime)
  else()
    set(Host llquote::aot_runtime)
  endif()
  # Kernels may call libm; vectorized ones glibc's libmvec.
  find_library(LLQ_LIBMVEC mvec)
  target_link_libraries(${Target} PRIVATE ${Archives} ${Host} m)
  if(LLQ_LIBMVEC)
    target_link_libraries(${Target} PRIVATE ${LLQ_LIBMVEC})
  endif()
endfunction()
