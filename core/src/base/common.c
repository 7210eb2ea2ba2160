/* core/src/base/common.c -- status names and the error-detail helper. */
#include "dc/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *dc_status_name(enum dc_status s)
{
    switch (s) {
#define DC_XX(name, val, text)                                                                     \
    case DC_##name:                                                                                \
        return "DC_" #name;
        DC_STATUS_MAP(DC_XX)
#undef DC_XX
    }
    return "DC_UNKNOWN";
}

const char *dc_strerror(enum dc_status s)
{
    switch (s) {
#define DC_XX(name, val, text)                                                                     \
    case DC_##name:                                                                                \
        return text;
        DC_STATUS_MAP(DC_XX)
#undef DC_XX
    }
    return "unknown status";
}

enum dc_status dc_error_set(struct dc_error *err, enum dc_status code, const char *where,
                            const char *fmt, ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    snprintf(err->where, sizeof(err->where), "%s", where != NULL ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

void dc_error_clear(struct dc_error *err)
{
    if (err == NULL)
        return;
    err->code = DC_OK;
    err->where[0] = '\0';
    err->msg[0] = '\0';
}
