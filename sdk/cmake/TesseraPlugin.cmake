# tessera_add_plugin(NAME
#     VERSION x.y.z DESCRIPTION "one line"
#     SOURCES src...  PROVIDES topology|cost_model|partitioner|layout_mapper|codegen|memory_model...
#     [ALIASES name...] [DEFAULT_CHIP preset] [CHIPS_DIR dir] [MANIFEST_TEMPLATE file]
#     [UNSUPPORTED Suite.Test...] [EXPECTED_FAILURES Suite.Test...]
#     [CONFORMANCE_LAYOUTS shape text...] [CONFORMANCE_MALFORMED_LAYOUTS shape text...]
#     [NO_CONFORMANCE_TEST])
#
# Builds NAME.so with hidden visibility, exporting only tessera_plugin_query (linker version
# script), writes the manifest NAME.plugin.yaml beside it after every link (with the library's size
# and SHA-256, which the host checks before loading it), copies the chip presets of CHIPS_DIR to
# NAME.chips/, installs all three under lib/tessera/plugins (the installed manifest records the
# installed library, after install stripped it or edited its RPATH), and adds the CTest
# `conformance.NAME` (the tessera executable run as `tessera conformance --plugin NAME.so`).
#
# For the conformance kit (docs/plugin-authoring.md), written into the manifest: UNSUPPORTED tests
# are skipped, EXPECTED_FAILURES run and must fail; CONFORMANCE_LAYOUTS are pairs of a tensor shape
# (100x100) and a layout text valid on the default chip, for the LayoutMapper suite, and
# CONFORMANCE_MALFORMED_LAYOUTS pairs of a shape and a text it must reject (no ';' in texts: CMake
# lists split on it).
#
# The code gets TESSERA_PLUGIN_NAME, TESSERA_PLUGIN_VERSION and TESSERA_PLUGIN_DESCRIPTION as
# string macros, so the descriptor and the manifest cannot disagree.
#
# Variables read: TESSERA_PLUGIN_OUTPUT_DIR (default: current binary dir), TESSERA_EXECUTABLE (a
# path or a generator expression; set by TesseraSDKConfig.cmake and by the Tessera build itself).
#
# tessera_write_plugin_manifest(TARGET target STEM file OUTPUT NAME.plugin.yaml)
#
# After every link of TARGET, writes OUTPUT: the manifest STEM (configured without the library's
# size and SHA-256) followed by library_size and library_sha256 of the linked file. A change of
# STEM relinks TARGET. tessera_add_plugin uses it; so can a test plugin built without it.
include_guard(GLOBAL)

set(TESSERA_SDK_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
# The ABI version the manifest records, read from the header the plugin compiles against: the
# host refuses a binary whose descriptor reports another version than its manifest.
if(TESSERA_SDK_INCLUDE_DIR)  # the installed package (TesseraSDKConfig.cmake)
  set(_tessera_abi_header "${TESSERA_SDK_INCLUDE_DIR}/tessera/plugin_abi.h")
else()  # the source tree
  set(_tessera_abi_header "${TESSERA_SDK_CMAKE_DIR}/../include/tessera/plugin_abi.h")
endif()
foreach(part MAJOR MINOR)
  file(STRINGS "${_tessera_abi_header}" _tessera_abi_line
    REGEX "^#define TESSERA_ABI_${part} [0-9]+$")
  if(NOT _tessera_abi_line)
    message(FATAL_ERROR "TesseraPlugin.cmake: no TESSERA_ABI_${part} in ${_tessera_abi_header}")
  endif()
  string(REGEX REPLACE ".* " "" TESSERA_ABI_${part} "${_tessera_abi_line}")
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_tessera_abi_header}")
if(NOT TESSERA_SDK_VERSION)
  set(TESSERA_SDK_VERSION "${PROJECT_VERSION}")
endif()
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" TESSERA_PLATFORM)

function(tessera_write_plugin_manifest)
  cmake_parse_arguments(PARSE_ARGV 0 M "" "TARGET;STEM;OUTPUT" "")
  foreach(required TARGET STEM OUTPUT)
    if(NOT M_${required})
      message(FATAL_ERROR "tessera_write_plugin_manifest: ${required} is required")
    endif()
  endforeach()
  set(script "${TESSERA_SDK_CMAKE_DIR}/TesseraPluginManifest.cmake")
  add_custom_command(TARGET ${M_TARGET} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DLIBRARY=$<TARGET_FILE:${M_TARGET}>" "-DSTEM=${M_STEM}"
      "-DMANIFEST=${M_OUTPUT}" -P "${script}"
    VERBATIM)
  set_property(TARGET ${M_TARGET} APPEND PROPERTY LINK_DEPENDS "${M_STEM}" "${script}")
endfunction()

# Sets `out` to YAML items `    - {shape: S, text: "T"}` for the pairs in ARGN, or `[]`.
function(_tessera_layout_samples out plugin key)
  list(LENGTH ARGN n)
  math(EXPR odd "${n} % 2")
  if(odd)
    message(FATAL_ERROR "tessera_add_plugin(${plugin}): ${key} takes pairs of a shape and a text")
  endif()
  set(yaml "")
  while(ARGN)
    list(POP_FRONT ARGN shape text)
    if(NOT shape MATCHES "^[1-9][0-9]*(x[1-9][0-9]*)*$")
      message(FATAL_ERROR "tessera_add_plugin(${plugin}): ${key}: '${shape}' is not a shape like 100x100")
    endif()
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(APPEND yaml "\n    - {shape: ${shape}, text: \"${text}\"}")
  endwhile()
  if(NOT yaml)
    set(yaml " []")
  endif()
  set(${out} "${yaml}" PARENT_SCOPE)
endfunction()

function(tessera_add_plugin NAME)
  cmake_parse_arguments(PARSE_ARGV 1 TP "NO_CONFORMANCE_TEST"
    "VERSION;DESCRIPTION;DEFAULT_CHIP;CHIPS_DIR;MANIFEST_TEMPLATE"
    "SOURCES;PROVIDES;ALIASES;UNSUPPORTED;EXPECTED_FAILURES;CONFORMANCE_LAYOUTS;CONFORMANCE_MALFORMED_LAYOUTS")
  if(NOT NAME MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR "tessera_add_plugin: name '${NAME}' must match [a-z0-9_]+")
  endif()
  foreach(required VERSION DESCRIPTION SOURCES PROVIDES)
    if(NOT TP_${required})
      message(FATAL_ERROR "tessera_add_plugin(${NAME}): ${required} is required")
    endif()
  endforeach()
  set(valid topology cost_model partitioner layout_mapper codegen memory_model)
  foreach(p IN LISTS TP_PROVIDES)
    if(NOT p IN_LIST valid)
      message(FATAL_ERROR "tessera_add_plugin(${NAME}): PROVIDES '${p}' is not one of ${valid}")
    endif()
  endforeach()

  set(out "${TESSERA_PLUGIN_OUTPUT_DIR}")
  if(NOT out)
    set(out "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set(target tessera_plugin_${NAME})
  add_library(${target} MODULE ${TP_SOURCES})
  target_link_libraries(${target} PRIVATE TesseraSDK::headers)
  target_compile_definitions(${target} PRIVATE
    TESSERA_PLUGIN_NAME="${NAME}" TESSERA_PLUGIN_VERSION="${TP_VERSION}"
    TESSERA_PLUGIN_DESCRIPTION="${TP_DESCRIPTION}")
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME "${NAME}" SUFFIX ".so"
    LIBRARY_OUTPUT_DIRECTORY "${out}"
    CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${TESSERA_SDK_CMAKE_DIR}/plugin.version-script")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
    "${TESSERA_SDK_CMAKE_DIR}/plugin.version-script")

  # Manifest
  set(TP_NAME "${NAME}")
  set(TP_LIBRARY "${NAME}.so")
  list(JOIN TP_PROVIDES ", " TP_PROVIDES_YAML)
  list(JOIN TP_ALIASES ", " TP_ALIASES_YAML)
  foreach(test IN LISTS TP_UNSUPPORTED TP_EXPECTED_FAILURES)
    if(NOT test MATCHES "^[A-Za-z0-9_]+\\.[A-Za-z0-9_]+$")
      message(FATAL_ERROR "tessera_add_plugin(${NAME}): '${test}' is not a test name Suite.Test")
    endif()
  endforeach()
  list(JOIN TP_UNSUPPORTED ", " TP_UNSUPPORTED_YAML)
  list(JOIN TP_EXPECTED_FAILURES ", " TP_EXPECTED_FAILURES_YAML)
  _tessera_layout_samples(TP_LAYOUTS_YAML ${NAME} CONFORMANCE_LAYOUTS ${TP_CONFORMANCE_LAYOUTS})
  _tessera_layout_samples(TP_MALFORMED_LAYOUTS_YAML ${NAME} CONFORMANCE_MALFORMED_LAYOUTS
    ${TP_CONFORMANCE_MALFORMED_LAYOUTS})
  set(TP_CHIPS "")
  if(TP_CHIPS_DIR)
    set(TP_CHIPS "${NAME}.chips")
  endif()
  set(template "${TP_MANIFEST_TEMPLATE}")
  if(NOT template)
    set(template "${TESSERA_SDK_CMAKE_DIR}/plugin.yaml.in")
  endif()
  set(stem "${CMAKE_CURRENT_BINARY_DIR}/${target}.plugin.yaml.in")
  configure_file("${template}" "${stem}" @ONLY)
  tessera_write_plugin_manifest(TARGET ${target} STEM "${stem}" OUTPUT "${out}/${NAME}.plugin.yaml")
  install(TARGETS ${target} LIBRARY DESTINATION lib/tessera/plugins)
  install(FILES "${stem}" DESTINATION lib/tessera/plugins RENAME "${NAME}.plugin.yaml")
  # After the library's install step, which may have stripped it or rewritten its RPATH.
  set(installed "\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/tessera/plugins/${NAME}")
  install(CODE "
    execute_process(COMMAND \"${CMAKE_COMMAND}\" \"-DLIBRARY=${installed}.so\"
      \"-DMANIFEST=${installed}.plugin.yaml\" -P \"${TESSERA_SDK_CMAKE_DIR}/TesseraPluginManifest.cmake\"
      RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR \"cannot write the installed manifest of plugin ${NAME}\")
    endif()")

  if(TP_CHIPS_DIR)
    get_filename_component(chips_src "${TP_CHIPS_DIR}" ABSOLUTE)
    file(GLOB chip_files CONFIGURE_DEPENDS "${chips_src}/*.yaml")
    set(copied "")
    foreach(f IN LISTS chip_files)
      get_filename_component(base "${f}" NAME)
      set(dst "${out}/${NAME}.chips/${base}")
      add_custom_command(OUTPUT "${dst}" DEPENDS "${f}"
        COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${f}" "${dst}" VERBATIM)
      list(APPEND copied "${dst}")
    endforeach()
    add_custom_target(${target}_chips ALL DEPENDS ${copied})
    add_dependencies(${target} ${target}_chips)
    install(DIRECTORY "${chips_src}/" DESTINATION "lib/tessera/plugins/${NAME}.chips"
      FILES_MATCHING PATTERN "*.yaml")
  endif()

  if(NOT TP_NO_CONFORMANCE_TEST AND TESSERA_EXECUTABLE AND COMMAND add_test)
    add_test(NAME conformance.${NAME}
      COMMAND ${TESSERA_EXECUTABLE} conformance --plugin "$<TARGET_FILE:${target}>")
    set_tests_properties(conformance.${NAME} PROPERTIES LABELS "conformance")
  endif()
endfunction()
