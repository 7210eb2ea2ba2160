/* core/include/dc/models.h -- the model registry of a rule set: public model
 * architectures (rules/models.yaml, format in docs/rules-format.md), each
 * field with the public source it was read from.
 *
 * A workload names an entry with `model.name`; every model field it does not
 * give is read from the entry (core/src/workload/workload.c). The registry is part of
 * the rule set: replaced with it, versioned in its SHA-256, and a view valid
 * while the caller holds a reference to the rule set. */
#ifndef DC_MODELS_H
#define DC_MODELS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "dc/common.h"
#include "dc/ruleset.h"

/* Named limits on the registry (an untrusted file). */
#define DC_MODELS_MAX         500 /* entries */
#define DC_MODELS_MAX_ALIASES 8   /* per entry */
#define DC_MODELS_NAME_MAX    128 /* an alias or a requested name, in bytes */
#define DC_MODELS_MAX_SUGGEST 5   /* close names an unknown name is answered with */
/* Parameters recounted from the architecture may differ from the published
 * count by this share at most (norms, biases and position tables aside). */
#define DC_MODELS_PARAM_TOLERANCE 0.02

struct dc_model_info {
    const char *name;         /* canonical: "llama-3.1-8b" */
    const char *title;        /* "Llama 3.1 8B" */
    const char *architecture; /* the Workload's model.architecture */
    const cJSON *aliases;     /* array of strings (Hugging Face ids...), may be empty */
    const cJSON *model;       /* the Workload `model` object this entry spells out */
    const cJSON *details;     /* config figures that only recount the parameters */
    const cJSON *sources;     /* field name -> public URL it was read from */
    const cJSON *notes;       /* field name -> how it was read (may be empty) */
    const char *file;
    unsigned line;
};

DC_API size_t dc_ruleset_model_count(const dc_ruleset *rs);
DC_API const struct dc_model_info *dc_ruleset_model(const dc_ruleset *rs, size_t i);
/* The entry named `name` or one of its aliases, letter case ignored; NULL. */
DC_API const struct dc_model_info *dc_ruleset_find_model(const dc_ruleset *rs, const char *name);
/* Up to `max` canonical names closest to `name` by edit distance (letter
 * case ignored), closest first, only those within a third of the name's
 * length (at least 3 edits); returns how many. */
DC_API size_t dc_model_suggest(const dc_ruleset *rs, const char *name, const char **out,
                               size_t max);
/* The parameter count the entry's architecture implies (layers, widths,
 * experts, vocabulary in `model` and `details`); NAN when the entry does not
 * describe enough of it (convolutions, U-Nets, recommenders). `active`, when
 * not NULL, gets the parameters one token uses (NAN for a dense model). */
DC_API double dc_model_architecture_parameters(const struct dc_model_info *m, double *active);

#endif /* DC_MODELS_H */
