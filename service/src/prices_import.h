/* service/src/prices_import.h -- reading public price catalogs into
 * prices.yaml offers for `accel-advisor prices import` (service/src/cmd_prices.c):
 * SkyPilot's catalog CSVs (prices_import.c), the AWS Price List API's EC2
 * offer file (prices_aws.c), Azure's Retail Prices API export
 * (prices_azure.c) and Google's Cloud Billing catalog as Cyclenerd's
 * pricing.yml mirrors it (prices_gcp.c), with the table that maps their accelerator names
 * to catalog ids (data/accelerator-names.csv, compiled in), and the check of
 * the written document by the core loader itself (prices_validate.c). Part of
 * the price-data work (issues 18, 31 and 35). Every input is hostile: a row
 * the import cannot carry over exactly is reported with its file, line and
 * reason, never cut, wrapped or guessed. */
#ifndef SVC_PRICES_IMPORT_H
#define SVC_PRICES_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dc/ruleset.h"

/* Largest catalog file one import reads: SkyPilot's AWS CSV is 2.5 MB; AWS's
 * whole us-east-1 EC2 offer file (480 MB) is cut down first (docs/rules-format.md). */
#define SVC_PRICES_IMPORT_MAX_BYTES (64u << 20)
/* Rows of the name table; offers one import writes: the loader's own limit, so
 * an import past it is refused (exit 1), never cut short. */
#define SVC_PRICES_MAP_MAX    500
#define SVC_PRICES_IMPORT_MAX DC_RULESET_MAX_OFFERS
/* Longest region and instance type carried over (bytes); a longer one is
 * refused with its row, never cut. */
#define SVC_PRICES_REGION_MAX   63
#define SVC_PRICES_INSTANCE_MAX 95
/* Most fields in a CSV row, and most accelerators one instance may hold (the
 * loader's bound on "accelerators"). */
#define SVC_PRICES_CSV_FIELDS 64
#define SVC_PRICES_COUNT_MAX  1e6

enum svc_price_format { SVC_PRICES_SKYPILOT, SVC_PRICES_AWS, SVC_PRICES_AZURE, SVC_PRICES_GCP };

/* One row of the name table: in `format`, `name` is catalog part
 * `accelerator`; `count` accelerators per instance where the format does not
 * say it (azure), else 0. */
struct svc_price_name {
    enum svc_price_format format;
    char name[64];
    char accelerator[DC_ID_MAX + 1];
    unsigned count;
};

struct svc_price_map {
    struct svc_price_name rows[SVC_PRICES_MAP_MAX];
    size_t n;
};

/* What the operator states about the rows (SkyPilot's files carry no date,
 * source or provider). */
struct svc_import_opts {
    const char *provider; /* aws, gcp, azure, oci or neocloud */
    const char *cloud;    /* skypilot: the catalog's cloud (nebius, lambda, ...) */
    const char *prefix;   /* prepended to each region ("nebius "), or "" */
    const char *region;   /* keep only this region (as in the file); NULL: every region */
    const char *source;   /* the provider's pricing page */
    const char *via;      /* where the file came from; may be NULL */
    const char *as_of;    /* YYYY-MM[-DD]; aws: the file's publicationDate when NULL */
    const char *confidence;
};

/* One imported offer (per instance type and region). */
struct svc_import_offer {
    char accelerator[DC_ID_MAX + 1];
    char name[64]; /* the accelerator's name in the file, for conflict reports */
    char region[SVC_PRICES_REGION_MAX + 1];
    char instance_type[SVC_PRICES_INSTANCE_MAX + 1];
    unsigned accelerators;
    double vcpus, memory_gb;
    double price[DC_PRICING_COUNT]; /* per instance-hour; NAN when none */
    char as_of[11];
    char where[160]; /* the first row: "FILE:LINE" or "FILE: SKU X" */
    bool dropped;    /* refused (reported); not written */
};

struct svc_import {
    struct svc_import_offer *offers; /* SVC_PRICES_IMPORT_MAX of them */
    size_t n;
    uint32_t *slots; /* open-addressed (instance type, region) -> offer index + 1 */
    size_t unmapped; /* rows with an accelerator the name table does not know */
    size_t skipped;  /* rows without an accelerator, or of another OS, tenancy, region */
    size_t dropped;  /* rows refused, each reported with its reason */
    bool full;       /* more offers than SVC_PRICES_IMPORT_MAX */
};

bool svc_price_format_parse(const char *s, enum svc_price_format *out);

/* An empty import (offers and index allocated); false when out of memory. */
bool svc_import_init(struct svc_import *im);
void svc_import_free(struct svc_import *im);

/* Load the name table from `text` (CSV: format,name,accelerator[,count];
 * count required for azure; '#' starts a comment; `name` names it in
 * messages). DC_EPARSE (a bad row) with the
 * message in err->msg. */
DC_NODISCARD enum dc_status svc_price_map_parse(const char *name, const char *text,
                                                struct svc_price_map *map, struct dc_error *err);

/* The row of `name` in `format`, or NULL. */
const struct svc_price_name *svc_price_map_row(const struct svc_price_map *map,
                                               enum svc_price_format format, const char *name);

/* The catalog id `name` maps to in `format`, or NULL. */
const char *svc_price_map_find(const struct svc_price_map *map, enum svc_price_format format,
                               const char *name);

/* The next line of `*p` (ended by LF, CRLF or a lone CR), NUL-terminated in
 * place, or NULL at the end; `*p` moves past its end. */
char *svc_next_line(char **p);

/* Whether `s` may be carried into the document: valid UTF-8 without control
 * characters (C0, DEL, C1), which the YAML loader refuses. */
bool svc_import_text_ok(const char *s);

/* Add one row's offer to `im` (the formats' shared step): a row whose strings
 * cannot be carried over, whose count is out of range, or that conflicts with
 * an earlier row for the same instance type and region (another accelerator or
 * count) is reported on `report` as "WHERE: dropped: REASON" and counted.
 * The index of the offer it went into, or -1 (dropped, or past the limit:
 * im->full). */
long svc_import_add(struct svc_import *im, const struct svc_import_offer *row, FILE *report);

/* Add the offers of one file's text to `im`, reporting each unmapped or
 * dropped row on `report` ("FILE:LINE: ..."). Errors: DC_EPARSE when the file
 * is not of the format, with the message in err->msg. */
DC_NODISCARD enum dc_status svc_import_skypilot(const char *file, char *text,
                                                const struct svc_price_map *map,
                                                const struct svc_import_opts *o,
                                                struct svc_import *im, FILE *report,
                                                struct dc_error *err);
DC_NODISCARD enum dc_status svc_import_aws(const char *file, const char *text, size_t len,
                                           const struct svc_price_map *map,
                                           const struct svc_import_opts *o, struct svc_import *im,
                                           FILE *report, struct dc_error *err);

DC_NODISCARD enum dc_status svc_import_gcp(const char *file, char *text,
                                           const struct svc_price_map *map,
                                           const struct svc_import_opts *o, struct svc_import *im,
                                           FILE *report, struct dc_error *err);
DC_NODISCARD enum dc_status svc_import_azure(const char *file, const char *text, size_t len,
                                             const struct svc_price_map *map,
                                             const struct svc_import_opts *o, struct svc_import *im,
                                             FILE *report, struct dc_error *err);

/* A YAML double-quoted scalar of `s` (valid UTF-8): quotes, backslashes and
 * every control character escaped. */
void svc_yaml_put_str(FILE *fp, const char *s);

/* Write the offers not dropped as a prices.yaml document; the first line of
 * each offer is stored in lines[i] when lines is not NULL. DC_EIO when the
 * stream fails. */
DC_NODISCARD enum dc_status svc_import_write(FILE *fp, const struct svc_import *im,
                                             const struct svc_import_opts *o, unsigned *lines);

/* Check a prices.yaml document with the core loader, beside the other rule
 * files of `rules_dir` (NULL: the embedded ones). DC_OK when it loads; else
 * the loader's status, with every problem in `diags`. */
DC_NODISCARD enum dc_status svc_prices_validate(const char *rules_dir, const char *doc, size_t len,
                                                struct dc_diags *diags);

/* Write the import as a document the loader accepts: offers the loader
 * refuses are dropped (each reported with the loader's reason) and the rest
 * checked again. The document in *out (malloc'd) on DC_OK; DC_EVALIDATE when
 * no offer is left or the rest still does not load (reported). */
DC_NODISCARD enum dc_status svc_import_finish(struct svc_import *im,
                                              const struct svc_import_opts *o,
                                              const char *rules_dir, char **out, size_t *len,
                                              FILE *report);

#endif
