# How the framework's libraries are declared, and what the layering check reads of them.
#
# tessera_library(NAME [SOURCES file...] [PUBLIC_HEADERS file...] [PRIVATE_HEADERS file...]
#                 [LINKS target...] [PRIVATE_LINKS target...])
#   One folder of framework/ = one static library: SOURCES compiled, PUBLIC_HEADERS the headers
#   other libraries may include (the public FILE_SET HEADERS), PRIVATE_HEADERS the folder's own
#   (a private file set, `private_headers`). LINKS are public (a public header includes them),
#   PRIVATE_LINKS only the sources'. `ctest -R layering` checks every include against these sets
#   and the link graph against the order written in CONTRIBUTING.md (scripts/check_layering.py).
#
# tessera_source_definitions(TARGET [OPTIONAL] NAME=VALUE...)
#   Each definition goes only to the target's sources whose text names NAME (an error if none
#   does, unless OPTIONAL: a definition nothing reads is a stale line). Definitions that
#   hold absolute paths (the source tree's presets, the build's plugin directory) would otherwise
#   change the command line of every source of the target, and each would miss the compiler
#   cache in a clone in another folder.
#
# tessera_write_layering_manifest(FILE)
#   Writes FILE at generate time: every compiled target of the build with its sources, header
#   sets and direct links (the manifest scripts/check_layering.py reads).
include_guard(GLOBAL)

function(tessera_library name)
  cmake_parse_arguments(PARSE_ARGV 1 L "" ""
    "SOURCES;PUBLIC_HEADERS;PRIVATE_HEADERS;LINKS;PRIVATE_LINKS")
  add_library(${name} STATIC ${L_SOURCES})
  target_sources(${name} PUBLIC FILE_SET HEADERS BASE_DIRS ${PROJECT_SOURCE_DIR}
    FILES ${L_PUBLIC_HEADERS})
  if(L_PRIVATE_HEADERS)
    target_sources(${name} PRIVATE FILE_SET private_headers TYPE HEADERS
      BASE_DIRS ${PROJECT_SOURCE_DIR} FILES ${L_PRIVATE_HEADERS})
  endif()
  target_link_libraries(${name} PUBLIC ${L_LINKS} PRIVATE ${L_PRIVATE_LINKS})
  target_compile_features(${name} PUBLIC cxx_std_20)
  # Linked into the Python module and the plugin host's users as well as executables.
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

function(tessera_source_definitions target)
  cmake_parse_arguments(PARSE_ARGV 1 D "OPTIONAL" "" "")
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  foreach(definition IN LISTS D_UNPARSED_ARGUMENTS)
    string(REGEX REPLACE "=.*" "" macro "${definition}")
    set(used FALSE)
    foreach(source IN LISTS sources)
      if(source MATCHES "^\\$<")  # a generator expression (objects of another target)
        continue()
      endif()
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE file)
      file(STRINGS "${file}" hits REGEX "${macro}" LIMIT_COUNT 1)
      if(hits)
        set_property(SOURCE "${file}" TARGET_DIRECTORY ${target} APPEND PROPERTY
          COMPILE_DEFINITIONS "${definition}")
        set(used TRUE)
      endif()
    endforeach()
    if(NOT used AND NOT D_OPTIONAL)
      message(FATAL_ERROR "tessera_source_definitions(${target}): no source names ${macro}")
    endif()
  endforeach()
endfunction()

# Every target defined in `dir` and the directories below it.
function(_tessera_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _tessera_targets_below("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(tessera_write_layering_manifest file)
  _tessera_targets_below("${PROJECT_SOURCE_DIR}" targets)
  set(body "")
  set(separator "")
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "UTILITY" OR type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    set(p "$<TARGET_PROPERTY:${t},")
    string(CONCAT entry "    {\"name\": \"${t}\", \"type\": \"${type}\",\n"
      "     \"source_dir\": \"${p}SOURCE_DIR>\",\n"
      "     \"sources\": \"$<JOIN:${p}SOURCES>,$<SEMICOLON>>\",\n"
      "     \"public_headers\": \"$<JOIN:${p}HEADER_SET>,$<SEMICOLON>>\",\n"
      "     \"private_headers\": \"$<JOIN:${p}HEADER_SET_private_headers>,$<SEMICOLON>>\",\n"
      "     \"links\": \"$<JOIN:${p}LINK_LIBRARIES>,$<SEMICOLON>>\"}")
    string(APPEND body "${separator}${entry}")
    set(separator ",\n")
  endforeach()
  string(CONCAT content "{\n  \"source_dir\": \"${PROJECT_SOURCE_DIR}\",\n"
    "  \"binary_dir\": \"${PROJECT_BINARY_DIR}\",\n  \"targets\": [\n${body}\n  ]\n}\n")
  file(GENERATE OUTPUT "${file}" CONTENT "${content}")
endfunction()

# tessera_bench(NAME SOURCES file... LINKS library... SMOKE filter [DEPENDS target...])
# bench_NAME, a Google Benchmark program, and (with the tests) its smoke test `bench.NAME.smoke`:
# the benchmarks matching SMOKE run once, briefly, so a bench that no longer runs fails CI
# instead of rotting. Its figures are quoted from full runs, never from the smoke test.
function(tessera_bench name)
  cmake_parse_arguments(PARSE_ARGV 1 B "" "SMOKE" "SOURCES;LINKS;DEPENDS")
  find_package(benchmark REQUIRED)
  add_executable(bench_${name} ${B_SOURCES})
  set_target_properties(bench_${name} PROPERTIES UNITY_BUILD OFF)  # as the tests: file by file
  target_include_directories(bench_${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(bench_${name} PRIVATE ${B_LINKS} benchmark::benchmark)
  if(B_DEPENDS)
    add_dependencies(bench_${name} ${B_DEPENDS})
  endif()
  if(TESSERA_BUILD_TESTS)
    add_test(NAME bench.${name}.smoke COMMAND bench_${name} "--benchmark_filter=${B_SMOKE}"
      --benchmark_min_time=0.01)
    set_tests_properties(bench.${name}.smoke PROPERTIES LABELS bench
      ENVIRONMENT "TESSERA_PLUGIN_PATH=" FAIL_REGULAR_EXPRESSION "ERROR OCCURRED|Failed to match")
  endif()
endfunction()
