/* service/src/cmd_validate.c -- `accel-advisor validate FILE|-`: check a workload
 * (JSON or YAML) exactly as POST /v1/recommendations does, by the server's own
 * code (workload_check.h: the contract's Workload schema, then the rules
 * between fields read with the rule set), or any document against any JSON
 * Schema with --schema. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/openapi.h"
#include "api/schema.h"
#include "commands.h"
#include "dc/embedded.h"
#include "dc/yaml.h"
#include "document.h"
#include "rulesrc.h"
#include "suggest.h"

const struct option cmd_validate_options[] = {
    {"schema", required_argument, NULL, 's'}, {"max-depth", required_argument, NULL, 'd'},
    {"rules", required_argument, NULL, 'r'},  {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp,
            "usage: accel-advisor validate [--rules DIR] [-q] [--max-depth N] FILE|-...\n"
            "       accel-advisor validate --schema SCHEMA [-q] [--max-depth N] FILE|-...\n\n"
            "Checks each workload (JSON or YAML, at most 1 MiB) with the server's own check\n"
            "of a POST /v1/recommendations body: strict JSON (UTF-8, no duplicate keys,\n"
            "nesting within the limit), the Workload schema of the built-in openapi.yaml,\n"
            "then the rules between fields that the schema cannot state (for example\n"
            "model.active_parameters at most model.parameters, a model name the registry\n"
            "knows), read with the rule set. What it passes the server accepts; what it\n"
            "refuses the server answers with a 400. Prints \"FILE: valid\" when valid;\n"
            "otherwise every violation as \"FILE: POINTER: message\" (\"/\" is the whole\n"
            "document). FILE is YAML when named *.yaml or *.yml, JSON when named *.json;\n"
            "otherwise (and for -, stdin) JSON when it starts with { or [ and YAML else.\n"
            "YAML is read as rule files are (no aliases, anchors, tags or duplicate keys)\n"
            "and every problem is printed as \"FILE:LINE: POINTER: message\".\n\n"
            "  --rules DIR      the rule set the server runs with (default: the embedded\n"
            "                   one): the model registry and defaults come from it\n"
            "  --schema SCHEMA  validate against this JSON Schema file (JSON, or YAML when\n"
            "                   named *.yaml/*.yml) instead, and nothing else\n"
            "  --max-depth N    nesting limit (default %d, as the server)\n"
            "  -q, --quiet      print nothing when valid\n"
            "  -h, --help       this help\n\n"
            "exit status: 0 every file valid, 1 one invalid, 2 usage or I/O error (or a\n"
            "schema that does not compile, or a rule set that does not load)\n",
            API_JSON_DEPTH_DEFAULT);
}

/* Load and compile a JSON Schema file. Returns 0, or prints why and returns 2. */
static int load_schema(const char *path, cJSON **root, api_schema **out)
{
    char *text = NULL;
    size_t len = 0;
    struct dc_error rerr;
    struct dc_error err;
    dc_error_clear(&err);
    *root = NULL;
    *out = NULL;
    if (svc_read_input(path, DC_YAML_MAX_BYTES, &text, &len, &rerr) != DC_OK) {
        fprintf(stderr, "validate: --schema %s\n", rerr.msg);
        return 2;
    }
    size_t pl = strlen(path);
    bool yaml = (pl > 5 && strcmp(path + pl - 5, ".yaml") == 0) ||
                (pl > 4 && strcmp(path + pl - 4, ".yml") == 0);
    if (yaml) {
        dc_yaml_doc *doc = NULL;
        if (dc_yaml_parse(text, len, path, &doc, &err) != DC_OK) {
            fprintf(stderr, "validate: --schema %s: %s\n", err.where, err.msg);
            free(text);
            return 2;
        }
        *root = dc_yaml_take_root(doc);
        dc_yaml_doc_free(doc);
    } else if (api_json_parse(text, len, API_JSON_DEPTH_MAX, root, &err) != API_JSON_OK) {
        fprintf(stderr, "validate: --schema %s: %s\n", path, err.msg);
        free(text);
        return 2;
    }
    free(text);
    if (api_schema_compile(*root, "#", out, &err) != DC_OK) {
        fprintf(stderr, "validate: --schema %s: %s%s%s\n", path, err.where,
                err.where[0] != '\0' ? ": " : "", err.msg);
        cJSON_Delete(*root);
        *root = NULL;
        return 2;
    }
    return 0;
}

/* The settings of one run. */
struct validate_opts {
    const char *schema_path, *rules;
    unsigned depth;
    bool quiet;
};

/* Parse the command line: -1 to run, else the exit status. */
static int parse_args(int argc, char **argv, struct validate_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hq", cmd_validate_options, NULL)) != -1) {
        switch (c) {
        case 's':
            o->schema_path = optarg;
            break;
        case 'r':
            o->rules = optarg;
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'd': {
            char *end = NULL;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end != '\0' || v < 1 || v > API_JSON_DEPTH_MAX) {
                fprintf(stderr, "validate: --max-depth must be 1 to %d\n", API_JSON_DEPTH_MAX);
                return 2;
            }
            o->depth = (unsigned)v;
            break;
        }
        case 'h':
            help(stdout);
            return 0;
        default:
            if (!svc_suggest_option("validate", argc, argv, cmd_validate_options))
                help(stderr);
            return 2;
        }
    }
    if (optind == argc || (o->schema_path != NULL && o->rules != NULL)) {
        if (o->schema_path != NULL && o->rules != NULL)
            fprintf(stderr, "validate: --schema checks against that schema alone; --rules is "
                            "for workloads\n");
        help(stderr);
        return 2;
    }
    return -1;
}

/* Check one file; its exit status (0, 1, or 2 when it cannot be read). */
static int validate_file(const char *path, const api_schema *sch, const dc_ruleset *rs,
                         const struct validate_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    struct dc_error rerr;
    if (svc_read_input(path, SVC_MAX_INPUT_BYTES, &text, &len, &rerr) != DC_OK) {
        fprintf(stderr, "validate: %s\n", rerr.msg);
        return 2;
    }
    enum svc_syntax syntax = svc_document_syntax(path, text, len);
    /* JSON problems are named by the file here; YAML's carry FILE:LINE already. */
    char prefix[600] = "";
    if (syntax == SVC_SYNTAX_JSON)
        snprintf(prefix, sizeof(prefix), "%s: ", path);
    int status =
        svc_check_document(sch, rs, path, syntax, text, len, o->depth, stdout, prefix, NULL);
    if (status == 0 && !o->quiet)
        printf("%s: valid\n", path);
    free(text);
    return status;
}

int cmd_validate(int argc, char **argv)
{
    struct validate_opts o = {NULL, NULL, API_JSON_DEPTH_DEFAULT, false};
    int usage = parse_args(argc, argv, &o);
    if (usage >= 0)
        return usage;
    int status = 2;
    cJSON *schema_root = NULL;
    api_schema *schema = NULL;
    api_contract *contract = NULL;
    dc_ruleset *rs = NULL;
    struct dc_diags diags;
    dc_diags_init(&diags);
    struct dc_error err;
    dc_error_clear(&err);

    if (o.schema_path != NULL) {
        status = load_schema(o.schema_path, &schema_root, &schema);
        if (status != 0)
            goto out;
    } else if (api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK) {
        fprintf(stderr, "validate: the built-in contract does not load: %s\n", err.msg);
        goto out;
    } else if (svc_ruleset_load(o.rules, &rs, &diags) != DC_OK) {
        fprintf(stderr, "validate: the rule set %s does not load:\n",
                o.rules != NULL ? o.rules : "(embedded)");
        svc_print_diags(stderr, &diags);
        goto out;
    }
    const api_schema *sch = schema != NULL ? schema : api_contract_workload_schema(contract);
    /* Every file is checked; the worst status is the command's. */
    status = 0;
    for (int i = optind; i < argc; i++) {
        int one = validate_file(argv[i], sch, rs, &o);
        status = one > status ? one : status;
    }
    if (fflush(stdout) != 0)
        status = 2;
out:
    api_schema_free(schema);
    cJSON_Delete(schema_root);
    api_contract_free(contract);
    dc_ruleset_release(rs);
    dc_diags_cleanup(&diags);
    return status;
}
