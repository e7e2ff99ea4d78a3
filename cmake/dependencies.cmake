# Every dependency comes from Debian packages installed by scripts/setup.sh.
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED COMPONENTS serialization)
find_package(ZLIB REQUIRED)
# libcrypto: TLS files are parsed and the key matched to its certificate at start-up.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(nlohmann_json 3 REQUIRED)
# TensorFlow's checkpoint index (a bundle's .index file) is a LevelDB table: leveldb's own table
# reader and builder read and write it. Found by hand rather than by the package's CMake config,
# whose target links snappy by name, which only libsnappy-dev would provide (libleveldb.so
# carries that dependency itself).
find_path(LEVELDB_INCLUDE_DIR leveldb/table.h REQUIRED)
find_library(LEVELDB_LIBRARY leveldb REQUIRED)
add_library(caflow_leveldb UNKNOWN IMPORTED)
set_target_properties(caflow_leveldb PROPERTIES IMPORTED_LOCATION ${LEVELDB_LIBRARY}
                                                INTERFACE_INCLUDE_DIRECTORIES ${LEVELDB_INCLUDE_DIR})
# Command lines of the apps (header only).
find_package(CLI11 2 REQUIRED)

include(${CMAKE_CURRENT_LIST_DIR}/caf_targets.cmake)

if(CAFLOW_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()
