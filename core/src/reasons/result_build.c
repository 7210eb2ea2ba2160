/* core/src/reasons/result_build.c -- see result_build.h. */
#include "result_build.h"

#include <math.h>

enum dc_status dc__add_warning(struct dc_result *res, const char *code, const char *msg)
{
    if (res->n_warnings == DC__MAX_WARNINGS)
        return DC_OK;
    if (msg == NULL)
        return DC_ENOMEM;
    res->warnings[res->n_warnings].code = code;
    res->warnings[res->n_warnings].message = msg;
    res->n_warnings++;
    return DC_OK;
}

void dc__add_assumption(struct dc_result *res, const char *name, double value, const char *unit,
                        const char *source)
{
    if (res->n_assumptions == DC__MAX_ASSUMPTIONS || !isfinite(value))
        return;
    struct dc_assumption *a = &res->assumptions[res->n_assumptions++];
    *a = (struct dc_assumption){name, value, unit, source};
}
