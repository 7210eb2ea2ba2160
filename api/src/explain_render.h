/* api/src/explain_render.h -- the `changes` and `robustness` sections of a
 * Recommendation body (explain_render.c), for convert.c. Not public. */
#ifndef API_EXPLAIN_RENDER_H
#define API_EXPLAIN_RENDER_H

#include "api/jsonw.h"
#include "dc/explain.h"

/* Write the sections `e` (borrowed; NULL: none) computed, as members of the
 * object being written. */
void api__write_explanation(struct api_jw *w, const struct dc_explanation *e);

/* "robust" when every check is, "fragile" when one is not, NULL when there is
 * no top pick or the checks were cut short. */
const char *api__robustness_verdict(const struct dc_robustness *r);

#endif
