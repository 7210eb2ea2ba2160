/* api/include/api/convert.h -- the contract's JSON shapes for core objects:
 * the recommendation result, the catalog, the rules and the model registry
 * (the bodies of POST /v1/recommendations, GET /v1/accelerators, GET /v1/rules
 * and GET /v1/models). */
#ifndef API_CONVERT_H
#define API_CONVERT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "dc/ruleset.h"

/* Only pointed to here: dc/result.h, dc/explain.h. */
struct dc_result;
struct dc_explanation;

/* Catalog filter for GET /v1/accelerators; NULL members match everything. */
struct api_catalog_filter {
    const char *family;
    const char *vendor;
    const char *provider;
};

/* Bodies as text, one line, byte for byte what cJSON_PrintUnformatted prints
 * for the tree forms below (api/jsonw.h): owned (free()), *len bytes plus a NUL;
 * NULL when out of memory or given NULL. The server sends these as they are. */
DC_API char *api_result_render(const struct dc_result *res, size_t *len);
/* The same body with the `changes` and `robustness` sections `e` (borrowed;
 * NULL: none) computed for it (openapi.yaml: Changes, Robustness). */
DC_API char *api_result_render_explained(const struct dc_result *res,
                                         const struct dc_explanation *e, size_t *len);
/* What of a result the caller asked for: the `view`, `candidates` and
 * `frontier` query parameters of POST /v1/recommendations (openapi.yaml). */
enum api_frontier {
    API_FRONTIER_DEFAULT, /* the view's own: with the full view, without the summary */
    API_FRONTIER_ON,
    API_FRONTIER_OFF,
};
struct api_view {
    bool summary;      /* RecommendationSummary instead of Recommendation */
    size_t candidates; /* at most this many recommendations; 0: all */
    enum api_frontier frontier;
};
/* The body `v` asks for (NULL: the full Recommendation, the bytes of
 * api_result_render_explained), with the sections of `e` (NULL: none). */
DC_API char *api_result_render_view(const struct dc_result *res, const struct dc_explanation *e,
                                    const struct api_view *v, size_t *len);
DC_API char *api_catalog_render(const dc_ruleset *rs, const struct api_catalog_filter *filter,
                                size_t *len);
DC_API char *api_rules_render(const dc_ruleset *rs, size_t *len);
/* GET /v1/models: {"rules_version", "count", "models": [{name, title,
 * architecture, aliases, model, details, sources, notes,
 * architecture_parameters, architecture_active_parameters, file, line}]}
 * (api/src/models_render.c). */
DC_API char *api_models_render(const dc_ruleset *rs, size_t *len);

/* The Recommendation body for `res` (borrowed). On DC_OK *out is owned by the
 * caller (cJSON_Delete). Errors: DC_EINVAL, DC_ENOMEM. */
DC_API DC_NODISCARD enum dc_status api_result_to_json(const struct dc_result *res, cJSON **out);

/* One catalog entry as the Accelerator schema. */
DC_API DC_NODISCARD enum dc_status api_accelerator_to_json(const struct dc_accelerator *acc,
                                                           cJSON **out);

/* {"rules_version": ..., "accelerators": [...]} filtered. */
DC_API DC_NODISCARD enum dc_status
api_catalog_to_json(const dc_ruleset *rs, const struct api_catalog_filter *filter, cJSON **out);

/* {"rules_version": ..., "origin": ..., "count": n, "rules": [{id, description, message,
 * source, fact, file, line, when}]}. */
DC_API DC_NODISCARD enum dc_status api_rules_to_json(const dc_ruleset *rs, cJSON **out);

/* How a result is printed for people (api_result_print_table_opts). */
struct api_table_opts {
    bool wide;        /* every column, the full names, lines never cut (CLI -o wide) */
    bool no_headers;  /* the candidates' rows alone: no lines around, no column names */
    unsigned columns; /* the width to fit (CLI -o table); 0: none */
};

/* Print `res` as a human table: the considered candidates with a marker on the
 * chosen one and its top reasons underneath (CLI -o table): short part names,
 * the shape, chips, time, the hourly and total price, the targets and the
 * score; when `columns` is set the columns that do not fit are left out, last
 * first ($/H, CHIPS, TARGETS, SHAPE; a line under the table says which), and
 * the lines of text are wrapped at that width. `wide` adds the full names, the
 * bands, the price's date and confidence, the rule and objective scores,
 * replicas, memory per chip, peak TFLOPS, MFU, whether the sizing fits and the
 * free/attached devices here (CLI -o wide). */
DC_API void api_result_print_table_opts(const struct dc_result *res, FILE *fp,
                                        const struct api_table_opts *o);

/* api_result_print_table_opts with no width to fit and the headers. */
DC_API void api_result_print_table(const struct dc_result *res, FILE *fp, bool wide);

/* "What would change the answer": the robustness of the top pick and the
 * changes of `e` (borrowed; NULL or nothing computed: nothing printed), one
 * sentence each, after api_result_print_table. */
DC_API void api_explanation_print_table(const struct dc_explanation *e, FILE *fp);
/* The same with each line wrapped at `cols` characters (0: none), as -o table
 * wraps its lines (api/text_table.h). */
DC_API void api_explanation_print_table_width(const struct dc_explanation *e, FILE *fp,
                                              size_t cols);

#endif /* API_CONVERT_H */
