# The layers of caflow, and the build rule that keeps them: a layer's code sees only its own
# headers and those of the layers below it that it declares.
#
#   caflow_layer(NAME DIRS dir... [DEPENDS layer...] [UNITY_BATCH n])
#
# declares a layer made of the sources directly in each DIRS folder (not their subfolders:
# a subfolder is a layer of its own, or part of one that names it). Each layer's sources are
# compiled as the object library caflow_<NAME> whose only project include directory is a
# view, ${CMAKE_BINARY_DIR}/layers/<NAME>, holding links to the headers of the layer and of
# everything it depends on, directly or not. An include that runs up or sideways therefore
# fails to compile ("No such file or directory"), and tests/build/layers_test.cpp reads the
# table written by caflow_write_layer_table() to say which rule a file broke, and that every
# folder belongs to a layer.
#
# Layers whose sources are built elsewhere (the GPU layers, built by cmake/cuda.cmake only
# when CUDA is found; apps, built as executables) pass NO_LIBRARY: they get a view and a row
# in the table but no object library here.

# A layer's sources compile in batches (CMake's unity build: one translation unit per batch of
# files), so the headers and templates a batch shares are parsed and instantiated once. Cold, on
# 2 cores, the libraries took 1,100 CPU-seconds one file at a time and about 700 in batches;
# the kernels' batches are smaller (Eigen's instantiations, not parsing, dominate them, and a
# batch of 8 would be one long serial unit). A batch recompiles whole when one of its files
# changes: turn it off (-DCAFLOW_UNITY_BUILD=OFF) to edit one heavy file over and over.
option(CAFLOW_UNITY_BUILD "Compile each layer's sources in batches of files" ON)
set(CAFLOW_LAYERS "" CACHE INTERNAL "")
file(REMOVE_RECURSE ${CMAKE_BINARY_DIR}/layers)

function(caflow_layer name)
  cmake_parse_arguments(arg "NO_LIBRARY" "UNITY_BATCH" "DIRS;DEPENDS" ${ARGN})
  foreach(dep ${arg_DEPENDS})
    if(NOT dep IN_LIST CAFLOW_LAYERS)
      message(FATAL_ERROR "layer ${name} depends on ${dep}, which is not declared before it")
    endif()
  endforeach()
  # What the layer sees: itself and the closure of its dependencies.
  set(visible ${name})
  foreach(dep ${arg_DEPENDS})
    list(APPEND visible ${CAFLOW_LAYER_${dep}_VISIBLE})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set(CAFLOW_LAYER_${name}_DIRS "${arg_DIRS}" CACHE INTERNAL "")
  set(CAFLOW_LAYER_${name}_DEPENDS "${arg_DEPENDS}" CACHE INTERNAL "")
  set(CAFLOW_LAYER_${name}_VISIBLE "${visible}" CACHE INTERNAL "")
  set(CAFLOW_LAYERS ${CAFLOW_LAYERS} ${name} CACHE INTERNAL "")
  # The layer's own headers, globbed once; views of the layers above reuse the list.
  set(headers "")
  foreach(dir ${arg_DIRS})
    file(GLOB dir_headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}
         ${PROJECT_SOURCE_DIR}/${dir}/*.hpp ${PROJECT_SOURCE_DIR}/${dir}/*.cuh)
    list(APPEND headers ${dir_headers})
  endforeach()
  set(CAFLOW_LAYER_${name}_HEADERS "${headers}" CACHE INTERNAL "")

  set(view ${CMAKE_BINARY_DIR}/layers/${name})
  foreach(layer ${visible})
    foreach(dir ${CAFLOW_LAYER_${layer}_DIRS})
      file(MAKE_DIRECTORY ${view}/${dir})
    endforeach()
    foreach(h ${CAFLOW_LAYER_${layer}_HEADERS})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${h} ${view}/${h} SYMBOLIC)
    endforeach()
  endforeach()
  set(CAFLOW_LAYER_${name}_VIEW ${view} CACHE INTERNAL "")

  if(arg_NO_LIBRARY)
    return()
  endif()
  set(sources "")
  foreach(dir ${arg_DIRS})
    file(GLOB dir_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cpp)
    list(APPEND sources ${dir_sources})
  endforeach()
  if(NOT sources)
    return()  # headers only
  endif()
  add_library(caflow_${name} OBJECT ${sources})
  caflow_layer_settings(caflow_${name} ${name})
  if(CAFLOW_UNITY_BUILD)
    if(NOT arg_UNITY_BATCH)
      set(arg_UNITY_BATCH 8)
    endif()
    set_target_properties(caflow_${name} PROPERTIES UNITY_BUILD ON
                                                    UNITY_BUILD_BATCH_SIZE ${arg_UNITY_BATCH})
    # GCC takes the files a batch includes for headers, and warns of every class of theirs
    # with a member of a type in their own anonymous namespace, which a source file may have.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(caflow_${name} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
  target_sources(caflow PRIVATE $<TARGET_OBJECTS:caflow_${name}>)
endfunction()

# Compiles `target` as part of the caflow library, seeing only `layer`'s view of the project.
function(caflow_layer_settings target layer)
  target_include_directories(${target} PRIVATE ${CAFLOW_LAYER_${layer}_VIEW})
  # caflow's own options and definitions (-march, EIGEN_USE_THREADS, ...), and the include
  # directories of what it links, but never the source root.
  target_compile_options(${target} PRIVATE $<TARGET_PROPERTY:caflow,COMPILE_OPTIONS>)
  target_compile_definitions(${target} PRIVATE $<TARGET_PROPERTY:caflow,COMPILE_DEFINITIONS>)
  target_link_libraries(${target} PRIVATE ${CAFLOW_LIBRARY_DEPENDENCIES})
endfunction()

# Writes build/layers.txt, one layer a line: "name|dir dir|dep dep|visible visible", and
# build/layers.dot, the layers and their declared dependencies as a Graphviz graph (the copy in
# docs/layers.dot is this file; tests/build/layers_test.cpp checks that they agree).
function(caflow_write_layer_table)
  set(dot "// Generated by cmake/layers.cmake: caflow's layers, each pointing at those it uses.\n")
  string(APPEND dot "digraph caflow_layers {\n  rankdir=BT;\n  node [shape=box, fontname=Helvetica];\n")
  foreach(layer ${CAFLOW_LAYERS})
    string(REPLACE ";" "/\\n" dirs "${CAFLOW_LAYER_${layer}_DIRS}")
    string(APPEND dot "  ${layer} [label=\"${layer}\\n${dirs}/\"];\n")
    foreach(dep ${CAFLOW_LAYER_${layer}_DEPENDS})
      string(APPEND dot "  ${layer} -> ${dep};\n")
    endforeach()
  endforeach()
  string(APPEND dot "}\n")
  file(WRITE ${CMAKE_BINARY_DIR}/layers.dot "${dot}")
  set(table "")
  foreach(layer ${CAFLOW_LAYERS})
    string(REPLACE ";" " " dirs "${CAFLOW_LAYER_${layer}_DIRS}")
    string(REPLACE ";" " " deps "${CAFLOW_LAYER_${layer}_DEPENDS}")
    string(REPLACE ";" " " visible "${CAFLOW_LAYER_${layer}_VISIBLE}")
    string(APPEND table "${layer}|${dirs}|${deps}|${visible}\n")
  endforeach()
  file(WRITE ${CMAKE_BINARY_DIR}/layers.txt "${table}")
  set(CAFLOW_LAYER_TABLE ${CMAKE_BINARY_DIR}/layers.txt CACHE INTERNAL "")
endfunction()
