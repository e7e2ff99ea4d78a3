# CAF 0.17 (Debian libcaf-dev) ships no CMake config: find its headers and libraries and make
# imported targets caf::core, caf::io and caf::openssl (TLS for the middleman). Shared by the
# build and the installed package config.
if(NOT TARGET caf::core)
  find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
  find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
  find_library(CAF_IO_LIBRARY caf_io REQUIRED)
  find_library(CAF_OPENSSL_LIBRARY caf_openssl REQUIRED)
  add_library(caf::core UNKNOWN IMPORTED)
  set_target_properties(caf::core PROPERTIES IMPORTED_LOCATION ${CAF_CORE_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${CAF_INCLUDE_DIR})
  add_library(caf::io UNKNOWN IMPORTED)
  set_target_properties(caf::io PROPERTIES IMPORTED_LOCATION ${CAF_IO_LIBRARY}
    INTERFACE_LINK_LIBRARIES caf::core)
  add_library(caf::openssl UNKNOWN IMPORTED)
  set_target_properties(caf::openssl PROPERTIES IMPORTED_LOCATION ${CAF_OPENSSL_LIBRARY}
    INTERFACE_LINK_LIBRARIES caf::io)
endif()
