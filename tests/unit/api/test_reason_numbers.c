/* tests/unit/api/test_reason_numbers.c -- every number in a reason text is a
 * number of the JSON beside it, formatted (dc/numfmt.h).
 *
 * For every workload of the decision table (tests/fixtures/cases.json) and of
 * examples/, the result is rendered as the server sends it; then each reason of
 * each recommended candidate whose text the core writes from the result
 * (sizing.*, catalog.*, constraints.*, probe.*: rule files' own messages are
 * fixed prose), and each message of its `targets`, is cut into number tokens ("$83.2k/month", "2.08
 * days", "4,096", "5.25 EFLOP", "55%"), and every token must be the formatted form of some numeric
 * field of the body: the candidate (sizing, price, selection), the workload, the assumptions, or
 * the accelerator's catalog entry (GET /v1/accelerators). Shapes ("1 x 8 B200", "5 x v6e-8") and
 * identifiers
 * ("us-east-1", "2025-05") are names, not numbers, and are left out. */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/convert.h"
#include "dc/engine.h"
#include "dc/numfmt.h"
#include "default_rules.h"
#include "read_file.h"

static dc_ruleset *rs;

/* ---- the formatted forms of a body's numbers, sorted for bsearch ---------------- */

struct forms {
    char **items;
    size_t n, cap;
};

static void forms_add(struct forms *f, const char *s)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 1024;
        f->items = realloc(f->items, f->cap * sizeof(*f->items));
        assert_non_null(f->items);
    }
    f->items[f->n] = strdup(s);
    assert_non_null(f->items[f->n]);
    f->n++;
}

/* Every way the formatter can write v. */
static void forms_of_number(struct forms *f, double v)
{
    char b[64];
    for (int p = DC_PER_NONE; p <= DC_PER_JOB; p++)
        forms_add(f, dc_fmt_money(v, (enum dc_period)p, b, sizeof(b)));
    forms_add(f, dc_fmt_hours(v, b, sizeof(b)));
    forms_add(f, dc_fmt_ms(v, b, sizeof(b)));
    forms_add(f, dc_fmt_duration(v, b, sizeof(b)));
    forms_add(f, dc_fmt_count(v, b, sizeof(b)));
    forms_add(f, dc_fmt_quantity(v, b, sizeof(b)));
    forms_add(f, dc_fmt_number(v, b, sizeof(b)));
    forms_add(f, dc_fmt_percent(v, b, sizeof(b)));
    forms_add(f, dc_fmt_flop(v, b, sizeof(b)));
}

static void forms_of_json(struct forms *f, const cJSON *v)
{
    if (cJSON_IsNumber(v)) {
        forms_of_number(f, v->valuedouble);
        return;
    }
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, v) forms_of_json(f, it);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool forms_has(const struct forms *f, const char *s)
{
    return bsearch(&s, f->items, f->n, sizeof(*f->items), cmp_str) != NULL;
}

static void forms_free(struct forms *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->items[i]);
    free(f->items);
    *f = (struct forms){0};
}

/* ---- cutting a text into number tokens ------------------------------------------- */

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '#';
}

/* Blank every occurrence of `name` in t (an accelerator's name: "Gaudi 3"). */
static void mask_name(char *t, const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;
    for (char *x = n > 0 ? strstr(t, name) : NULL; x != NULL; x = strstr(x + n, name))
        memset(x, '#', n);
}

/* Blank the shapes: "N x M NAME" and "N x NAME" (a count before " x "). */
static void mask_shapes(char *t)
{
    for (char *x = strstr(t, " x "); x != NULL; x = strstr(x + 3, " x ")) {
        char *a = x;
        while (a > t && isdigit((unsigned char)a[-1]))
            a--;
        if (a == x || (a > t && ident_char(a[-1])))
            continue;
        char *e = x + 3;
        char *d = e;
        while (isdigit((unsigned char)*d))
            d++;
        if (d > e && *d == ' ')
            e = d + 1;
        while (*e != '\0' && (ident_char(*e) || *e == '.'))
            e++;
        if (e > x + 3 && e[-1] == '.')
            e--;
        memset(a, '#', (size_t)(e - a));
    }
}

static bool starts(const char *s, const char *w)
{
    return strncmp(s, w, strlen(w)) == 0;
}

/* The unit word after a number (" ms", " days", " EFLOP"), its length or 0. */
static size_t unit_after(const char *p)
{
    static const char *const units[] = {" ms",    " s",     " min",   " h",     " days",  " day",
                                        " years", " year",  " FLOP",  " kFLOP", " MFLOP", " GFLOP",
                                        " TFLOP", " PFLOP", " EFLOP", " ZFLOP", " YFLOP"};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t n = strlen(units[i]);
        if (starts(p, units[i]) && !isalnum((unsigned char)p[n]))
            return n;
    }
    return 0;
}

/* The next number token of `p` into tok; returns where to go on, or NULL. */
static const char *next_token(const char *text, const char *p, char *tok, size_t len)
{
    for (; *p != '\0'; p++) {
        const char *s = p;
        if (*s == '-' && (s[1] == '$' || isdigit((unsigned char)s[1])))
            s++;
        if (*s == '$')
            s++;
        if (!isdigit((unsigned char)*s) || (p > text && (ident_char(p[-1]) || p[-1] == '.')))
            continue;
        const char *e = s;
        while (isdigit((unsigned char)*e) || (*e == ',' && isdigit((unsigned char)e[1])) ||
               (*e == '.' && isdigit((unsigned char)e[1])))
            e++;
        if (strchr("kMBT", *e) != NULL && *e != '\0' && !isalnum((unsigned char)e[1]))
            e++;
        static const char *const periods[] = {"/chip-hour", "/month", "/run", "/job", "/h"};
        for (size_t i = 0; i < 5; i++) {
            if (starts(e, periods[i]) && !isalnum((unsigned char)e[strlen(periods[i])])) {
                e += strlen(periods[i]);
                break;
            }
        }
        if (*e == '%')
            e++;
        /* A digit run glued to letters or a dash is a name ("2025-05", "8gpu"). */
        if (isalnum((unsigned char)*e) || *e == '_' ||
            (*e == '-' && isalnum((unsigned char)e[1]))) {
            p = e;
            continue;
        }
        e += unit_after(e);
        snprintf(tok, len, "%.*s", (int)(e - p), p);
        return e;
    }
    return NULL;
}

/* ---- the property -------------------------------------------------------------------- */

static bool rendered_from_result(const char *rule_id)
{
    return starts(rule_id, "sizing.") || starts(rule_id, "catalog.") ||
           starts(rule_id, "constraints.") || starts(rule_id, "probe.");
}

/* Every number token of `message` (of `rule` on accelerator `id`) is one of
 * `f`; returns how many were checked. */
static size_t check_text(const char *label, const char *id, const char *rule, const cJSON *message,
                         char names[3][128], const struct forms *f)
{
    char text[DC_REASON_TEXT_MAX], tok[96];
    size_t checked = 0;
    snprintf(text, sizeof(text), "%s", cJSON_GetStringValue(message));
    /* An unpriced part's cost reason ends by quoting prices.yaml's words on why
     * no price is public: fixed prose of a data file, as a rule's message is. */
    char *quoted = strstr(text, " Why none is public: ");
    if (quoted != NULL)
        *quoted = '\0';
    for (size_t k = 0; k < 3; k++)
        mask_name(text, names[k]);
    mask_shapes(text);
    for (const char *p = next_token(text, text, tok, sizeof(tok)); p != NULL;
         p = next_token(text, p, tok, sizeof(tok))) {
        checked++;
        if (!forms_has(f, tok))
            fail_msg("%s: %s on %s: \"%s\" is no field of the JSON, formatted:\n  %s", label, rule,
                     id, tok, cJSON_GetStringValue(message));
    }
    return checked;
}

/* Checks one workload; returns the tokens checked, fails on a stray one. */
static size_t check_workload(const char *label, cJSON *workload)
{
    struct dc_result *res = NULL;
    struct dc_recommend_opts o = {.request_id = "t"};
    struct dc_error err;
    if (dc_recommend(rs, workload, &o, &res, &err) != DC_OK)
        return 0; /* a case that is meant to be refused */
    cJSON *body = NULL;
    assert_int_equal(api_result_to_json(res, &body), DC_OK);
    struct forms common = {0};
    forms_of_json(&common, cJSON_GetObjectItem(body, "workload"));
    forms_of_json(&common, cJSON_GetObjectItem(body, "assumptions"));
    size_t checked = 0;
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(body, "recommendations"))
    {
        struct forms f = {0};
        for (size_t i = 0; i < common.n; i++)
            forms_add(&f, common.items[i]);
        forms_of_json(&f, c);
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(c, "accelerator"));
        cJSON *acc = NULL;
        assert_int_equal(api_accelerator_to_json(dc_ruleset_find_accelerator(rs, id), &acc), DC_OK);
        forms_of_json(&f, acc);
        char names[3][128];
        snprintf(names[0], sizeof(names[0]), "%s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(acc, "name")));
        snprintf(names[1], sizeof(names[1]), "%s",
                 cJSON_GetStringValue(cJSON_GetObjectItem(acc, "short_name")));
        snprintf(names[2], sizeof(names[2]), "%s", id);
        cJSON_Delete(acc);
        qsort(f.items, f.n, sizeof(*f.items), cmp_str);
        const cJSON *r = NULL;
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "reasons"))
        {
            const char *rule = cJSON_GetStringValue(cJSON_GetObjectItem(r, "rule_id"));
            if (rendered_from_result(rule))
                checked +=
                    check_text(label, id, rule, cJSON_GetObjectItem(r, "message"), names, &f);
        }
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "targets"))
        {
            checked += check_text(label, id, cJSON_GetStringValue(cJSON_GetObjectItem(r, "target")),
                                  cJSON_GetObjectItem(r, "message"), names, &f);
        }
        forms_free(&f);
    }
    forms_free(&common);
    cJSON_Delete(body);
    dc_result_free(res);
    return checked;
}

static void decision_table_and_examples(void **state)
{
    (void)state;
    size_t tokens = 0, workloads = 0;
    char *text = test_read_file(AA_FIXTURES_DIR "/cases.json", 1u << 20);
    assert_non_null(text);
    cJSON *cases = cJSON_Parse(text);
    assert_non_null(cases);
    const cJSON *c = NULL;
    cJSON_ArrayForEach(c, cases)
    {
        cJSON *w = cJSON_GetObjectItem(c, "workload");
        tokens += check_workload(cJSON_GetStringValue(cJSON_GetObjectItem(c, "name")), w);
        workloads++;
    }
    cJSON_Delete(cases);
    free(text);
    static const char *const examples[] = {"llm-serving.json", "llm-pretraining.json",
                                           "custom-ops-finetune.json"};
    for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/examples/%s", AA_SOURCE_DIR, examples[i]);
        char *ex = test_read_file(path, 1u << 20);
        assert_non_null(ex);
        cJSON *w = cJSON_Parse(ex);
        assert_non_null(w);
        tokens += check_workload(examples[i], w);
        workloads++;
        cJSON_Delete(w);
        free(ex);
    }
    print_message("reason numbers: %zu workloads, %zu number tokens, each a JSON field\n",
                  workloads, tokens);
    /* The sweep must have read numbers, not skipped every text. */
    assert_true(tokens > 1000);
}

/* The tokenizer itself: what counts as a number and what is a name. */
static void tokens(void **state)
{
    (void)state;
    char text[] = "About $83.2k/month ($114/h for 8 chips) at $14.24/chip-hour, on-demand on "
                  "aws us-east-1 (p6-b200.48xlarge), as of 2025-05: 1 x 8 B200, 5 x v6e-8, "
                  "512 tokens x 8.75 ms, 2.08 days, 5.25 EFLOP at 55% MFU, 4,096 tokens.";
    static const char *const want[] = {"$83.2k/month", "$114/h",  "8",         "$14.24/chip-hour",
                                       "512",          "8.75 ms", "2.08 days", "5.25 EFLOP",
                                       "55%",          "4,096"};
    mask_shapes(text);
    char tok[96];
    size_t n = 0;
    for (const char *p = next_token(text, text, tok, sizeof(tok)); p != NULL;
         p = next_token(text, p, tok, sizeof(tok))) {
        assert_true(n < sizeof(want) / sizeof(want[0]));
        assert_string_equal(tok, want[n]);
        n++;
    }
    assert_int_equal(n, sizeof(want) / sizeof(want[0]));
}

static int setup(void **state)
{
    return test_default_rules_setup(&rs, state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tokens),
        cmocka_unit_test(decision_table_and_examples),
    };
    return cmocka_run_group_tests(tests, setup, test_default_rules_teardown);
}
