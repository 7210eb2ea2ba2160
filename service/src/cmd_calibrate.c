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

static void help(FILE *fp)
{
    fprintf(fp,
            "usage: accel-advisor calibrate [--rules DIR] [--format markdown|json] FILE\n\n"
            "Sizes every published run in FILE (a JSON array of calibration rows, as\n"
            "tests/fixtures/calibration.json) on its accelerator at its chip count and\n"
            "compares the estimate with what was measured. The ratio is estimated time over\n"
            "measured time (throughputs: measured over estimated); rows must stay within\n"
            "%.1fx either way unless they carry an `outlier` explanation.\n\n"
            "  --rules DIR      use the rule set in DIR instead of the embedded default\n"
            "  --format FORMAT  markdown (default: the table of docs/calibration.md) or json\n"
            "  -h, --help       this help\n\n"
            "exit status: 0 every row within the band, 1 a row outside it, 2 usage, I/O,\n"
            "rule set or row error\n",
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
    printf("| %s | %s | %u x %s | %s %s | %s | %.2f%s | %s |\n", r->id, r->run, r->chips,
           r->accelerator, human(r->measured, m, sizeof(m)), r->unit,
           human(r->estimate, e, sizeof(e)), r->ratio, r->outlier != NULL ? " (outlier)" : "",
           r->source);
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

/* Evaluate every row; 0, 1 (a row outside the band) or 2 (a bad row). */
static int run_rows(const dc_ruleset *rs, const cJSON *rows, bool json)
{
    int status = 0;
    cJSON *out = json ? cJSON_CreateArray() : NULL;
    if (json && out == NULL)
        return 2;
    if (!json)
        printf("| id | published run | chips | measured | estimate | ratio | source |\n"
               "|---|---|---|---|---|---|---|\n");
    size_t i = 0, n = (size_t)cJSON_GetArraySize(rows);
    struct dc_calibration_row *all = calloc(n + 1, sizeof(*all));
    if (all == NULL) {
        cJSON_Delete(out);
        return 2;
    }
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        struct dc_calibration_row r;
        struct dc_error err;
        dc_error_clear(&err);
        if (dc_calibration_eval(rs, row, &r, &err) != DC_OK) {
            fprintf(stderr, "calibrate: row %zu%s: %s\n", i, err.where, err.msg);
            status = 2;
            break;
        }
        if (!r.within && r.outlier == NULL) {
            fprintf(stderr, "calibrate: %s (%s): ratio %.2f is outside 1/%.1f..%.1f\n", r.id, r.run,
                    r.ratio, DC_CALIBRATION_LIMIT, DC_CALIBRATION_LIMIT);
            status = 1;
        }
        if (json)
            cJSON_AddItemToArray(out, row_json(&r));
        else
            print_markdown(&r);
        all[i++] = r;
    }
    if (!json && status != 2)
        print_evidence(all, i);
    free(all);
    if (json && status != 2) {
        char *text = cJSON_PrintUnformatted(out);
        if (text == NULL)
            status = 2;
        else
            printf("%s\n", text);
        free(text);
    }
    cJSON_Delete(out);
    return status;
}

const struct option cmd_calibrate_options[] = {{"rules", required_argument, NULL, 'r'},
                                               {"format", required_argument, NULL, 'f'},
                                               {"help", no_argument, NULL, 'h'},
                                               {NULL, 0, NULL, 0}};

int cmd_calibrate(int argc, char **argv)
{
    const char *rules = NULL;
    bool json = false;
    int c;
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
            json = optarg[0] == 'j';
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
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
    char why[512];
    if (svc_read_input(argv[optind], SVC_MAX_INPUT_BYTES, &text, &len, why, sizeof(why)) != 0) {
        fprintf(stderr, "calibrate: %s\n", why);
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
    status = run_rows(rs, rows, json);
    if (fflush(stdout) != 0)
        status = 2;
out:
    cJSON_Delete(rows);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    free(text);
    return status;
}
