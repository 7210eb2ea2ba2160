/* service/src/prices_merge.h -- `accel-advisor prices merge`: fresh offers
 * (an import's output) into a prices.yaml in place (service/src/prices_merge.c).
 * The file is edited line by line, so its comments, sources, notes, offers the
 * import does not carry, reserved bases and the lists beside `prices:`
 * (unpriced, hardware, capacity) stay as they are byte for byte. Part of the
 * price-data work (issue 31). */
#ifndef SVC_PRICES_MERGE_H
#define SVC_PRICES_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "dc/common.h"

/* What a merge did. */
struct svc_merge_counts {
    size_t changed; /* prices replaced (a new price or date) */
    size_t added;   /* bases added to an offer */
    size_t offers;  /* offers added */
    size_t newer;   /* prices kept because the file's are newer than the import's */
    size_t absent;  /* offers of a provider and region imported that the import lacks */
    size_t skipped; /* prices that could not be edited in place (reported) */
};

/* Merge the documents `imports[0..n)` (named by `names`) into `target` (the
 * text of prices.yaml, named `target_name`). On DC_OK *out (malloc'd,
 * *out_len bytes) is the merged text and every change is reported on `report`,
 * one line each: "changed|added|new|kept|absent PART PROVIDER REGION INSTANCE
 * ...". Errors: DC_EPARSE (a document is not YAML or has no prices list) with
 * the message in err->msg; DC_ENOMEM. The result is not checked here: the
 * caller loads it (svc_prices_validate) before writing it. */
DC_NODISCARD enum dc_status svc_prices_merge(const char *target_name, const char *target,
                                             size_t target_len, const char *const *names,
                                             const char *const *imports, const size_t *lens,
                                             size_t n, char **out, size_t *out_len, FILE *report,
                                             struct svc_merge_counts *counts, struct dc_error *err);

#endif
