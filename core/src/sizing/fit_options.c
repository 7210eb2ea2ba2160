/* core/src/sizing/fit_options.c -- what would make a job that fits nowhere fit
 * (issue 29): the changes a team can make, each verified by sizing the
 * changed workload again at the chip limit, never a guess such as "a lower
 * precision" (a 13B full fine-tune on one chip fits in no precision, but it
 * does as LoRA or QLoRA). Owner: helper "playbook"; report.c puts the text in
 * the nothing_fits_memory warning. */
#include <stdio.h>
#include <string.h>

#include "dc/numfmt.h"
#include "sizing.h"
#include "reason_ids.h"

/* Whether `w` holds on `a` at its chip limit: sized again from scratch. */
static bool fits_at_cap(const dc_ruleset *rs, const struct dc_workload *w,
                        const struct dc_accelerator *a, unsigned *chips, double *need_gb)
{
    struct dc__derived d;
    dc__derive(rs, w, &d);
    unsigned cap = dc__chip_cap(w, a);
    if (cap == 0)
        return false;
    struct dc_sizing z;
    dc__size_pinned(rs, w, &d, a, cap, &z);
    *chips = z.chips_for_memory > 0 ? z.chips_for_memory : cap;
    *need_gb = z.memory_need_gb;
    return z.fits && z.chips_for_memory > 0 && z.chips_for_memory <= cap;
}

/* Append one verified option to buf (at k), "; " between options. */
static size_t add(char *buf, size_t len, size_t k, const char *text)
{
    if (k >= len)
        return k;
    int n = snprintf(buf + k, len - k, "%s%s", k > 0 ? "; " : "", text);
    return n > 0 ? k + (size_t)n : k;
}

/* A fine-tune (method full) as LoRA and as QLoRA on `a`. */
static size_t method_options(const dc_ruleset *rs, const struct dc_workload *w,
                             const struct dc_accelerator *a, char *buf, size_t len, size_t k)
{
    static const struct {
        enum dc_method m;
        const char *name;
    } methods[] = {{DC_METHOD_LORA, "lora"}, {DC_METHOD_QLORA, "qlora"}};
    if (w->task != DC_TASK_FINE_TUNING || w->method != DC_METHOD_FULL)
        return k;
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        struct dc_workload v = *w;
        v.method = methods[i].m;
        unsigned chips = 0;
        double need = 0;
        if (!fits_at_cap(rs, &v, a, &chips, &need))
            continue;
        char n1[48], n2[48], text[200];
        snprintf(text, sizeof(text), "training.method %s holds it on %s x %s (%s GB)",
                 methods[i].name, dc_fmt_count(chips, n1, sizeof(n1)), a->id,
                 dc_fmt_number(need, n2, sizeof(n2)));
        k = add(buf, len, k, text);
    }
    return k;
}

/* A part the workload's allow-list left out that holds it within the limit. */
static size_t part_options(const dc_ruleset *rs, const struct dc_workload *w,
                           const struct dc_candidate *all, size_t n_all, char *buf, size_t len,
                           size_t k)
{
    const struct dc_candidate *best = NULL;
    unsigned best_chips = 0;
    for (size_t i = 0; i < n_all; i++) {
        const struct dc_candidate *c = &all[i];
        if (c->excluded_by == NULL || strcmp(c->excluded_by->rule_id, DC__R_ALLOWED) != 0)
            continue;
        unsigned chips = 0;
        double need = 0;
        if (fits_at_cap(rs, w, c->acc, &chips, &need) &&
            (best == NULL || c->acc->memory_gb < best->acc->memory_gb))
            best = c, best_chips = chips;
    }
    if (best == NULL)
        return k;
    char n1[48], n2[48], text[200];
    snprintf(text, sizeof(text),
             "%s (%s GB a chip) holds it on %s; add it to "
             "constraints.accelerators",
             best->acc->id, dc_fmt_number(best->acc->memory_gb, n1, sizeof(n1)),
             dc_fmt_count(best_chips, n2, sizeof(n2)));
    return add(buf, len, k, text);
}

const char *dc__fit_options(const dc_ruleset *rs, const struct dc_result *res,
                            const struct dc_candidate *smallest, const struct dc_candidate *all,
                            size_t n_all, char *buf, size_t len)
{
    if (buf == NULL || len == 0)
        return NULL;
    buf[0] = '\0';
    size_t k = 0;
    if (smallest != NULL)
        k = method_options(rs, &res->workload, smallest->acc, buf, len, k);
    k = part_options(rs, &res->workload, all, n_all, buf, len, k);
    return k > 0 ? buf : NULL;
}
