/* service/src/fleet_parse.c -- the fleet's side of the Prometheus HTTP API: the
 * queries it sends, the names of its sources and errors, and the answer of an
 * instant query
 * (https://prometheus.io/docs/prometheus/latest/querying/api/#instant-queries)
 * read as hostile input: strict JSON within a depth limit, the documented shape
 * or nothing, a bounded number of series, bounded label values, finite values.
 * Owner: the fleet availability work (issue 19). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/openapi.h"
#include "fleet.h"
#include "utf8.h"

/* ---- names and queries --------------------------------------------------------- */

const char *svc_fleet_source_name(enum svc_fleet_source s)
{
    return s == SVC_FLEET_AGENT ? "agent" : s == SVC_FLEET_DCGM ? "dcgm-exporter" : "unknown";
}

const char *svc_fleet_error_name(enum svc_fleet_error e)
{
    static const char *const names[SVC_FLEET_ERROR_COUNT] = {
        [SVC_FLEET_OK] = "ok",
        [SVC_FLEET_E_CONNECT] = "connect",
        [SVC_FLEET_E_TIMEOUT] = "timeout",
        [SVC_FLEET_E_HTTP] = "http",
        [SVC_FLEET_E_TOO_LARGE] = "too_large",
        [SVC_FLEET_E_MALFORMED] = "malformed",
        [SVC_FLEET_E_QUERY] = "query",
        [SVC_FLEET_E_SERIES] = "series",
        [SVC_FLEET_E_TOKEN] = "token",
        [SVC_FLEET_E_NOMEM] = "nomem",
        [SVC_FLEET_E_OTHER] = "other",
    };
    return e < SVC_FLEET_ERROR_COUNT ? names[e] : "other";
}

const char *svc_fleet_promql(enum svc_fleet_source s, const char *cluster_label, char *buf,
                             size_t len)
{
    char by[128];
    const char *cl = cluster_label != NULL ? cluster_label : "";
    snprintf(by, sizeof(by), "%s%s", cl, cl[0] != '\0' ? ", " : "");
    if (s == SVC_FLEET_AGENT)
        /* A device reported twice (an agent and a serve --probe on one node) is
         * free only if both say so. */
        snprintf(buf, len,
                 "min by (%snode, device, model, vendor) (accel_advisor_probe_device_free)", by);
    else
        /* One series per GPU and field; a GPU split into MIG instances keeps its
         * busiest figures. */
        snprintf(buf, len,
                 "max by (__name__, %sHostname, UUID, gpu, pci_bus_id, modelName, pod) "
                 "({__name__=~\"DCGM_FI_DEV_GPU_UTIL|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_FREE\"})",
                 by);
    return buf;
}

/* The label names of enum svc_fleet_label; the cluster label is configured. */
static const char *const label_names[SVC_FL_COUNT] = {
    [SVC_FL_NAME] = "__name__",
    [SVC_FL_CLUSTER] = NULL,
    [SVC_FL_NODE] = "node",
    [SVC_FL_DEVICE] = "device",
    [SVC_FL_MODEL] = "model",
    [SVC_FL_VENDOR] = "vendor",
    [SVC_FL_HOSTNAME] = "Hostname",
    [SVC_FL_UUID] = "UUID",
    [SVC_FL_GPU] = "gpu",
    [SVC_FL_PCI_BUS_ID] = "pci_bus_id",
    [SVC_FL_MODEL_NAME] = "modelName",
    [SVC_FL_POD] = "pod",
};

static enum svc_fleet_error fail(enum svc_fleet_error e, char *why, size_t whylen, const char *fmt,
                                 ...) DC_PRINTF(4, 5);

static enum svc_fleet_error fail(enum svc_fleet_error e, char *why, size_t whylen, const char *fmt,
                                 ...)
{
    if (why != NULL && whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
        svc_fleet_utf8_cut(why);
    }
    return e;
}

/* A string member of `o`, or NULL. */
static const char *member_string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* status "error": "<errorType>: <error>", each cut, as the message. */
static enum svc_fleet_error query_error(const cJSON *root, char *why, size_t whylen)
{
    const char *type = member_string(root, "errorType");
    const char *msg = member_string(root, "error");
    return fail(SVC_FLEET_E_QUERY, why, whylen, "Prometheus: %.40s: %.*s",
                type != NULL ? type : "error", SVC_FLEET_ERROR_TEXT_MAX,
                msg != NULL ? msg : "(no message)");
}

/* One element of data.result into *out; false when the element is not a
 * series of the documented shape (the whole answer is then malformed); *keep
 * false when it is one but must be left out (a label too long, a value that is
 * not a finite number). */
static bool read_series(const cJSON *item, const char *cluster_label, struct svc_fleet_series *out,
                        bool *keep)
{
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(item, "metric");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(item, "value");
    if (!cJSON_IsObject(item) || !cJSON_IsObject(metric) || !cJSON_IsArray(value) ||
        cJSON_GetArraySize(value) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(value, 0)) ||
        !cJSON_IsString(cJSON_GetArrayItem(value, 1)))
        return false;
    memset(out, 0, sizeof(*out));
    *keep = true;
    const cJSON *l = NULL;
    cJSON_ArrayForEach(l, metric)
    {
        if (!cJSON_IsString(l))
            return false; /* label values are strings */
        for (int k = 0; k < SVC_FL_COUNT; k++) {
            const char *name = k == SVC_FL_CLUSTER ? cluster_label : label_names[k];
            if (name == NULL || name[0] == '\0' || strcmp(name, l->string) != 0)
                continue;
            if (strlen(l->valuestring) > SVC_FLEET_LABEL_MAX)
                *keep = false;
            out->label[k] = l->valuestring;
        }
    }
    /* Sample values are strings ("1", "0.5", "NaN", "+Inf"): only a whole,
     * finite number is a value. */
    const char *text = cJSON_GetArrayItem(value, 1)->valuestring;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v))
        *keep = false;
    out->value = v;
    return true;
}

void svc_fleet_utf8_cut(char *s)
{
    uint32_t cp;
    for (size_t i = 0; s[i] != '\0';) {
        size_t n = svc_utf8_decode((const unsigned char *)s + i, &cp);
        if (n == 0) {
            s[i] = '\0';
            return;
        }
        i += n;
    }
}

void svc_fleet_vector_free(struct svc_fleet_vector *v)
{
    if (v == NULL)
        return;
    cJSON_Delete(v->root);
    free(v->series);
    memset(v, 0, sizeof(*v));
}

enum svc_fleet_error svc_fleet_parse(const char *body, size_t len, const char *cluster_label,
                                     size_t max_series, struct svc_fleet_vector *out, char *why,
                                     size_t whylen)
{
    memset(out, 0, sizeof(*out));
    struct dc_error err;
    dc_error_clear(&err);
    cJSON *root = NULL;
    enum api_json_error jrc = api_json_parse(body, len, SVC_FLEET_JSON_DEPTH, &root, &err);
    if (jrc == API_JSON_NOMEM)
        return fail(SVC_FLEET_E_NOMEM, why, whylen, "out of memory");
    if (jrc != API_JSON_OK)
        return fail(SVC_FLEET_E_MALFORMED, why, whylen, "not JSON: %.200s", err.msg);
    const char *status = member_string(root, "status");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    const char *type = member_string(data, "resultType");
    enum svc_fleet_error rc = SVC_FLEET_OK;
    if (!cJSON_IsObject(root) || status == NULL)
        rc = fail(SVC_FLEET_E_MALFORMED, why, whylen, "not a Prometheus answer: no status");
    else if (strcmp(status, "error") == 0)
        rc = query_error(root, why, whylen);
    else if (strcmp(status, "success") != 0 || !cJSON_IsObject(data) || !cJSON_IsArray(result))
        rc = fail(SVC_FLEET_E_MALFORMED, why, whylen, "not a Prometheus answer: no data.result");
    else if (type == NULL || strcmp(type, "vector") != 0)
        rc = fail(SVC_FLEET_E_MALFORMED, why, whylen, "result type %.32s, not vector",
                  type != NULL ? type : "(none)");
    if (rc != SVC_FLEET_OK) {
        cJSON_Delete(root);
        return rc;
    }
    size_t n = (size_t)cJSON_GetArraySize(result);
    if (n > max_series) {
        cJSON_Delete(root);
        return fail(SVC_FLEET_E_SERIES, why, whylen,
                    "%zu series: more than the limit of %zu (fleet_max_series)", n, max_series);
    }
    out->root = root;
    out->series = calloc(n > 0 ? n : 1, sizeof(*out->series));
    if (out->series == NULL) {
        svc_fleet_vector_free(out);
        return fail(SVC_FLEET_E_NOMEM, why, whylen, "out of memory");
    }
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, result)
    {
        bool keep = false;
        if (!read_series(item, cluster_label, &out->series[out->n], &keep)) {
            svc_fleet_vector_free(out);
            return fail(SVC_FLEET_E_MALFORMED, why, whylen,
                        "not a Prometheus answer: a result is not {metric, value}");
        }
        if (keep)
            out->n++;
        else
            out->dropped++;
    }
    return SVC_FLEET_OK;
}
