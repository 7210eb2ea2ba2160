/* core/src/rules/models.c -- the model registry (rules/models.yaml): load and check
 * it, find an entry by name or alias, suggest close names, and recount an
 * entry's parameters from its architecture. Owned by the model-registry work
 * (issue 16); format in docs/rules-format.md, use in docs/scoring.md.
 *
 * Every entry spells out a Workload `model` object, each field in a group
 * with the public source it was read from. The loader checks that object with
 * the parser a request's model goes through (model_object.c), so a named
 * model can never hold what a request could not, and that the parameters the
 * architecture implies agree with the published count within
 * DC_MODELS_PARAM_TOLERANCE. */
#include "dc/models.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "load.h"
#include "model_object.h"
#include "ruleset_internal.h"

/* Config figures that only recount the parameters (dc_model_architecture_parameters). */
static const char *const detail_numbers[] = {"vocab_size",
                                             "expert_intermediate_size",
                                             "shared_experts",
                                             "dense_layers",
                                             "q_lora_rank",
                                             "kv_lora_rank",
                                             "qk_rope_head_dim",
                                             "v_head_dim",
                                             NULL};
static const char *const detail_flags[] = {"tied_embeddings", "gated_mlp",
                                           "active_excludes_embedding", NULL};

static bool listed(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++) {
        if (strcmp(s, list[i]) == 0)
            return true;
    }
    return false;
}

/* ---- lookup ------------------------------------------------------------------------ */

size_t dc_ruleset_model_count(const dc_ruleset *rs)
{
    return rs != NULL ? rs->n_models : 0;
}

const struct dc_model_info *dc_ruleset_model(const dc_ruleset *rs, size_t i)
{
    return rs != NULL && i < rs->n_models ? &rs->models[i] : NULL;
}

static bool same_name(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    }
    return *a == *b;
}

/* A Hugging Face id without its organisation: what follows the last '/'. */
static const char *repo_name(const char *id)
{
    const char *slash = strrchr(id, '/');
    return slash != NULL ? slash + 1 : id;
}

/* Entry m's name or an alias is `name`; with `tails`, compared without the
 * organisation on either side ("DeepSeek-V3" for deepseek-ai/DeepSeek-V3,
 * "someorg/llama-3.1-8b" for llama-3.1-8b). */
static bool model_named(const struct dc_model_info *m, const char *name, bool tails)
{
    const char *want = tails ? repo_name(name) : name;
    if (same_name(m->name, want))
        return true;
    const cJSON *a = NULL;
    cJSON_ArrayForEach(a, m->aliases)
    {
        if (cJSON_IsString(a) &&
            same_name(tails ? repo_name(a->valuestring) : a->valuestring, want))
            return true;
    }
    return false;
}

const struct dc_model_info *dc_ruleset_find_model(const dc_ruleset *rs, const char *name)
{
    /* The exact name or alias first, letter case ignored; then the
     * Hugging Face repository name, the organisation prefix optional. */
    for (int tails = 0; name != NULL && tails < 2; tails++)
        for (size_t i = 0; i < dc_ruleset_model_count(rs); i++)
            if (model_named(&rs->models[i], name, tails == 1))
                return &rs->models[i];
    return NULL;
}

/* Levenshtein distance, letter case ignored; both at most DC_MODELS_NAME_MAX. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t row[DC_MODELS_NAME_MAX + 1];
    size_t n = strlen(b);
    if (n > DC_MODELS_NAME_MAX)
        n = DC_MODELS_NAME_MAX;
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1] != '\0' && i <= DC_MODELS_NAME_MAX; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[n];
}

/* The distance of `name` to `entry` (a name or alias): its edit distance, or 1
 * when `name` (three letters or more) begins it ("bert" is close to
 * bert-base, though five letters away). */
static size_t distance_to_name(const char *name, const char *entry)
{
    size_t len = strlen(name);
    if (len >= 3 && strncasecmp(name, entry, len) == 0)
        return 1;
    return edit_distance(name, entry);
}

/* The distance of `name` to entry `m`: to its name or its closest alias. */
static size_t distance_to(const struct dc_model_info *m, const char *name)
{
    size_t best = distance_to_name(name, m->name);
    const cJSON *a = NULL;
    cJSON_ArrayForEach(a, m->aliases)
    {
        if (cJSON_IsString(a)) {
            size_t d = distance_to_name(name, a->valuestring);
            best = d < best ? d : best;
        }
    }
    return best;
}

size_t dc_model_suggest(const dc_ruleset *rs, const char *name, const char **out, size_t max)
{
    size_t dist[DC_MODELS_MAX_SUGGEST];
    size_t n = 0;
    if (name == NULL || strlen(name) > DC_MODELS_NAME_MAX)
        return 0;
    if (max > DC_MODELS_MAX_SUGGEST)
        max = DC_MODELS_MAX_SUGGEST;
    size_t len = strlen(name);
    size_t limit = len / 3 > 3 ? len / 3 : 3;
    for (size_t i = 0; i < dc_ruleset_model_count(rs); i++) {
        const struct dc_model_info *m = &rs->models[i];
        size_t d = distance_to(m, name);
        if (d > limit)
            continue;
        /* Insert in order of distance, then name; drop what falls past max. */
        size_t at = n;
        while (at > 0 &&
               (dist[at - 1] > d || (dist[at - 1] == d && strcmp(out[at - 1], m->name) > 0)))
            at--;
        if (at >= max)
            continue;
        size_t last = n < max ? n : max - 1;
        for (size_t k = last; k > at; k--) {
            out[k] = out[k - 1];
            dist[k] = dist[k - 1];
        }
        out[at] = m->name;
        dist[at] = d;
        if (n < max)
            n++;
    }
    return n;
}

/* ---- the architecture's parameter count ------------------------------------------- */

static double field(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double field_or(const cJSON *obj, const char *key, double dflt)
{
    double v = field(obj, key);
    return isfinite(v) ? v : dflt;
}

static bool flag_or(const cJSON *obj, const char *key, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

static bool is_mla(const struct dc_model_info *m)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(m->model, "attention");
    return cJSON_IsString(a) && strcmp(a->valuestring, "mla") == 0;
}

/* One layer's attention weights: query, key, value and output projections, or
 * MLA's low-rank query and the latent KV with its up-projections (DeepSeek-V2,
 * https://arxiv.org/abs/2405.04434). */
static double attention_weights(const struct dc_model_info *m, double d, double h)
{
    double hd = field_or(m->model, "head_dim", d / h);
    if (is_mla(m)) {
        double ql = field_or(m->details, "q_lora_rank", 0);
        double kvl = field(m->details, "kv_lora_rank"),
               rope = field(m->details, "qk_rope_head_dim");
        double v = field(m->details, "v_head_dim");
        double q = ql > 0 ? d * ql + ql * h * hd : d * h * hd;
        return q + d * (kvl + rope) + kvl * h * (hd - rope + v) + h * v * d;
    }
    double kv = field_or(m->model, "kv_heads", h);
    return d * h * hd + 2.0 * d * kv * hd + h * hd * d;
}

double dc_model_architecture_parameters(const struct dc_model_info *m, double *active)
{
    if (active != NULL)
        *active = NAN;
    if (m == NULL)
        return NAN;
    double L = field(m->model, "layers"), d = field(m->model, "hidden_size");
    double h = field(m->model, "attention_heads"), F = field_or(m->model, "intermediate_size", 0);
    if (!isfinite(L) || !isfinite(d) || !isfinite(h))
        return NAN;
    const char *arch = m->architecture;
    bool decoder = strcmp(arch, "transformer") == 0 || strcmp(arch, "moe") == 0;
    double V = field_or(m->details, "vocab_size", 0);
    double attn = attention_weights(m, d, h);
    double mlp = (flag_or(m->details, "gated_mlp", decoder) ? 3.0 : 2.0) * d * F;
    double emb = V * d * (decoder && !flag_or(m->details, "tied_embeddings", false) ? 2.0 : 1.0);
    if (strcmp(arch, "transformer") == 0 || strcmp(arch, "encoder") == 0 ||
        strcmp(arch, "vit") == 0)
        return L * (attn + mlp) + emb;
    if (strcmp(arch, "encoder-decoder") == 0) /* decoder layers add cross-attention */
        return field_or(m->model, "encoder_layers", 0) * (attn + mlp) + L * (2.0 * attn + mlp) +
               emb;
    if (strcmp(arch, "moe") != 0)
        return NAN;
    double E = field(m->model, "experts"), k = field(m->model, "experts_per_token");
    double Fe = field(m->details, "expert_intermediate_size");
    double S = field_or(m->details, "shared_experts", 0),
           Ld = field_or(m->details, "dense_layers", 0);
    if (!isfinite(E) || !isfinite(k) || !isfinite(Fe))
        return NAN;
    double shared = L * attn + Ld * mlp + emb, moe_layers = L - Ld;
    double expert = 3.0 * d * Fe, router = d * E;
    if (active != NULL)
        *active = shared + moe_layers * ((k + S) * expert + router) -
                  (flag_or(m->details, "active_excludes_embedding", false) ? V * d : 0);
    return shared + moe_layers * ((E + S) * expert + router);
}

/* ---- loading ------------------------------------------------------------------------ */

/* Add `v` (borrowed) as `key` to `obj` as a copy; false on OOM. */
static bool put_copy(cJSON *obj, const char *key, const cJSON *v)
{
    cJSON *c = cJSON_Duplicate(v, true);
    if (c == NULL || !cJSON_AddItemToObject(obj, key, c)) {
        cJSON_Delete(c);
        return false;
    }
    return true;
}

struct entry_build {
    const struct dc__where *w;
    cJSON *model, *details, *sources, *notes;
};

/* One group of facts read from one source: each field goes to the model or
 * the details, with the group's source (and note) beside it. */
static void load_group(struct entry_build *b, const cJSON *g)
{
    struct dc__where q = dc__sub(b->w, g);
    if (!cJSON_IsObject(g)) {
        dc__diag(q.L, q.file, dc__line_of(&q, g), q.id, "each of facts must be a mapping");
        return;
    }
    const char *src = dc__get_url(&q, "source", true);
    const char *note = dc__get_str(&q, "note", false);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, g)
    {
        const char *k = it->string;
        if (strcmp(k, "source") == 0 || strcmp(k, "note") == 0)
            continue;
        bool is_model = listed(k, dc__model_keys + DC__MODEL_REQUEST_KEYS);
        bool is_detail = listed(k, detail_numbers) || listed(k, detail_flags);
        unsigned line = dc__line_of(&q, it);
        if (!is_model && !is_detail) {
            dc__diag(q.L, q.file, line, q.id, "unknown field \"%s\" in facts", k);
            continue;
        }
        if (cJSON_GetObjectItemCaseSensitive(b->sources, k) != NULL) {
            dc__diag(q.L, q.file, line, q.id, "field \"%s\" is given twice", k);
            continue;
        }
        if (listed(k, detail_flags)
                ? !cJSON_IsBool(it)
                : listed(k, detail_numbers) &&
                      (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1e7 ||
                       it->valuedouble != floor(it->valuedouble))) {
            dc__diag(q.L, q.file, line, q.id, "\"%s\" must be %s", k,
                     listed(k, detail_flags) ? "true or false" : "an integer from 0 to 1e7");
            continue;
        }
        if (!put_copy(is_model ? b->model : b->details, k, it) ||
            (src != NULL && cJSON_AddStringToObject(b->sources, k, src) == NULL) ||
            (note != NULL && cJSON_AddStringToObject(b->notes, k, note) == NULL))
            q.L->oom = true;
    }
}

/* The model object against the workload's parser, and its parameters against
 * its architecture. */
static void check_entry(const dc_ruleset *rs, const struct dc__where *w, struct dc_model_info *m)
{
    struct dc_error err;
    dc_error_clear(&err);
    if (cJSON_GetObjectItemCaseSensitive(m->model, "parameters") == NULL) {
        dc__diag(w->L, w->file, m->line, m->name, "no facts group gives \"parameters\"");
        return;
    }
    enum dc_status rc = dc__model_check(rs, m->model, &err);
    if (rc == DC_ENOMEM) {
        w->L->oom = true;
        return;
    }
    if (rc != DC_OK) {
        dc__diag(w->L, w->file, m->line, m->name, "%s: %s", err.where, err.msg);
        return;
    }
    double given = field(m->model, "parameters");
    double counted = dc_model_architecture_parameters(m, NULL);
    if (isfinite(counted) && fabs(counted / given - 1.0) > DC_MODELS_PARAM_TOLERANCE)
        dc__diag(w->L, w->file, m->line, m->name,
                 "parameters %.4g disagree with the %.4g its architecture implies (%.1f%%, more "
                 "than %.0f%%): check layers, widths, experts and vocab_size",
                 given, counted, 100.0 * (counted / given - 1.0),
                 100.0 * DC_MODELS_PARAM_TOLERANCE);
}

static bool name_taken(const dc_ruleset *rs, size_t upto, const char *name)
{
    for (size_t i = 0; i < upto; i++) {
        const struct dc_model_info *m = &rs->models[i];
        if (same_name(m->name, name))
            return true;
        const cJSON *a = NULL;
        cJSON_ArrayForEach(a, m->aliases)
        {
            if (cJSON_IsString(a) && same_name(a->valuestring, name))
                return true;
        }
    }
    return false;
}

/* Whether alias `a` of entry `m` repeats its name or an alias before it. */
static bool repeats_own(const struct dc_model_info *m, const cJSON *a)
{
    if (m->name != NULL && same_name(m->name, a->valuestring))
        return true;
    for (const cJSON *b = m->aliases->child; b != NULL && b != a; b = b->next) {
        if (cJSON_IsString(b) && same_name(b->valuestring, a->valuestring))
            return true;
    }
    return false;
}

static void check_aliases(const dc_ruleset *rs, const struct dc__where *e,
                          const struct dc_model_info *m, size_t idx)
{
    if (cJSON_GetArraySize(m->aliases) > DC_MODELS_MAX_ALIASES)
        dc__diag(e->L, e->file, dc__line_of(e, m->aliases), e->id, "more than %d aliases",
                 DC_MODELS_MAX_ALIASES);
    const cJSON *a = NULL;
    cJSON_ArrayForEach(a, m->aliases)
    {
        if (!cJSON_IsString(a) || a->valuestring[0] == '\0' ||
            strlen(a->valuestring) > DC_MODELS_NAME_MAX)
            dc__diag(e->L, e->file, dc__line_of(e, a), e->id,
                     "an alias must be a string of 1 to %d bytes", DC_MODELS_NAME_MAX);
        else if (name_taken(rs, idx, a->valuestring) || repeats_own(m, a))
            dc__diag(e->L, e->file, dc__line_of(e, a), e->id, "alias \"%s\" already names a model",
                     a->valuestring);
    }
}

static void load_entry(dc_ruleset *rs, const struct dc__where *w, const cJSON *it)
{
    static const char *const keys[] = {"name", "title", "aliases", "architecture", "facts", NULL};
    static const cJSON empty_array = {.type = cJSON_Array};
    struct dc_model_info *m = &rs->models[rs->n_models];
    struct dc__where e = dc__sub(w, it);
    memset(m, 0, sizeof(*m));
    m->file = w->file;
    m->line = dc__line_of(&e, it);
    if (!cJSON_IsObject(it)) {
        dc__diag(w->L, w->file, m->line, NULL, "each model must be a mapping");
        return;
    }
    m->name = dc__get_str(&e, "name", true);
    if (m->name != NULL && !dc__valid_id(m->name, true))
        dc__diag(w->L, w->file, m->line, m->name,
                 "name must be 1-32 characters of a-z, 0-9, '-', '.', '_'");
    else if (m->name != NULL && name_taken(rs, rs->n_models, m->name))
        dc__diag(w->L, w->file, m->line, m->name, "a model of this name is listed before");
    e.id = m->name;
    dc__check_keys(&e, "a model", keys);
    m->title = dc__get_str(&e, "title", true);
    m->architecture = dc__get_str(&e, "architecture", true);
    m->aliases = dc__get_arr(&e, "aliases", false);
    const cJSON *facts = dc__get_arr(&e, "facts", true);
    struct entry_build b = {&e, cJSON_CreateObject(), cJSON_CreateObject(), cJSON_CreateObject(),
                            cJSON_CreateObject()};
    cJSON *owned = cJSON_CreateArray();
    if (owned == NULL || b.model == NULL || b.details == NULL || b.sources == NULL ||
        b.notes == NULL || !cJSON_AddItemToArray(rs->model_trees, owned)) {
        cJSON_Delete(owned);
        cJSON_Delete(b.model);
        cJSON_Delete(b.details);
        cJSON_Delete(b.sources);
        cJSON_Delete(b.notes);
        w->L->oom = true;
        return;
    }
    cJSON_AddItemToArray(owned, b.model); /* cannot fail on a fresh array */
    cJSON_AddItemToArray(owned, b.details);
    cJSON_AddItemToArray(owned, b.sources);
    cJSON_AddItemToArray(owned, b.notes);
    m->model = b.model;
    m->details = b.details;
    m->sources = b.sources;
    m->notes = b.notes;
    if (m->aliases == NULL)
        m->aliases = &empty_array;
    if (m->architecture != NULL &&
        cJSON_AddStringToObject(b.model, "architecture", m->architecture) == NULL)
        w->L->oom = true;
    const cJSON *g = NULL;
    cJSON_ArrayForEach(g, facts) load_group(&b, g);
    check_aliases(rs, &e, m, rs->n_models);
    rs->n_models++;
    if (m->name != NULL && m->title != NULL && m->architecture != NULL && facts != NULL)
        check_entry(rs, &e, m);
}

void dc__load_models(struct dc__loader *L, dc_ruleset *rs, const char *file, const dc_yaml_doc *doc,
                     const cJSON *root)
{
    static const char *const top[] = {"models", NULL};
    struct dc__where w = {L, file, doc, NULL, root};
    if (!cJSON_IsObject(root)) {
        dc__diag(L, file, 1, NULL, "models.yaml must be a mapping with \"models\"");
        return;
    }
    dc__check_keys(&w, "models.yaml", top);
    const cJSON *list = dc__get_arr(&w, "models", true);
    if (list == NULL)
        return;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n > DC_MODELS_MAX) {
        dc__diag(L, file, dc__line_of(&w, list), NULL, "more models than the limit of %d",
                 DC_MODELS_MAX);
        return;
    }
    rs->models = calloc(n + 1, sizeof(*rs->models));
    rs->model_parameters = calloc(n + 1, sizeof(*rs->model_parameters));
    rs->model_trees = cJSON_CreateArray();
    if (rs->models == NULL || rs->model_parameters == NULL || rs->model_trees == NULL) {
        L->oom = true;
        return;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        load_entry(rs, &w, it);
        if (L->oom)
            return;
    }
    for (size_t i = 0; i < rs->n_models; i++) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(rs->models[i].model, "parameters");
        rs->model_parameters[i] = cJSON_IsNumber(p) && p->valuedouble > 0 ? p->valuedouble : NAN;
    }
}

void dc__models_free(dc_ruleset *rs)
{
    free(rs->models);
    free(rs->model_parameters);
    cJSON_Delete(rs->model_trees);
    rs->models = NULL;
    rs->model_parameters = NULL;
    rs->model_trees = NULL;
    rs->n_models = 0;
}
