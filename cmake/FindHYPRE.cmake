# FindHYPRE.cmake — finds HYPRE (Debian libhypre-dev: headers in include/hypre, libHYPRE,
# no CMake or pkg-config file) and the MPI it is built on.
#
# Defines the imported target HYPRE::HYPRE (its include directory, the library and
# MPI::MPI_C, since HYPRE's headers include mpi.h and the library calls MPI), and
# HYPRE_FOUND, HYPRE_VERSION (from HYPRE_config.h's HYPRE_RELEASE_VERSION),
# HYPRE_INCLUDE_DIR, HYPRE_LIBRARY. Honours find_package's version and REQUIRED.
# The integer sizes must be the standard build's (HYPRE_Int = HYPRE_BigInt = int, not
# libhypre64-dev's bigint): the check below fails the configuration otherwise.
find_path(HYPRE_INCLUDE_DIR HYPRE.h PATH_SUFFIXES hypre)
find_library(HYPRE_LIBRARY HYPRE)
if(HYPRE_INCLUDE_DIR AND EXISTS "${HYPRE_INCLUDE_DIR}/HYPRE_config.h")
  file(STRINGS "${HYPRE_INCLUDE_DIR}/HYPRE_config.h" _hypre_version_line
       REGEX "^#define HYPRE_RELEASE_VERSION \"[0-9.]+\"")
  string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" HYPRE_VERSION "${_hypre_version_line}")
  file(STRINGS "${HYPRE_INCLUDE_DIR}/HYPRE_config.h" _hypre_bigint
       REGEX "^#define HYPRE_(BIGINT|MIXEDINT) 1")
endif()
find_package(MPI QUIET COMPONENTS C)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(HYPRE
  REQUIRED_VARS HYPRE_LIBRARY HYPRE_INCLUDE_DIR MPI_C_FOUND
  VERSION_VAR HYPRE_VERSION)

if(HYPRE_FOUND AND _hypre_bigint)
  message(FATAL_ERROR "HYPRE at ${HYPRE_INCLUDE_DIR} is a 64-bit-integer build "
          "(${_hypre_bigint}); weft needs the standard one (Debian libhypre-dev)")
endif()
if(HYPRE_FOUND AND NOT TARGET HYPRE::HYPRE)
  add_library(HYPRE::HYPRE UNKNOWN IMPORTED)
  set_target_properties(HYPRE::HYPRE PROPERTIES
    IMPORTED_LOCATION "${HYPRE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HYPRE_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES MPI::MPI_C)
endif()
mark_as_advanced(HYPRE_INCLUDE_DIR HYPRE_LIBRARY)
