# The web view of `kaisim serve` (web/): bundled with esbuild from the pinned npm packages
# (web/package-lock.json; tools/setup runs `npm ci`) and embedded into the binary as a generated
# .cpp. Without node or web/node_modules the binary serves a page that says how to build it.
set(SIM_WEB_SOURCE ${PROJECT_SOURCE_DIR}/web)
set(SIM_WEB_DIST ${CMAKE_BINARY_DIR}/web)
set(SIM_WEB_CPP ${CMAKE_BINARY_DIR}/generated/web_assets.cpp)
find_program(SIM_NODE node)
file(GLOB SIM_WEB_INPUTS CONFIGURE_DEPENDS ${SIM_WEB_SOURCE}/src/*)
if(SIM_NODE AND EXISTS ${SIM_WEB_SOURCE}/node_modules/esbuild AND EXISTS ${SIM_WEB_SOURCE}/node_modules/uplot)
  add_custom_command(
    OUTPUT ${SIM_WEB_CPP}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${SIM_WEB_DIST}
    COMMAND ${SIM_NODE} ${SIM_WEB_SOURCE}/build.mjs ${SIM_WEB_DIST}
    COMMAND ${CMAKE_COMMAND} -DDIR=${SIM_WEB_DIST} -DOUT=${SIM_WEB_CPP} -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${SIM_WEB_INPUTS} ${SIM_WEB_SOURCE}/build.mjs ${SIM_WEB_SOURCE}/package-lock.json
            ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    WORKING_DIRECTORY ${SIM_WEB_SOURCE}
    COMMENT "Bundling the web view (esbuild) and embedding it"
    VERBATIM)
else()
  message(WARNING "web view not built (needs node and web/node_modules: run tools/setup); kaisim serve shows a placeholder at /")
  set(SIM_WEB_DIST ${CMAKE_BINARY_DIR}/web-placeholder)
  file(WRITE ${SIM_WEB_DIST}/index.html
       "<!doctype html><title>kaisim</title><p>The web view was not built: run tools/setup (npm ci in web/), then rebuild.</p>\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -DDIR=${SIM_WEB_DIST} -DOUT=${SIM_WEB_CPP}
                          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake)
endif()
