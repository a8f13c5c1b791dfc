# Source 2 state layer: the CLI test runs the zdem binary.
if(TARGET test_source2_state_cli)
  add_dependencies(test_source2_state_cli zdem_cli)
endif()
