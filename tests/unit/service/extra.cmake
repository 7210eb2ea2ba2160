# Unit tests of the service's library-like modules (configuration, metrics, auth,
# HTTP vocabulary, request framing, cache, logs, inventory, playground, trace
# context, ETags, CLI output formats, bounded file reading, the fleet's parsing,
# snapshot and body (its libcurl client is tested in tests/integration), the
# prices coverage table): each tests/unit/service/test_*.c links aa_service
# (CMakeLists.txt), the library those sources are compiled into once, not main.c,
# the commands or the MHD server.
file(GLOB _aa_svc_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/service/test_*.c)
foreach(src IN LISTS _aa_svc_tests)
    get_filename_component(stem ${src} NAME_WE)
    target_link_libraries(unit_service_${stem} PRIVATE aa_service)
endforeach()
