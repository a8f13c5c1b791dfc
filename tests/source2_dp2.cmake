# Source 2 value-by-value checks against demoparser2: s2_propdump prints
# zdem's property changes and game events, tests/s2_dp2_compare.js reads them
# beside demoparser2's parseTicks / parseEvents (test_source2_dp2.sh).
add_executable(s2_propdump ${CMAKE_CURRENT_SOURCE_DIR}/s2_propdump.c ${CMAKE_CURRENT_SOURCE_DIR}/zdem_test.c)
target_include_directories(s2_propdump PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(s2_propdump PRIVATE zdem_source2 m)
