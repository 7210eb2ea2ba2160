/* service/src/cmd_recommend.c -- `accel-advisor recommend FILE|-`: the body
 * POST /v1/recommendations would return (as JSON or YAML), or a table for
 * people, with what would change the answer when asked (--why-not). The
 * workload may be JSON or YAML; --model NAME names a model of the registry
 * (GET /v1/models) in it, or is the whole workload when no FILE is given. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/openapi.h"
#include "commands.h"
#include "dc/engine.h"
#include "document.h"
#include "http.h"
#include "inventory.h"
#include "output.h"
#include "rulesrc.h"
#include "suggest.h"
#include "dc/explain.h"

const struct option cmd_recommend_options[] = {{"rules", required_argument, NULL, 'r'},
                                               {"model", required_argument, NULL, 'm'},
                                               SVC_OUTPUT_OPTIONS,
                                               {"prefer-available", no_argument, NULL, 'a'},
                                               {"why-not", no_argument, NULL, 'w'},
                                               {"probe", no_argument, NULL, 'b'},
                                               {"view", required_argument, NULL, 0x100},
                                               {"candidates", required_argument, NULL, 0x101},
                                               {"frontier", required_argument, NULL, 0x102},
                                               {"help", no_argument, NULL, 'h'},
                                               SVC_PROBE_OPTIONS,
                                               {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(
        fp,
        "usage: accel-advisor recommend [--rules DIR] [-o FORMAT] [--pretty] [--no-headers]\n"
        "                               [--why-not] [--probe [--prefer-available] [PROBE FLAGS]]\n"
        "                               [--view full|summary] [--candidates N]\n"
        "                               [--frontier true|false] [--model NAME] FILE|-\n"
        "       accel-advisor recommend [OPTIONS] --model NAME\n\n"
        "Reads one workload (JSON or YAML, at most 1 MiB), checks it against the\n"
        "Workload schema of the built-in contract exactly as the server does, and\n"
        "prints the recommendation. FILE is YAML when named *.yaml or *.yml, JSON when\n"
        "named *.json; otherwise (and for - , stdin) JSON when it starts with { and\n"
        "YAML else. YAML problems are reported as FILE:LINE: POINTER: message.\n\n"
        "  --rules DIR          use the rule set in DIR instead of the embedded default\n"
        "  --model NAME         the workload's model.name: a model of the registry\n"
        "                       (rules/models.yaml, GET /v1/models) by name or alias;\n"
        "                       the model fields FILE gives override the registry's.\n"
        "                       Without FILE the workload is that model served:\n"
        "                       {\"task\": \"inference\", \"model\": {\"name\": NAME}}\n"
        "  -o, --output FORMAT  json (default: the POST /v1/recommendations body, with\n"
        "                       a request_id made for this run), yaml (the same\n"
        "                       document), table (fits the terminal's width, or\n"
        "                       $COLUMNS, else 80), wide (every column), name (the\n"
        "                       candidates' ids, best first) or jsonpath=TEMPLATE\n"
        "                       (fields of the JSON as kubectl picks them, e.g.\n"
        "                       '{.recommendations[0].accelerator}'; docs/cli.md);\n"
        "                       --format is the same flag\n"
        "  --pretty             indent the JSON by two spaces (the default when\n"
        "                       stdout is a terminal)\n"
        "  --no-headers         table, wide: the candidates' rows alone\n"
        "  --view VIEW          json and yaml: full (default) or summary, the pick, the\n"
        "                       targets and the table's columns (?view= of the API)\n"
        "  --candidates N       json and yaml: at most N (1-1000) recommendations\n"
        "  --frontier BOOL      json and yaml: true or false, whether to include the\n"
        "                       cost-time frontier (default: with the full view only)\n"
        "  --why-not            what would change the answer: the changes to the\n"
        "                       workload that make each other candidate the top pick,\n"
        "                       and how robust the pick is to prices and MFU +/-30%%\n"
        "                       (the changes and robustness sections, as \"explain\" in\n"
        "                       the workload asks; docs/explanations.md)\n"
        "  --probe              probe this host first: every candidate gets its\n"
        "                       availability\n"
        "  --prefer-available   with --probe, a part whose configuration is free\n"
        "                       on this host counts availability_points in its\n"
        "                       favour (docs/scoring.md, section 7)\n" SVC_PROBE_OPTIONS_HELP
        "  -h, --help           this help\n\n"
        "exit status: 0 ok, 1 invalid workload, 2 usage, I/O or rule set error\n");
}

/* Check `text` as POST /v1/recommendations does (workload_check.h: strictly
 * against the contract's Workload schema, then read with the rule set `rs`);
 * every problem goes to stderr as
 * "recommend: NAME: POINTER: what" (JSON) or "recommend: NAME:LINE: POINTER:
 * what" (YAML). Returns 0 with *out owned by the caller, 1 when invalid, 2 on
 * an internal failure. */
static int check_workload(const dc_ruleset *rs, const char *name, const char *text, size_t len,
                          const struct svc_document_edit *edit, cJSON **out)
{
    struct dc_error err;
    dc_error_clear(&err);
    api_contract *contract = NULL;
    if (api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK) {
        fprintf(stderr, "recommend: the built-in contract does not load: %s\n", err.msg);
        return 2;
    }
    enum svc_syntax syntax = svc_document_syntax(name, text, len);
    char prefix[600] = "recommend: ";
    if (syntax == SVC_SYNTAX_JSON)
        snprintf(prefix, sizeof(prefix), "recommend: %s: ", name);
    int status = svc_check_edited_document(api_contract_workload_schema(contract), rs, name, syntax,
                                           text, len, 0, stderr, prefix, edit, out);
    api_contract_free(contract);
    return status;
}

/* --model NAME: model.name set in the workload `doc` (over any the file
 * gives), checked by the schema like a name written in the file. */
static bool set_model_name(cJSON *doc, void *name)
{
    if (!cJSON_IsObject(doc))
        return true; /* the schema says what is wrong */
    cJSON *model = cJSON_GetObjectItemCaseSensitive(doc, "model");
    if (model == NULL && (model = cJSON_AddObjectToObject(doc, "model")) == NULL)
        return false;
    if (!cJSON_IsObject(model))
        return true;
    cJSON *item = cJSON_CreateString(name);
    if (item == NULL)
        return false;
    if (cJSON_GetObjectItemCaseSensitive(model, "name") != NULL)
        return cJSON_ReplaceItemInObjectCaseSensitive(model, "name", item);
    return cJSON_AddItemToObject(model, "name", item);
}

/* --view, --candidates and --frontier (the query parameters of POST
 * /v1/recommendations, openapi.yaml) into *v; false with a message on a bad value. */
static bool view_option(int c, const char *arg, struct api_view *v)
{
    char *end = NULL;
    if (c == 0x100 && (strcmp(arg, "full") == 0 || strcmp(arg, "summary") == 0)) {
        v->summary = strcmp(arg, "summary") == 0;
        return true;
    }
    if (c == 0x101) {
        unsigned long n = strtoul(arg, &end, 10);
        if (arg[0] >= '0' && arg[0] <= '9' && *end == '\0' && n >= 1 && n <= 1000) {
            v->candidates = n;
            return true;
        }
    }
    if (c == 0x102 && (strcmp(arg, "true") == 0 || strcmp(arg, "false") == 0)) {
        v->frontier = strcmp(arg, "true") == 0 ? API_FRONTIER_ON : API_FRONTIER_OFF;
        return true;
    }
    static const char *const want[] = {"full or summary", "a whole number from 1 to 1000",
                                       "true or false"};
    static const char *const name[] = {"view", "candidates", "frontier"};
    fprintf(stderr, "recommend: --%s %s: must be %s\n", name[c - 0x100], arg, want[c - 0x100]);
    return false;
}

/* The result and its explanation `e` (NULL: none) as *o asks: the server's
 * body (JSON, YAML or fields of it), the table that fits the terminal, the
 * wide table, or the candidates' ids best first (-o name). Returns the exit
 * status: 0, 2 after a message when -o jsonpath selects what is not there or
 * the output cannot be written. `v`: what of the body (--view, --candidates,
 * --frontier). */
static int print_result(const struct dc_result *res, const struct dc_explanation *e,
                        const struct svc_output_opts *o, const struct api_view *v)
{
    if (o->format == SVC_OUTPUT_TABLE || o->format == SVC_OUTPUT_WIDE) {
        const struct api_table_opts t = {o->format == SVC_OUTPUT_WIDE, o->no_headers,
                                         svc_output_columns()};
        api_result_print_table_opts(res, stdout, &t);
        if (!o->no_headers)
            api_explanation_print_table_width(e, stdout, t.wide ? 0 : t.columns);
        return 0;
    }
    if (o->format == SVC_OUTPUT_NAME) {
        for (size_t i = 0; i < res->n_recommendations; i++)
            printf("%s\n", res->recommendations[i].acc->id);
        return 0;
    }
    /* The very bytes the server sends, or the same document indented or as YAML. */
    size_t len = 0;
    char *text = api_result_render_view(res, e, v, &len);
    enum dc_status rc =
        text != NULL ? svc_output_text(stdout, "recommend", text, len, o) : DC_ENOMEM;
    free(text);
    if (rc != DC_OK && rc != DC_EINVAL) /* DC_EINVAL: the template's miss, said */
        fprintf(stderr, "recommend: cannot write the result\n");
    return rc == DC_OK ? 0 : 2;
}

/* What the command line asks of a run. */
struct recommend_args {
    struct svc_probe_settings ps;
    bool probe;   /* --probe */
    bool prefer;  /* --prefer-available */
    bool why_not; /* --why-not */
    const char *rules;
    const char *file; /* the workload; NULL with --model alone */
    struct svc_document_edit model;
    struct svc_output_opts output;
    struct api_view view;
};

/* Reads argv into *a. Returns -1 when the run goes on, otherwise its exit
 * status: 0 after --help, 2 after a message. */
static int parse_args(int argc, char **argv, struct recommend_args *a)
{
    *a = (struct recommend_args){.output = {SVC_OUTPUT_JSON, false, false, NULL},
                                 .view = {false, 0, API_FRONTIER_DEFAULT}};
    svc_probe_settings_init(&a->ps);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", cmd_recommend_options, NULL)) != -1) {
        if (svc_probe_settings_option(&a->ps, c, optarg))
            continue;
        switch (c) {
        case 'b':
            a->probe = true;
            break;
        case 'r':
            a->rules = optarg;
            break;
        case 'm':
            a->model = (struct svc_document_edit){set_model_name, optarg};
            break;
        case 'o':
        case 'p':
        case 'H':
            if (!svc_output_option("recommend", c, optarg, SVC_OUTPUT_NAMED, &a->output))
                return 2;
            break;
        case 'a':
            a->prefer = true;
            break;
        case 'w':
            a->why_not = true;
            break;
        case 0x100:
        case 0x101:
        case 0x102:
            if (!view_option(c, optarg, &a->view))
                return 2;
            break;
        case 'h':
            help(stdout);
            return 0;
        default:
            if (!svc_suggest_option("recommend", argc, argv, cmd_recommend_options))
                help(stderr);
            return 2;
        }
    }
    /* --model alone: that model served, every other field at its default. */
    if (optind != argc - 1 && !(optind == argc && a->model.apply != NULL)) {
        help(stderr);
        return 2;
    }
    a->file = optind == argc - 1 ? argv[optind] : NULL;
    if (a->prefer && !a->probe) {
        fprintf(stderr, "recommend: --prefer-available needs --probe\n");
        return 2;
    }
    return -1;
}

/* The decision of a checked `workload` under `rs`, with this host's
 * availability when a->probe, explained as the server explains it and printed
 * as a->output asks. Returns the exit status: 0, 1 when the core refuses the
 * workload, 2 on any other failure (after a message). */
static int decide_and_print(const struct recommend_args *a, const char *file, const dc_ruleset *rs,
                            const cJSON *workload)
{
    int status = 2;
    struct dc_result *res = NULL;
    struct dc_explanation *expl = NULL;
    const struct probe_snapshot *snap = NULL;
    struct dc_availability *avail = NULL;
    size_t n_avail = 0;
    struct dc_error err;
    dc_error_clear(&err);
    if (a->probe) {
        if (svc_inventory_probe_once(rs, &a->ps, &snap, &err) != DC_OK) {
            fprintf(stderr, "recommend: probe: %s\n", err.msg);
            goto out;
        }
        if (svc_inventory_availability(rs, snap, &avail, &n_avail) != DC_OK) {
            fprintf(stderr, "recommend: out of memory\n");
            goto out;
        }
    }
    /* A run of the CLI is a request of its own: it gets an id as the server
     * would make one, so no document carries an empty request_id. */
    char request_id[SVC_REQUEST_ID_GENERATED_LEN + 1];
    svc_request_id_generate(request_id);
    struct dc_recommend_opts ropts = {.prefer_available = a->prefer,
                                      .probe_enabled = a->probe,
                                      .availability = avail,
                                      .n_availability = n_avail,
                                      .request_id = request_id};
    enum dc_status rc = dc_recommend(rs, workload, &ropts, &res, &err);
    if (rc == DC_EINVAL) {
        fprintf(stderr, "recommend: %s: %s: %s\n", file, err.where[0] != '\0' ? err.where : "/",
                err.msg);
        status = 1;
        goto out;
    }
    if (rc != DC_OK) {
        fprintf(stderr, "recommend: %s\n", err.msg);
        goto out;
    }
    /* The same explanations the server computes, without its wall-clock cap:
     * the evaluation budget alone keeps a run of the CLI reproducible. */
    struct dc_explain_opts eopts = {
        res->workload.explain | (a->why_not ? DC_EXPLAIN_CHANGES | DC_EXPLAIN_ROBUSTNESS : 0u), 0,
        0};
    if (eopts.kinds != 0 && dc_explain(rs, workload, &ropts, res, &eopts, &expl, &err) != DC_OK) {
        fprintf(stderr, "recommend: %s\n", err.msg);
        goto out;
    }
    if (print_result(res, expl, &a->output, &a->view) != 0)
        goto out;
    status = fflush(stdout) == 0 ? 0 : 2;
out:
    dc_explanation_free(expl);
    dc_result_free(res);
    free(avail);
    probe_snapshot_release(snap);
    return status;
}

int cmd_recommend(int argc, char **argv)
{
    struct recommend_args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    status = 2;
    const char *file = a.file != NULL ? a.file : "--model";
    char *text = NULL;
    size_t len = 0;
    cJSON *workload = NULL;
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    struct dc_error rerr;
    if (a.file == NULL) {
        text = strdup("{\"task\":\"inference\"}");
        len = text != NULL ? strlen(text) : 0;
    } else if (svc_read_input(file, SVC_MAX_INPUT_BYTES, &text, &len, &rerr) != DC_OK) {
        fprintf(stderr, "recommend: %s\n", rerr.msg);
        goto out;
    }
    if (svc_ruleset_load(a.rules, &rs, &diags) != DC_OK) {
        fprintf(stderr, "recommend: the rule set %s does not load:\n",
                a.rules != NULL ? a.rules : "(embedded)");
        svc_print_diags(stderr, &diags);
        goto out;
    }
    if (text == NULL) {
        fprintf(stderr, "recommend: out of memory\n");
        goto out;
    }
    status = check_workload(rs, file, text, len, &a.model, &workload);
    if (status == 0)
        status = decide_and_print(&a, file, rs, workload);
out:
    cJSON_Delete(workload);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    free(text);
    return status;
}
