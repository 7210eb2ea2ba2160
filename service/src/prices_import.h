/* service/src/prices_import.h -- reading public price catalogs into
 * prices.yaml offers for `accel-advisor prices import` (service/src/cmd_prices.c):
 * SkyPilot's catalog CSVs and the AWS Price List API's EC2 offer file, with the
 * table that maps their accelerator names to catalog ids
 * (data/accelerator-names.csv). Part of the price-data work (issue 18). */
#ifndef SVC_PRICES_IMPORT_H
#define SVC_PRICES_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "dc/ruleset.h"

/* Largest catalog file one import reads: SkyPilot's AWS CSV is 2.5 MB; AWS's
 * whole us-east-1 EC2 offer file (480 MB) is cut down first (docs/rules-format.md). */
#define SVC_PRICES_IMPORT_MAX_BYTES (64u << 20)
/* Rows of the name table, and offers one import writes. */
#define SVC_PRICES_MAP_MAX    500
#define SVC_PRICES_IMPORT_MAX DC_RULESET_MAX_OFFERS

enum svc_price_format { SVC_PRICES_SKYPILOT, SVC_PRICES_AWS };

/* One row of the name table: in `format`, `name` is catalog part `accelerator`. */
struct svc_price_name {
    enum svc_price_format format;
    char name[64];
    char accelerator[DC_ID_MAX + 1];
};

struct svc_price_map {
    struct svc_price_name rows[SVC_PRICES_MAP_MAX];
    size_t n;
};

/* What the operator states about the rows (SkyPilot's files carry no date,
 * source or provider). */
struct svc_import_opts {
    const char *provider; /* required for skypilot; "aws" for aws */
    const char *region;   /* keep only this region; NULL: every region */
    const char *source;   /* the provider's pricing page */
    const char *via;      /* where the file came from; may be NULL */
    const char *as_of;    /* YYYY-MM[-DD]; aws: the file's publicationDate when NULL */
    const char *confidence;
};

/* One imported offer (per instance type and region). */
struct svc_import_offer {
    char accelerator[DC_ID_MAX + 1];
    char region[64];
    char instance_type[96];
    unsigned accelerators;
    double vcpus, memory_gb;
    double price[DC_PRICING_COUNT]; /* per instance-hour; NAN when none */
    char as_of[11];
};

struct svc_import {
    struct svc_import_offer *offers; /* SVC_PRICES_IMPORT_MAX of them */
    size_t n;
    size_t unmapped; /* rows with an accelerator the name table does not know */
    size_t skipped;  /* rows without an accelerator, or of another OS, tenancy, region */
};

bool svc_price_format_parse(const char *s, enum svc_price_format *out);

/* Load the name table from `path` (CSV: format,name,accelerator; '#' starts a
 * comment). Errors: DC_EIO (unreadable), DC_EPARSE (a bad row), with the
 * message in err->msg. */
DC_NODISCARD enum dc_status svc_price_map_load(const char *path, struct svc_price_map *map,
                                               struct dc_error *err);

/* The catalog id `name` maps to in `format`, or NULL. */
const char *svc_price_map_find(const struct svc_price_map *map, enum svc_price_format format,
                               const char *name);

/* Add the offers of one file's text to `im`, reporting each unmapped row on
 * `report` as "FILE:LINE: unmapped NAME (INSTANCE)". Errors: DC_EPARSE when
 * the file is not of the format, with the message in err->msg. */
DC_NODISCARD enum dc_status svc_import_skypilot(const char *file, char *text,
                                                const struct svc_price_map *map,
                                                const struct svc_import_opts *o,
                                                struct svc_import *im, FILE *report,
                                                struct dc_error *err);
DC_NODISCARD enum dc_status svc_import_aws(const char *file, const char *text,
                                           const struct svc_price_map *map,
                                           const struct svc_import_opts *o, struct svc_import *im,
                                           FILE *report, struct dc_error *err);

/* Write the offers as a prices.yaml document. */
void svc_import_write(FILE *fp, const struct svc_import *im, const struct svc_import_opts *o);

#endif
