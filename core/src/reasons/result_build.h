/* core/src/reasons/result_build.h -- building a result's lists: its warnings and
 * assumptions (core/src/reasons/result_build.c). Beneath the phases that fill
 * them: the engine (engine.c), the report of warnings and assumptions
 * (report.c) and the defaults (defaults.c), which include it. The pseudo-rule
 * ids its reasons carry are core/src/vocab/reason_ids.h. Not part of the
 * public API. */
#ifndef DC_RESULT_BUILD_H
#define DC_RESULT_BUILD_H

#include "dc/result.h"

/* How many warnings and assumptions a result holds at most (the engine
 * allocates them; past them, more are dropped). */
#define DC__MAX_WARNINGS    16
#define DC__MAX_ASSUMPTIONS 40

/* A warning with `code` and `msg` (NULL msg: out of memory). */
enum dc_status dc__add_warning(struct dc_result *res, const char *code, const char *msg);

/* An assumption (skipped when the list is full or the value unknown). */
void dc__add_assumption(struct dc_result *res, const char *name, double value, const char *unit,
                        const char *source);

#endif
