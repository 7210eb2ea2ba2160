/* service/src/prices_merge.c -- fresh offers into a prices.yaml in place
 * (service/src/prices_merge.h). Both documents are parsed by the core's YAML
 * reader for their meaning and line numbers; the target's text is then edited
 * by whole lines, so everything the merge does not mean to change (comments,
 * sources, notes, offers the import does not carry, `reserved:` bases, the
 * unpriced, hardware and capacity lists) stays byte for byte. A price line is
 * rewritten only where the import's is newer or equal in date and differs;
 * an older one is kept and reported. */
#include "prices_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dc/ruleset.h"
#include "dc/yaml.h"
#include "prices_import.h"

/* The bases a merge edits: reserved bases are hand-entered (HELPERS.md's
 * agreement) and never come from an import. */
static const char *const bases[] = {"on_demand", "spot", "committed_1y", "committed_3y"};
#define N_BASES 4

struct edit {
    unsigned line; /* replace this line, or insert after it */
    bool replace;
    char *text; /* whole lines, each ending in '\n' */
};

/* One basis of a target offer as the merge leaves it so far. */
struct tbasis {
    bool present;
    double price;
    char as_of[11];
    bool per_chip;
    long edit; /* index of its pending edit, or -1 */
    unsigned line;
};

struct toffer {
    const cJSON *item;
    const char *acc, *prov, *region, *type;
    unsigned last; /* its last line */
    char indent[16];
    struct tbasis b[N_BASES];
    long via_edit; /* its pending `via` edit, or -1 */
    bool seen;
};

struct merge {
    const char *target;
    const char **line; /* start of each line (1-based; line[n+1] is the end) */
    size_t n_lines;
    dc_yaml_doc *tdoc;
    struct toffer *to;
    size_t n_to;
    unsigned list_end; /* the last line of the prices list */
    struct edit *ed;
    size_t n_ed, cap_ed;
    const cJSON *imported[64]; /* provider+region pairs seen in imports: their items */
    size_t n_imported;
    FILE *report;
    struct svc_merge_counts *c;
    bool oom;
};

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* The largest line of `node` and everything in it. */
static unsigned last_line(const dc_yaml_doc *doc, const cJSON *node)
{
    unsigned m = dc_yaml_line(doc, node);
    for (const cJSON *c = node->child; c != NULL; c = c->next) {
        unsigned l = last_line(doc, c);
        m = l > m ? l : m;
    }
    return m;
}

static long add_edit(struct merge *m, unsigned line, bool replace, char *text)
{
    if (text == NULL || m->oom) {
        m->oom = true;
        free(text);
        return -1;
    }
    if (m->n_ed == m->cap_ed) {
        size_t cap = m->cap_ed != 0 ? 2 * m->cap_ed : 64;
        struct edit *e = realloc(m->ed, cap * sizeof(*e));
        if (e == NULL) {
            m->oom = true;
            free(text);
            return -1;
        }
        m->ed = e;
        m->cap_ed = cap;
    }
    m->ed[m->n_ed] = (struct edit){line, replace, text};
    return (long)m->n_ed++;
}

/* A basis's price, date and unit; false when it has keys other than those
 * (then it is not edited). */
static bool read_basis(const cJSON *v, double *price, char *as_of, bool *per_chip)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "usd_per_hour");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "usd_per_chip_hour");
    const char *d = str(v, "as_of");
    if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 2 || d == NULL || strlen(d) > 10 ||
        !(cJSON_IsNumber(h) || cJSON_IsNumber(c)))
        return false;
    *per_chip = h == NULL;
    *price = (h != NULL ? h : c)->valuedouble;
    snprintf(as_of, 11, "%s", d);
    return true;
}

/* The target's line `l` as a string (without its end), in buf. */
static const char *line_text(const struct merge *m, unsigned l, char *buf, size_t len)
{
    size_t n = (size_t)(m->line[l + 1] - m->line[l]);
    while (n > 0 && (m->line[l][n - 1] == '\n' || m->line[l][n - 1] == '\r'))
        n--;
    /* A line too long for buf reads as empty, so that no check passes on a
     * part of it and no edit writes a part of it. */
    snprintf(buf, len, "%.*s", n < len ? (int)n : 0, m->line[l]);
    return buf;
}

/* Whether basis `name` is written alone on line `l` ("  name: {...}"), so the
 * line can be replaced whole; its indent in `indent`. */
static bool one_line_basis(const struct merge *m, unsigned l, const char *name, char *indent)
{
    char buf[512];
    const char *s = line_text(m, l, buf, sizeof(buf));
    size_t k = strspn(s, " ");
    size_t n = strlen(name);
    if (k >= 16 || strncmp(s + k, name, n) != 0 || strncmp(s + k + n, ": {", 3) != 0)
        return false;
    const char *close = strchr(s + k, '}');
    if (close == NULL || (close[1] != '\0' && strspn(close + 1, " ") == 0))
        return false;
    const char *rest = close + 1 + strspn(close + 1, " ");
    if (*rest != '\0' && *rest != '#')
        return false;
    snprintf(indent, 16, "%.*s", (int)k, s);
    return true;
}

static void target_offer(struct merge *m, const cJSON *item, struct toffer *t)
{
    memset(t, 0, sizeof(*t));
    t->item = item;
    t->acc = str(item, "accelerator");
    t->prov = str(item, "provider");
    t->region = str(item, "region");
    t->type = str(item, "instance_type");
    t->last = last_line(m->tdoc, item);
    t->via_edit = -1;
    char buf[512];
    const char *pl =
        line_text(m, dc_yaml_line(m->tdoc, cJSON_GetObjectItemCaseSensitive(item, "provider")), buf,
                  sizeof(buf));
    snprintf(t->indent, sizeof(t->indent), "%.*s", (int)strspn(pl, " "), pl);
    for (size_t b = 0; b < N_BASES; b++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, bases[b]);
        struct tbasis *tb = &t->b[b];
        tb->edit = -1;
        tb->present = v != NULL;
        tb->line = v != NULL ? dc_yaml_line(m->tdoc, v) : 0;
        if (v != NULL && !read_basis(v, &tb->price, tb->as_of, &tb->per_chip))
            tb->line = 0; /* not editable */
    }
}

static bool same_key(const struct toffer *t, const cJSON *o)
{
    const char *k[4] = {str(o, "accelerator"), str(o, "provider"), str(o, "region"),
                        str(o, "instance_type")};
    const char *tk[4] = {t->acc, t->prov, t->region, t->type};
    for (int i = 0; i < 4; i++) {
        if (k[i] == NULL || tk[i] == NULL || strcmp(k[i], tk[i]) != 0)
            return false;
    }
    return true;
}

static void say(struct merge *m, const char *what, const char *acc, const char *prov,
                const char *region, const char *type)
{
    fprintf(m->report, "%s %s %s ", what, acc, prov);
    svc_yaml_put_str(m->report, region);
    fputc(' ', m->report);
    svc_yaml_put_str(m->report, type);
}

static char *basis_line(const char *indent, const char *name, bool per_chip, double price,
                        const char *as_of, const char *tail)
{
    char *s = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&s, &len);
    if (fp == NULL)
        return NULL;
    fprintf(fp, "%s%s: {%s: %.10g, as_of: ", indent, name,
            per_chip ? "usd_per_chip_hour" : "usd_per_hour", price);
    svc_yaml_put_str(fp, as_of);
    fprintf(fp, "}%s\n", tail);
    if (fclose(fp) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* The trailing comment of line `l` (" # ..."), kept when it is rewritten. */
static const char *line_tail(const struct merge *m, unsigned l, char *buf, size_t len)
{
    char text[512];
    const char *s = line_text(m, l, text, sizeof(text));
    const char *close = strrchr(s, '}');
    snprintf(buf, len, "%s", close != NULL ? close + 1 : "");
    return buf;
}

/* Line `l` (a one-line basis) with only its date replaced: the price stays
 * as the file writes it ("23.60"). */
static char *redate_line(const struct merge *m, unsigned l, const char *as_of)
{
    char buf[512];
    const char *s = line_text(m, l, buf, sizeof(buf));
    const char *d = strstr(s, "as_of: \"");
    const char *e = d != NULL ? strchr(d + 8, '"') : NULL;
    size_t n = strlen(s) + strlen(as_of) + 2;
    char *out = e != NULL ? malloc(n) : NULL;
    if (out != NULL)
        snprintf(out, n, "%.*s%s%s\n", (int)(d + 8 - s), s, as_of, e);
    return out;
}

/* One basis of an imported offer into its target offer. */
static void merge_basis(struct merge *m, struct toffer *t, size_t b, const cJSON *v)
{
    struct tbasis *tb = &t->b[b];
    double price = NAN;
    char as_of[11];
    bool per_chip = false;
    if (!read_basis(v, &price, as_of, &per_chip)) {
        say(m, "skipped", t->acc, t->prov, t->region, t->type);
        fprintf(m->report, " %s: the import's price is not {usd_per_hour, as_of}\n", bases[b]);
        m->c->skipped++;
        return;
    }
    if (tb->present && ((tb->line == 0 && tb->edit < 0) || tb->per_chip != per_chip)) {
        say(m, "skipped", t->acc, t->prov, t->region, t->type);
        fprintf(m->report, " %s: the file's price is not one line of the same unit; edit it\n",
                bases[b]);
        m->c->skipped++;
        return;
    }
    if (tb->present && fabs(tb->price - price) <= 1e-9 * fabs(price) &&
        strcmp(tb->as_of, as_of) == 0)
        return;
    if (tb->present && strcmp(as_of, tb->as_of) < 0) {
        say(m, "kept", t->acc, t->prov, t->region, t->type);
        fprintf(m->report, " %s %.10g (%s): newer than the import's %.10g (%s)\n", bases[b],
                tb->price, tb->as_of, price, as_of);
        m->c->newer++;
        return;
    }
    char tail[256] = "", indent[16];
    snprintf(indent, sizeof(indent), "%s", t->indent);
    if (tb->line != 0 && !one_line_basis(m, tb->line, bases[b], indent)) {
        say(m, "skipped", t->acc, t->prov, t->region, t->type);
        fprintf(m->report, " %s: line %u is not \"%s: {...}\" alone; edit it\n", bases[b], tb->line,
                bases[b]);
        m->c->skipped++;
        return;
    }
    if (tb->line != 0)
        line_tail(m, tb->line, tail, sizeof(tail));
    char *text = tb->edit < 0 && tb->line != 0 && fabs(tb->price - price) <= 1e-9 * fabs(price)
                     ? redate_line(m, tb->line, as_of)
                     : basis_line(indent, bases[b], per_chip, price, as_of, tail);
    say(m, tb->present ? "changed" : "added", t->acc, t->prov, t->region, t->type);
    if (tb->present)
        fprintf(m->report, " %s %.10g (%s) -> %.10g (%s)\n", bases[b], tb->price, tb->as_of, price,
                as_of);
    else
        fprintf(m->report, " %s %.10g (%s)\n", bases[b], price, as_of);
    if (tb->edit >= 0) { /* a second import of it: the newer one's line */
        free(m->ed[tb->edit].text);
        m->ed[tb->edit].text = text;
        m->oom = m->oom || text == NULL;
    } else {
        tb->edit = add_edit(m, tb->line != 0 ? tb->line : t->last, tb->line != 0, text);
    }
    m->c->changed += tb->present;
    m->c->added += !tb->present;
    tb->present = true;
    tb->price = price;
    tb->per_chip = per_chip;
    snprintf(tb->as_of, sizeof(tb->as_of), "%s", as_of);
}

/* An imported offer that the target lacks, as the lines that add it. */
static char *offer_text(const cJSON *o)
{
    static const char *const strs[] = {"provider", "region", "instance_type"};
    static const char *const nums[] = {"accelerators", "vcpus", "memory_gb"};
    static const char *const tail[] = {"source", "via", "confidence"};
    char *s = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&s, &len);
    if (fp == NULL)
        return NULL;
    fprintf(fp, "  - accelerator: ");
    svc_yaml_put_str(fp, str(o, "accelerator"));
    fputc('\n', fp);
    for (size_t i = 0; i < 3; i++) {
        fprintf(fp, "    %s: ", strs[i]);
        svc_yaml_put_str(fp, str(o, strs[i]));
        fputc('\n', fp);
    }
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, nums[i]);
        if (cJSON_IsNumber(v))
            fprintf(fp, "    %s: %.10g\n", nums[i], v->valuedouble);
    }
    for (size_t i = 0; i < 3; i++) {
        if (str(o, tail[i]) != NULL) {
            fprintf(fp, "    %s: ", tail[i]);
            svc_yaml_put_str(fp, str(o, tail[i]));
            fputc('\n', fp);
        }
    }
    for (size_t b = 0; b < N_BASES; b++) {
        double price;
        char as_of[11];
        bool per_chip;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, bases[b]);
        if (v != NULL && read_basis(v, &price, as_of, &per_chip)) {
            fprintf(fp, "    %s: {%s: %.10g, as_of: ", bases[b],
                    per_chip ? "usd_per_chip_hour" : "usd_per_hour", price);
            svc_yaml_put_str(fp, as_of);
            fputs("}\n", fp);
        }
    }
    if (fclose(fp) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Whether an earlier imported offer has the same key as `o`. */
static bool imported_before(const cJSON *list, const cJSON *o)
{
    const char *k[4] = {"accelerator", "provider", "region", "instance_type"};
    for (const cJSON *e = list->child; e != NULL && e != o; e = e->next) {
        int same = 0;
        for (int i = 0; i < 4; i++)
            same += str(e, k[i]) != NULL && str(o, k[i]) != NULL &&
                    strcmp(str(e, k[i]), str(o, k[i])) == 0;
        if (same == 4)
            return true;
    }
    return false;
}

static void new_offer(struct merge *m, const cJSON *o)
{
    say(m, "new", str(o, "accelerator"), str(o, "provider"), str(o, "region"),
        str(o, "instance_type"));
    for (size_t b = 0; b < N_BASES; b++) {
        double price;
        char as_of[11];
        bool per_chip;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, bases[b]);
        if (v != NULL && read_basis(v, &price, as_of, &per_chip))
            fprintf(m->report, " %s %.10g (%s)", bases[b], price, as_of);
    }
    fputc('\n', m->report);
    add_edit(m, m->list_end, false, offer_text(o));
    m->c->offers++;
}

/* Whether `o` is a mapping with the strings that identify an offer. */
static bool offer_ok(const cJSON *o)
{
    return cJSON_IsObject(o) && str(o, "accelerator") != NULL && str(o, "provider") != NULL &&
           str(o, "region") != NULL && str(o, "instance_type") != NULL;
}

/* After an import changed prices of `t`: its `via` names the import's copy
 * when every price of the offer now comes from it (else the file's stays, and
 * the difference is reported for the operator to settle). */
static void merge_via(struct merge *m, struct toffer *t, const cJSON *o, bool changed)
{
    const char *via = str(o, "via"), *old = str(t->item, "via");
    const cJSON *vnode = cJSON_GetObjectItemCaseSensitive(t->item, "via");
    if (!changed || via == NULL || (old != NULL && strcmp(via, old) == 0) || t->via_edit >= 0)
        return;
    bool all = cJSON_GetObjectItemCaseSensitive(t->item, "reserved") == NULL;
    for (size_t b = 0; b < N_BASES; b++)
        all = all && (!t->b[b].present || t->b[b].edit >= 0);
    unsigned l = vnode != NULL ? dc_yaml_line(m->tdoc, vnode) : 0;
    char buf[512];
    const char *text = l != 0 ? line_text(m, l, buf, sizeof(buf)) : NULL;
    if (!all || (vnode != NULL && (vnode->valuestring == NULL ||
                                   strncmp(text + strspn(text, " "), "via:", 4) != 0))) {
        say(m, "via", t->acc, t->prov, t->region, t->type);
        fprintf(m->report, ": kept %s; some of its prices are not from the import's %s\n",
                old != NULL ? old : "(none)", via);
        return;
    }
    char *line = NULL;
    FILE *fp = open_memstream(&line, &(size_t){0});
    if (fp != NULL) {
        fprintf(fp, "%svia: ", t->indent);
        svc_yaml_put_str(fp, via);
        fputc('\n', fp);
        if (fclose(fp) != 0) {
            free(line);
            line = NULL;
        }
    }
    unsigned after = dc_yaml_line(m->tdoc, cJSON_GetObjectItemCaseSensitive(t->item, "source"));
    t->via_edit = add_edit(m, l != 0 ? l : after != 0 ? after : t->last, l != 0, line);
    say(m, "via", t->acc, t->prov, t->region, t->type);
    fprintf(m->report, ": %s -> %s\n", old != NULL ? old : "(none)", via);
}

static void merge_offer(struct merge *m, const cJSON *list, const cJSON *o)
{
    struct toffer *t = NULL;
    for (size_t i = 0; i < m->n_to && t == NULL; i++)
        t = same_key(&m->to[i], o) ? &m->to[i] : NULL;
    if (t == NULL) {
        if (!imported_before(list, o))
            new_offer(m, o);
        return;
    }
    t->seen = true;
    size_t before = m->c->changed + m->c->added;
    for (size_t b = 0; b < N_BASES; b++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, bases[b]);
        if (v != NULL)
            merge_basis(m, t, b, v);
    }
    merge_via(m, t, o, m->c->changed + m->c->added > before);
}

/* Whether some imported offer has the provider and region of `t`. */
static bool region_imported(const struct merge *m, const struct toffer *t)
{
    for (size_t i = 0; i < m->n_imported; i++) {
        for (const cJSON *o = m->imported[i]->child; o != NULL; o = o->next) {
            const char *p = str(o, "provider"), *r = str(o, "region");
            if (p != NULL && r != NULL && t->prov != NULL && t->region != NULL &&
                strcmp(p, t->prov) == 0 && strcmp(r, t->region) == 0)
                return true;
        }
    }
    return false;
}

static void report_absent(struct merge *m)
{
    for (size_t i = 0; i < m->n_to; i++) {
        const struct toffer *t = &m->to[i];
        if (t->seen || t->acc == NULL || t->type == NULL || !region_imported(m, t))
            continue;
        say(m, "absent", t->acc, t->prov, t->region, t->type);
        fprintf(m->report, ": not in the import; kept as it is\n");
        m->c->absent++;
    }
}

/* The target's lines, each start in m->line[1..n] and the end in line[n+1]. */
static bool split_lines(struct merge *m, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += m->target[i] == '\n';
    m->line = calloc(n + 3, sizeof(*m->line));
    if (m->line == NULL)
        return false;
    size_t l = 1;
    m->line[1] = m->target;
    for (size_t i = 0; i < len; i++) {
        if (m->target[i] == '\n' && i + 1 < len)
            m->line[++l] = m->target + i + 1;
    }
    m->n_lines = len > 0 ? l : 0;
    m->line[m->n_lines + 1] = m->target + len;
    return true;
}

/* The target with every edit applied, in line order (inserts after a line in
 * the order they were made). */
static enum dc_status apply(struct merge *m, char **out, size_t *out_len)
{
    FILE *fp = open_memstream(out, out_len);
    if (fp == NULL)
        return DC_ENOMEM;
    for (size_t l = 1; l <= m->n_lines; l++) {
        const char *text = NULL;
        for (size_t e = 0; e < m->n_ed; e++) {
            if (m->ed[e].line == l && m->ed[e].replace)
                text = m->ed[e].text;
        }
        if (text != NULL)
            fputs(text, fp);
        else
            fwrite(m->line[l], 1, (size_t)(m->line[l + 1] - m->line[l]), fp);
        bool ended = text != NULL || m->line[l + 1][-1] == '\n';
        for (size_t e = 0; e < m->n_ed; e++) {
            if (m->ed[e].line == l && !m->ed[e].replace) {
                if (!ended)
                    fputc('\n', fp);
                ended = true;
                fputs(m->ed[e].text, fp);
            }
        }
    }
    if (fclose(fp) != 0) {
        free(*out);
        *out = NULL;
        return DC_ENOMEM;
    }
    return DC_OK;
}

/* The `prices` list of a parsed document, or NULL (reported in err). */
static const cJSON *prices_list(const dc_yaml_doc *doc, const char *name, struct dc_error *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(dc_yaml_root(doc), "prices");
    if (!cJSON_IsArray(list))
        dc_error_set(err, DC_EPARSE, NULL, "%s: no \"prices\" list", name);
    return cJSON_IsArray(list) ? list : NULL;
}

static enum dc_status load_target(struct merge *m, const char *name, size_t len,
                                  struct dc_error *err)
{
    enum dc_status st = dc_yaml_parse(m->target, len, name, &m->tdoc, err);
    const cJSON *list = st == DC_OK ? prices_list(m->tdoc, name, err) : NULL;
    if (list == NULL)
        return st != DC_OK ? st : DC_EPARSE;
    size_t n = (size_t)cJSON_GetArraySize(list);
    m->to = calloc(n + 1, sizeof(*m->to));
    if (m->to == NULL || !split_lines(m, len))
        return DC_ENOMEM;
    m->list_end = dc_yaml_line(m->tdoc, list);
    for (const cJSON *it = list->child; it != NULL; it = it->next) {
        if (!cJSON_IsObject(it))
            continue;
        target_offer(m, it, &m->to[m->n_to]);
        m->list_end = m->to[m->n_to].last > m->list_end ? m->to[m->n_to].last : m->list_end;
        m->n_to++;
    }
    return DC_OK;
}

/* One imported document into the merge; its parse is kept in *doc until the
 * end (the report of absent offers reads every import). */
static enum dc_status merge_import(struct merge *m, const char *name, const char *text, size_t len,
                                   dc_yaml_doc **doc, struct dc_error *err)
{
    enum dc_status st = dc_yaml_parse(text, len, name, doc, err);
    const cJSON *list = st == DC_OK ? prices_list(*doc, name, err) : NULL;
    if (list == NULL)
        return st != DC_OK ? st : DC_EPARSE;
    for (const cJSON *o = list->child; o != NULL; o = o->next) {
        if (!offer_ok(o))
            return dc_error_set(err, DC_EPARSE, NULL,
                                "%s:%u: an offer needs accelerator, provider, region and "
                                "instance_type",
                                name, dc_yaml_line(*doc, o));
        merge_offer(m, list, o);
    }
    m->imported[m->n_imported++] = list;
    return DC_OK;
}

enum dc_status svc_prices_merge(const char *target_name, const char *target, size_t target_len,
                                const char *const *names, const char *const *imports,
                                const size_t *lens, size_t n, char **out, size_t *out_len,
                                FILE *report, struct svc_merge_counts *counts, struct dc_error *err)
{
    struct merge m;
    dc_yaml_doc *docs[64] = {NULL};
    memset(&m, 0, sizeof(m));
    memset(counts, 0, sizeof(*counts));
    m.target = target;
    m.report = report;
    m.c = counts;
    *out = NULL;
    if (n > 64)
        return dc_error_set(err, DC_ELIMIT, NULL, "more than 64 files to merge");
    enum dc_status st = load_target(&m, target_name, target_len, err);
    for (size_t i = 0; st == DC_OK && i < n; i++)
        st = merge_import(&m, names[i], imports[i], lens[i], &docs[i], err);
    if (st == DC_OK) {
        report_absent(&m);
        st = m.oom ? DC_ENOMEM : apply(&m, out, out_len);
    }
    if (st == DC_ENOMEM)
        dc_error_set(err, DC_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        dc_yaml_doc_free(docs[i]);
    for (size_t e = 0; e < m.n_ed; e++)
        free(m.ed[e].text);
    free(m.ed);
    free(m.to);
    free(m.line);
    dc_yaml_doc_free(m.tdoc);
    return st;
}
