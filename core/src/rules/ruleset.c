/* core/src/rules/ruleset.c -- load, check and compile a rule set (docs/rules-format.md).
 *
 * Loading never stops at the first problem: rule authors get every mistake of
 * a change in one run, each as `file:line: id: what is wrong`. Only a rule set
 * with no problem at all is returned. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "dc/embedded.h"
#include "dc/file.h"
#include "dc/yaml.h"
#include "load.h"
#include "ruleset_internal.h"

/* ---- diagnostics ---------------------------------------------------------- */

void dc_diags_init(struct dc_diags *d)
{
    if (d != NULL)
        memset(d, 0, sizeof(*d));
}

void dc_diags_cleanup(struct dc_diags *d)
{
    if (d == NULL)
        return;
    free(d->items);
    memset(d, 0, sizeof(*d));
}

void dc_diag_format(const struct dc_diag *d, char *buf, size_t len)
{
    if (d->id[0] != '\0')
        snprintf(buf, len, "%s:%u: %s: %s", d->file, d->line, d->id, d->msg);
    else
        snprintf(buf, len, "%s:%u: %s", d->file, d->line, d->msg);
}

/* ---- rules ------------------------------------------------------------------ */

static int get_impact(const struct dc__where *w, const cJSON *v)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < -100 ||
        v->valuedouble > 100) {
        dc__diag(w->L, w->file, dc__line_of(w, v), w->id,
                 "impact on \"%s\" must be an integer between -100 and 100", v->string);
        return 0;
    }
    return (int)v->valuedouble;
}

/* rank_below.accelerators: catalog ids, kept as indices. */
static void parse_gated_accs(const struct dc__where *x, dc_ruleset *rs, struct dc__rule *r,
                             const cJSON *accs)
{
    size_t n = (size_t)cJSON_GetArraySize(accs);
    r->rank_below_accs = calloc(n + 1, sizeof(*r->rank_below_accs));
    if (r->rank_below_accs == NULL) {
        x->L->oom = true;
        return;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, accs)
    {
        size_t idx = 0;
        if (!cJSON_IsString(it) || !dc__find_acc(rs, it->valuestring, &idx)) {
            dc__diag(x->L, x->file, dc__line_of(x, it), x->id,
                     "unknown accelerator in rank_below (not in the catalog)");
            continue;
        }
        r->rank_below_accs[r->n_rank_below_accs++] = idx;
    }
}

/* rank_below: {families: [tpu], accelerators: [mi300x], below: gpu | any}: a
 * gate, not a score (docs/scoring.md, section 8). */
static void parse_rank_below(const struct dc__where *e, dc_ruleset *rs, struct dc__rule *r,
                             const cJSON *v)
{
    static const char *const keys[] = {"families", "accelerators", "below", NULL};
    struct dc__where x = dc__sub(e, v);
    dc__check_keys(&x, "rank_below", keys);
    const cJSON *fams = dc__get_arr(&x, "families", false);
    const cJSON *accs = dc__get_arr(&x, "accelerators", false);
    const char *ref = dc__get_str(&x, "below", true);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, fams)
    {
        enum dc_family f;
        if (!cJSON_IsString(it) || !dc_family_parse(it->valuestring, &f)) {
            dc__diag(e->L, e->file, dc__line_of(&x, it), e->id, "unknown family in rank_below");
            continue;
        }
        r->rank_below_families |= 1u << f;
    }
    if (accs != NULL)
        parse_gated_accs(&x, rs, r, accs);
    if (ref == NULL)
        return;
    r->below_any = strcmp(ref, "any") == 0;
    if (!r->below_any && !dc_family_parse(ref, &r->below))
        dc__diag(e->L, e->file, dc__line_of(&x, v), e->id,
                 "unknown family \"%s\" in rank_below.below (a family or \"any\")", ref);
    else if (!r->below_any && (r->rank_below_families & (1u << r->below)))
        dc__diag(e->L, e->file, dc__line_of(&x, v), e->id,
                 "rank_below cannot hold a family below itself");
    if (r->rank_below_families == 0 && r->n_rank_below_accs == 0)
        dc__diag(e->L, e->file, dc__line_of(&x, v), e->id,
                 "rank_below needs families or accelerators");
}

static void parse_effect(const struct dc__where *w, dc_ruleset *rs, struct dc__rule *r,
                         const cJSON *eff)
{
    static const char *const keys[] = {"families", "accelerators", "exclude", "rank_below", NULL};
    struct dc__where e = dc__sub(w, eff);
    dc__check_keys(&e, "effect", keys);
    const cJSON *fams = dc__get_obj(&e, "families", false);
    const cJSON *accs = dc__get_obj(&e, "accelerators", false);
    const cJSON *excl = dc__get_obj(&e, "exclude", false);
    const cJSON *below = dc__get_obj(&e, "rank_below", false);
    if (fams == NULL && accs == NULL && excl == NULL && below == NULL) {
        dc__diag(w->L, w->file, dc__line_of(&e, eff), w->id,
                 "effect needs at least one of families, accelerators, exclude, rank_below");
        return;
    }
    if (below != NULL)
        parse_rank_below(&e, rs, r, below);
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, fams)
    {
        enum dc_family f;
        if (!dc_family_parse(it->string, &f)) {
            dc__diag(w->L, w->file, dc__line_of(&e, it), w->id, "unknown family \"%s\"",
                     it->string);
            continue;
        }
        r->family_impact[f] = get_impact(&e, it);
        r->family_mask |= 1u << f;
    }
    if (accs != NULL) {
        size_t n = (size_t)cJSON_GetArraySize(accs);
        r->acc_impacts = calloc(n + 1, sizeof(*r->acc_impacts));
        if (r->acc_impacts == NULL) {
            w->L->oom = true;
            return;
        }
        cJSON_ArrayForEach(it, accs)
        {
            size_t idx = 0;
            if (!dc__find_acc(rs, it->string, &idx)) {
                dc__diag(w->L, w->file, dc__line_of(&e, it), w->id,
                         "unknown accelerator \"%s\" (not in the catalog)", it->string);
                continue;
            }
            r->acc_impacts[r->n_acc_impacts].acc = idx;
            r->acc_impacts[r->n_acc_impacts].impact = get_impact(&e, it);
            r->n_acc_impacts++;
        }
    }
    if (excl != NULL) {
        static const char *const xk[] = {"families", "accelerators", NULL};
        struct dc__where x = dc__sub(&e, excl);
        dc__check_keys(&x, "exclude", xk);
        const cJSON *xf = dc__get_arr(&x, "families", false);
        const cJSON *xa = dc__get_arr(&x, "accelerators", false);
        if (xf == NULL && xa == NULL)
            dc__diag(w->L, w->file, dc__line_of(&x, excl), w->id,
                     "exclude needs families or accelerators");
        cJSON_ArrayForEach(it, xf)
        {
            enum dc_family f;
            if (!cJSON_IsString(it) || !dc_family_parse(it->valuestring, &f)) {
                dc__diag(w->L, w->file, dc__line_of(&x, it), w->id, "unknown family in exclude");
                continue;
            }
            r->exclude_families |= 1u << f;
        }
        if (xa != NULL) {
            size_t n = (size_t)cJSON_GetArraySize(xa);
            r->exclude_accs = calloc(n + 1, sizeof(*r->exclude_accs));
            if (r->exclude_accs == NULL) {
                w->L->oom = true;
                return;
            }
            cJSON_ArrayForEach(it, xa)
            {
                size_t idx = 0;
                if (!cJSON_IsString(it) || !dc__find_acc(rs, it->valuestring, &idx)) {
                    dc__diag(w->L, w->file, dc__line_of(&x, it), w->id,
                             "unknown accelerator \"%s\" in exclude (not in the catalog)",
                             cJSON_IsString(it) ? it->valuestring : "(not a string)");
                    continue;
                }
                r->exclude_accs[r->n_exclude_accs++] = idx;
            }
        }
        r->info.excludes = r->exclude_families != 0 || r->n_exclude_accs != 0;
    }
}

int dc__rule_impact(const struct dc__rule *rule, size_t idx, enum dc_family fam, bool *reaches)
{
    int impact = 0;
    *reaches = (rule->family_mask & (1u << fam)) != 0;
    if (*reaches)
        impact += rule->family_impact[fam];
    for (size_t k = 0; k < rule->n_acc_impacts; k++) {
        if (rule->acc_impacts[k].acc == idx) {
            impact += rule->acc_impacts[k].impact;
            *reaches = true;
        }
    }
    return impact;
}

/* ---- conditions on the sized configuration -------------------------------------- */

/* Nesting a condition's walk for `sized.` facts follows at most: a compiled
 * condition is bounded deeper than this already (dc/logic.h). */
#define SIZED_WALK_MAX_DEPTH 256

/* Whether a condition names a `sized.*` fact: {"var": "sized.x"} or
 * {"var": ["sized.x", default]}. */
static bool reads_sized(const cJSON *node, unsigned depth)
{
    if (node == NULL || depth > SIZED_WALK_MAX_DEPTH)
        return false;
    if (cJSON_IsObject(node)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, "var");
        const cJSON *name = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, 0) : v;
        if (cJSON_IsString(name) && strncmp(name->valuestring, "sized.", 6) == 0)
            return true;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, node)
    {
        if (reads_sized(it, depth + 1))
            return true;
    }
    return false;
}

/* A rule on the sized configuration runs after the gates are set, so it
 * cannot be one. */
static void check_sized(const struct dc__where *rw, struct dc__rule *r)
{
    r->sized = reads_sized(r->info.when, 0);
    if (r->sized && (r->rank_below_families != 0 || r->n_rank_below_accs != 0))
        dc__diag(rw->L, rw->file, r->info.line, r->info.id,
                 "a rule that reads sized.* facts cannot rank_below: gates are set before "
                 "any configuration is sized");
}

/* The first rule's copy of an equal fact id, so that rules citing one fact
 * share one pointer and the engine compares facts by address. */
static const char *intern_fact(const dc_ruleset *rs, const char *fact)
{
    for (size_t j = 0; fact != NULL && j + 1 < rs->n_rules; j++) {
        const char *f = rs->rules[j].info.fact;
        if (f != NULL && strcmp(f, fact) == 0)
            return f;
    }
    return fact;
}

static void load_rules(struct dc__loader *L, dc_ruleset *rs, const char *file,
                       const dc_yaml_doc *doc, const cJSON *root)
{
    struct dc__where w = {L, file, doc, NULL, root};
    static const char *const top[] = {"rules", NULL};
    if (!cJSON_IsObject(root)) {
        dc__diag(L, file, 1, NULL, "a rule file must be a mapping with \"rules\"");
        return;
    }
    dc__check_keys(&w, "a rule file", top);
    const cJSON *list = dc__get_arr(&w, "rules", true);
    if (list == NULL)
        return;
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (rs->n_rules + n > DC_RULESET_MAX_RULES) {
        dc__diag(L, file, dc__line_of(&w, list), NULL, "more rules than the limit of %d",
                 DC_RULESET_MAX_RULES);
        return;
    }
    struct dc__rule *grown = realloc(rs->rules, (rs->n_rules + n + 1) * sizeof(*grown));
    if (grown == NULL) {
        L->oom = true;
        return;
    }
    rs->rules = grown;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, list)
    {
        static const char *const keys[] = {"id",   "description", "source",  "fact",
                                           "when", "effect",      "message", NULL};
        struct dc__rule *r = &rs->rules[rs->n_rules++];
        memset(r, 0, sizeof(*r));
        r->info.file = file;
        struct dc__where rw = {L, file, doc, NULL, it};
        r->info.line = dc__line_of(&rw, it);
        if (!cJSON_IsObject(it)) {
            dc__diag(L, file, r->info.line, NULL, "each rule must be a mapping");
            continue;
        }
        r->info.id = dc__get_str(&rw, "id", true);
        if (r->info.id != NULL && !dc__valid_id(r->info.id, true)) {
            dc__diag(
                L, file, r->info.line, r->info.id,
                "id must be 1-32 characters of a-z, 0-9, '-', '.', '_', starting with a letter "
                "or digit");
        }
        rw.id = r->info.id;
        for (size_t j = 0; r->info.id != NULL && j + 1 < rs->n_rules; j++) {
            if (rs->rules[j].info.id != NULL && strcmp(rs->rules[j].info.id, r->info.id) == 0)
                dc__diag(L, file, r->info.line, r->info.id, "duplicate rule id (first at %s:%u)",
                         rs->rules[j].info.file, rs->rules[j].info.line);
        }
        dc__check_keys(&rw, "rule", keys);
        r->info.description = dc__get_str(&rw, "description", true);
        r->info.source = dc__get_url(&rw, "source", true);
        r->info.fact = intern_fact(rs, dc__get_str(&rw, "fact", false));
        r->info.message = dc__get_str(&rw, "message", false);
        if (r->info.message == NULL)
            r->info.message = r->info.description;
        const cJSON *when = cJSON_GetObjectItemCaseSensitive(it, "when");
        if (when == NULL) {
            dc__diag(L, file, r->info.line, r->info.id, "missing required field \"when\"");
        } else {
            struct dc_error err;
            dc_error_clear(&err);
            r->info.when = when;
            enum dc_status rc = dc_logic_compile(when, NULL, &r->cond, &err);
            if (rc == DC_ENOMEM)
                L->oom = true;
            else if (rc != DC_OK)
                dc__diag(L, file, dc__line_of(&rw, when), r->info.id, "condition%s%s: %s",
                         err.where[0] != '\0' ? " at " : "", err.where, err.msg);
        }
        const cJSON *eff = dc__get_obj(&rw, "effect", true);
        if (eff != NULL)
            parse_effect(&rw, rs, r, eff);
        check_sized(&rw, r);
    }
}

/* ---- canonical digest -------------------------------------------------------- */

struct buf {
    char *p;
    size_t len;
    size_t cap;
    bool oom;
};

static void buf_put(struct buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap != 0 ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static int key_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a;
    const cJSON *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static void put_string(struct buf *b, const char *s)
{
    buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            buf_put(b, esc, 2);
        } else if (*p < 0x20) {
            int len = snprintf(esc, sizeof(esc), "\\u%04x", *p);
            buf_put(b, esc, (size_t)len);
        } else {
            buf_put(b, (const char *)p, 1);
        }
    }
    buf_put(b, "\"", 1);
}

/* JSON with object keys sorted and numbers as %.17g: the same content always
 * gives the same bytes, whatever the YAML formatting or comments were. */
static void canonical(struct buf *b, const cJSON *n)
{
    char num[40];
    if (cJSON_IsObject(n)) {
        size_t count = (size_t)cJSON_GetArraySize(n);
        const cJSON **kids = calloc(count + 1, sizeof(*kids));
        if (kids == NULL) {
            b->oom = true;
            return;
        }
        size_t i = 0;
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, n) kids[i++] = it;
        qsort(kids, count, sizeof(*kids), key_cmp);
        buf_put(b, "{", 1);
        for (i = 0; i < count; i++) {
            if (i > 0)
                buf_put(b, ",", 1);
            put_string(b, kids[i]->string);
            buf_put(b, ":", 1);
            canonical(b, kids[i]);
        }
        buf_put(b, "}", 1);
        free(kids);
    } else if (cJSON_IsArray(n)) {
        buf_put(b, "[", 1);
        const cJSON *it = NULL;
        bool first = true;
        cJSON_ArrayForEach(it, n)
        {
            if (!first)
                buf_put(b, ",", 1);
            first = false;
            canonical(b, it);
        }
        buf_put(b, "]", 1);
    } else if (cJSON_IsString(n)) {
        put_string(b, n->valuestring);
    } else if (cJSON_IsNumber(n)) {
        int len = snprintf(num, sizeof(num), "%.17g", n->valuedouble);
        buf_put(b, num, (size_t)len);
    } else if (cJSON_IsTrue(n)) {
        buf_put(b, "true", 4);
    } else if (cJSON_IsFalse(n)) {
        buf_put(b, "false", 5);
    } else {
        buf_put(b, "null", 4);
    }
}

static bool compute_version(dc_ruleset *rs)
{
    struct buf b = {0};
    for (size_t i = 0; i < rs->n_trees; i++) {
        buf_put(&b, rs->file_names[i], strlen(rs->file_names[i]) + 1);
        canonical(&b, rs->trees[i]);
        buf_put(&b, "\n", 1);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    bool ok = !b.oom && EVP_Digest(b.p, b.len, md, &mdlen, EVP_sha256(), NULL) == 1;
    free(b.p);
    if (!ok)
        return false;
    for (unsigned i = 0; i < mdlen && i < 32; i++)
        snprintf(rs->version + 2 * i, 3, "%02x", md[i]);
    return true;
}

static void set_acc_bit(uint64_t *bits, size_t idx)
{
    if (idx < DC__ACC_WORDS * 64)
        bits[idx / 64] |= (uint64_t)1 << (idx % 64);
}

/* rs->sized_rules: the rules that read sized.* facts, listed once; and each
 * rule's accelerators as bits (dc__rule.touch_accs). */
static bool index_sized_rules(dc_ruleset *rs)
{
    rs->sized_rules = calloc(rs->n_rules + 1, sizeof(*rs->sized_rules));
    if (rs->sized_rules == NULL)
        return false;
    for (size_t i = 0; i < rs->n_rules; i++) {
        struct dc__rule *r = &rs->rules[i];
        if (r->sized)
            rs->sized_rules[rs->n_sized_rules++] = i;
        for (size_t k = 0; k < r->n_acc_impacts; k++)
            set_acc_bit(r->touch_accs, r->acc_impacts[k].acc);
        for (size_t k = 0; k < r->n_rank_below_accs; k++)
            set_acc_bit(r->touch_accs, r->rank_below_accs[k]);
        for (size_t k = 0; k < r->n_exclude_accs; k++)
            set_acc_bit(r->exclude_acc_bits, r->exclude_accs[k]);
    }
    return true;
}

/* The distinct var paths numbered so far while a set loads. */
struct var_numbers {
    const char *path[DC__VAR_SLOTS_MAX];
    size_t n;
};

static uint32_t number_path(const char *path, void *ctx)
{
    struct var_numbers *vn = ctx;
    for (size_t i = 0; i < vn->n; i++)
        if (strcmp(vn->path[i], path) == 0)
            return (uint32_t)i;
    if (vn->n == DC__VAR_SLOTS_MAX)
        return UINT32_MAX;
    vn->path[vn->n] = path; /* the program's own copy, which outlives this */
    return (uint32_t)vn->n++;
}

/* Each distinct path the conditions read one entry of a request's var cache
 * (engine.c): the facts' members each rule reads are then looked up once a
 * request, not once a rule. */
static void number_vars(dc_ruleset *rs)
{
    struct var_numbers vn;
    vn.n = 0;
    for (size_t i = 0; i < rs->n_rules; i++)
        dc_logic_number_vars(rs->rules[i].cond, number_path, &vn);
    rs->n_var_slots = vn.n;
}

/* ---- lifecycle ----------------------------------------------------------------- */

static void ruleset_destroy(dc_ruleset *rs)
{
    if (rs == NULL)
        return;
    for (size_t i = 0; i < rs->n_rules; i++) {
        dc_logic_free(rs->rules[i].cond);
        free(rs->rules[i].acc_impacts);
        free(rs->rules[i].exclude_accs);
        free(rs->rules[i].rank_below_accs);
    }
    free(rs->rules);
    free(rs->sized_rules);
    free(rs->accs);
    free(rs->pci_pool);
    free(rs->offers);
    free(rs->capacity);
    dc__models_free(rs);
    for (size_t i = 0; i < rs->n_trees; i++) {
        cJSON_Delete(rs->trees[i]);
        free(rs->file_names[i]);
    }
    free(rs->trees);
    free(rs->file_names);
    free(rs->origin);
    free(rs);
}

dc_ruleset *dc_ruleset_retain(dc_ruleset *rs)
{
    if (rs != NULL)
        atomic_fetch_add_explicit(&rs->refs, 1, memory_order_relaxed);
    return rs;
}

void dc_ruleset_release(dc_ruleset *rs)
{
    if (rs == NULL)
        return;
    if (atomic_fetch_sub_explicit(&rs->refs, 1, memory_order_acq_rel) == 1)
        ruleset_destroy(rs);
}

static int file_cmp(const void *a, const void *b)
{
    const struct dc_source_file *x = *(const struct dc_source_file *const *)a;
    const struct dc_source_file *y = *(const struct dc_source_file *const *)b;
    return strcmp(x->name, y->name);
}

static enum dc_status load_files(const struct dc_source_file *files, size_t n, const char *origin,
                                 dc_ruleset **out, struct dc_diags *diags)
{
    struct dc__loader L = {diags, 0, false};
    enum dc_status rc = DC_OK;
    dc_ruleset *rs = NULL;
    dc_yaml_doc **docs = NULL;
    const struct dc_source_file **sorted = NULL;

    if (out == NULL || (files == NULL && n != 0))
        return DC_EINVAL;
    *out = NULL;
    if (n > DC_RULESET_MAX_FILES) {
        dc__diag(&L, origin, 0, NULL, "%zu rule files exceed the limit of %d", n,
                 DC_RULESET_MAX_FILES);
        return DC_ELIMIT;
    }
    rs = calloc(1, sizeof(*rs));
    docs = calloc(n + 1, sizeof(*docs));
    sorted = calloc(n + 1, sizeof(*sorted));
    if (rs == NULL || docs == NULL || sorted == NULL)
        goto oom;
    atomic_init(&rs->refs, 1);
    rs->origin = strdup(origin);
    rs->trees = calloc(n + 1, sizeof(*rs->trees));
    rs->file_names = calloc(n + 1, sizeof(*rs->file_names));
    if (rs->origin == NULL || rs->trees == NULL || rs->file_names == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++)
        sorted[i] = &files[i];
    qsort(sorted, n, sizeof(*sorted), file_cmp);

    /* Parse every file first, so syntax errors in several files all show. */
    ssize_t catalog = -1, sizing = -1, prices = -1, models = -1;
    for (size_t i = 0; i < n; i++) {
        struct dc_error err;
        dc_error_clear(&err);
        const struct dc_source_file *f = sorted[i];
        rs->file_names[i] = strdup(f->name);
        if (rs->file_names[i] == NULL)
            goto oom;
        rs->n_trees = i + 1;
        enum dc_status prc = dc_yaml_parse(f->data, f->len, rs->file_names[i], &docs[i], &err);
        if (prc == DC_ENOMEM)
            goto oom;
        if (prc != DC_OK) {
            const char *colon = strrchr(err.where, ':');
            dc__diag(&L, f->name, colon != NULL ? (unsigned)atoi(colon + 1) : 0, NULL, "%s",
                     err.msg);
            if (prc == DC_ELIMIT)
                rc = DC_ELIMIT;
            continue;
        }
        rs->trees[i] = dc_yaml_take_root(docs[i]);
        if (strcmp(f->name, "catalog.yaml") == 0)
            catalog = (ssize_t)i;
        else if (strcmp(f->name, "sizing.yaml") == 0)
            sizing = (ssize_t)i;
        else if (strcmp(f->name, "prices.yaml") == 0)
            prices = (ssize_t)i;
        else if (strcmp(f->name, "models.yaml") == 0)
            models = (ssize_t)i;
    }
    if (catalog < 0 && L.problems == 0)
        dc__diag(&L, origin, 0, NULL, "no catalog.yaml in the rule set");
    if (sizing < 0 && L.problems == 0)
        dc__diag(&L, origin, 0, NULL, "no sizing.yaml in the rule set");
    if (prices < 0 && L.problems == 0)
        dc__diag(&L, origin, 0, NULL, "no prices.yaml in the rule set");
    size_t before_catalog = L.problems;
    if (catalog >= 0)
        dc__load_catalog(&L, rs, rs->file_names[catalog], docs[catalog], rs->trees[catalog]);
    bool catalog_ok = catalog >= 0 && rs->n_accs > 0 && L.problems == before_catalog;
    if (sizing >= 0)
        dc__load_sizing(&L, rs, rs->file_names[sizing], docs[sizing], rs->trees[sizing]);
    /* Prices name catalog entries, so only once the catalog loaded cleanly. */
    if (prices >= 0 && catalog_ok)
        dc__load_prices(&L, rs, rs->file_names[prices], docs[prices], rs->trees[prices]);
    /* The registry is optional: a set without it answers model.name with a 400. */
    if (models >= 0)
        dc__load_models(&L, rs, rs->file_names[models], docs[models], rs->trees[models]);
    /* Rules are checked against the catalog, so only once it loaded cleanly;
     * otherwise every rule naming a broken entry would be reported too. */
    if (catalog >= 0 && rs->n_accs > 0) {
        for (size_t i = 0; i < n; i++) {
            if ((ssize_t)i == catalog || (ssize_t)i == sizing || (ssize_t)i == prices ||
                (ssize_t)i == models || docs[i] == NULL)
                continue;
            load_rules(&L, rs, rs->file_names[i], docs[i], rs->trees[i]);
            if (L.oom)
                goto oom;
        }
    }
    if (L.oom)
        goto oom;
    if (L.problems > 0) {
        if (rc == DC_OK)
            rc = DC_EVALIDATE;
        goto out;
    }
    if (!index_sized_rules(rs) || !compute_version(rs))
        goto oom;
    number_vars(rs);
    *out = rs;
    rs = NULL;
    goto out;
oom:
    rc = DC_ENOMEM;
    dc__diag(&L, origin, 0, NULL, "out of memory while loading the rule set");
out:
    for (size_t i = 0; docs != NULL && i < n; i++)
        dc_yaml_doc_free(docs[i]);
    free(docs);
    free(sorted);
    ruleset_destroy(rs);
    return rc;
}

enum dc_status dc_ruleset_load_files(const struct dc_source_file *files, size_t n, dc_ruleset **out,
                                     struct dc_diags *diags)
{
    return load_files(files, n, "embedded", out, diags);
}

static bool wanted_file(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".yaml") == 0;
}

/* Why the directory entry at `path` is not a regular file that can be read
 * (a dangling symbolic link, a loop, a directory, a FIFO...); true when it is. */
static bool regular_entry(const char *path, char *why, size_t whylen)
{
    struct stat st, lst;
    if (stat(path, &st) == 0) {
        if (S_ISREG(st.st_mode))
            return true;
        snprintf(why, whylen, "is %s, not a regular file",
                 S_ISDIR(st.st_mode)    ? "a directory"
                 : S_ISFIFO(st.st_mode) ? "a FIFO"
                 : S_ISSOCK(st.st_mode) ? "a socket"
                                        : "a device");
    } else if (errno == ENOENT && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        snprintf(why, whylen, "is a dangling symbolic link (its target does not exist)");
    } else if (errno == ELOOP) {
        snprintf(why, whylen, "is a loop of symbolic links");
    } else {
        snprintf(why, whylen, "cannot be read: %s", strerror(errno));
    }
    return false;
}

/* Read one file of at most DC_RULESET_MAX_FILE_BYTES (dc/file.h): an entry
 * replaced by a FIFO after regular_entry() cannot block the load or be read as
 * rules. */
static enum dc_status read_file(const char *path, char **out, size_t *len, char *why, size_t whylen)
{
    struct dc_file_failure f;
    enum dc_status rc = dc_file_read_regular(path, DC_RULESET_MAX_FILE_BYTES, out, len, &f);
    switch (f.fault) {
    case DC_FILE_OK:
    case DC_FILE_NO_MEMORY:
        break;
    case DC_FILE_CANNOT_OPEN:
        snprintf(why, whylen, "cannot open as a regular file: %s", strerror(f.errno_value));
        break;
    case DC_FILE_NOT_REGULAR:
        snprintf(why, whylen, "cannot open as a regular file: not a regular file");
        break;
    case DC_FILE_READ_ERROR:
        snprintf(why, whylen, "read error");
        break;
    case DC_FILE_TOO_LARGE:
        snprintf(why, whylen, "file is over the limit of %u bytes", DC_RULESET_MAX_FILE_BYTES);
        break;
    }
    return rc;
}

enum dc_status dc_ruleset_load_embedded(const struct aa_embedded_file *files, dc_ruleset **out,
                                        struct dc_diags *diags)
{
    static const char prefix[] = "rules/";
    struct dc_source_file list[DC_RULESET_MAX_FILES];
    size_t n = 0;
    if (files == NULL || out == NULL)
        return DC_EINVAL;
    for (const struct aa_embedded_file *f = files; f->name != NULL; f++) {
        if (strncmp(f->name, prefix, sizeof(prefix) - 1) != 0)
            continue;
        if (n == DC_RULESET_MAX_FILES)
            return DC_ELIMIT;
        list[n++] = (struct dc_source_file){f->name + sizeof(prefix) - 1, f->data, f->len};
    }
    return dc_ruleset_load_files(list, n, out, diags);
}

enum dc_status dc_ruleset_load_dir(const char *dir, dc_ruleset **out, struct dc_diags *diags)
{
    struct dc__loader L = {diags, 0, false};
    struct dc_source_file files[DC_RULESET_MAX_FILES];
    char *names[DC_RULESET_MAX_FILES];
    size_t n = 0;
    enum dc_status rc = DC_OK;

    if (out == NULL || dir == NULL)
        return DC_EINVAL;
    *out = NULL;
    DIR *d = opendir(dir);
    if (d == NULL) {
        dc__diag(&L, dir, 0, NULL, "cannot open rules directory: %s", strerror(errno));
        return DC_EIO;
    }
    struct dirent *de = NULL;
    while ((de = readdir(d)) != NULL) {
        if (!wanted_file(de->d_name))
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        char why[256];
        if (!regular_entry(path, why, sizeof(why))) {
            /* Skipping it could swap in a set without this file's rules. */
            dc__diag(&L, de->d_name, 0, NULL, "%s", why);
            rc = DC_EIO;
            continue;
        }
        if (n == DC_RULESET_MAX_FILES) {
            dc__diag(&L, dir, 0, NULL, "more than %d rule files", DC_RULESET_MAX_FILES);
            rc = DC_ELIMIT;
            break;
        }
        char *data = NULL;
        size_t len = 0;
        enum dc_status frc = read_file(path, &data, &len, why, sizeof(why));
        if (frc != DC_OK) {
            if (frc != DC_ENOMEM)
                dc__diag(&L, de->d_name, 0, NULL, "%s", why);
            rc = frc;
            continue;
        }
        names[n] = strdup(de->d_name);
        if (names[n] == NULL) {
            free(data);
            rc = DC_ENOMEM;
            break;
        }
        files[n].name = names[n];
        files[n].data = data;
        files[n].len = len;
        n++;
    }
    closedir(d);
    if (rc == DC_OK)
        rc = load_files(files, n, dir, out, diags);
    if (rc == DC_OK && dc_ruleset_rule_count(*out) == 0) {
        /* A set that loads but decides nothing would answer every request with
         * no reasons; the last good set is better. */
        dc__diag(&L, dir, 0, NULL, "the rule set has no rules (no rule in any *.yaml file)");
        dc_ruleset_release(*out);
        *out = NULL;
        rc = DC_EVALIDATE;
    }
    for (size_t i = 0; i < n; i++) {
        free((void *)(uintptr_t)files[i].data);
        free(names[i]);
    }
    return rc;
}

/* ---- accessors ------------------------------------------------------------- */

const char *dc_ruleset_version(const dc_ruleset *rs)
{
    return rs->version;
}

const char *dc_ruleset_origin(const dc_ruleset *rs)
{
    return rs->origin;
}

size_t dc_ruleset_rule_count(const dc_ruleset *rs)
{
    return rs->n_rules;
}

const struct dc_rule_info *dc_ruleset_rule(const dc_ruleset *rs, size_t i)
{
    return i < rs->n_rules ? &rs->rules[i].info : NULL;
}

size_t dc_ruleset_accelerator_count(const dc_ruleset *rs)
{
    return rs->n_accs;
}

const struct dc_accelerator *dc_ruleset_accelerator(const dc_ruleset *rs, size_t i)
{
    return i < rs->n_accs ? &rs->accs[i] : NULL;
}

const struct dc_accelerator *dc_ruleset_find_accelerator(const dc_ruleset *rs, const char *id)
{
    size_t i = 0;
    if (id == NULL || !dc__find_acc(rs, id, &i))
        return NULL;
    return &rs->accs[i];
}

const struct dc_accelerator *dc_ruleset_find_pci(const dc_ruleset *rs, uint16_t vendor,
                                                 uint16_t device)
{
    for (size_t i = 0; i < rs->n_accs; i++) {
        const struct dc_accelerator *a = &rs->accs[i];
        if (a->pci_vendor != vendor)
            continue;
        for (size_t k = 0; k < a->n_pci_devices; k++) {
            if (a->pci_devices[k] == device)
                return a;
        }
    }
    return NULL;
}

const struct dc_sizing_params *dc_ruleset_sizing(const dc_ruleset *rs)
{
    return &rs->sizing;
}
