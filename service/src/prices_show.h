/* service/src/prices_show.h -- `accel-advisor prices show [PART[:COUNT]]`:
 * what a part costs where, one row per provider, instance, region and basis
 * with the hourly price, the price per chip, its date and confidence, as
 * SkyPilot's `sky show-gpus H100:8` lists them. Owned by the CLI work (issue
 * 34); the prices are prices.yaml's (docs/rules-format.md). */
#ifndef SVC_PRICES_SHOW_H
#define SVC_PRICES_SHOW_H

#include "dc/ruleset.h"
#include "output.h"

/* The formats of prices show. */
#define SVC_PRICES_SHOW_OUTPUTS SVC_OUTPUT_NAMED

/* Print the offers of `rs` that `filter` selects (NULL: every part's;
 * "PART": one part, by id, short name or name, any case; "PART:COUNT": its
 * instances of COUNT chips, and its per-chip offers priced at COUNT chips) to
 * stdout as *o asks. Returns the exit status: 0; 1 after a message on stderr
 * when the part is unknown (with the nearest name) or nothing is offered; 2
 * when the filter is malformed or the output cannot be written. */
int svc_prices_show(const dc_ruleset *rs, const char *filter, const struct svc_output_opts *o);

#endif /* SVC_PRICES_SHOW_H */
