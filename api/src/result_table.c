/* api/src/result_table.c -- a result as a table for people (CLI -o table and
 * -o wide): the columns of the playground page's comparison table (web/), the
 * full names, every number through the one formatter (dc/numfmt.h), a line
 * under the header when the tick is not on the objective's best, the targets
 * each candidate misses and why, the pick's reasons, the frontier and the
 * exclusions. Columns are as wide as their widest cell, so nothing is cut. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "dc/numfmt.h"

#define MAX_COLS 24
#define CELL     160

/* A table built row by row, then printed with each column as wide as its
 * widest cell (in characters: the cells hold UTF-8). */
struct grid {
    size_t ncols, nrows, cap;
    const char *head[MAX_COLS];
    bool right[MAX_COLS]; /* numbers align right */
    char (*cells)[MAX_COLS][CELL];
};

static void grid_col(struct grid *g, const char *head, bool right)
{
    if (g->ncols == MAX_COLS)
        return;
    g->head[g->ncols] = head;
    g->right[g->ncols++] = right;
}

/* A new row; NULL when memory runs out (the row is then left out). */
static char (*grid_row(struct grid *g))[CELL]
{
    if (g->nrows == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        void *p = realloc(g->cells, cap * sizeof(*g->cells));
        if (p == NULL)
            return NULL;
        g->cells = p;
        g->cap = cap;
    }
    char(*row)[CELL] = g->cells[g->nrows++];
    memset(row, 0, sizeof(*g->cells));
    return row;
}

static void cellf(char *cell, const char *fmt, ...) DC_PRINTF(2, 3);

static void cellf(char *cell, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cell, CELL, fmt, ap);
    va_end(ap);
}

/* Characters, not bytes: every byte that is not a UTF-8 continuation. */
static size_t width(const char *s)
{
    size_t n = 0;
    for (; *s != '\0'; s++)
        n += ((unsigned char)*s & 0xC0u) != 0x80u;
    return n;
}

static void pad(FILE *fp, const char *s, size_t w, bool right)
{
    size_t n = width(s);
    if (right)
        fprintf(fp, "%*s%s", (int)(w > n ? w - n : 0), "", s);
    else
        fprintf(fp, "%s%*s", s, (int)(w > n ? w - n : 0), "");
}

/* The header, then `between` (a line under it, or NULL), then the rows, each
 * line after `indent`. */
static void grid_print(const struct grid *g, FILE *fp, const char *indent, const char *between)
{
    size_t w[MAX_COLS];
    for (size_t c = 0; c < g->ncols; c++) {
        w[c] = width(g->head[c]);
        for (size_t r = 0; r < g->nrows; r++) {
            size_t n = width(g->cells[r][c]);
            w[c] = n > w[c] ? n : w[c];
        }
    }
    for (size_t r = 0; r <= g->nrows; r++) {
        fputs(indent, fp);
        for (size_t c = 0; c < g->ncols; c++) {
            const char *s = r == 0 ? g->head[c] : g->cells[r - 1][c];
            bool last = c + 1 == g->ncols;
            if (last && !g->right[c])
                fputs(s, fp);
            else
                pad(fp, s, w[c], g->right[c]);
            if (!last)
                fputs("  ", fp);
        }
        fputc('\n', fp);
        if (r == 0 && between != NULL)
            fputs(between, fp);
    }
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
        cellf(cell, "%s", hi);
    else
        cellf(cell, "%s\u2013%s", lo, hi);
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
        cellf(cell, "%s", hi);
        return;
    }
    band_text(dc_fmt_money(b->p10, DC_PER_NONE, lo, sizeof(lo)), hi, cell);
}

static void add_columns(struct grid *g, const struct dc_workload *w, bool wide)
{
    grid_col(g, " ", false); /* the pick's tick: one wide, ticked or not */
    grid_col(g, "PART", false);
    grid_col(g, "SHAPE", false);
    grid_col(g, "CHIPS", true);
    grid_col(g, serving(w) ? "LATENCY" : "RUN TIME", true);
    grid_col(g, "P10\u2013P90", true);
    grid_col(g, "$/H", true);
    grid_col(g, serving(w) ? "$/MONTH" : "TOTAL", true);
    grid_col(g, "P10\u2013P90", true);
    grid_col(g, "TARGETS", false);
    grid_col(g, "PRICE AS OF", false);
    grid_col(g, "CONFIDENCE", false);
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

static void add_row(struct grid *g, const struct dc_result *res, const struct dc_candidate *c,
                    bool chosen, bool wide)
{
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &c->sizing;
    char(*row)[CELL] = grid_row(g);
    if (row == NULL)
        return;
    char shape[96];
    size_t k = 0;
    cellf(row[k++], "%s", chosen ? "\u2714" : "");
    cellf(row[k++], "%s", c->acc->name);
    cellf(row[k++], "%s", dc_shape_format(c->acc, &z->shape, shape, sizeof(shape)));
    dc_fmt_count(z->chips, row[k++], CELL);
    enum dc_period per = serving(w)                     ? DC_PER_MONTH
                         : w->task == DC_TASK_INFERENCE ? DC_PER_JOB
                                                        : DC_PER_RUN;
    if (serving(w)) {
        dc_fmt_ms(z->decode_ms, row[k++], CELL);
        time_band_cell(&z->uncertainty.decode_ms, true, row[k++]);
    } else {
        dc_fmt_hours(z->hours, row[k++], CELL);
        time_band_cell(&z->uncertainty.hours, false, row[k++]);
    }
    dc_fmt_money(z->cost_per_hour_usd, DC_PER_HOUR, row[k++], CELL);
    dc_fmt_money(z->cost_usd, per, row[k++], CELL);
    money_band_cell(&z->uncertainty.cost_usd, per, row[k++]);
    targets_cell(res, c, row[k++]);
    price_cells(res, c, row[k], row[k + 1]);
    k += 2;
    cellf(row[k++], "%d", c->score);
    if (!wide)
        return;
    cellf(row[k++], "%s", c->acc->id);
    cellf(row[k++], "%s", dc_family_name(c->acc->family));
    cellf(row[k++], "%d", c->rule_score);
    cellf(row[k++], "%d", c->objective_score);
    dc_fmt_count(z->replicas, row[k++], CELL);
    dc_fmt_number(z->memory_need_gb, row[k++], CELL);
    dc_fmt_number(z->memory_per_chip_gb, row[k++], CELL);
    dc_fmt_number(z->peak_tflops, row[k++], CELL);
    dc_fmt_percent(z->mfu, row[k++], CELL);
    cellf(row[k++], "%s", z->fits ? "yes" : "no");
    if (c->availability.known)
        cellf(row[k++], "%u/%u", c->availability.free, c->availability.attached);
    else
        cellf(row[k++], "-");
}

/* ---- the lines around the table ------------------------------------------------------ */

/* Every target a candidate misses, and why. */
static void print_missed(const struct dc_result *res, FILE *fp)
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
            fprintf(fp, "  %s, %s: %s\n", c->acc->name, dc_target_name(t[k].kind),
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
                           FILE *fp)
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
        fprintf(fp, "Capacity: %s from %s: %s sells at most %s machines at once%s (%s).\n", sells,
                dc_provider_name(cap->provider), asked, n, lead,
                cap->source != NULL ? cap->source : "");
    else
        fprintf(fp, "Capacity: %s from %s, within its %s machines at once (%s).\n", sells,
                dc_provider_name(cap->provider), n, cap->source != NULL ? cap->source : "");
}

/* What the pick buys beyond its chips, as the page's summary says it: its
 * machines and a training run's fixed costs (sizing.machines,
 * sizing.overheads); nothing where they do not apply or without a pick. */
static void print_buying(const struct dc_result *res, FILE *fp)
{
    if (res->status != DC_ANSWER_OK || res->n_recommendations == 0)
        return;
    const struct dc_workload *w = &res->workload;
    const struct dc_sizing *z = &res->recommendations[0].sizing;
    const struct dc_overheads *o = &z->overheads;
    char n[48], h[48], m[48];
    if (z->machines > 0)
        fprintf(fp, "\nThe pick buys %s machine%s.\n", dc_fmt_count(z->machines, n, sizeof(n)),
                z->machines == 1 ? "" : "s");
    print_capacity(w, &z->capacity, fp);
    if (!isfinite(o->hours))
        return;
    static const char *const words[] = {"start-up", "checkpoints", "evaluation",
                                        "billing rounding"};
    const double parts[] = {o->startup_hours, o->checkpoint_hours, o->eval_hours, o->billing_hours};
    fprintf(fp, "Fixed costs: %s", dc_fmt_hours(o->hours, h, sizeof(h)));
    const char *sep = " (";
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (!(parts[i] > 0))
            continue;
        fprintf(fp, "%s%s %s", sep, words[i], dc_fmt_hours(parts[i], h, sizeof(h)));
        sep = ", ";
    }
    fprintf(fp, "%s%s%s, in the run's time and cost.\n", sep[0] == ',' ? ")" : "",
            isfinite(o->cost_usd) ? ", " : "",
            isfinite(o->cost_usd)
                ? dc_fmt_money(o->cost_usd, w->task == DC_TASK_INFERENCE ? DC_PER_JOB : DC_PER_RUN,
                               m, sizeof(m))
                : "");
}

static void print_reasons(const struct dc_result *res, FILE *fp)
{
    char buf[DC_REASON_TEXT_MAX];
    if (res->n_recommendations == 0)
        return;
    const struct dc_candidate *top = &res->recommendations[0];
    if (res->status == DC_ANSWER_OK)
        fprintf(fp, "\nWhy %s:\n", top->acc->name);
    else
        fprintf(fp, "\nThe rules on %s (listed first, not a pick):\n", top->acc->name);
    for (size_t i = 0; i < top->n_reasons && i < 8; i++) {
        const struct dc_reason *r = &top->reasons[i];
        fprintf(fp, "  %+4d  %-28s %s\n", r->impact, r->rule_id,
                dc_reason_text(res, top, r, buf, sizeof(buf)));
    }
}

/* The cost-time frontier, the pick marked. */
static void print_frontier(const struct dc_result *res, FILE *fp)
{
    if (res->n_frontier == 0)
        return;
    const struct dc_workload *w = &res->workload;
    struct grid g = {0};
    grid_col(&g, serving(w) ? "COST" : "TOTAL", true);
    grid_col(&g, serving(w) ? "REQUEST TIME" : "RUN TIME", true);
    grid_col(&g, "SHAPE", false);
    grid_col(&g, "", false);
    for (size_t i = 0; i < res->n_frontier; i++) {
        const struct dc_frontier_point *f = &res->frontier[i];
        char(*row)[CELL] = grid_row(&g);
        if (row == NULL)
            break;
        dc_fmt_money(f->cost_usd,
                     serving(w)                     ? DC_PER_MONTH
                     : w->task == DC_TASK_INFERENCE ? DC_PER_JOB
                                                    : DC_PER_RUN,
                     row[0], CELL);
        if (serving(w))
            dc_fmt_ms(f->time, row[1], CELL);
        else
            dc_fmt_hours(f->time, row[1], CELL);
        dc_shape_format(f->acc, &f->shape, row[2], CELL);
        cellf(row[3], "%s", f->pick ? "<- pick" : "");
    }
    fprintf(fp, "\nCost and %s, no configuration better on both:\n",
            serving(w) ? "request time" : "run time");
    grid_print(&g, fp, "  ", NULL);
    free(g.cells);
}

/* Each excluded part with the rule and its reason, the reason whole. */
static void print_excluded(const struct dc_result *res, FILE *fp)
{
    char buf[DC_REASON_TEXT_MAX];
    size_t w0 = 0, w1 = 0;
    for (size_t i = 0; i < res->n_excluded; i++) {
        size_t a = width(res->excluded[i].acc->name),
               b = width(res->excluded[i].excluded_by->rule_id);
        w0 = a > w0 ? a : w0;
        w1 = b > w1 ? b : w1;
    }
    if (res->n_excluded > 0)
        fprintf(fp, "\nExcluded:\n");
    for (size_t i = 0; i < res->n_excluded; i++) {
        const struct dc_candidate *c = &res->excluded[i];
        fputs("  ", fp);
        pad(fp, c->acc->name, w0, false);
        fputs("  ", fp);
        pad(fp, c->excluded_by->rule_id, w1, false);
        fprintf(fp, "  %s\n", dc_reason_text(res, c, c->excluded_by, buf, sizeof(buf)));
    }
}

/* Where the pick is rented or bought, for the header: provider, region,
 * instance (or TPU slice) and count, and the basis that sells it (a
 * reservation when the asked basis cannot sell that many at once). */
static void print_where(const struct dc_result *res, FILE *fp)
{
    if (res->status != DC_ANSWER_OK || res->n_recommendations == 0)
        return;
    const struct dc_candidate *c = &res->recommendations[0];
    const struct dc_sizing *z = &c->sizing;
    const struct dc_offer *o = z->offer;
    if (z->cost_basis == DC_COST_ON_PREM) {
        fprintf(fp, "Where: bought for on premises (%s: list price amortised, plus energy)\n",
                c->acc->name);
        return;
    }
    if (z->cost_basis != DC_COST_CLOUD || o == NULL) {
        fprintf(fp, "Where: no public %s price for %s\n", dc_pricing_name(res->workload.pricing),
                c->acc->name);
        return;
    }
    const char *type =
        o->accelerators == 0 && z->shape.slice != NULL ? z->shape.slice : o->instance_type;
    const char *basis = dc_pricing_name(res->workload.pricing);
    if (z->capacity.known && z->capacity.binds)
        basis = dc_basis_name(z->capacity.basis);
    fprintf(fp, "Where: %s, %s, %u x %s, %s%s\n", dc_provider_name(o->provider), o->region,
            z->instances, type, basis,
            z->capacity.known && z->capacity.binds ? " (the asked basis cannot sell that many)"
                                                   : "");
}

void api_result_print_table(const struct dc_result *res, FILE *fp, bool wide)
{
    const struct dc_workload *w = &res->workload;
    static const char *const objective[] = {"cost", "run time", "cost and time"};
    /* Without a pick, that comes first (docs/scoring.md, section 10). */
    char said[DC_ANSWER_TEXT_MAX];
    if (dc_answer_text(res, said, sizeof(said)) != NULL)
        fprintf(fp, "Status: %s\n%s\n\n", dc_answer_status_name(res->status), said);
    char why[DC_WHY_TEXT_MAX];
    if (dc_why(res, why, sizeof(why)) != NULL)
        fprintf(fp, "Why: %s\n", why);
    print_where(res, fp);
    fprintf(fp, "Target: minimizing %s\n", objective[w->objective]);
    fprintf(fp, "Rules version: %.12s\n", res->rules_version);
    fprintf(fp, "Families:");
    for (size_t i = 0; i < DC_FAMILY_COUNT; i++)
        fprintf(fp, "%s %s %d%s", i ? "," : "", dc_family_name(res->families[i].family),
                res->families[i].score, res->families[i].excluded ? " (excluded)" : "");
    char price_note[600];
    if (dc_price_note(res, price_note, sizeof(price_note)) != NULL)
        fprintf(fp, "\nPrice: %s", price_note);
    if (dc_defaults_note(res, price_note, sizeof(price_note)) != NULL)
        fprintf(fp, "\nDefaults: %s", price_note);
    static const char *const order[] = {"best first", "nearest to the targets first",
                                        "in the rules' order, none ranked on time or cost"};
    fprintf(fp, "\nConsidered accelerators (%zu), %s:\n", res->n_recommendations,
            order[res->status]);
    struct grid g = {0};
    add_columns(&g, w, wide);
    for (size_t i = 0; i < res->n_recommendations; i++)
        add_row(&g, res, &res->recommendations[i], i == 0 && res->status == DC_ANSWER_OK, wide);
    char note[400], line[404];
    if (dc_pick_note(res, note, sizeof(note)) != NULL)
        snprintf(line, sizeof(line), "(%s)\n", note);
    else
        line[0] = '\0';
    grid_print(&g, fp, "", line[0] != '\0' ? line : NULL);
    free(g.cells);
    print_buying(res, fp);
    print_missed(res, fp);
    print_reasons(res, fp);
    print_frontier(res, fp);
    print_excluded(res, fp);
    for (size_t i = 0; i < res->n_warnings; i++)
        fprintf(fp, "\nWarning (%s): %s\n", res->warnings[i].code, res->warnings[i].message);
}
