/* core/src/rules/load.h -- what every loader of a rule-set file shares: the
 * diagnostics it reports (`file:line: id: message`) and checked access to the
 * fields of a parsed YAML mapping. Used by the loaders (capacity.c, catalog.c,
 * models.c, params.c, prices.c, ruleset.c) and implemented in load.c. Not
 * part of the public API. */
#ifndef DC_LOAD_H
#define DC_LOAD_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "dc/ruleset.h"
#include "dc/yaml.h"

/* One load in progress: where its problems go. */
struct dc__loader {
    struct dc_diags *diags;
    size_t problems;
    bool oom;
};

/* Record one problem (counted even when `diags` is full or NULL). */
void dc__diag(struct dc__loader *L, const char *file, unsigned line, const char *id,
              const char *fmt, ...) DC_PRINTF(5, 6);

/* Where we are while checking one object: its file, its document (for lines)
 * and the id of the rule or accelerator it belongs to. */
struct dc__where {
    struct dc__loader *L;
    const char *file;
    const dc_yaml_doc *doc;
    const char *id;
    const cJSON *obj;
};

/* The line of `node`, or of the object being checked when `node` has none. */
unsigned dc__line_of(const struct dc__where *w, const cJSON *node);
/* Report every key of w->obj not in `allowed`: typos must not pass silently. */
void dc__check_keys(const struct dc__where *w, const char *what, const char *const *allowed);
bool dc__is_url(const char *s);
/* Typed fields of w->obj; NULL or NAN (reported when required) when absent,
 * null or of the wrong type. Numbers must lie in [lo, hi]. */
const char *dc__get_str(const struct dc__where *w, const char *key, bool required);
const char *dc__get_url(const struct dc__where *w, const char *key, bool required);
double dc__get_num(const struct dc__where *w, const char *key, bool required, double lo, double hi);
bool dc__get_bool(const struct dc__where *w, const char *key, bool required, bool dflt);
const cJSON *dc__get_obj(const struct dc__where *w, const char *key, bool required);
const cJSON *dc__get_arr(const struct dc__where *w, const char *key, bool required);
/* `w` looking at `obj` instead. */
struct dc__where dc__sub(const struct dc__where *w, const cJSON *obj);
/* 1-32 characters of a-z, 0-9 and '-' (and '.', '_' when allowed), not starting
 * with a separator. */
bool dc__valid_id(const char *s, bool allow_dot);
/* A list of names, each through `parse`, as a bit set; unknown or repeated
 * names are reported. */
unsigned dc__parse_name_set(const struct dc__where *w, const cJSON *arr, const char *what,
                            bool (*parse)(const char *, unsigned *));
/* A source: a public URL, or "convention". */
const char *dc__get_source(const struct dc__where *w, const char *key);
/* key: {value, source} with the value in [lo, hi]. */
struct dc_param dc__get_param(const struct dc__where *w, const char *key, double lo, double hi);
/* key: a date "YYYY-MM" or "YYYY-MM-DD" (quoted), no later than today; NULL
 * (reported) otherwise. */
const char *dc__get_date(const struct dc__where *w, const char *key);
/* prices.yaml's `capacity:` list (core/src/rules/capacity.c), after its offers. */
void dc__load_capacity(dc_ruleset *rs, const struct dc__where *w, const cJSON *list);
/* The catalog index of accelerator `id`. */
bool dc__find_acc(const dc_ruleset *rs, const char *id, size_t *out);

/* The loaders of the three data files; each reports every problem it finds. */
void dc__load_catalog(struct dc__loader *L, dc_ruleset *rs, const char *file,
                      const dc_yaml_doc *doc, const cJSON *root);
void dc__load_sizing(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root);
void dc__load_prices(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root);
/* models.yaml, the model registry (core/src/rules/models.c); after sizing.yaml, whose
 * parameters the workload parser that checks each entry reads. */
void dc__load_models(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root);
void dc__models_free(dc_ruleset *rs);

#endif
