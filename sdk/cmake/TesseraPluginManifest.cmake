# cmake -DLIBRARY=path/NAME.so -DMANIFEST=path/NAME.plugin.yaml [-DSTEM=file] -P TesseraPluginManifest.cmake
#
# Records the library's size and SHA-256 in its manifest (the keys library_size and
# library_sha256), which the host checks before it maps the library: a truncated, modified or
# replaced library is refused instead of crashing the process that loads it. Reads STEM (default:
# MANIFEST itself), drops the two keys from it if present, appends them for the file LIBRARY is now
# and writes MANIFEST.
#
# tessera_add_plugin runs this after every link (STEM: the manifest it configured) and on install
# (on the installed manifest, for the installed library, after install stripped it or edited its
# RPATH). Run it by hand on a manifest you wrote yourself, or after changing a built library.
foreach(var LIBRARY MANIFEST)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TesseraPluginManifest.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT STEM)
  set(STEM "${MANIFEST}")
endif()
if(NOT EXISTS "${LIBRARY}" OR IS_DIRECTORY "${LIBRARY}")
  message(FATAL_ERROR "TesseraPluginManifest.cmake: the library '${LIBRARY}' does not exist")
endif()

file(READ "${STEM}" text)
# A leading newline lets one pattern drop the keys on any line, the first included.
string(REGEX REPLACE "\nlibrary_(size|sha256):[^\n]*" "" text "\n${text}")
string(SUBSTRING "${text}" 1 -1 text)
if(NOT text MATCHES "\n$")
  string(APPEND text "\n")
endif()
file(SIZE "${LIBRARY}" size)
file(SHA256 "${LIBRARY}" sha256)
string(APPEND text "library_size: ${size}\nlibrary_sha256: \"${sha256}\"\n")
# Written beside and renamed: a reader never sees half a manifest.
file(WRITE "${MANIFEST}.tmp" "${text}")
file(RENAME "${MANIFEST}.tmp" "${MANIFEST}")
