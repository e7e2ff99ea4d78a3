# Every dependency comes from Debian packages installed by scripts/setup.sh.
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED COMPONENTS serialization)
find_package(ZLIB REQUIRED)
# libcrypto: TLS files are parsed and the key matched to its certificate at start-up.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(nlohmann_json 3 REQUIRED)
# Command lines of the apps (header only).
find_package(CLI11 2 REQUIRED)

include(${CMAKE_CURRENT_LIST_DIR}/caf_targets.cmake)

if(CAFLOW_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()
