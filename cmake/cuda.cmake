# The GPU device: CUDA runtime, cuBLAS and cuDNN. CAFLOW_CUDA=AUTO builds it when nvcc and
# cuDNN are found, ON insists (and says what is missing), OFF never looks.
#
# GPU sources form the layers devices_gpu (devices/gpu/) and kernels_gpu (kernels/gpu/), object
# libraries whose objects make the GPU plugin, libcaflow_gpu.so; an OFF build never compiles them.
# CAFLOW_HAVE_CUDA is defined (publicly) for the always-compiled code that must know, e.g.
# devices/gpu_devices_none.cpp (the GPU entry points of a build without CUDA, compiled only when
# CAFLOW_HAVE_CUDA is not defined).
# .cu files hold device code and launchers only (no Eigen, no CAF): nvcc is slow, and keeping
# those translation units free of the project's heavy headers keeps it fast.
set(CAFLOW_CUDA "AUTO" CACHE STRING "Build the GPU device: AUTO (when nvcc and cuDNN are found), ON or OFF")
set_property(CACHE CAFLOW_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${CAFLOW_CUDA}" caflow_cuda_mode)
if(NOT caflow_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "CAFLOW_CUDA must be AUTO, ON or OFF, not '${CAFLOW_CUDA}'")
endif()

set(CAFLOW_HAVE_CUDA OFF)
set(caflow_cuda_missing "")
if(NOT caflow_cuda_mode STREQUAL "OFF")
  find_program(CAFLOW_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
  if(NOT CAFLOW_NVCC)
    list(APPEND caflow_cuda_missing "nvcc (looked in PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")
  else()
    get_filename_component(caflow_cuda_root "${CAFLOW_NVCC}" DIRECTORY)
    get_filename_component(caflow_cuda_root "${caflow_cuda_root}" DIRECTORY)
    if(NOT CUDAToolkit_ROOT)
      set(CUDAToolkit_ROOT "${caflow_cuda_root}")
    endif()
    find_package(CUDAToolkit QUIET)
    if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublas)
      list(APPEND caflow_cuda_missing "the CUDA toolkit's cudart and cuBLAS under ${caflow_cuda_root}")
    endif()
    find_path(CAFLOW_CUDNN_INCLUDE_DIR cudnn.h
      HINTS ${CUDAToolkit_INCLUDE_DIRS} "${caflow_cuda_root}/include" ENV CUDNN_ROOT PATH_SUFFIXES include)
    find_library(CAFLOW_CUDNN_LIBRARY cudnn
      HINTS ${CUDAToolkit_LIBRARY_DIR} "${caflow_cuda_root}/lib64" "${caflow_cuda_root}/lib" ENV CUDNN_ROOT
      PATH_SUFFIXES lib64 lib)
    if(NOT CAFLOW_CUDNN_INCLUDE_DIR OR NOT CAFLOW_CUDNN_LIBRARY)
      list(APPEND caflow_cuda_missing "cuDNN (cudnn.h and libcudnn under ${caflow_cuda_root} or $CUDNN_ROOT)")
    endif()
  endif()
  if(caflow_cuda_missing)
    list(JOIN caflow_cuda_missing "; " caflow_cuda_why)
    if(caflow_cuda_mode STREQUAL "ON")
      message(FATAL_ERROR "CAFLOW_CUDA=ON but not found: ${caflow_cuda_why}")
    endif()
    message(STATUS "GPU device: off (not found: ${caflow_cuda_why})")
  else()
    set(CAFLOW_HAVE_CUDA ON)
  endif()
endif()

if(CAFLOW_HAVE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_COMPILER "${CAFLOW_NVCC}")
  endif()
  # The same g++ as the C++ code, so both sides agree on the standard library.
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")
  endif()
  # sm_90 machine code plus compute_90 PTX, which newer GPUs JIT-compile.
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
  endif()
  if(CCACHE_PROGRAM)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  endif()
  enable_language(CUDA)
  message(STATUS "GPU device: on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures "
                 "${CMAKE_CUDA_ARCHITECTURES}, cuDNN ${CAFLOW_CUDNN_LIBRARY})")

  foreach(layer devices_gpu kernels_gpu)
    set(gpu_sources "")
    foreach(dir ${CAFLOW_LAYER_${layer}_DIRS})
      file(GLOB dir_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cpp
           ${PROJECT_SOURCE_DIR}/${dir}/*.cu)
      list(APPEND gpu_sources ${dir_sources})
    endforeach()
    set(target caflow_${layer})
    add_library(${target} OBJECT ${gpu_sources})
    # Directory-wide options (-Wall for g++, sanitizers) are not all nvcc's: start from none and
    # give each language its own.
    set_target_properties(${target} PROPERTIES
      COMPILE_OPTIONS ""
      POSITION_INDEPENDENT_CODE ON
      CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
      # As for the rest of caflow: GCC 12's -Wrestrict misfires in std::string (GCC bug 105651).
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
      # What caflow's users compile with (-march, ...), so inline code agrees across the library.
      $<$<COMPILE_LANGUAGE:CXX>:$<TARGET_PROPERTY:caflow,INTERFACE_COMPILE_OPTIONS>>
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
    if(CAFLOW_SANITIZE)
      # Decided here, not in a generator expression: "address,undefined" holds a comma, which a
      # $<BOOL:...> reads as a second argument (the asan preset failed to generate with nvcc).
      string(REPLACE "," "$<COMMA>" sanitizers "${CAFLOW_SANITIZE}")
      target_compile_options(${target} PRIVATE
        "$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${sanitizers}>"
        "$<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>")
    endif()
    target_compile_definitions(${target} PRIVATE CAFLOW_HAVE_CUDA EIGEN_USE_THREADS)
    # Only the layer's view of the project (cmake/layers.cmake), as for every other layer.
    target_include_directories(${target} PRIVATE ${CAFLOW_LAYER_${layer}_VIEW}
                                                 ${CAFLOW_CUDNN_INCLUDE_DIR})
    # For the usage requirements (include directories) of what the .cpp files include.
    target_link_libraries(${target} PRIVATE Eigen3::Eigen Threads::Threads caf::core caf::io
                                            CUDA::cudart CUDA::cublas)
    # The .cpp files in batches, as every layer's (cmake/layers.cmake); nvcc's .cu files stay
    # one unit each.
    if(CAFLOW_UNITY_BUILD)
      set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
      target_compile_options(${target} PRIVATE
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-subobject-linkage>)
    endif()
  endforeach()
  # The GPU code is a plugin beside libcaflow (devices/gpu_plugin.hpp), opened only where a GPU
  # may be: the CUDA libraries cost ~150 MB per process, which a CPU-only task never pays. Its
  # kernels register themselves in libcaflow's registries as it loads.
  add_library(caflow_gpu SHARED $<TARGET_OBJECTS:caflow_devices_gpu>
                                $<TARGET_OBJECTS:caflow_kernels_gpu>)
  set_target_properties(caflow_gpu PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}
    # Found by dlopen beside libcaflow, whatever the install's RPATH says.
    INSTALL_RPATH "$ORIGIN")
  target_link_libraries(caflow_gpu PRIVATE caflow CUDA::cudart CUDA::cublas CUDA::cublasLt
                                           ${CAFLOW_CUDNN_LIBRARY})
  target_compile_definitions(caflow PUBLIC CAFLOW_HAVE_CUDA)
endif()
