/* service/src/cmd_validate.c -- `accel-advisor validate FILE|-`: check a workload
 * (JSON or YAML) against the contract's Workload schema (what
 * POST /v1/recommendations enforces), or any document against any JSON Schema
 * with --schema. */
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

const struct option cmd_validate_options[] = {{"schema", required_argument, NULL, 's'},
                                              {"max-depth", required_argument, NULL, 'd'},
                                              {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};

static void help(FILE *fp)
{
    fprintf(fp,
            "usage: accel-advisor validate [--schema SCHEMA] [--max-depth N] FILE|-\n\n"
            "Checks one JSON or YAML document (at most 1 MiB) against the Workload schema\n"
            "of the built-in openapi.yaml: exactly what POST /v1/recommendations accepts\n"
            "(strict JSON: UTF-8, no duplicate keys, nesting within the limit). Every\n"
            "violation is printed as \"POINTER: message\" (\"/\" is the whole document).\n"
            "FILE is YAML when named *.yaml or *.yml, JSON when named *.json; otherwise\n"
            "(and for -, stdin) JSON when it starts with { or [ and YAML else. YAML is read\n"
            "as rule files are (no aliases, anchors, tags or duplicate keys) and every\n"
            "problem is printed as \"FILE:LINE: POINTER: message\".\n\n"
            "  --schema SCHEMA  validate against this JSON Schema file (JSON, or YAML when\n"
            "                   named *.yaml/*.yml) instead\n"
            "  --max-depth N    nesting limit (default %d, as the server)\n"
            "  -h, --help       this help\n\n"
            "exit status: 0 valid, 1 invalid, 2 usage or I/O error (or a schema that does\n"
            "not compile)\n",
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

int cmd_validate(int argc, char **argv)
{
    const char *schema_path = NULL;
    unsigned depth = API_JSON_DEPTH_DEFAULT;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", cmd_validate_options, NULL)) != -1) {
        switch (c) {
        case 's':
            schema_path = optarg;
            break;
        case 'd': {
            char *end = NULL;
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end != '\0' || v < 1 || v > API_JSON_DEPTH_MAX) {
                fprintf(stderr, "validate: --max-depth must be 1 to %d\n", API_JSON_DEPTH_MAX);
                return 2;
            }
            depth = (unsigned)v;
            break;
        }
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
    const char *path = argv[optind];
    int status = 2;
    char *text = NULL;
    size_t len = 0;
    struct dc_error rerr;
    cJSON *schema_root = NULL;
    api_schema *schema = NULL;
    api_contract *contract = NULL;
    struct dc_error err;
    dc_error_clear(&err);

    if (schema_path != NULL) {
        status = load_schema(schema_path, &schema_root, &schema);
        if (status != 0)
            goto out;
        status = 2;
    } else if (api_contract_load_embedded(aa_embedded_files, &contract, &err) != DC_OK) {
        fprintf(stderr, "validate: the built-in contract does not load: %s\n", err.msg);
        goto out;
    }
    if (svc_read_input(path, SVC_MAX_INPUT_BYTES, &text, &len, &rerr) != DC_OK) {
        fprintf(stderr, "validate: %s\n", rerr.msg);
        goto out;
    }
    const api_schema *sch = schema != NULL ? schema : api_contract_workload_schema(contract);
    status = svc_check_document(sch, path, svc_document_syntax(path, text, len), text, len, depth,
                                stdout, "", NULL);
    if (fflush(stdout) != 0)
        status = 2;
out:
    api_schema_free(schema);
    cJSON_Delete(schema_root);
    api_contract_free(contract);
    free(text);
    return status;
}
