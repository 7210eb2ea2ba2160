/* api/src/models_render.c -- the model registry as the body of GET /v1/models
 * (openapi.yaml: ModelList). Owned by the model-registry work (issue 16). */
#include <math.h>

#include "api/convert.h"
#include "api/jsonw.h"
#include "dc/models.h"

/* Expected body size, so the buffer rarely grows. */
#define MODELS_HINT 65536

static void write_entry(struct api_jw *w, const struct dc_model_info *m)
{
    double active = NAN;
    double counted = dc_model_architecture_parameters(m, &active);
    api_jw_object(w);
    API_JW_KEY(w, "name");
    api_jw_string(w, m->name);
    API_JW_KEY(w, "title");
    api_jw_string(w, m->title);
    API_JW_KEY(w, "architecture");
    api_jw_string(w, m->architecture);
    API_JW_KEY(w, "aliases");
    api_jw_value(w, m->aliases);
    API_JW_KEY(w, "model");
    api_jw_value(w, m->model);
    API_JW_KEY(w, "details");
    api_jw_value(w, m->details);
    API_JW_KEY(w, "sources");
    api_jw_value(w, m->sources);
    API_JW_KEY(w, "notes");
    api_jw_value(w, m->notes);
    /* What the architecture recounts, beside the published figures. */
    API_JW_KEY(w, "architecture_parameters");
    api_jw_number(w, counted);
    API_JW_KEY(w, "architecture_active_parameters");
    api_jw_number(w, active);
    API_JW_KEY(w, "file");
    api_jw_string(w, m->file);
    API_JW_KEY(w, "line");
    api_jw_number(w, m->line);
    api_jw_object_end(w);
}

char *api_models_render(const dc_ruleset *rs, size_t *len)
{
    if (rs == NULL)
        return NULL;
    size_t n = dc_ruleset_model_count(rs);
    struct api_jw w;
    api_jw_init(&w, MODELS_HINT);
    api_jw_object(&w);
    API_JW_KEY(&w, "rules_version");
    api_jw_string(&w, dc_ruleset_version(rs));
    API_JW_KEY(&w, "count");
    api_jw_number(&w, (double)n);
    API_JW_KEY(&w, "models");
    api_jw_array(&w);
    for (size_t i = 0; i < n; i++)
        write_entry(&w, dc_ruleset_model(rs, i));
    api_jw_array_end(&w);
    api_jw_object_end(&w);
    return api_jw_finish(&w, len);
}
