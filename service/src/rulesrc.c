/* service/src/rulesrc.c -- the embedded default rule set and bounded input reading. */
#include "rulesrc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dc/embedded.h"


enum dc_status svc_ruleset_load(const char *dir, dc_ruleset **out, struct dc_diags *diags)
{
    if (dir != NULL)
        return dc_ruleset_load_dir(dir, out, diags);
    return dc_ruleset_load_embedded(aa_embedded_files, out, diags);
}

void svc_print_diags(FILE *fp, const struct dc_diags *diags)
{
    char line[768];
    for (size_t i = 0; diags != NULL && i < diags->count; i++) {
        dc_diag_format(&diags->items[i], line, sizeof(line));
        fprintf(fp, "%s\n", line);
    }
    if (diags != NULL && diags->truncated)
        fprintf(fp, "(more problems not shown: limit of %d reached)\n", DC_RULESET_MAX_DIAGS);
}

int svc_read_input(const char *path, size_t max, char **out, size_t *len, char *why,
                   size_t whylen)
{
    *out = NULL;
    *len = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (fp == NULL) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(max + 2);
    if (buf == NULL) {
        if (!is_stdin)
            fclose(fp);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    size_t n = fread(buf, 1, max + 1, fp);
    bool err = ferror(fp) != 0;
    if (!is_stdin)
        fclose(fp);
    if (err || n > max) {
        free(buf);
        snprintf(why, whylen, err ? "%s: read error" : "%s: input is over the limit of %zu bytes",
                 path, max);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int svc_check_document(const api_schema *schema, const char *text, size_t len, unsigned depth,
                       FILE *fp, const char *prefix, cJSON **out)
{
    struct dc_error err;
    dc_error_clear(&err);
    cJSON *doc = NULL;
    struct api_schema_result vr = {0};
    int status = 2;
    enum api_json_error je = api_json_parse(text, len, depth, &doc, &err);
    if (je == API_JSON_NOMEM) {
        fprintf(fp, "%sout of memory\n", prefix);
        return 2;
    }
    if (je != API_JSON_OK) {
        fprintf(fp, "%s%s: %s: %s\n", prefix, err.where[0] != '\0' ? err.where : "/",
                api_json_error_name(je), err.msg);
        return 1;
    }
    if (api_schema_validate(schema, doc, API_VALIDATION_MAX_ERRORS, &vr, &err) != DC_OK) {
        fprintf(fp, "%scannot validate: %s\n", prefix, err.msg);
        goto out;
    }
    for (size_t i = 0; i < vr.count; i++)
        fprintf(fp, "%s%s: %s\n", prefix,
                vr.items[i].pointer[0] != '\0' ? vr.items[i].pointer : "/",
                vr.items[i].message);
    if (vr.truncated)
        fprintf(fp, "%s/: more than %d violations; the first %zu are listed\n", prefix,
                API_VALIDATION_MAX_ERRORS, vr.count);
    status = vr.valid ? 0 : 1;
    if (status == 0 && out != NULL) {
        *out = doc;
        doc = NULL;
    }
out:
    api_schema_result_cleanup(&vr);
    cJSON_Delete(doc);
    return status;
}
