/* tests/support/core_run.h -- one recommendation and the workload JSON it views,
 * for the core unit tests (include after cmocka.h). The result keeps views into
 * the workload, so the two are freed together by core_done(). */
#ifndef AA_TEST_CORE_RUN_H
#define AA_TEST_CORE_RUN_H

#include <stdbool.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/engine.h"

struct run {
    struct dc_result *res;
    cJSON *json;
};

/* `json` recommended against `rs`; fails the test when it does not parse or
 * the core refuses it. */
static inline struct run core_run(const dc_ruleset *rs, const char *json)
{
    struct run r = {NULL, cJSON_Parse(json)};
    if (r.json == NULL)
        fail_msg("bad test JSON: %s", json);
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_recommend(rs, r.json, NULL, &r.res, &err) != DC_OK)
        fail_msg("%s: %s: %s", json, err.where, err.msg);
    return r;
}

static inline void core_done(struct run *r)
{
    dc_result_free(r->res);
    cJSON_Delete(r->json);
}

/* Candidate `id` of a result, recommended or (*excluded) excluded; fails the
 * test when the result has none. */
static inline const struct dc_candidate *core_find(const struct dc_result *r, const char *id,
                                                   bool *excluded)
{
    for (size_t i = 0; i < r->n_recommendations; i++) {
        if (strcmp(r->recommendations[i].acc->id, id) == 0) {
            *excluded = false;
            return &r->recommendations[i];
        }
    }
    for (size_t i = 0; i < r->n_excluded; i++) {
        if (strcmp(r->excluded[i].acc->id, id) == 0) {
            *excluded = true;
            return &r->excluded[i];
        }
    }
    fail_msg("candidate %s not in result", id);
    return NULL;
}

/* Whether the result carries a warning of `code`. */
static inline bool core_has_warning(const struct dc_result *r, const char *code)
{
    for (size_t i = 0; i < r->n_warnings; i++) {
        if (strcmp(r->warnings[i].code, code) == 0)
            return true;
    }
    return false;
}

#endif
