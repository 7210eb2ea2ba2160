/* service/src/output.c -- output formats of the CLI: names, JSON (compact or
 * indented by two spaces) and YAML. */
#include "output.h"

#include <stdlib.h>
#include <string.h>

#include "api/jsonw.h"
#include "yaml_out.h"

static const char *const names[] = {"json", "yaml", "table", "wide"};
#define N_FORMATS (sizeof(names) / sizeof(names[0]))

void svc_output_names(unsigned allowed, const char *sep, char *buf, size_t len)
{
    size_t n = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < N_FORMATS; i++) {
        if ((allowed & SVC_OUTPUT_BIT(i)) == 0)
            continue;
        int w = snprintf(buf + n, len - n, "%s%s", n > 0 ? sep : "", names[i]);
        if (w < 0 || (size_t)w >= len - n)
            return;
        n += (size_t)w;
    }
}

bool svc_output_parse(const char *cmd, const char *arg, unsigned allowed, enum svc_output *out)
{
    for (size_t i = 0; i < N_FORMATS; i++) {
        if ((allowed & SVC_OUTPUT_BIT(i)) != 0 && strcmp(arg, names[i]) == 0) {
            *out = (enum svc_output)i;
            return true;
        }
    }
    char list[64];
    svc_output_names(allowed, ", ", list, sizeof(list));
    /* "json, yaml, table" reads better as "json, yaml or table". */
    char *last = strrchr(list, ',');
    fprintf(stderr, "%s: -o must be %.*s%s%s\n", cmd,
            last != NULL ? (int)(last - list) : (int)strlen(list), list, last != NULL ? " or" : "",
            last != NULL ? last + 1 : "");
    return false;
}

bool svc_output_option(const char *cmd, int c, const char *arg, unsigned allowed,
                       struct svc_output_opts *o)
{
    if (c == 'p') {
        o->pretty = true;
        return true;
    }
    return svc_output_parse(cmd, arg, allowed, &o->format);
}

int svc_output_command_line(const char *cmd, int argc, char **argv, const struct option *options,
                            unsigned allowed, int max_args, void (*help)(FILE *),
                            struct svc_output_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        if (c == 'h') {
            help(stdout);
            return 0;
        }
        if ((c != 'o' && c != 'p') || !svc_output_option(cmd, c, optarg, allowed, o)) {
            help(stderr);
            return 2;
        }
    }
    if (argc - optind > max_args) {
        help(stderr);
        return 2;
    }
    return -1;
}

/* A scalar (or an empty container) as one line of JSON text. */
static bool json_scalar(FILE *fp, const cJSON *v)
{
    size_t n = 0;
    char *t = api_json_print(v, 64, &n);
    if (t == NULL)
        return false;
    fwrite(t, 1, n, fp);
    free(t);
    return true;
}

static bool json_key(FILE *fp, const char *key)
{
    struct api_jw w;
    size_t n = 0;
    api_jw_init(&w, 64);
    api_jw_string(&w, key);
    char *t = api_jw_finish(&w, &n);
    if (t == NULL)
        return false;
    fwrite(t, 1, n, fp);
    fputs(": ", fp);
    free(t);
    return true;
}

/* `v` indented by two spaces per level, its first line at the cursor. */
static bool json_pretty(FILE *fp, const cJSON *v, unsigned depth)
{
    bool array = cJSON_IsArray(v);
    if ((!array && !cJSON_IsObject(v)) || v->child == NULL)
        return json_scalar(fp, v);
    fputc(array ? '[' : '{', fp);
    bool ok = true;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, v)
    {
        fprintf(fp, "\n%*s", (int)(2 * (depth + 1)), "");
        ok = ok && (array || json_key(fp, it->string)) && json_pretty(fp, it, depth + 1);
        if (it->next != NULL)
            fputc(',', fp);
    }
    fprintf(fp, "\n%*s%c", (int)(2 * depth), "", array ? ']' : '}');
    return ok;
}

enum dc_status svc_output_document(FILE *fp, const cJSON *doc, enum svc_output fmt, bool pretty)
{
    if (fmt == SVC_OUTPUT_YAML)
        return svc_yaml_write(fp, doc);
    enum dc_status rc = DC_OK;
    if (pretty && !json_pretty(fp, doc, 0)) {
        rc = DC_EIO;
    } else if (!pretty) {
        size_t n = 0;
        char *t = api_json_print(doc, 0, &n);
        if (t == NULL)
            rc = DC_ENOMEM;
        else
            fwrite(t, 1, n, fp);
        free(t);
    }
    fputc('\n', fp);
    return rc == DC_OK && ferror(fp) != 0 ? DC_EIO : rc;
}

enum dc_status svc_output_text(FILE *fp, const char *text, size_t len, enum svc_output fmt,
                               bool pretty)
{
    if (fmt == SVC_OUTPUT_JSON && !pretty) {
        fwrite(text, 1, len, fp);
        fputc('\n', fp);
        return ferror(fp) == 0 ? DC_OK : DC_EIO;
    }
    cJSON *doc = cJSON_ParseWithLength(text, len);
    enum dc_status rc = doc != NULL ? svc_output_document(fp, doc, fmt, pretty) : DC_EPARSE;
    cJSON_Delete(doc);
    return rc;
}
