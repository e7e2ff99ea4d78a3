# caflow's own declarations of TensorFlow's protobuf messages (graph/tf/proto/*.proto), compiled
# by protoc at build time into ${CMAKE_BINARY_DIR}/generated and into the graph_tf layer.
# Included by the top-level CMakeLists.txt right after the graph_tf layer is declared.
#
# Code includes the generated headers by their path under the source root,
# "graph/tf/proto/graph.pb.h", so the layer table places them in graph_tf (whose DIRS name
# graph/tf/proto); only graph/tf's sources and tests include them.
find_package(Protobuf 3.21 REQUIRED)

set(CAFLOW_TF_PROTO_OUT ${CMAKE_BINARY_DIR}/generated)
file(GLOB caflow_tf_protos CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/graph/tf/proto/*.proto)
set(caflow_tf_proto_sources "")
foreach(proto ${caflow_tf_protos})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${proto})
  string(REGEX REPLACE "\\.proto$" "" stem ${rel})
  set(cc ${CAFLOW_TF_PROTO_OUT}/${stem}.pb.cc)
  set(h ${CAFLOW_TF_PROTO_OUT}/${stem}.pb.h)
  add_custom_command(
    OUTPUT ${cc} ${h}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CAFLOW_TF_PROTO_OUT}
    COMMAND protobuf::protoc --cpp_out=${CAFLOW_TF_PROTO_OUT} -I ${PROJECT_SOURCE_DIR} ${rel}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    DEPENDS ${proto} protobuf::protoc
    COMMENT "protoc ${rel}"
    VERBATIM)
  list(APPEND caflow_tf_proto_sources ${cc})
endforeach()
# Generated code is not ours to warn about.
set_source_files_properties(${caflow_tf_proto_sources} PROPERTIES COMPILE_OPTIONS "-w")

target_sources(caflow_graph_tf PRIVATE ${caflow_tf_proto_sources})
target_include_directories(caflow_graph_tf PRIVATE ${CAFLOW_TF_PROTO_OUT})
target_link_libraries(caflow_graph_tf PRIVATE protobuf::libprotobuf)
target_link_libraries(caflow PRIVATE protobuf::libprotobuf)
# The build tree's own programs (tests, fuzz replays) may build TensorFlow messages themselves;
# an installed caflow neither ships the generated headers nor asks its users for protobuf.
target_include_directories(caflow PUBLIC $<BUILD_INTERFACE:${CAFLOW_TF_PROTO_OUT}>)
target_link_libraries(caflow PUBLIC $<BUILD_INTERFACE:protobuf::libprotobuf>)
