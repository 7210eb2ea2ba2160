/* tests/support/candidates.h -- a result's candidate by catalog id, for the
 * tests that look at one part's sizing or exclusion. */
#ifndef AA_TEST_CANDIDATES_H
#define AA_TEST_CANDIDATES_H

#include <string.h>

#include "dc/result.h"

/* The candidate `id` of `res`, recommended or excluded (a view into res), or
 * NULL when the catalog has no such part. */
static inline const struct dc_candidate *test_candidate(const struct dc_result *res, const char *id)
{
    for (size_t i = 0; i < res->n_recommendations; i++) {
        if (strcmp(res->recommendations[i].acc->id, id) == 0)
            return &res->recommendations[i];
    }
    for (size_t i = 0; i < res->n_excluded; i++) {
        if (strcmp(res->excluded[i].acc->id, id) == 0)
            return &res->excluded[i];
    }
    return NULL;
}

#endif
