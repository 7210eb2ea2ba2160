/* service/src/output.c -- output formats of the CLI: names, JSON (compact or
 * indented by two spaces), YAML and -o jsonpath; the terminal's width. */
#include "output.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "api/jsonw.h"
#include "jsonpath.h"
#include "suggest.h"
#include "yaml_out.h"

/* As -o spells them; jsonpath takes its template after "=". */
static const char *const names[] = {"json", "yaml", "table", "wide", "name", "jsonpath"};
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
        int w = snprintf(buf + n, len - n, "%s%s%s", n > 0 ? sep : "", names[i],
                         i == SVC_OUTPUT_JSONPATH ? "=TEMPLATE" : "");
        if (w < 0 || (size_t)w >= len - n)
            return;
        n += (size_t)w;
    }
}

unsigned svc_output_columns(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = getenv("COLUMNS");
    char *end = NULL;
    unsigned long v = env != NULL ? strtoul(env, &end, 10) : 0;
    if (env != NULL && end != env && *end == '\0' && v >= 20 && v <= 10000)
        return (unsigned)v;
    return 80;
}

bool svc_output_pretty(const struct svc_output_opts *o)
{
    return o->pretty || isatty(STDOUT_FILENO);
}

/* -o jsonpath=TEMPLATE: the template is compiled now, so that a mistake is a
 * usage error before any work. */
static bool parse_jsonpath(const char *cmd, const char *tmpl, struct svc_output_opts *o)
{
    struct dc_error err;
    svc_jsonpath *p = NULL;
    dc_error_clear(&err);
    if (tmpl[0] == '\0') {
        fprintf(stderr, "%s: -o jsonpath needs a template, as in -o jsonpath='{.a.b}'\n", cmd);
        return false;
    }
    if (svc_jsonpath_compile(tmpl, &p, &err) != DC_OK) {
        fprintf(stderr, "%s: -o %s\n", cmd, err.msg);
        return false;
    }
    svc_jsonpath_free(p);
    o->format = SVC_OUTPUT_JSONPATH;
    o->jsonpath = tmpl;
    return true;
}

bool svc_output_parse(const char *cmd, const char *arg, unsigned allowed, struct svc_output_opts *o)
{
    const bool paths = (allowed & SVC_OUTPUT_BIT(SVC_OUTPUT_JSONPATH)) != 0;
    if (paths && strncmp(arg, "jsonpath=", 9) == 0)
        return parse_jsonpath(cmd, arg + 9, o);
    if (paths && strcmp(arg, "jsonpath") == 0)
        return parse_jsonpath(cmd, "", o);
    const char *known[N_FORMATS];
    size_t n = 0;
    for (size_t i = 0; i < N_FORMATS; i++) {
        if ((allowed & SVC_OUTPUT_BIT(i)) == 0)
            continue;
        if (strcmp(arg, names[i]) == 0) {
            o->format = (enum svc_output)i;
            return true;
        }
        known[n++] = names[i];
    }
    char list[128];
    svc_output_names(allowed, ", ", list, sizeof(list));
    /* "json, yaml, table" reads better as "json, yaml or table". */
    char *last = strrchr(list, ',');
    fprintf(stderr, "%s: -o must be %.*s%s%s\n", cmd,
            last != NULL ? (int)(last - list) : (int)strlen(list), list, last != NULL ? " or" : "",
            last != NULL ? last + 1 : "");
    const char *near = svc_suggest(arg, known, n);
    if (near != NULL)
        fprintf(stderr, "%s: did you mean -o %s?\n", cmd, near);
    return false;
}

bool svc_output_option(const char *cmd, int c, const char *arg, unsigned allowed,
                       struct svc_output_opts *o)
{
    if (c == 'p') {
        o->pretty = true;
        return true;
    }
    if (c == 'H') {
        o->no_headers = true;
        return true;
    }
    return svc_output_parse(cmd, arg, allowed, o);
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
        bool near =
            c != 'o' && c != 'p' && c != 'H' && svc_suggest_option(cmd, argc, argv, options);
        if ((c != 'o' && c != 'p' && c != 'H') || !svc_output_option(cmd, c, optarg, allowed, o)) {
            if (!near)
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

/* The fields -o jsonpath picks out of `doc`. */
static enum dc_status output_jsonpath(FILE *fp, const char *cmd, const cJSON *doc, const char *tmpl)
{
    struct dc_error err;
    svc_jsonpath *p = NULL;
    dc_error_clear(&err);
    enum dc_status rc = svc_jsonpath_compile(tmpl, &p, &err);
    if (rc == DC_OK)
        rc = svc_jsonpath_print(p, doc, fp, &err);
    svc_jsonpath_free(p);
    if (rc == DC_EINVAL || rc == DC_EPARSE)
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
    return rc == DC_EPARSE ? DC_EINVAL : rc;
}

enum dc_status svc_output_document(FILE *fp, const char *cmd, const cJSON *doc,
                                   const struct svc_output_opts *o)
{
    if (o->format == SVC_OUTPUT_YAML)
        return svc_yaml_write(fp, doc);
    if (o->format == SVC_OUTPUT_JSONPATH)
        return output_jsonpath(fp, cmd, doc, o->jsonpath);
    enum dc_status rc = DC_OK;
    bool pretty = svc_output_pretty(o);
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

enum dc_status svc_output_text(FILE *fp, const char *cmd, const char *text, size_t len,
                               const struct svc_output_opts *o)
{
    if (o->format == SVC_OUTPUT_JSON && !svc_output_pretty(o)) {
        fwrite(text, 1, len, fp);
        fputc('\n', fp);
        return ferror(fp) == 0 ? DC_OK : DC_EIO;
    }
    cJSON *doc = cJSON_ParseWithLength(text, len);
    enum dc_status rc = doc != NULL ? svc_output_document(fp, cmd, doc, o) : DC_EPARSE;
    cJSON_Delete(doc);
    return rc;
}
