# Wiring for the generator tests (included by tests/CMakeLists.txt).
# test_source2_nanopb: nanopb's decoders for schema/source2, generated at
# build time next to our comparison code, linked with libprotobuf-nanopb and
# libsnappy (independent reference decompressor for the corpus walk).
if(TARGET test_source2_nanopb)
  if(NOT NANOPB_LIB OR NOT SNAPPY_LIB OR NOT ZDEM_PYTHON)
    message(FATAL_ERROR "test_source2_nanopb needs libnanopb-dev, nanopb, libsnappy-dev and python3-protobuf")
  endif()
  set(S2NB_DIR ${CMAKE_BINARY_DIR}/nanopb_s2)
  file(GLOB S2NB_PROTOS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/schema/source2/*.proto)
  file(GLOB_RECURSE S2NB_SCHEMA CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/schema/source2/*)
  set(S2NB_SRC ${S2NB_DIR}/s2nb_cmp.c)
  foreach(p ${S2NB_PROTOS})
    get_filename_component(stem ${p} NAME_WE)
    list(APPEND S2NB_SRC ${S2NB_DIR}/${stem}.pb.c)
  endforeach()
  add_custom_command(
    OUTPUT ${S2NB_SRC} ${S2NB_DIR}/s2nb_cmp.h ${S2NB_DIR}/s2nb_random.bin
    COMMAND ${ZDEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/gen_nanopb_cmp.py
            --schema ${CMAKE_SOURCE_DIR}/schema/source2 --out ${S2NB_DIR}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gen_nanopb_cmp.py ${ZDEM_GEN_SCRIPTS} ${S2NB_SCHEMA}
    COMMENT "Generating nanopb reference decoders for schema/source2"
    VERBATIM)
  target_sources(test_source2_nanopb PRIVATE ${S2NB_SRC})
  target_include_directories(test_source2_nanopb PRIVATE ${S2NB_DIR})
  target_compile_definitions(test_source2_nanopb PRIVATE S2NB_RANDOM="${S2NB_DIR}/s2nb_random.bin")
  target_link_libraries(test_source2_nanopb PRIVATE ${NANOPB_LIB} ${SNAPPY_LIB})
endif()

