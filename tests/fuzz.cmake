# Every fuzz target also builds as a plain program (tests/fuzz/replay_main.c)
# that replays its regression inputs (tests/fuzz/regress/<target>/, minimized
# crashes found by fuzzing) and its layer's corpus files in the ordinary
# sanitizer build: no clang or libFuzzer needed for that part.
file(GLOB fuzz_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(src ${fuzz_sources})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX MATCH "^fuzz_([a-z0-9]+)" _ ${name})
  set(layer ${CMAKE_MATCH_1})
  set(corpus_dir "")
  if(layer STREQUAL "source2")
    set(corpus_dir ${ZDEM_CORPUS}/source2)
  elseif(layer STREQUAL "quake3")
    set(corpus_dir ${ZDEM_CORPUS}/q3)
  elseif(layer STREQUAL "teeworlds")
    set(corpus_dir ${ZDEM_CORPUS}/teeworlds)
  endif()
  add_executable(replay_${name} ${src} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay_main.c)
  if(TARGET zdem_${layer})
    target_link_libraries(replay_${name} PRIVATE zdem_${layer})
  else()
    target_link_libraries(replay_${name} PRIVATE zdem_runtime)
  endif()
  target_link_libraries(replay_${name} PRIVATE m)
  add_test(NAME replay_${name} COMMAND replay_${name}
           ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regress/${name}
           ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/seeds/${name} ${corpus_dir})
  set_tests_properties(replay_${name} PROPERTIES ENVIRONMENT "${ZDEM_TEST_ENV}" TIMEOUT 900)
endforeach()
