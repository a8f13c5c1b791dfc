# bench_source2_phases dumps callgrind's counters at each phase end when it
# runs under callgrind (bench_source2_phases.sh); without valgrind's header
# it only times the phases.
include(CheckIncludeFile)
check_include_file(valgrind/callgrind.h ZDEM_BENCH_HAVE_CALLGRIND_H)
if(ZDEM_BENCH_HAVE_CALLGRIND_H)
  target_compile_definitions(${name} PRIVATE ZDEM_HAVE_CALLGRIND_H=1)
endif()
