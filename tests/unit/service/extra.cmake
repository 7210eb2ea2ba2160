# Unit tests of the service's library-like modules (configuration, metrics, auth,
# HTTP vocabulary, request framing, cache, logs, inventory,
# playground, trace context, ETags, CLI output formats, bounded file reading, the
# fleet's parsing, snapshot and body -- its libcurl client is tested in
# tests/integration): each
# tests/unit/service/test_*.c target also compiles those sources (not main.c, the
# commands or the MHD server).
set(AA_SVC_UNIT_SOURCES
    ${CMAKE_SOURCE_DIR}/service/src/config.c
    ${CMAKE_SOURCE_DIR}/service/src/log.c
    ${CMAKE_SOURCE_DIR}/service/src/metrics.c
    ${CMAKE_SOURCE_DIR}/service/src/auth.c
    ${CMAKE_SOURCE_DIR}/service/src/http.c
    ${CMAKE_SOURCE_DIR}/service/src/framing.c
    ${CMAKE_SOURCE_DIR}/service/src/server_cache.c
    ${CMAKE_SOURCE_DIR}/service/src/inventory.c
    ${CMAKE_SOURCE_DIR}/service/src/playground.c
    ${CMAKE_SOURCE_DIR}/service/src/trace.c
    ${CMAKE_SOURCE_DIR}/service/src/etag.c
    ${CMAKE_SOURCE_DIR}/service/src/output.c
    ${CMAKE_SOURCE_DIR}/service/src/yaml_out.c
    ${CMAKE_SOURCE_DIR}/service/src/rulesrc.c
    ${CMAKE_SOURCE_DIR}/service/src/fleet_parse.c
    ${CMAKE_SOURCE_DIR}/service/src/fleet_model.c
    ${CMAKE_SOURCE_DIR}/service/src/fleet_json.c)
file(GLOB _aa_svc_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/service/test_*.c)
foreach(src IN LISTS _aa_svc_tests)
    get_filename_component(stem ${src} NAME_WE)
    target_sources(unit_service_${stem} PRIVATE ${AA_SVC_UNIT_SOURCES})
    target_include_directories(unit_service_${stem} PRIVATE ${CMAKE_SOURCE_DIR}/service/src)
    target_link_libraries(unit_service_${stem} PRIVATE PkgConfig::CRYPTO)
endforeach()
