# sim_module(<name> [DEPS <module>...] [LIBS <PUBLIC|PRIVATE libs>...] SOURCES <file>...)
#
# One libsim module as a static library `sim_<name>` that sees only what it may include: its own
# headers and those of the modules named in DEPS (list every module it uses, lower ones too).
# Public headers are reached through <build>/modules/<name>/public/sim/<name> -> include/sim/<name>,
# private ones through <build>/modules/<name>/internal/<name> -> src/<name>. A module gets its
# DEPS' public trees through linking and their internal trees privately, so an include of a
# module that is not below it ("sim/replay/...", "replay/...") is not found and the build fails.
function(sim_module name)
  cmake_parse_arguments(M "" "" "DEPS;LIBS;SOURCES" ${ARGN})
  set(root ${CMAKE_CURRENT_BINARY_DIR}/modules/${name})
  file(MAKE_DIRECTORY ${root}/public/sim ${root}/internal)
  set(links "")
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include/sim/${name})
    list(APPEND links "${CMAKE_CURRENT_SOURCE_DIR}/include/sim/${name}|${root}/public/sim/${name}")
  endif()
  list(APPEND links "${CMAKE_CURRENT_SOURCE_DIR}/src/${name}|${root}/internal/${name}")
  foreach(link ${links})
    string(REPLACE "|" ";" pair "${link}")
    list(GET pair 0 target)
    list(GET pair 1 path)
    if(NOT IS_SYMLINK ${path})
      file(CREATE_LINK ${target} ${path} SYMBOLIC)
    endif()
  endforeach()

  add_library(sim_${name} STATIC ${M_SOURCES})
  target_include_directories(sim_${name} PUBLIC ${root}/public PRIVATE ${root}/internal)
  target_link_libraries(sim_${name} PRIVATE sim_warnings sim_fp_exact ${M_LIBS})
  foreach(dep ${M_DEPS})
    target_link_libraries(sim_${name} PUBLIC sim_${dep} PRIVATE sim_${dep}_internal)
  endforeach()

  # The module's private headers, for the modules above it (not for the front ends).
  add_library(sim_${name}_internal INTERFACE)
  target_include_directories(sim_${name}_internal INTERFACE ${root}/internal)
endfunction()
