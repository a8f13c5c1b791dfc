# bench_snappy compares against libsnappy (Debian libsnappy-dev) when found;
# without it, it reports our decompressor alone.
find_library(ZDEM_BENCH_SNAPPY_LIB snappy)
find_path(ZDEM_BENCH_SNAPPY_INC snappy-c.h)
if(ZDEM_BENCH_SNAPPY_LIB AND ZDEM_BENCH_SNAPPY_INC)
  target_link_libraries(${name} PRIVATE ${ZDEM_BENCH_SNAPPY_LIB})
  target_include_directories(${name} PRIVATE ${ZDEM_BENCH_SNAPPY_INC})
  target_compile_definitions(${name} PRIVATE ZDEM_HAVE_SNAPPY=1)
endif()
