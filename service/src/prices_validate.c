/* service/src/prices_validate.c -- the check of a prices.yaml document by the
 * core loader itself, beside the rest of a rule set, for `prices import` and
 * `prices merge` (service/src/prices_import.h): neither may ever write a
 * document the loader refuses (issue 35, item 7), so neither re-implements its
 * checks. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "dc/embedded.h"
#include "prices_import.h"
#include "rulesrc.h"

/* Largest rule file read here (the loader's own limit on one file). */
#define RULE_FILE_MAX (1u << 20)

static bool is_rule_file(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".yaml") == 0 &&
           strcmp(name, "prices.yaml") != 0;
}

/* The rule files of `dir` but prices.yaml, read into files[] (data malloc'd);
 * their number, or -1 (reported in diags) when one cannot be read. */
static long read_dir(const char *dir, struct dc_source_file *files, char **names,
                     struct dc_diags *diags)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    long n = 0;
    struct dc_error err;
    (void)diags;
    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL && n < DC_RULESET_MAX_FILES - 1) {
        if (!is_rule_file(de->d_name))
            continue;
        char path[4096];
        char *data = NULL;
        size_t len = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        names[n] = strdup(de->d_name);
        if (names[n] == NULL ||
            svc_read_regular_file(path, RULE_FILE_MAX, &data, &len, &err) != DC_OK) {
            free(names[n]);
            closedir(d);
            for (long i = 0; i < n; i++) {
                free((void *)(uintptr_t)files[i].data);
                free(names[i]);
            }
            return -1;
        }
        files[n] = (struct dc_source_file){names[n], data, len};
        n++;
    }
    closedir(d);
    return n;
}

enum dc_status svc_prices_validate(const char *rules_dir, const char *doc, size_t len,
                                   struct dc_diags *diags)
{
    struct dc_source_file files[DC_RULESET_MAX_FILES];
    char *names[DC_RULESET_MAX_FILES];
    long n = 0;
    if (rules_dir != NULL) {
        n = read_dir(rules_dir, files, names, diags);
        if (n < 0)
            return DC_EIO;
    } else {
        for (const struct aa_embedded_file *f = aa_embedded_files; f->name != NULL; f++) {
            if (strncmp(f->name, "rules/", 6) == 0 && is_rule_file(f->name + 6) &&
                n < DC_RULESET_MAX_FILES - 1)
                files[n++] = (struct dc_source_file){f->name + 6, f->data, f->len};
        }
    }
    files[n++] = (struct dc_source_file){"prices.yaml", doc, len};
    dc_ruleset *rs = NULL;
    enum dc_status st = dc_ruleset_load_files(files, (size_t)n, &rs, diags);
    dc_ruleset_release(rs);
    for (long i = 0; rules_dir != NULL && i < n - 1; i++) {
        free((void *)(uintptr_t)files[i].data);
        free(names[i]);
    }
    return st;
}

/* The import as a document in memory; lines[i] the first line of offer i. */
static enum dc_status render(const struct svc_import *im, const struct svc_import_opts *o,
                             unsigned *lines, char **out, size_t *len)
{
    FILE *fp = open_memstream(out, len);
    if (fp == NULL)
        return DC_ENOMEM;
    enum dc_status st = svc_import_write(fp, im, o, lines);
    if (fclose(fp) != 0 || st != DC_OK) {
        free(*out);
        *out = NULL;
        return DC_ENOMEM;
    }
    return DC_OK;
}

/* The offer whose lines hold `line`, or -1. */
static long offer_at(const struct svc_import *im, const unsigned *lines, unsigned line)
{
    long found = -1;
    for (size_t i = 0; i < im->n; i++) {
        if (!im->offers[i].dropped && lines[i] <= line && (found < 0 || lines[i] > lines[found]))
            found = (long)i;
    }
    return found;
}

/* Drop every offer a diagnostic points into; the number dropped, or -1 when
 * a diagnostic is about no offer (the document as a whole). */
static long drop_refused(struct svc_import *im, const unsigned *lines, const struct dc_diags *d,
                         FILE *report)
{
    long n = 0;
    for (size_t k = 0; k < d->count; k++) {
        const struct dc_diag *g = &d->items[k];
        long i =
            strcmp(g->file, "prices.yaml") == 0 && g->line > 2 ? offer_at(im, lines, g->line) : -1;
        if (i < 0)
            return -1;
        fprintf(report, "%s: dropped: %s\n", im->offers[i].where, g->msg);
        im->dropped++;
        im->offers[i].dropped = true;
        n++;
    }
    return n;
}

static size_t kept(const struct svc_import *im)
{
    size_t n = 0;
    for (size_t i = 0; i < im->n; i++)
        n += !im->offers[i].dropped;
    return n;
}

enum dc_status svc_import_finish(struct svc_import *im, const struct svc_import_opts *o,
                                 const char *rules_dir, char **out, size_t *len, FILE *report)
{
    unsigned *lines = calloc(im->n + 1, sizeof(*lines));
    enum dc_status st = lines != NULL ? DC_OK : DC_ENOMEM;
    *out = NULL;
    /* Twice at most: a document whose refused offers are left out loads,
     * unless the loader's complaint is about something else. */
    for (int pass = 0; st == DC_OK && pass < 2; pass++) {
        struct dc_diags d;
        dc_diags_init(&d);
        if (kept(im) == 0) {
            fprintf(report, "prices import: no offer to write\n");
            st = DC_EVALIDATE;
        } else if ((st = render(im, o, lines, out, len)) == DC_OK &&
                   (st = svc_prices_validate(rules_dir, *out, *len, &d)) != DC_OK) {
            if (st == DC_EIO || pass == 1 || d.truncated ||
                drop_refused(im, lines, &d, report) < 0) {
                svc_print_diags(report, &d);
                st = st == DC_EIO ? DC_EIO : DC_EVALIDATE;
                pass = 1;
            } else {
                st = DC_OK;
            }
            free(*out);
            *out = NULL;
        } else {
            pass = 1;
        }
        dc_diags_cleanup(&d);
    }
    free(lines);
    return st;
}
