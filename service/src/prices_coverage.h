/* service/src/prices_coverage.h -- the coverage table of `accel-advisor
 * prices` (service/src/prices_coverage.c). Owned by the price-data work. */
#ifndef SVC_PRICES_COVERAGE_H
#define SVC_PRICES_COVERAGE_H

#include <stdio.h>
#include <time.h>

#include "dc/ruleset.h"

/* Write to `fp` one line per part and provider the catalog lists for it: the
 * offers priced on each basis with the age in days (at `now`) of the oldest
 * price, or "unpriced:" and why prices.yaml says it has none there; one line
 * for a part with no offer anywhere that the file explains once for all. */
void svc_prices_coverage(FILE *fp, const dc_ruleset *rs, time_t now);

#endif
