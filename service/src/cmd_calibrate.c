/* service/src/cmd_calibrate.c -- `accel-advisor calibrate FILE`: the sizing
 * model against published runs (dc/calibration.h). Prints the table that
 * docs/calibration.md holds, so a rule author who changes sizing.yaml sees at
 * once which published run moved, and CI fails when one leaves the band. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "dc/calibration.h"
#include "rulesrc.h"
#include "suggest.h"

static void help(FILE *fp)
{
    fprintf(fp,
            "usage: accel-advisor calibrate [--rules DIR] [--format markdown|json] [--bands]\n"
            "                               [--fit] FILE\n"
            "       accel-advisor calibrate import-mlperf SUMMARY (its options: its own -h)\n\n"
            "Sizes every published run in FILE (a JSON array of calibration rows, as\n"
            "tests/fixtures/calibration.json) on its accelerator at its chip count and\n"
            "compares the estimate with what was measured. The ratio is estimated time over\n"
            "measured time (throughputs: measured over estimated); rows must stay within\n"
            "%.1fx either way unless they carry an `outlier` explanation. Each row is in the\n"
            "fit or the held-out split, as the split rule of docs/calibration.md says; the\n"
            "summary gives the median and p90 error of each, by family and regime, and how\n"
            "many held-out rows fall within the p10-p90 band the rule set states.\n\n"
            "  --rules DIR      use the rule set in DIR instead of the embedded default\n"
            "  --format FORMAT  markdown (default: the tables of docs/calibration.md) or json\n"
            "  --bands          print the `uncertainty` block of sizing.yaml that the fit\n"
            "                   rows give (a prediction interval per regime) instead\n"
            "  --fit            refit the serving parameters on the serving fit rows and\n"
            "                   print them beside the rule set's (docs/calibration.md,\n"
            "                   \"Refitting\"); exit 1 when the rule set states others\n"
            "  -h, --help       this help\n\n"
            "exit status: 0 every row within the band and the split as the rule says, 1 a\n"
            "row outside the band or in the wrong split, 2 usage, I/O, rule set or row\n"
            "error\n",
            DC_CALIBRATION_LIMIT);
}

/* A number as people read it: 3 significant digits, thousands separated. */
static const char *human(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return buf;
    }
    if (fabs(v) >= 1000) {
        char digits[64];
        double r = v;
        double mag = pow(10, floor(log10(fabs(v))) - 2);
        r = round(v / mag) * mag;
        snprintf(digits, sizeof(digits), "%.0f", r);
        size_t n = strlen(digits), o = 0;
        for (size_t i = 0; i < n && o + 2 < len; i++) {
            buf[o++] = digits[i];
            if ((n - i - 1) % 3 == 0 && i + 1 < n)
                buf[o++] = ',';
        }
        buf[o] = '\0';
    } else {
        snprintf(buf, len, "%.3g", v);
    }
    return buf;
}

static void print_markdown(const struct dc_calibration_row *r)
{
    char m[32], e[32];
    printf("| %s | %s | %u x %s | %s %s | %s | %.2f%s | %s | %s | %s |\n", r->id, r->run, r->chips,
           r->accelerator, human(r->measured, m, sizeof(m)), r->unit,
           human(r->estimate, e, sizeof(e)), r->ratio, r->outlier != NULL ? " (outlier)" : "",
           dc_regime_name(r->regime), r->held_out ? "held-out" : "fit", r->source);
}

static cJSON *row_json(const struct dc_calibration_row *r)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "run", r->run);
    cJSON_AddStringToObject(o, "accelerator", r->accelerator);
    cJSON_AddNumberToObject(o, "chips", r->chips);
    cJSON_AddStringToObject(o, "measure", r->measure);
    cJSON_AddStringToObject(o, "unit", r->unit);
    cJSON_AddNumberToObject(o, "measured", r->measured);
    cJSON_AddNumberToObject(o, "estimate", r->estimate);
    cJSON_AddNumberToObject(o, "ratio", round(r->ratio * 1000) / 1000);
    cJSON_AddBoolToObject(o, "within", r->within);
    if (r->outlier != NULL)
        cJSON_AddStringToObject(o, "outlier", r->outlier);
    cJSON_AddStringToObject(o, "split", r->held_out ? "held-out" : "fit");
    cJSON_AddStringToObject(o, "regime", dc_regime_name(r->regime));
    cJSON_AddStringToObject(o, "family", dc_family_name(r->family));
    cJSON_AddStringToObject(o, "source", r->source);
    return o;
}

/* The evidence behind each row, after the table: the quote, a note, and for an
 * outlier the explanation the table owes its reader. */
static void print_evidence(const struct dc_calibration_row *r, size_t n)
{
    printf("\nEvidence, row by row:\n\n");
    for (size_t i = 0; i < n; i++) {
        printf("- **%s** %s.", r[i].id, r[i].evidence);
        if (r[i].note != NULL)
            printf(" %s", r[i].note);
        if (r[i].outlier != NULL)
            printf(" *Outlier:* %s", r[i].outlier);
        printf("\n");
    }
}

/* "12 | 1.14x | 1.38x" for a set of rows, or "0 | - | -". */
static void print_stats(const struct dc_calibration_row *rows, size_t n,
                        struct dc_calibration_filter f)
{
    struct dc_calibration_stats st[2];
    for (int h = 0; h < 2; h++) {
        f.held_out = h == 1;
        dc_calibration_stats(rows, n, &f, &st[h]);
        if (st[h].n == 0)
            printf(" | 0 | - | -");
        else
            printf(" | %zu | %.2fx | %.2fx", st[h].n, st[h].median_error, st[h].p90_error);
    }
    printf(" |\n");
}

static bool any_row(const struct dc_calibration_row *rows, size_t n, enum dc_regime r,
                    enum dc_family fam)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].variant_of == NULL && rows[i].regime == r &&
            (fam == DC_FAMILY_COUNT || rows[i].family == fam))
            return true;
    return false;
}

/* Median and p90 error in and out of sample: each regime, by family and in
 * all, then each task's pool. */
static void print_accuracy(const struct dc_calibration_row *rows, size_t n)
{
    printf("\nError (max(ratio, 1/ratio)) in sample (fit rows) and out of sample (held-out rows; "
           "rows given another way left out):\n\n"
           "| regime | family | fit rows | fit median | fit p90 | held-out rows | held-out median "
           "| held-out p90 |\n|---|---|---|---|---|---|---|---|\n");
    for (int r = 0; r < DC_REGIME_COUNT; r++) {
        enum dc_regime reg = (enum dc_regime)r;
        if (dc_regime_pool(reg) == reg)
            continue;
        for (int f = 0; f < DC_FAMILY_COUNT; f++) {
            if (!any_row(rows, n, reg, (enum dc_family)f))
                continue;
            printf("| %s | %s", dc_regime_name(reg), dc_family_name((enum dc_family)f));
            print_stats(rows, n, (struct dc_calibration_filter){false, reg, (enum dc_family)f});
        }
        if (any_row(rows, n, reg, DC_FAMILY_COUNT)) {
            printf("| %s | all", dc_regime_name(reg));
            print_stats(rows, n, (struct dc_calibration_filter){false, reg, DC_FAMILY_COUNT});
        }
    }
    for (int r = 0; r < DC_REGIME_COUNT; r++) {
        enum dc_regime reg = (enum dc_regime)r;
        if (dc_regime_pool(reg) != reg)
            continue;
        printf("| **%s, all** | all", dc_regime_name(reg));
        print_stats(rows, n, (struct dc_calibration_filter){false, reg, DC_FAMILY_COUNT});
    }
}

/* The bands the rule set states, and how many held-out rows each covers:
 * the measured figure within the band is a ratio between p10 and p90. */
static void print_coverage(const dc_ruleset *rs, const struct dc_calibration_row *rows, size_t n)
{
    printf("\nStated bands (sizing.yaml `uncertainty`) and the held-out rows inside them:\n\n"
           "| regime | fit rows | p10 ratio | p90 ratio | held-out rows inside |\n"
           "|---|---|---|---|---|\n");
    size_t in_all = 0, all = 0;
    for (int r = 0; r < DC_REGIME_COUNT; r++) {
        enum dc_regime reg = (enum dc_regime)r;
        const struct dc_band_params *b = &dc_ruleset_sizing(rs)->uncertainty[reg];
        size_t in = 0, k = 0;
        for (size_t i = 0; i < n; i++) {
            const struct dc_calibration_row *x = &rows[i];
            if (!x->held_out || x->variant_of != NULL || x->regime != reg)
                continue;
            enum dc_regime stated = reg;
            struct dc_band_params sb = dc_sizing_band(dc_ruleset_sizing(rs), &stated);
            k++;
            in += sb.rows > 0 && x->ratio >= sb.p10 && x->ratio <= sb.p90;
        }
        in_all += in;
        all += k;
        if (b->rows == 0 && k == 0)
            continue;
        if (b->rows == 0)
            printf("| %s | (its pool's) | - | - | %zu of %zu |\n", dc_regime_name(reg), in, k);
        else
            printf("| %s | %u | %.2f | %.2f | %zu of %zu |\n", dc_regime_name(reg), b->rows, b->p10,
                   b->p90, in, k);
    }
    printf("\nHeld-out rows inside their band: %zu of %zu (%.0f%%; nominal 80%%).\n", in_all, all,
           all > 0 ? 100.0 * (double)in_all / (double)all : 0.0);
}

/* sizing.yaml's `uncertainty` block as the fit rows give it. */
static void print_bands(const struct dc_calibration_row *rows, size_t n)
{
    printf("  uncertainty:\n");
    for (int r = 0; r < DC_REGIME_COUNT; r++) {
        struct dc_band_params b;
        if (dc_calibration_band(rows, n, (enum dc_regime)r, &b))
            printf("    %s: {p10: %.2f, p90: %.2f, rows: %u}\n", dc_regime_name((enum dc_regime)r),
                   b.p10, b.p90, b.rows);
    }
}

enum calibrate_output { OUT_MARKDOWN, OUT_JSON, OUT_BANDS, OUT_FIT };

/* --fit: the serving parameters the fit rows give, each beside the rule
 * set's; 0 when they are the same (to the precision sizing.yaml states them
 * at), 1 when the rule set should take the fitted ones, 2 on an error. */
static int print_fit(dc_ruleset *rs, const cJSON *rows)
{
    struct dc_fit_value v[DC_CALIBRATION_FIT_PARAMS];
    size_t n = 0;
    double loss = NAN;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_calibration_fit(rs, rows, v, DC_CALIBRATION_FIT_PARAMS, &n, &loss, &err) != DC_OK) {
        fprintf(stderr, "calibrate: %s%s%s\n", err.where, err.where[0] != '\0' ? ": " : "",
                err.msg);
        return 2;
    }
    int status = 0;
    printf("# the serving parameters the serving fit rows give (Huber loss %.4f), each\n"
           "# beside the rule set's: rules/sizing.yaml and the catalog's mfu_factor\n",
           loss);
    for (size_t i = 0; i < n; i++) {
        bool same = fabs(v[i].value - v[i].start) < 1e-6 * fmax(1.0, fabs(v[i].start));
        printf("%s: %g%s\n", v[i].name, v[i].value, same ? "" : " (the rule set states another)");
        if (!same) {
            fprintf(stderr, "calibrate: %s: the fit gives %g, the rule set states %g\n", v[i].name,
                    v[i].value, v[i].start);
            status = 1;
        }
    }
    return status;
}

/* Evaluate every row into all[]; 0, 1 (a row outside the band) or 2 (a bad
 * row). *n: the rows evaluated. */
static int eval_rows(const dc_ruleset *rs, const cJSON *rows, struct dc_calibration_row *all,
                     size_t *n)
{
    int status = 0;
    size_t i = 0;
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        struct dc_calibration_row r;
        struct dc_error err;
        dc_error_clear(&err);
        if (dc_calibration_eval(rs, row, &r, &err) != DC_OK) {
            fprintf(stderr, "calibrate: row %zu%s: %s\n", i, err.where, err.msg);
            *n = i;
            return 2;
        }
        if (!r.within && r.outlier == NULL) {
            fprintf(stderr, "calibrate: %s (%s): ratio %.2f is outside 1/%.1f..%.1f\n", r.id, r.run,
                    r.ratio, DC_CALIBRATION_LIMIT, DC_CALIBRATION_LIMIT);
            status = 1;
        }
        all[i++] = r;
    }
    *n = i;
    struct dc_error err;
    dc_error_clear(&err);
    if (dc_calibration_check_split(all, i, &err) != DC_OK) {
        fprintf(stderr, "calibrate: %s\n", err.msg);
        status = status == 0 ? 1 : status;
    }
    return status;
}

static int print_json(const struct dc_calibration_row *all, size_t n)
{
    cJSON *out = cJSON_CreateArray();
    if (out == NULL)
        return 2;
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(out, row_json(&all[i]));
    char *text = cJSON_PrintUnformatted(out);
    cJSON_Delete(out);
    if (text == NULL)
        return 2;
    printf("%s\n", text);
    free(text);
    return 0;
}

static int run_rows(const dc_ruleset *rs, const cJSON *rows, enum calibrate_output o)
{
    size_t n = (size_t)cJSON_GetArraySize(rows);
    if (n > DC_CALIBRATION_MAX_ROWS) {
        fprintf(stderr, "calibrate: more than %d rows\n", DC_CALIBRATION_MAX_ROWS);
        return 2;
    }
    struct dc_calibration_row *all = calloc(n + 1, sizeof(*all));
    if (all == NULL)
        return 2;
    int status = eval_rows(rs, rows, all, &n);
    if (status != 2) {
        if (o == OUT_JSON) {
            status = print_json(all, n) != 0 ? 2 : status;
        } else if (o == OUT_BANDS) {
            print_bands(all, n);
        } else {
            printf("| id | published run | chips | measured | estimate | ratio | regime | split | "
                   "source |\n|---|---|---|---|---|---|---|---|---|\n");
            for (size_t i = 0; i < n; i++)
                print_markdown(&all[i]);
            print_accuracy(all, n);
            print_coverage(rs, all, n);
            print_evidence(all, n);
        }
    }
    free(all);
    return status;
}

/* ---- calibrate import-mlperf ------------------------------------------------------ */

/* An MLPerf summary_results.json is about 2 MB a round. */
#define IMPORT_MAX_BYTES (64u << 20)

static void import_help(FILE *fp)
{
    fprintf(fp, "usage: accel-advisor calibrate import-mlperf [--rules DIR] [--prefix ID]\n"
                "                                             [--into FILE] SUMMARY\n\n"
                "Turns an MLPerf Inference results summary (summary_results.json of a results\n"
                "repository, e.g. github.com/mlcommons/inference_results_v5.1) into calibration\n"
                "rows: the Offline results of SDXL, Whisper, Llama 2 70B and DLRMv2 on catalog\n"
                "parts, each with its workload, measure, source and evidence. Prints the new rows\n"
                "as a JSON array to append to the calibration file; a result missing a field, or\n"
                "whose Performance_Units are not the benchmark's, is named on stderr by its JSON\n"
                "Pointer and left out (docs/calibration.md, \"Importing MLPerf results\").\n\n"
                "  --rules DIR    use the rule set in DIR instead of the embedded default\n"
                "  --prefix ID    row ids ID1, ID2, ... (capital letters; default M)\n"
                "  --into FILE    the calibration file the rows join: each new row takes the\n"
                "                 split the rule gives it there, and the rows of FILE whose\n"
                "                 split the new rows change are named on stderr\n"
                "  -h, --help     this help\n\n"
                "exit status: 0 every result read, 1 some results malformed (the others\n"
                "printed), 2 usage, I/O, rule set or summary error\n");
}

/* Evaluates every row of `rows` into all[*i...]; false with err set at the first bad one. */
static bool eval_into(const dc_ruleset *rs, const cJSON *rows, struct dc_calibration_row *all,
                      size_t *i, struct dc_error *err)
{
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        if (dc_calibration_eval(rs, row, &all[(*i)++], err) != DC_OK)
            return false;
    }
    return true;
}

/* Each new row's split as the rule gives it among `into`'s rows and the new
 * ones; the rows of `into` that change sides are named on stderr. */
static int place_rows(const dc_ruleset *rs, const cJSON *into, cJSON *rows)
{
    size_t n_into = (size_t)cJSON_GetArraySize(into);
    size_t n = n_into + (size_t)cJSON_GetArraySize(rows);
    struct dc_calibration_row *all = calloc(n + 1, sizeof(*all));
    bool *held = calloc(n + 1, sizeof(*held));
    struct dc_error err;
    dc_error_clear(&err);
    size_t i = 0;
    bool ok = all != NULL && held != NULL;
    if (!ok)
        dc_error_set(&err, DC_ENOMEM, NULL, "out of memory");
    ok = ok && eval_into(rs, into, all, &i, &err) && eval_into(rs, rows, all, &i, &err) &&
         dc_calibration_rule_split(all, n, held, &err) == DC_OK;
    if (!ok)
        fprintf(stderr, "calibrate: %s%s%s\n", err.where, err.where[0] != '\0' ? ": " : "",
                err.msg);
    for (size_t k = 0; ok && k < n_into; k++)
        if (all[k].held_out != held[k])
            fprintf(stderr, "calibrate: row %s moves to the %s split\n", all[k].id,
                    held[k] ? "held-out" : "fit");
    i = n_into;
    cJSON *r = NULL;
    cJSON_ArrayForEach(r, rows)
    {
        if (ok)
            cJSON_ReplaceItemInObjectCaseSensitive(
                r, "split", cJSON_CreateString(held[i++] ? "held-out" : "fit"));
    }
    free(all);
    free(held);
    return ok ? 0 : 2;
}

/* The rows as the calibration file writes them: two spaces an indent. */
static int print_rows(const cJSON *rows)
{
    char *text = cJSON_Print(rows);
    if (text == NULL)
        return 2;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\t')
            fputs("  ", stdout);
        else
            fputc(*p, stdout);
    }
    fputc('\n', stdout);
    cJSON_free(text);
    return 0;
}

/* Reads FILE (at most `max` bytes) as JSON: NULL with the reason on stderr. */
static cJSON *read_json(const char *path, size_t max)
{
    char *text = NULL;
    size_t len = 0;
    struct dc_error err;
    if (svc_read_input(path, max, &text, &len, &err) != DC_OK) {
        fprintf(stderr, "calibrate: %s\n", err.msg);
        return NULL;
    }
    cJSON *j = cJSON_ParseWithLength(text, len);
    free(text);
    if (j == NULL)
        fprintf(stderr, "calibrate: %s: not JSON\n", path);
    return j;
}

static int import_run(const dc_ruleset *rs, const char *summary_path, const char *into_path,
                      const char *prefix)
{
    cJSON *summary = read_json(summary_path, IMPORT_MAX_BYTES);
    cJSON *into = into_path != NULL ? read_json(into_path, SVC_MAX_INPUT_BYTES) : NULL;
    cJSON *rows = cJSON_CreateArray(), *problems = cJSON_CreateArray();
    struct dc_mlperf_counts c = {0, 0, 0};
    struct dc_error err;
    dc_error_clear(&err);
    int status = 2;
    if (summary == NULL || (into_path != NULL && !cJSON_IsArray(into)) || rows == NULL ||
        problems == NULL) {
        if (into_path != NULL && into != NULL && !cJSON_IsArray(into))
            fprintf(stderr, "calibrate: %s: not a JSON array of calibration rows\n", into_path);
    } else if (dc_calibration_import_mlperf(rs, summary, prefix, rows, problems, &c, &err) !=
               DC_OK) {
        fprintf(stderr, "calibrate: %s%s: %s\n", summary_path, err.where, err.msg);
    } else if ((status = into != NULL ? place_rows(rs, into, rows) : 0) == 0) {
        const cJSON *p = NULL;
        cJSON_ArrayForEach(p, problems)
        {
            fprintf(stderr, "calibrate: %s: %s\n", summary_path, p->valuestring);
        }
        fprintf(stderr, "calibrate: %zu rows imported, %zu results skipped, %zu malformed\n",
                c.imported, c.skipped, c.malformed);
        status = print_rows(rows) != 0 ? 2 : (c.malformed > 0 ? 1 : 0);
    }
    cJSON_Delete(summary);
    cJSON_Delete(into);
    cJSON_Delete(rows);
    cJSON_Delete(problems);
    return status;
}

static const struct option import_options[] = {{"rules", required_argument, NULL, 'r'},
                                               {"prefix", required_argument, NULL, 'p'},
                                               {"into", required_argument, NULL, 'i'},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};

static int cmd_import_mlperf(int argc, char **argv)
{
    const char *rules = NULL, *into = NULL, *prefix = "M";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", import_options, NULL)) != -1) {
        if (c == 'r')
            rules = optarg;
        else if (c == 'p')
            prefix = optarg;
        else if (c == 'i')
            into = optarg;
        else {
            import_help(c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind != argc - 1) {
        import_help(stderr);
        return 2;
    }
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    int status = 2;
    if (svc_ruleset_load(rules, &rs, &diags) != DC_OK) {
        fprintf(stderr, "calibrate: the rule set %s does not load:\n",
                rules != NULL ? rules : "(embedded)");
        svc_print_diags(stderr, &diags);
    } else {
        status = import_run(rs, argv[optind], into, prefix);
    }
    if (fflush(stdout) != 0)
        status = 2;
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return status;
}

const struct option cmd_calibrate_options[] = {
    {"rules", required_argument, NULL, 'r'}, {"format", required_argument, NULL, 'f'},
    {"bands", no_argument, NULL, 'b'},       {"fit", no_argument, NULL, 'F'},
    {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};

int cmd_calibrate(int argc, char **argv)
{
    const char *rules = NULL;
    enum calibrate_output out = OUT_MARKDOWN;
    bool bands = false, fit = false;
    int c;
    if (argc > 1 && strcmp(argv[1], "import-mlperf") == 0)
        return cmd_import_mlperf(argc - 1, argv + 1);
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", cmd_calibrate_options, NULL)) != -1) {
        switch (c) {
        case 'r':
            rules = optarg;
            break;
        case 'f':
        case 'o':
            if (strcmp(optarg, "json") != 0 && strcmp(optarg, "markdown") != 0) {
                fprintf(stderr, "calibrate: --format must be markdown or json\n");
                return 2;
            }
            out = optarg[0] == 'j' ? OUT_JSON : OUT_MARKDOWN;
            break;
        case 'b':
            bands = true;
            break;
        case 'F':
            fit = true;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            if (!svc_suggest_option("calibrate", argc, argv, cmd_calibrate_options))
                help(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        help(stderr);
        return 2;
    }
    int status = 2;
    char *text = NULL;
    size_t len = 0;
    cJSON *rows = NULL;
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    struct dc_error rerr;
    if (svc_read_input(argv[optind], SVC_MAX_INPUT_BYTES, &text, &len, &rerr) != DC_OK) {
        fprintf(stderr, "calibrate: %s\n", rerr.msg);
        goto out;
    }
    rows = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsArray(rows)) {
        fprintf(stderr, "calibrate: %s: not a JSON array of calibration rows\n", argv[optind]);
        goto out;
    }
    if (svc_ruleset_load(rules, &rs, &diags) != DC_OK) {
        fprintf(stderr, "calibrate: the rule set %s does not load:\n",
                rules != NULL ? rules : "(embedded)");
        svc_print_diags(stderr, &diags);
        goto out;
    }
    status = fit ? print_fit(rs, rows) : run_rows(rs, rows, bands ? OUT_BANDS : out);
    if (fflush(stdout) != 0)
        status = 2;
out:
    cJSON_Delete(rows);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    free(text);
    return status;
}
