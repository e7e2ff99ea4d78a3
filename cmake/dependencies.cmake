# Every dependency comes from Debian packages installed by scripts/setup.sh.
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED COMPONENTS serialization)
find_package(ZLIB REQUIRED)
find_package(nlohmann_json 3 REQUIRED)

# CAF 0.17 ships no CMake config: find its headers and libraries by hand.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
find_library(CAF_IO_LIBRARY caf_io REQUIRED)
find_library(CAF_OPENSSL_LIBRARY caf_openssl)
if(NOT TARGET caf::core)
  add_library(caf::core UNKNOWN IMPORTED)
  set_target_properties(caf::core PROPERTIES IMPORTED_LOCATION ${CAF_CORE_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${CAF_INCLUDE_DIR})
  add_library(caf::io UNKNOWN IMPORTED)
  set_target_properties(caf::io PROPERTIES IMPORTED_LOCATION ${CAF_IO_LIBRARY}
    INTERFACE_LINK_LIBRARIES caf::core)
endif()

if(CAFLOW_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()
