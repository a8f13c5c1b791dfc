# Source 2 state layer: the CLI test links the state commands directly.
if(TARGET test_source2_state_cli)
  target_sources(test_source2_state_cli PRIVATE
    ${CMAKE_SOURCE_DIR}/tools/cli_source2_state.c ${CMAKE_SOURCE_DIR}/tools/cli_common.c)
  target_include_directories(test_source2_state_cli PRIVATE ${CMAKE_SOURCE_DIR}/tools)
endif()
