# bench_source2_pb: nanopb's decoders for schema/source2 (generated here at
# build time by tests/gen_nanopb_cmp.py, as for the differential test) and
# libsnappy for the corpus payloads.
find_library(ZDEM_BENCH_NANOPB_LIB protobuf-nanopb)
find_library(ZDEM_BENCH_SNAPPY_LIB snappy)
if(ZDEM_BENCH_NANOPB_LIB AND ZDEM_BENCH_SNAPPY_LIB AND ZDEM_PYTHON)
  set(S2NB_BDIR ${CMAKE_BINARY_DIR}/bench_nanopb_s2)
  file(GLOB S2NB_BPROTOS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/schema/source2/*.proto)
  file(GLOB_RECURSE S2NB_BSCHEMA CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/schema/source2/*)
  set(S2NB_BSRC ${S2NB_BDIR}/s2nb_cmp.c)
  foreach(p ${S2NB_BPROTOS})
    get_filename_component(stem ${p} NAME_WE)
    list(APPEND S2NB_BSRC ${S2NB_BDIR}/${stem}.pb.c)
  endforeach()
  add_custom_command(
    OUTPUT ${S2NB_BSRC} ${S2NB_BDIR}/s2nb_cmp.h
    COMMAND ${ZDEM_PYTHON} ${CMAKE_SOURCE_DIR}/tests/gen_nanopb_cmp.py
            --schema ${CMAKE_SOURCE_DIR}/schema/source2 --out ${S2NB_BDIR} --random 0
    DEPENDS ${CMAKE_SOURCE_DIR}/tests/gen_nanopb_cmp.py ${ZDEM_GEN_SCRIPTS} ${S2NB_BSCHEMA}
    COMMENT "Generating nanopb decoders for bench_source2_pb"
    VERBATIM)
  target_sources(${name} PRIVATE ${S2NB_BSRC})
  target_include_directories(${name} PRIVATE ${S2NB_BDIR})
  target_link_libraries(${name} PRIVATE ${ZDEM_BENCH_NANOPB_LIB} ${ZDEM_BENCH_SNAPPY_LIB})
else()
  message(WARNING "bench_source2_pb needs libnanopb-dev, nanopb, libsnappy-dev, python3-protobuf")
endif()
