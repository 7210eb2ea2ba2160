# The byte-identity test of the fast body writer (issue 33): body_dump built
# twice from the same source, once against the product's libraries alone and
# once with tests/unit/api/reference_fmt.c ahead of them, whose printf-family
# definitions of the digit and text primitives (api_json_number,
# dc__fixed_put, dc_uint_text, dc__textf) take the place of the product's:
# their files hold nothing else, so the archives' copies are never pulled in,
# and everything else (the rules, the decision, the texts, the writer's order)
# is the same code. body_identical.sh compares the two dumps of the decision
# table.
add_executable(body_dump_fast ${CMAKE_CURRENT_SOURCE_DIR}/unit/api/body_dump.c)
add_executable(body_dump_reference ${CMAKE_CURRENT_SOURCE_DIR}/unit/api/body_dump.c
    ${CMAKE_CURRENT_SOURCE_DIR}/unit/api/reference_fmt.c)
foreach(t body_dump_fast body_dump_reference)
    target_link_libraries(${t} PRIVATE aa_api aa_core aa_embedded Threads::Threads)
    target_include_directories(${t} PRIVATE ${AA_CORE_INCLUDE_DIRS}
                               ${CMAKE_SOURCE_DIR}/core/shared ${CMAKE_SOURCE_DIR}/api/src)
    aa_target_warnings(${t})
endforeach()
add_test(NAME unit.api.body_identical
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/unit/api/body_identical.sh
                 $<TARGET_FILE:body_dump_fast> $<TARGET_FILE:body_dump_reference>
                 ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/cases.json)
set_tests_properties(unit.api.body_identical PROPERTIES TIMEOUT 900)
