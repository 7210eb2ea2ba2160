# The byte-identity test of the fast body writer (issue 33): body_dump built
# twice, once against the product's libraries and once with the sources that
# hold the fast primitives compiled with AA_PRINTF_REFERENCE (every number and
# text formatted with the printf family, as before). The reference's own copies
# of those objects come first on its link line, so the archives' are never
# pulled in; everything else (the rules, the decision, the writer's order) is
# the same code. body_identical.sh compares the two dumps of the decision table.
add_executable(body_dump_fast ${CMAKE_CURRENT_SOURCE_DIR}/unit/api/body_dump.c)
add_executable(body_dump_reference ${CMAKE_CURRENT_SOURCE_DIR}/unit/api/body_dump.c
    ${CMAKE_SOURCE_DIR}/core/src/base/numfmt.c
    ${CMAKE_SOURCE_DIR}/core/src/sizing/shapes.c ${CMAKE_SOURCE_DIR}/core/src/reasons/reasons.c
    ${CMAKE_SOURCE_DIR}/core/src/select/targets.c ${CMAKE_SOURCE_DIR}/core/src/reasons/price_note.c
    ${CMAKE_SOURCE_DIR}/api/src/jsonw.c ${CMAKE_SOURCE_DIR}/api/src/convert.c)
target_compile_definitions(body_dump_reference PRIVATE AA_PRINTF_REFERENCE)
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
