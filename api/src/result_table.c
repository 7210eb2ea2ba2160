/* api/src/result_table.c -- a result as a table for people (CLI -o table and
 * -o wide): the columns of the playground page's comparison table (web/), the
 * full names, every number through the one formatter (dc/numfmt.h), a line
 * under the header when the tick is not on the objective's best, the targets
 * each candidate misses and why, the pick's reasons, the frontier and the
 * exclusions. Columns are as wide as their widest cell; -o table fits a
 * width by leaving out the columns -o wide has (a line says which) and
 * wrapping the lines of text, -o wide is never cut. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/text_table.h"
#include "dc/numfmt.h"
#include "dc/result.h"

#define CELL API_GRID_CELL

/* A column never left out. */
static void grid_col(struct api_grid *g, const char *head, bool right)
{
    api_grid_col(g, head, right, 0);
}

/* ---- the result's columns ----------------------------------------------------------- */

static bool serving(const struct dc_workload *w)
{
    return w->task == DC_TASK_INFERENCE && !(w->job_requests > 0);
}

/* "latency ✓ rate ✗ budget ?": each target and whether the candidate meets it. */
static void targets_cell(const struct dc_result *res, const struct dc_candidate *c, char *cell)
{
    static const char *const mark[] = {"\u2717", "\u2713", "?"};
    struct dc_target_status t[DC_MAX_TARGETS];
    size_t n = dc_candidate_targets(res, c, t), k = 0;
    cell[0] = '\0';
    for (size_t i = 0; i < n && k < CELL; i++)
        k += (size_t)snprintf(cell + k, CELL - k, "%s%s %s", i ? " " : "",
                              dc_target_name(t[i].kind), mark[t[i].state]);
    if (n == 0)
        snprintf(cell, CELL, "-");
}

/* The date and the confidence of the price behind the cost. */
static void price_cells(const struct dc_result *res, const struct dc_candidate *c, char *as_of,
                        char *confidence)
{
    const struct dc_sizing *z = &c->sizing;
    snprintf(as_of, CELL, "-");
    snprintf(confidence, CELL, "-");
    if (z->cost_basis == DC_COST_CLOUD && z->offer != NULL) {
        snprintf(as_of, CELL, "%s", z->offer->price[res->workload.pricing].as_of);
        snprintf(confidence, CELL, "%s", z->offer->low_confidence ? "low" : "high");
    } else if (z->cost_basis == DC_COST_ON_PREM) {
        snprintf(as_of, CELL, "%s", c->acc->list_price_as_of);
        snprintf(confidence, CELL, "high");
    }
}

/* A band as "lo\u2013hi", or one figure when both ends read the same (a fleet
 * capped whatever its speed); "-" without a band. */
static void band_text(const char *lo, const char *hi, char *cell)
{
    if (strcmp(lo, hi) == 0)
        api_grid_cellf(cell, "%s", hi);
    else
        api_grid_cellf(cell, "%s\u2013%s", lo, hi);
}

/* A time band: milliseconds (serving) or hours. */
static void time_band_cell(const struct dc_band *b, bool ms, char *cell)
{
    char lo[48], hi[48];
    if (!isfinite(b->p10) || !isfinite(b->p90)) {
        snprintf(cell, CELL, "-");
        return;
    }
    band_text(ms ? dc_fmt_ms(b->p10, lo, sizeof(lo)) : dc_fmt_hours(b->p10, lo, sizeof(lo)),
              ms ? dc_fmt_ms(b->p90, hi, sizeof(hi)) : dc_fmt_hours(b->p90, hi, sizeof(hi)), cell);
}

/* A cost band: "$307k\u2013$360k/month", the period once. */
static void money_band_cell(const struct dc_band *b, enum dc_period per, char *cell)
{
    char lo[48], hi[48], same[48];
    if (!isfinite(b->p10) || !isfinite(b->p90)) {
        snprintf(cell, CELL, "-");
        return;
    }
    dc_fmt_money(b->p10, per, same, sizeof(same));
    dc_fmt_money(b->p90, per, hi, sizeof(hi));
    if (strcmp(same, hi) == 0) {
        api_grid_cellf(cell, "%s", hi);
        return;
    }
    band_text(dc_fmt_money(b->p10, DC_PER_NONE, lo, sizeof(lo)), hi, cell);
}

/* The period of the result's costs. */
static enum dc_period period(const struct dc_workload *w)
{
    return serving(w) ? DC_PER_MONTH : w->task == DC_TASK_INFERENCE ? DC_PER_JOB : DC_PER_RUN;
}

/* The columns of -o table (narrow: the short name, no bands, the period in
 * the header) and of -o wide (every column). */
static void add_columns(struct api_grid *g, const struct dc_workload *w, bool wide)
{
    grid_col(g, " ", false); /* the pick's tick: one wide, ticked or not */
    grid_col(g, "PART", false);
    api_grid_col(g, "SHAPE", false, wide ? 0 : 4);
    api_grid_col(g, "CHIPS", true, wide ? 0 : 2);
    grid_col(g, serving(w) ? "LATENCY" : "RUN TIME", true);
    if (wide)
        grid_col(g, "P10\u2013P90", true);
    api_grid_col(g, "$/H", true, wide ? 0 : 1);
    if (wide) {
        grid_col(g, serving(w) ? "$/MONTH" : "TOTAL", true);
        grid_col(g, "P10\u2013P90", true);
    } else {
        grid_col(g,
                 serving(w)                     ? "$/MONTH"
                 : w->task == DC_TASK_INFERENCE ? "$/JOB"
                                                : "$/RUN",
                 true);
    }
    api_grid_col(g, "TARGETS", false, wide ? 0 : 3);
    if (wide) {
        grid_col(g, "PRICE AS OF", false);
        grid_col(g, "CONFIDENCE", false);
    }
    grid_col(g, "SCORE", true);
    if (!wide)
        return;
    grid_col(g, "ID", false);
    grid_col(g, "FAMILY", false);
    grid_col(g, "RULES", true);
    grid_col(g, "OBJ", true);
    grid_col(g, "REPLICAS", true);
    grid_col(g, "MEM GB", true);
    grid_col(g, "GB/CHIP", true);
    grid_col(g, "TFLOPS", true);
    grid_col(g, "MFU", true);
    grid_col(g, "FITS", false);
    grid_col(g, "AVAIL", false);
}

/* A part's name in the table: the catalog's short name, or its id when it
 * has none, as shapes write it (-o table); its full name (-o wide). */
static const char *part_name(const struct dc_accelerator *a, bool wide)
{
    return wide ? a->name : a->short_name != NULL ? a->short_name : a->id;
}

/* The columns only -o wide has, after SCORE. */
static void add_wide_cells(char (*row)[CELL], size_t k, const struct dc_candidate *c)
{
    const struct dc_sizing *z = &c->sizing;
    api_grid_cellf(row[k++], "%s", c->acc->id);
    api_grid_cellf(row[k++], "%s", dc_family_name(c->acc->family));
    api_grid_cellf(row[k++], "%d", c->rule_score);
    api_grid_cellf(row[k++], "%d", c->objective_score);
    dc_fmt_count(z->replicas, row[k++], CELL);
    dc_fmt_number(z->memory_need_gb, row[k++], CELL);
    dc_fmt_number(z->memory_per_chip_gb, row[k++], CELL);
    dc_fmt_number(z->peak_tflops, row[k++], CELL);
    dc_fmt_percent(z->mfu, row[k++], CELL);
    api_grid_cellf(row[k++], "%s", z->fits ? "yes" : "no");
    if (c->availability.known)
        api_grid_cellf(row[k++], "%u/%u", c->availability.free, c->availability.attached);
    else
        api_grid_cellf(row[k++], "-");
}

static void add_row(struct api_grid *g, const struct dc_result *res, const struct dc_candidate *c,
                    bool chosen, bool wide)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char(*row)[CELL] = api_grid_row(g);
    if (row == NULL)
        return;
    char shape[96];
    size_t k = 0;
    api_grid_cellf(row[k++], "%s", chosen ? "\u2714" : "");
    api_grid_cellf(row[k++], "%s", part_name(c->acc, wide));
    api_grid_cellf(row[k++], "%s", dc_shape_format(c->acc, &z->shape, shape, sizeof(shape)));
    dc_fmt_count(z->chips, row[k++], CELL);
    enum dc_period per = period(w);
    if (serving(w))
        dc_fmt_ms(z->decode_ms, row[k++], CELL);
    else
        dc_fmt_hours(z->hours, row[k++], CELL);
    if (wide && serving(w))
        time_band_cell(&z->uncertainty.decode_ms, true, row[k++]);
    else if (wide)
        time_band_cell(&z->uncertainty.hours, false, row[k++]);
    /* The table's headers say the period ($/H, $/MONTH); the wide cells too. */
    dc_fmt_money(z->cost_per_hour_usd, wide ? DC_PER_HOUR : DC_PER_NONE, row[k++], CELL);
    dc_fmt_money(z->cost_usd, wide ? per : DC_PER_NONE, row[k++], CELL);
    if (wide)
        money_band_cell(&z->uncertainty.cost_usd, per, row[k++]);
    targets_cell(res, c, row[k++]);
    if (wide) {
        price_cells(res, c, row[k], row[k + 1]);
        k += 2;
    }
    api_grid_cellf(row[k++], "%d", c->score);
    if (wide)
        add_wide_cells(row, k, c);
}

/* ---- the lines around the table ------------------------------------------------------ */

/* Every target a candidate misses, and why; lines wrapped at `cols` (0: none). */
static void print_missed(const struct dc_result *res, FILE *fp, size_t cols, bool wide)
{
    bool any = false;
    char buf[DC_REASON_TEXT_MAX];
    for (size_t i = 0; i < res->n_recommendations; i++) {
        const struct dc_candidate *c = &res->recommendations[i];
        struct dc_target_status t[DC_MAX_TARGETS];
        size_t n = dc_candidate_targets(res, c, t);
        for (size_t k = 0; k < n; k++) {
            if (t[k].state == DC_TARGET_MET)
                continue;
            if (!any)
                fprintf(fp, "\nTargets not met:\n");
            any = true;
            api_text_say(fp, cols, 4, "  %s, %s: %s", part_name(c->acc, wide),
                         dc_target_name(t[k].kind),
                         dc_target_text(res, c, &t[k], buf, sizeof(buf)));
        }
    }
}

/* A price basis in words: "on-demand", "committed-1y", "reserved". */
static const char *basis_words(enum dc_basis b, char *buf, size_t len)
{
    snprintf(buf, len, "%s", dc_basis_name(b));
    for (char *p = buf; *p != '\0'; p++)
        *p = *p == '_' ? '-' : *p;
    return buf;
}

/* Which basis sells the pick's machines, and the asked basis's limit of
 * machines at once when it binds (sizing.capacity); nothing when no limit is
 * stated for the offer's provider and basis. */
static void print_capacity(const struct dc_workload *w, const struct dc_capacity_need *cap,
                           FILE *fp, size_t cols)
{
    char sells[32], asked[32], n[48], days[48], lead[80] = "";
    if (!cap->known)
        return;
    if (isfinite(cap->lead_time_days))
        snprintf(lead, sizeof(lead), ", lead time %s days",
                 dc_fmt_count(cap->lead_time_days, days, sizeof(days)));
    basis_words(cap->basis, sells, sizeof(sells));
    basis_words((enum dc_basis)w->pricing, asked, sizeof(asked));
    dc_fmt_count(cap->max_instances, n, sizeof(n));
    if (cap->binds)
        api_text_say(fp, cols, 2,
                     "Capacity: %s from %s: %s sells at most %s machines at once%s (%s).", sells,
                     dc_provider_name(cap->provider), asked, n, lead,
                     cap->source != NULL ? cap->source : "");
    else
        api_text_say(fp, cols, 2, "Capacity: %s from %s, within its %s machines at once (%s).",
                     sells, dc_provider_name(cap->provider), n,
                     cap->source != NULL ? cap->source : "");
}

/* What the pick buys beyond its chips, as the page's summary says it: its
 * machines and a training run's fixed costs (sizing.machines,
 * sizing.overheads); nothing where they do not apply or without a pick. */
static void print_buying(const struct dc_result *res, FILE *fp, size_t cols)
{
    if (res->status != DC_ANSWER_OK || res->n_recommendations == 0)
        return;
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &res->recommendations[0].sizing;
    const struct dc_overheads *o = &z->overheads;
    char n[48], h[48], m[48], line[512];
    if (z->machines > 0)
        fprintf(fp, "\nThe pick buys %s machine%s.\n", dc_fmt_count(z->machines, n, sizeof(n)),
                z->machines == 1 ? "" : "s");
    print_capacity(w, &z->capacity, fp, cols);
    if (!isfinite(o->hours))
        return;
    static const char *const words[] = {"start-up", "checkpoints", "evaluation",
                                        "billing rounding"};
    const double parts[] = {o->startup_hours, o->checkpoint_hours, o->eval_hours, o->billing_hours};
    size_t k = (size_t)snprintf(line, sizeof(line), "Fixed costs: %s",
                                dc_fmt_hours(o->hours, h, sizeof(h)));
    const char *sep = " (";
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && k < sizeof(line); i++) {
        if (!(parts[i] > 0))
            continue;
        k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%s %s", sep, words[i],
                              dc_fmt_hours(parts[i], h, sizeof(h)));
        sep = ", ";
    }
    api_text_say(fp, cols, 2, "%s%s%s%s, in the run's time and cost.", line,
                 sep[0] == ',' ? ")" : "", isfinite(o->cost_usd) ? ", " : "",
                 isfinite(o->cost_usd)
                     ? dc_fmt_money(o->cost_usd,
                                    w->task == DC_TASK_INFERENCE ? DC_PER_JOB : DC_PER_RUN, m,
                                    sizeof(m))
                     : "");
}

static void print_reasons(const struct dc_result *res, FILE *fp, size_t cols, bool wide)
{
    char buf[DC_REASON_TEXT_MAX];
    if (res->n_recommendations == 0)
        return;
    const struct dc_candidate *top = &res->recommendations[0];
    if (res->status == DC_ANSWER_OK)
        api_text_say(fp, cols, 2, "\nWhy %s:", top->acc->name);
    else
        api_text_say(fp, cols, 2, "\nThe rules on %s (listed first, not a pick):", top->acc->name);
    size_t idw = 0;
    for (size_t i = 0; i < top->n_reasons && i < 8; i++) {
        size_t n = api_text_width(top->reasons[i].rule_id);
        idw = n > idw ? n : idw;
    }
    /* -o wide keeps its fixed column of 28; the table takes what the ids need. */
    idw = wide ? 28 : idw;
    for (size_t i = 0; i < top->n_reasons && i < 8; i++) {
        const struct dc_reason *r = &top->reasons[i];
        api_text_say(fp, cols, 2 + 4 + 2 + idw + 1, "  %+4d  %-*s %s", r->impact, (int)idw,
                     r->rule_id, dc_reason_text(res, top, r, buf, sizeof(buf)));
    }
}

/* The cost-time frontier, the pick marked. */
static void print_frontier(const struct dc_result *res, FILE *fp)
{
    if (res->n_frontier == 0)
        return;
    const struct dc_workload *w = &res->workload;
    struct api_grid g = {0};
    grid_col(&g, serving(w) ? "COST" : "TOTAL", true);
    grid_col(&g, serving(w) ? "REQUEST TIME" : "RUN TIME", true);
    grid_col(&g, "SHAPE", false);
    grid_col(&g, "", false);
    for (size_t i = 0; i < res->n_frontier; i++) {
        const struct dc_frontier_point *f = &res->frontier[i];
        char(*row)[CELL] = api_grid_row(&g);
        if (row == NULL)
            break;
        dc_fmt_money(f->cost_usd, period(w), row[0], CELL);
        if (serving(w))
            dc_fmt_ms(f->time, row[1], CELL);
        else
            dc_fmt_hours(f->time, row[1], CELL);
        dc_shape_format(f->acc, &f->shape, row[2], CELL);
        api_grid_cellf(row[3], "%s", f->pick ? "<- pick" : "");
    }
    fprintf(fp, "\nCost and %s, no configuration better on both:\n",
            serving(w) ? "request time" : "run time");
    api_grid_print(&g, fp, "  ", NULL, true);
    api_grid_free(&g);
}

/* Each excluded part with the rule and its reason, the reason whole. */
static void print_excluded(const struct dc_result *res, FILE *fp, size_t cols, bool wide)
{
    char buf[DC_REASON_TEXT_MAX];
    size_t w0 = 0, w1 = 0;
    for (size_t i = 0; i < res->n_excluded; i++) {
        size_t a = api_text_width(part_name(res->excluded[i].acc, wide)),
               b = api_text_width(res->excluded[i].excluded_by->rule_id);
        w0 = a > w0 ? a : w0;
        w1 = b > w1 ? b : w1;
    }
    if (res->n_excluded > 0)
        fprintf(fp, "\nExcluded:\n");
    for (size_t i = 0; i < res->n_excluded; i++) {
        const struct dc_candidate *c = &res->excluded[i];
        const char *name = part_name(c->acc, wide);
        /* Padded by characters, not bytes (names may hold UTF-8). */
        size_t pn = w0 - api_text_width(name), pr = w1 - api_text_width(c->excluded_by->rule_id);
        api_text_say(fp, cols, 2 + w0 + 2 + w1 + 2, "  %s%*s  %s%*s  %s", name, (int)pn, "",
                     c->excluded_by->rule_id, (int)pr, "",
                     dc_reason_text(res, c, c->excluded_by, buf, sizeof(buf)));
    }
}

/* Where the pick is rented or bought, for the header: provider, region,
 * instance (or TPU slice) and count, and the basis that sells it (a
 * reservation when the asked basis cannot sell that many at once). */
static void print_where(const struct dc_result *res, FILE *fp, size_t cols)
{
    if (res->status != DC_ANSWER_OK || res->n_recommendations == 0)
        return;
    const struct dc_candidate *c = &res->recommendations[0];
    const struct dc_sizing *z = &c->sizing;
    const struct dc_offer *o = z->offer;
    if (z->cost_basis == DC_COST_ON_PREM) {
        api_text_say(fp, cols, 2,
                     "Where: bought for on premises (%s: list price amortised, plus energy)",
                     c->acc->name);
        return;
    }
    if (z->cost_basis != DC_COST_CLOUD || o == NULL) {
        api_text_say(fp, cols, 2, "Where: no public %s price for %s",
                     dc_pricing_name(res->workload.pricing), c->acc->name);
        return;
    }
    const char *type =
        o->accelerators == 0 && z->shape.slice != NULL ? z->shape.slice : o->instance_type;
    const char *basis = dc_pricing_name(res->workload.pricing);
    if (z->capacity.known && z->capacity.binds)
        basis = dc_basis_name(z->capacity.basis);
    api_text_say(fp, cols, 2, "Where: %s, %s, %u x %s, %s%s", dc_provider_name(o->provider),
                 o->region, z->instances, type, basis,
                 z->capacity.known && z->capacity.binds ? " (the asked basis cannot sell that many)"
                                                        : "");
}

/* The lines above the table: the answer's status, why the pick and where to
 * rent it, the target, the rule set, the families, the price and the defaults
 * taken. */
static void print_header(const struct dc_result *res, FILE *fp, size_t cols)
{
    const struct dc_workload *w = &res->workload;
    static const char *const objective[] = {"cost", "run time", "cost and time"};
    /* Without a pick, that comes first (docs/scoring.md, section 10). */
    char said[DC_ANSWER_TEXT_MAX];
    if (dc_answer_text(res, said, sizeof(said)) != NULL)
        api_text_say(fp, cols, 2, "Status: %s\n%s\n\n", dc_answer_status_name(res->status), said);
    char why[DC_WHY_TEXT_MAX];
    if (dc_why(res, why, sizeof(why)) != NULL)
        api_text_say(fp, cols, 2, "Why: %s", why);
    print_where(res, fp, cols);
    fprintf(fp, "Target: minimizing %s\n", objective[w->objective]);
    fprintf(fp, "Rules version: %.12s\n", res->rules_version);
    char fam[512];
    size_t k = 0;
    for (size_t i = 0; i < DC_FAMILY_COUNT && k < sizeof(fam); i++)
        k += (size_t)snprintf(fam + k, sizeof(fam) - k, "%s %s %d%s", i ? "," : "",
                              dc_family_name(res->families[i].family), res->families[i].score,
                              res->families[i].excluded ? " (excluded)" : "");
    api_text_say(fp, cols, 2, "Families:%s", fam);
    char price_note[600];
    if (dc_price_note(res, price_note, sizeof(price_note)) != NULL)
        api_text_say(fp, cols, 2, "Price: %s", price_note);
    if (dc_defaults_note(res, price_note, sizeof(price_note)) != NULL)
        api_text_say(fp, cols, 2, "Defaults: %s", price_note);
}

void api_result_print_table_opts(const struct dc_result *res, FILE *fp,
                                 const struct api_table_opts *o)
{
    const struct dc_workload *w = &res->workload;
    /* -o wide is never cut; -o table fits its width, when one is given. */
    size_t cols = o->wide ? 0 : o->columns;
    if (!o->no_headers) {
        print_header(res, fp, cols);
        static const char *const order[] = {"best first", "nearest to the targets first",
                                            "in the rules' order, none ranked on time or cost"};
        api_text_say(fp, cols, 2, "Considered accelerators (%zu), %s:", res->n_recommendations,
                     order[res->status]);
    }
    struct api_grid g = {0};
    add_columns(&g, w, o->wide);
    for (size_t i = 0; i < res->n_recommendations; i++)
        add_row(&g, res, &res->recommendations[i], i == 0 && res->status == DC_ANSWER_OK, o->wide);
    char gone[256] = "";
    api_grid_fit(&g, cols, 1, 8, gone, sizeof(gone)); /* a short name may be cut */
    /* The note under the column names, wrapped to the width like any line. */
    char note[400], *line = NULL;
    size_t line_len = 0;
    FILE *mem = NULL;
    if (!o->no_headers && dc_pick_note(res, note, sizeof(note)) != NULL &&
        (mem = open_memstream(&line, &line_len)) != NULL) {
        api_text_say(mem, cols, 1, "(%s)", note);
        fclose(mem);
    }
    api_grid_print(&g, fp, "", line, !o->no_headers);
    free(line);
    api_grid_free(&g);
    if (o->no_headers)
        return;
    if (gone[0] != '\0')
        api_text_say(fp, cols, 2, "(Left out to fit %zu columns: %s; -o wide shows every column.)",
                     cols, gone);
    print_buying(res, fp, cols);
    print_missed(res, fp, cols, o->wide);
    print_reasons(res, fp, cols, o->wide);
    print_frontier(res, fp);
    print_excluded(res, fp, cols, o->wide);
    for (size_t i = 0; i < res->n_warnings; i++)
        api_text_say(fp, cols, 2, "\nWarning (%s): %s", res->warnings[i].code,
                     res->warnings[i].message);
}

void api_result_print_table(const struct dc_result *res, FILE *fp, bool wide)
{
    const struct api_table_opts o = {wide, false, 0};
    api_result_print_table_opts(res, fp, &o);
}
