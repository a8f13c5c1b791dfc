# Teeworlds 0.7 checks: tw_snapdump prints every snapshot zdem rebuilds,
# item by item, for tests/tw07_ref.py (an independent decoder) to compare
# (test_teeworlds7_craft.sh, test_teeworlds7_real.sh).
add_executable(tw_snapdump ${CMAKE_CURRENT_SOURCE_DIR}/tw_snapdump.c)
target_link_libraries(tw_snapdump PRIVATE zdem_teeworlds)
