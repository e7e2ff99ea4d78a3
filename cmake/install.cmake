# `find_package(caflow)` then `target_link_libraries(app caflow::caflow)`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS caflow EXPORT caflowTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The GPU plugin goes beside the library, where libcaflow looks for it (devices/gpu_plugin.hpp).
if(TARGET caflow_gpu)
  install(TARGETS caflow_gpu LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
foreach(dir graph devices kernels net actors)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/caflow/${dir}
    FILES_MATCHING PATTERN "*.hpp")
endforeach()
install(EXPORT caflowTargets NAMESPACE caflow:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/caflow)
configure_package_config_file(cmake/caflowConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/caflowConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/caflow)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/caflowConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/caflowConfig.cmake cmake/caf_targets.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/caflowConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/caflow)
