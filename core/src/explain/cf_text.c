/* core/src/explain/cf_text.c -- an explanation's changes and perturbations in words,
 * for the `summary` of the contract and the CLI's table. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cf_internal.h"
#include "dc/numfmt.h"
#include "sizing.h"

/* Appends to a fixed buffer, truncating (never overflowing). */
struct text {
    char *buf;
    size_t len;
    size_t used;
};

/* Start writing into buf; false when there is no room at all. */
static bool start(struct text *t, char *buf, size_t len)
{
    *t = (struct text){buf, len, 0};
    if (buf == NULL || len == 0)
        return false;
    buf[0] = '\0';
    return true;
}

static void add(struct text *t, const char *fmt, ...) DC_PRINTF(2, 3);

static void add(struct text *t, const char *fmt, ...)
{
    if (t->used + 1 >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used = t->used + (size_t)n < t->len ? t->used + (size_t)n : t->len - 1;
}

/* The member name a pointer ends in: "/model/custom_ops" -> "custom_ops". */
static const char *key_of(const char *field)
{
    const char *key = strrchr(field, '/');
    return key != NULL ? key + 1 : field;
}

/* A value of an enum field as people say it: a price basis in words
 * ("on-demand", "1-year committed"), any other value as the contract spells it. */
static const char *enum_words(const char *field, const char *value)
{
    enum dc_pricing p;
    if (strcmp(field, "/constraints/pricing") == 0 && dc_pricing_parse(value, &p))
        return dc__pricing_words(p);
    return value;
}

/* A value of `field` as people read it, numbers with the one formatter
 * (dc/numfmt.h): "$41k", "2.08 days", "16". */
static void add_value(struct text *t, const char *field, const cJSON *v)
{
    char num[48];
    if (cJSON_IsNull(v) || v == NULL) {
        add(t, "none");
    } else if (cJSON_IsNumber(v) && strcmp(field, "/constraints/budget_usd") == 0) {
        add(t, "%s", dc_fmt_money(v->valuedouble, DC_PER_NONE, num, sizeof(num)));
    } else if (cJSON_IsNumber(v) && strcmp(field, "/training/deadline_hours") == 0) {
        add(t, "%s", dc_fmt_hours(v->valuedouble, num, sizeof(num)));
    } else if (cJSON_IsNumber(v)) {
        add(t, "%s",
            v->valuedouble == floor(v->valuedouble)
                ? dc_fmt_count(v->valuedouble, num, sizeof(num))
                : dc_fmt_number(v->valuedouble, num, sizeof(num)));
    } else if (cJSON_IsBool(v)) {
        add(t, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsString(v)) {
        add(t, "%s", enum_words(field, v->valuestring));
    } else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0) {
        add(t, "any");
    } else if (cJSON_IsArray(v)) {
        const cJSON *it = NULL;
        cJSON_ArrayForEach(it, v)
        {
            add(t, "%s%s", it == v->child ? "" : ", ", cJSON_IsString(it) ? it->valuestring : "?");
        }
    }
}

/* "at a budget of $41k (not at $40.6k) instead of $30k", "with pricing spot
 * instead of on-demand", "... rather than with no budget". */
static void add_edit(struct text *t, const struct dc_change *c)
{
    bool budget = strcmp(c->field, "/constraints/budget_usd") == 0;
    bool deadline = strcmp(c->field, "/training/deadline_hours") == 0;
    if (cJSON_IsNull(c->to) && (budget || deadline))
        add(t, "with no %s", budget ? "budget" : "deadline");
    else if (cJSON_IsNull(c->to))
        add(t, "with %s unset", key_of(c->field));
    else if (budget || deadline)
        add(t, "at a %s of ", budget ? "budget" : "deadline");
    else
        add(t, "with %s ", key_of(c->field));
    if (!cJSON_IsNull(c->to))
        add_value(t, c->field, c->to);
    if (c->threshold != DC_THRESHOLD_NONE) {
        cJSON n = {.type = cJSON_Number, .valuedouble = c->not_at};
        add(t, " (not at ");
        add_value(t, c->field, &n);
        add(t, ")");
    }
    if (cJSON_IsNull(c->from) || c->from == NULL) {
        add(t, budget     ? " rather than with no budget"
               : deadline ? " rather than with no deadline"
                          : " rather than unset");
        return;
    }
    add(t, " instead of ");
    add_value(t, c->field, c->from);
}

const char *dc_change_text(const struct dc_target *tg, const struct dc_change *c, char *buf,
                           size_t len)
{
    struct text t;
    if (!start(&t, buf, len))
        return buf;
    if (tg->role != DC_ROLE_TOP)
        add(&t, "%s becomes the top pick ", tg->acc->name);
    else if (c->top != NULL)
        add(&t, "%s replaces %s as the top pick ", c->top->name, tg->acc->name);
    else
        add(&t, "Nothing is recommended any more ");
    add_edit(&t, c);
    add(&t, ".");
    if (c->rule != NULL) {
        cJSON k = {.type = cJSON_Number, .valuedouble = c->rule_at};
        add(&t, " The boundary is rule %s's limit of ", c->rule);
        add_value(&t, c->field, &k);
        add(&t, ", not a difference between the parts.");
    }
    if (c->price_missing)
        add(&t, " %s has no price there, so it ranks after every priced part.",
            tg->role == DC_ROLE_TOP ? tg->acc->name : "The current pick");
    return buf;
}

/* "the price of NVIDIA H100 30% higher" */
static void add_scaled(struct text *t, enum dc_perturbation kind, const char *whose, double f)
{
    char pct[48];
    add(t, "the %s of %s %s %s", kind == DC_PERTURB_PRICE ? "price" : "MFU", whose,
        dc_fmt_percent(fabs(f - 1), pct, sizeof(pct)), f > 1 ? "higher" : "lower");
}

const char *dc_flip_text(const struct dc_robustness *r, const struct dc_robust_check *k, char *buf,
                         size_t len)
{
    struct text t;
    if (!start(&t, buf, len) || r->top == NULL)
        return buf;
    const char *what = k->kind == DC_PERTURB_PRICE ? "price" : "MFU";
    double bad =
        k->kind == DC_PERTURB_PRICE ? 1 + DC_EXPLAIN_PERTURBATION : 1 - DC_EXPLAIN_PERTURBATION;
    char pct[48];
    dc_fmt_percent(DC_EXPLAIN_PERTURBATION, pct, sizeof(pct));
    if (k->robust && k->kind == DC_PERTURB_PRICE && !r->top_priced) {
        add(&t,
            "%s stays the top pick with every other part's price %s lower (it has no known "
            "price to move).",
            r->top->name, pct);
        return buf;
    }
    if (k->robust) {
        add(&t, "%s stays the top pick with its %s %s %s and every other part's %s %s.",
            r->top->name, what, pct, bad > 1 ? "higher" : "lower", pct,
            bad > 1 ? "lower" : "higher");
        return buf;
    }
    add(&t, "With ");
    for (size_t i = 0; i < k->flip.n_scaled; i++) {
        if (i > 0)
            add(&t, " and ");
        add_scaled(&t, k->kind, k->flip.scaled[i].acc->name, k->flip.scaled[i].factor);
    }
    if (k->flip.others != 1)
        add(&t, " and every other part's %s %s %s", what,
            dc_fmt_percent(fabs(k->flip.others - 1), pct, sizeof(pct)),
            k->flip.others > 1 ? "higher" : "lower");
    if (k->flip.top != NULL)
        add(&t, ", %s becomes the top pick.", k->flip.top->name);
    else
        add(&t, ", nothing is recommended.");
    return buf;
}
