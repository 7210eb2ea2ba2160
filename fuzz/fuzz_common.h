/* fuzz/fuzz_common.h -- what the libFuzzer harnesses share: the entry points,
 * an invariant check that aborts (so a broken invariant is a crash the fuzzer
 * reports and keeps), and helpers over the project's own objects.
 *
 * Every harness is built twice: with clang and -fsanitize=fuzzer (fuzz/CMakeLists.txt)
 * and with the project's normal compiler and fuzz/replay_main.c as main()
 * (fuzz/replay.cmake), which replays the checked-in corpus and regressions in
 * every test run. Nothing here may depend on which of the two links it. */
#ifndef AA_FUZZ_COMMON_H
#define AA_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "api/schema.h"
#include "dc/common.h"
#include "dc/ruleset.h"

/* libFuzzer's entry points. Initialize is optional for a harness; the replay
 * driver calls it when the harness defines it. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with a message when `cond` is false: a broken invariant must crash, not
 * merely be ignored, so that the fuzzer records the input. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                     \
    } while (0)

_Noreturn void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    DC_PRINTF(4, 5);

/* `len` bytes at `data` copied into a new NUL-terminated buffer (aborts when
 * out of memory: the harness cannot go on without it). Free with free(). */
char *fuzz_strndup(const uint8_t *data, size_t len);

/* True when `p` is a JSON Pointer as this project writes them: "" (the root)
 * or a string that starts with '/'. */
bool fuzz_is_pointer(const char *p);

/* RFC 6901: the node `ptr` (no leading '#', ~0 and ~1 escapes) designates in
 * `root`, or NULL when it designates nothing or is malformed. Array indexes
 * must be canonical decimal ("0", "12", not "01"). */
const cJSON *fuzz_pointer_resolve(const cJSON *root, const char *ptr);

/* True when the pointer designates a node of `root`, or its parent does (a
 * missing member is reported at the place it should be). */
bool fuzz_pointer_near(const cJSON *root, const char *ptr);

/* The invariants of a failed compile of `doc` (a JSONLogic rule, a schema): no
 * object was returned (`got` false), the error has a message, and its `where` is
 * a JSON Pointer that points into `doc` (out of memory may have no place).
 * `what` names the object in failure messages ("program", "schema"). */
void fuzz_check_compile_failure(enum dc_status rc, bool got, const struct dc_error *err,
                                const cJSON *doc, const char *what);

/* The default rule set built into the binary (rules/ in aa_embedded_files),
 * loaded once; aborts when it does not load. Returns view. */
const dc_ruleset *fuzz_embedded_ruleset(void);

/* The embedded rule file `name` ("rules.yaml"), or aborts. */
struct dc_source_file fuzz_embedded_rule_file(const char *name);

/* The contract's component schema `name` ("Recommendation") compiled from the
 * embedded openapi.yaml, loaded and compiled once per name (at most 8 names);
 * aborts when it does not compile. Returns view. */
const api_schema *fuzz_contract_schema(const char *name);

/* The embedded contract's Workload schema (api_contract_workload_schema). */
const api_schema *fuzz_workload_schema(void);

/* Check the invariants of one validation result: valid == (count == 0), no
 * truncation without violations, and every violation has a pointer ("" or
 * starting with '/'), a non-empty keyword and a non-empty message. */
void fuzz_check_schema_result(const struct api_schema_result *res);

/* Validate `json` (borrowed) against `schema` as a client would read it:
 * printed by cJSON, parsed back strictly (api_json_parse) and validated.
 * Aborts, listing the violations and the document, when it is not valid. */
void fuzz_expect_conforms(const api_schema *schema, const char *what, const cJSON *json);

/* 64-bit FNV-1a of the bytes: harnesses derive secondary choices from it, so
 * a given input always takes the same path. */
uint64_t fuzz_hash(const uint8_t *data, size_t len);

#endif /* AA_FUZZ_COMMON_H */
