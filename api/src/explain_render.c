/* api/src/explain_render.c -- an explanation (dc/explain.h) as the contract's
 * `changes` and `robustness` sections of a Recommendation (openapi.yaml:
 * Changes, Robustness), and as the CLI table's "What would change the answer". */
#include "explain_render.h"

#include <math.h>
#include <stdio.h>

#include "api/convert.h"
#include "api/text_table.h"

#define SUMMARY_MAX 768

static void id_or_null(struct api_jw *w, const char *key, const struct dc_accelerator *a)
{
    api_jw_key(w, key);
    api_jw_string_or_null(w, a != NULL ? a->id : NULL);
}

/* An integer, or null when `known` is false. */
static void int_or_null(struct api_jw *w, const char *key, bool known, int v)
{
    api_jw_key(w, key);
    if (known)
        api_jw_number(w, v);
    else
        api_jw_null(w);
}

static void stopped(struct api_jw *w, const struct dc_explain_usage *u)
{
    api_jw_key(w, "evaluations");
    api_jw_number(w, u->evaluations);
    api_jw_key(w, "stopped");
    api_jw_string_or_null(w, u->stop == DC_EXPLAIN_COMPLETE ? NULL : dc_explain_stop_name(u->stop));
}

static void write_change(struct api_jw *w, const struct dc_target *t, const struct dc_change *c)
{
    char summary[SUMMARY_MAX];
    api_jw_object(w);
    api_jw_key(w, "field");
    api_jw_string(w, c->field);
    api_jw_key(w, "from");
    api_jw_value(w, c->from);
    api_jw_key(w, "to");
    api_jw_value(w, c->to);
    api_jw_key(w, "threshold");
    api_jw_string_or_null(w, dc_threshold_name(c->threshold));
    api_jw_key(w, "not_at");
    api_jw_number(w, c->threshold != DC_THRESHOLD_NONE ? c->not_at : NAN); /* NAN: null */
    api_jw_key(w, "rule");
    api_jw_string_or_null(w, c->rule);
    api_jw_key(w, "rule_at");
    api_jw_number(w, c->rule != NULL ? c->rule_at : NAN);
    api_jw_key(w, "price_missing");
    api_jw_bool(w, c->price_missing);
    id_or_null(w, "top", c->top);
    int_or_null(w, "top_score", c->top != NULL, c->top_score);
    api_jw_key(w, "summary");
    api_jw_string(w, dc_change_text(t, c, summary, sizeof(summary)));
    api_jw_object_end(w);
}

static void write_target(struct api_jw *w, const struct dc_target *t)
{
    bool excluded = t->excluded_by != NULL;
    api_jw_object(w);
    api_jw_key(w, "accelerator");
    api_jw_string(w, t->acc->id);
    api_jw_key(w, "name");
    api_jw_string(w, t->acc->name);
    api_jw_key(w, "family");
    api_jw_string(w, dc_family_name(t->acc->family));
    api_jw_key(w, "role");
    api_jw_string(w, dc_target_role_name(t->role));
    int_or_null(w, "rank", !excluded, (int)t->rank);
    int_or_null(w, "score", !excluded, t->score);
    api_jw_key(w, "excluded_by");
    api_jw_string_or_null(w, t->excluded_by);
    api_jw_key(w, "changes");
    api_jw_array(w);
    for (size_t i = 0; i < t->n_changes; i++)
        write_change(w, t, &t->changes[i]);
    api_jw_array_end(w);
    api_jw_object_end(w);
}

static void write_flip(struct api_jw *w, const struct dc_flip *f)
{
    api_jw_object(w);
    api_jw_key(w, "scaled");
    api_jw_array(w);
    for (size_t i = 0; i < f->n_scaled; i++) {
        api_jw_object(w);
        api_jw_key(w, "accelerator");
        api_jw_string(w, f->scaled[i].acc->id);
        api_jw_key(w, "factor");
        api_jw_number(w, f->scaled[i].factor);
        api_jw_object_end(w);
    }
    api_jw_array_end(w);
    api_jw_key(w, "others");
    api_jw_number(w, f->others);
    id_or_null(w, "top", f->top);
    int_or_null(w, "top_score", f->top != NULL, f->top_score);
    api_jw_object_end(w);
}

static void write_check(struct api_jw *w, const struct dc_robustness *r,
                        const struct dc_robust_check *k)
{
    char summary[SUMMARY_MAX];
    api_jw_object(w);
    api_jw_key(w, "kind");
    api_jw_string(w, dc_perturbation_name(k->kind));
    api_jw_key(w, "perturbation");
    api_jw_number(w, DC_EXPLAIN_PERTURBATION);
    api_jw_key(w, "robust");
    api_jw_bool(w, k->robust);
    api_jw_key(w, "flipped_by");
    if (k->robust)
        api_jw_null(w);
    else
        write_flip(w, &k->flip);
    api_jw_key(w, "summary");
    api_jw_string(w, dc_flip_text(r, k, summary, sizeof(summary)));
    api_jw_object_end(w);
}

const char *api__robustness_verdict(const struct dc_robustness *r)
{
    for (size_t i = 0; i < r->n_checks; i++) {
        if (!r->checks[i].robust)
            return "fragile";
    }
    return r->top != NULL && r->n_checks == DC_PERTURB_COUNT ? "robust" : NULL;
}

static void write_robustness(struct api_jw *w, const struct dc_robustness *r)
{
    api_jw_key(w, "robustness");
    api_jw_object(w);
    id_or_null(w, "top", r->top);
    int_or_null(w, "top_score", r->top != NULL, r->top_score);
    id_or_null(w, "runner_up", r->runner_up);
    int_or_null(w, "runner_up_score", r->runner_up != NULL, r->runner_up_score);
    int_or_null(w, "margin", r->runner_up != NULL, r->top_score - r->runner_up_score);
    api_jw_key(w, "top_priced");
    api_jw_bool(w, r->top_priced);
    api_jw_key(w, "verdict");
    api_jw_string_or_null(w, api__robustness_verdict(r));
    api_jw_key(w, "checks");
    api_jw_array(w);
    for (size_t i = 0; i < r->n_checks; i++)
        write_check(w, r, &r->checks[i]);
    api_jw_array_end(w);
    stopped(w, &r->usage);
    api_jw_object_end(w);
}

void api__write_explanation(struct api_jw *w, const struct dc_explanation *e)
{
    if (e == NULL)
        return;
    if (e->kinds & DC_EXPLAIN_CHANGES) {
        api_jw_key(w, "changes");
        api_jw_object(w);
        stopped(w, &e->changes_usage);
        api_jw_key(w, "targets");
        api_jw_array(w);
        for (size_t i = 0; i < e->n_targets; i++)
            write_target(w, &e->targets[i]);
        api_jw_array_end(w);
        api_jw_object_end(w);
    }
    if (e->kinds & DC_EXPLAIN_ROBUSTNESS)
        write_robustness(w, &e->robustness);
}

/* ---- the CLI table ---------------------------------------------------------------- */

static void print_stop(FILE *fp, const struct dc_explain_usage *u)
{
    if (u->stop != DC_EXPLAIN_COMPLETE)
        fprintf(fp, "  (cut short: the %s budget was spent)\n",
                u->stop == DC_EXPLAIN_STOP_TIME ? "time" : "evaluation");
}

void api_explanation_print_table_width(const struct dc_explanation *e, FILE *fp, size_t cols)
{
    char line[SUMMARY_MAX];
    if (e == NULL || e->kinds == 0)
        return;
    fprintf(fp, "\nWhat would change the answer:\n");
    const struct dc_robustness *r = &e->robustness;
    if ((e->kinds & DC_EXPLAIN_ROBUSTNESS) && r->top != NULL) {
        const char *verdict = api__robustness_verdict(r);
        char ahead[160] = "";
        if (r->runner_up != NULL)
            snprintf(ahead, sizeof(ahead), ", %d points ahead of %s",
                     r->top_score - r->runner_up_score, r->runner_up->id);
        api_text_say(fp, cols, 4, "  %s is %s%s.", r->top->id,
                     verdict != NULL ? verdict : "not fully checked", ahead);
        for (size_t i = 0; i < r->n_checks; i++)
            api_text_say(fp, cols, 11, "    %-6s %s", dc_perturbation_name(r->checks[i].kind),
                         dc_flip_text(r, &r->checks[i], line, sizeof(line)));
        print_stop(fp, &r->usage);
    }
    if (!(e->kinds & DC_EXPLAIN_CHANGES))
        return;
    for (size_t i = 0; i < e->n_targets; i++) {
        const struct dc_target *t = &e->targets[i];
        api_text_say(fp, cols, 4, "  %s (%s):%s", t->acc->id, dc_target_role_name(t->role),
                     t->n_changes == 0 ? " no single change found" : "");
        for (size_t k = 0; k < t->n_changes; k++)
            api_text_say(fp, cols, 6, "    - %s",
                         dc_change_text(t, &t->changes[k], line, sizeof(line)));
    }
    print_stop(fp, &e->changes_usage);
}

void api_explanation_print_table(const struct dc_explanation *e, FILE *fp)
{
    api_explanation_print_table_width(e, fp, 0);
}
