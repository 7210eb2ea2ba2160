/* probe/src/probe_json.c -- the snapshot's two forms: JSON (the shape is
 * documented in docs/probe.md and is what GET /v1/inventory serves) and a
 * table for people. */
#include "probe_internal.h"

#include "dc/utf8.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Widths of the table's text columns. */
#define TABLE_MODEL_WIDTH   30
#define TABLE_PIDS_WIDTH    18
#define TABLE_CATALOG_WIDTH 12

/* Builder state: the first failed cJSON allocation sets oom, the rest of the
 * calls become no-ops, and the caller deletes the tree. */
struct jb {
    bool oom;
};

static const char *utf8_clean(const char *s, char **copy);
static cJSON *add_object(struct jb *b, cJSON *parent, const char *key);
static cJSON *add_array(struct jb *b, cJSON *parent, const char *key);
static void add_string(struct jb *b, cJSON *obj, const char *key, const char *value);
static void add_number(struct jb *b, cJSON *obj, const char *key, bool has, double value);
static void add_bool(struct jb *b, cJSON *obj, const char *key, bool value);
static void push_string(struct jb *b, cJSON *arr, const char *value);
static void push_number(struct jb *b, cJSON *arr, double value);
static void add_hex(struct jb *b, cJSON *obj, const char *key, bool has, unsigned value,
                    int digits);
static void format_timestamp(const struct timespec *ts, char *buf, size_t cap);
static void device_json(struct jb *b, cJSON *arr, const struct probe_device *d);
static bool tprintf(FILE *fp, const char *fmt, ...) DC_PRINTF(2, 3);

static cJSON *add_object(struct jb *b, cJSON *parent, const char *key)
{
    if (b->oom)
        return NULL;
    cJSON *o = cJSON_AddObjectToObject(parent, key);
    if (o == NULL)
        b->oom = true;
    return o;
}

static cJSON *add_array(struct jb *b, cJSON *parent, const char *key)
{
    if (b->oom)
        return NULL;
    cJSON *a = cJSON_AddArrayToObject(parent, key);
    if (a == NULL)
        b->oom = true;
    return a;
}

/* `s` as valid UTF-8, which JSON text must be (RFC 8259, 8.1): s itself when it
 * already is, else a copy in *copy (the caller frees it) with each byte that
 * starts no valid sequence replaced by U+FFFD. The snapshot's strings are bytes
 * from the kernel and the driver (cpuinfo, sysfs names, NVML), not checked
 * text. NULL when out of memory. */
static const char *utf8_clean(const char *s, char **copy)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = 0, bad = 0;
    *copy = NULL;
    while (p[len] != '\0') {
        size_t n = dc_utf8_seq(p + len, SIZE_MAX, NULL);
        if (n == 0) {
            bad++;
            n = 1;
        }
        len += n;
    }
    if (bad == 0)
        return s;
    char *out = malloc(len + 2 * bad + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = dc_utf8_seq(p + i, SIZE_MAX, NULL);
        if (n == 0) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        } else {
            memcpy(out + o, p + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
    *copy = out;
    return out;
}

/* A string (made valid UTF-8), or null when value is NULL. */
static void add_string(struct jb *b, cJSON *obj, const char *key, const char *value)
{
    if (b->oom)
        return;
    char *copy = NULL;
    const char *v = value != NULL ? utf8_clean(value, &copy) : NULL;
    cJSON *r = NULL;
    if (value == NULL)
        r = cJSON_AddNullToObject(obj, key);
    else if (v != NULL)
        r = cJSON_AddStringToObject(obj, key, v);
    free(copy);
    if (r == NULL)
        b->oom = true;
}

/* A number, or null when unknown. Byte counts stay exact below 2^53 (8 PiB). */
static void add_number(struct jb *b, cJSON *obj, const char *key, bool has, double value)
{
    if (b->oom)
        return;
    cJSON *r = has ? cJSON_AddNumberToObject(obj, key, value) : cJSON_AddNullToObject(obj, key);
    if (r == NULL)
        b->oom = true;
}

static void add_bool(struct jb *b, cJSON *obj, const char *key, bool value)
{
    if (b->oom)
        return;
    if (cJSON_AddBoolToObject(obj, key, value) == NULL)
        b->oom = true;
}

static void push_string(struct jb *b, cJSON *arr, const char *value)
{
    if (b->oom)
        return;
    char *copy = NULL;
    const char *v = utf8_clean(value, &copy);
    cJSON *s = v != NULL ? cJSON_CreateString(v) : NULL;
    free(copy);
    if (s == NULL || !cJSON_AddItemToArray(arr, s)) {
        cJSON_Delete(s);
        b->oom = true;
    }
}

static void push_number(struct jb *b, cJSON *arr, double value)
{
    if (b->oom)
        return;
    cJSON *n = cJSON_CreateNumber(value);
    if (n == NULL || !cJSON_AddItemToArray(arr, n)) {
        cJSON_Delete(n);
        b->oom = true;
    }
}

/* PCI ids as the kernel writes them: "0x10de", "0x030200". */
static void add_hex(struct jb *b, cJSON *obj, const char *key, bool has, unsigned value, int digits)
{
    char buf[16];
    if (!has) {
        add_string(b, obj, key, NULL);
        return;
    }
    snprintf(buf, sizeof(buf), "0x%0*x", digits, value);
    add_string(b, obj, key, buf);
}

/* RFC 3339 in UTC with milliseconds: "2025-01-31T12:00:00.123Z". */
static void format_timestamp(const struct timespec *ts, char *buf, size_t cap)
{
    struct tm tm;
    time_t secs = ts->tv_sec;
    if (gmtime_r(&secs, &tm) == NULL) {
        snprintf(buf, cap, "1970-01-01T00:00:00.000Z");
        return;
    }
    char base[32];
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03ldZ", base, (long)(ts->tv_nsec / 1000000));
}

static void device_json(struct jb *b, cJSON *arr, const struct probe_device *d)
{
    if (b->oom)
        return;
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        b->oom = true;
        return;
    }
    add_string(b, o, "vendor", d->vendor);
    add_string(b, o, "family", d->family);
    add_string(b, o, "catalog_id", d->catalog_id);
    add_bool(b, o, "unknown", d->unknown);
    add_string(b, o, "name", d->name);
    add_string(b, o, "generation", d->generation);
    cJSON *pci = add_object(b, o, "pci");
    if (pci != NULL) {
        add_string(b, pci, "address", d->pci_address[0] != '\0' ? d->pci_address : NULL);
        add_hex(b, pci, "vendor_id", true, d->pci_vendor, 4);
        add_hex(b, pci, "device_id", true, d->pci_device, 4);
        add_hex(b, pci, "subsystem_device_id", d->has_pci_subsystem_device, d->pci_subsystem_device,
                4);
        add_hex(b, pci, "class", d->has_pci_class, d->pci_class, 6);
    }
    add_number(b, o, "index", d->index >= 0, (double)d->index);
    add_string(b, o, "uuid", d->uuid);
    add_number(b, o, "memory_total_bytes", d->has_memory_total, (double)d->memory_total_bytes);
    add_number(b, o, "memory_used_bytes", d->has_memory_used, (double)d->memory_used_bytes);
    add_number(b, o, "utilization_ratio", d->has_utilization,
               (double)d->utilization_percent / 100.0);
    if (!b->oom) {
        cJSON *r = d->in_use == PROBE_IN_USE_UNKNOWN
                       ? cJSON_AddNullToObject(o, "in_use")
                       : cJSON_AddBoolToObject(o, "in_use", d->in_use == PROBE_IN_USE_YES);
        if (r == NULL)
            b->oom = true;
    }
    cJSON *pids = add_array(b, o, "pids");
    for (size_t i = 0; pids != NULL && i < d->n_pids; i++)
        push_number(b, pids, (double)d->pids[i]);
    add_bool(b, o, "pids_truncated", d->pids_truncated);
    cJSON *nodes = add_array(b, o, "device_nodes");
    for (size_t i = 0; nodes != NULL && i < d->n_nodes; i++)
        push_string(b, nodes, d->nodes[i]);
    add_string(b, o, "source", probe_data_source_name(d->source));
    add_string(b, o, "state", probe_device_state_name(d->state));
    add_string(b, o, "message", d->message);
}

/* fprintf that reports failure as false. */
static bool tprintf(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(fp, fmt, ap);
    va_end(ap);
    return n >= 0;
}

/* ---- library-wide functions below ---- */

enum dc_status probe_snapshot_to_json(const struct probe_snapshot *s, cJSON **out,
                                      struct dc_error *err)
{
    struct jb b = {false};
    cJSON *root = NULL;
    char ts[48];

    if (out == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_snapshot_to_json: out is NULL");
    *out = NULL;
    if (s == NULL)
        return dc_error_set(err, DC_EINVAL, NULL, "probe_snapshot_to_json: snapshot is NULL");
    root = cJSON_CreateObject();
    if (root == NULL)
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_snapshot_to_json: out of memory");

    format_timestamp(&s->taken_at, ts, sizeof(ts));
    add_string(&b, root, "timestamp", ts);
    add_number(&b, root, "age_seconds", true, probe_snapshot_age_seconds(s));
    add_number(&b, root, "duration_seconds", true, (double)s->duration_ns / 1e9);

    cJSON *host = add_object(&b, root, "host");
    if (host != NULL) {
        add_string(&b, host, "cpu_model", s->host.cpu_model);
        add_number(&b, host, "logical_cores", s->host.logical_cores > 0,
                   (double)s->host.logical_cores);
        add_number(&b, host, "memory_total_bytes", s->host.memory_total_bytes > 0,
                   (double)s->host.memory_total_bytes);
    }

    cJSON *sources = add_object(&b, root, "sources");
    for (int i = 0; sources != NULL && i < PROBE_SOURCE_COUNT; i++) {
        const struct probe_source_report *r = &s->sources[i];
        cJSON *o = add_object(&b, sources, probe_source_name((enum probe_source)i));
        if (o == NULL)
            break;
        add_string(&b, o, "state", probe_source_state_name(r->state));
        add_number(&b, o, "code", r->code != 0, (double)r->code);
        add_string(&b, o, "message", r->message);
    }
    add_string(&b, root, "nvml_driver_version", s->nvml_driver_version);

    /* Counts a dashboard or the recommender reads without walking devices[]. */
    cJSON *counts = add_object(&b, root, "counts");
    if (counts != NULL) {
        double in_use = 0, free_ = 0, lost = 0, errors = 0;
        for (size_t i = 0; i < s->n_devices; i++) {
            const struct probe_device *d = &s->devices[i];
            if (d->state == PROBE_DEVICE_LOST)
                lost++;
            else if (d->state == PROBE_DEVICE_ERROR)
                errors++;
            if (d->in_use == PROBE_IN_USE_YES)
                in_use++;
            if (probe_device_free(d))
                free_++;
        }
        add_number(&b, counts, "devices", true, (double)s->n_devices);
        add_number(&b, counts, "in_use", true, in_use);
        add_number(&b, counts, "free", true, free_);
        add_number(&b, counts, "lost", true, lost);
        add_number(&b, counts, "error", true, errors);
        cJSON *fam = add_object(&b, counts, "by_family");
        for (size_t i = 0; fam != NULL && !b.oom && i < s->n_devices; i++) {
            const char *f = s->devices[i].family != NULL ? s->devices[i].family : "unknown";
            cJSON *n = cJSON_GetObjectItemCaseSensitive(fam, f);
            if (n != NULL)
                cJSON_SetNumberValue(n, n->valuedouble + 1);
            else
                add_number(&b, fam, f, true, 1);
        }
    }

    add_bool(&b, root, "devices_truncated", s->devices_truncated);
    cJSON *devices = add_array(&b, root, "devices");
    for (size_t i = 0; devices != NULL && i < s->n_devices; i++)
        device_json(&b, devices, &s->devices[i]);
    cJSON *warnings = add_array(&b, root, "warnings");
    for (size_t i = 0; warnings != NULL && i < s->n_warnings; i++)
        push_string(&b, warnings, s->warnings[i]);
    add_number(&b, root, "warnings_dropped", true, (double)s->n_warnings_dropped);

    if (b.oom) {
        cJSON_Delete(root);
        return dc_error_set(err, DC_ENOMEM, NULL, "probe_snapshot_to_json: out of memory");
    }
    *out = root;
    return DC_OK;
}

/* The columns only the wide table has: PCI vendor:device, catalog id, index. */
static bool wide_cells(FILE *fp, const struct probe_device *d)
{
    char pci[16] = "-", index[16] = "-";
    if (d->pci_vendor != 0)
        snprintf(pci, sizeof(pci), "%04x:%04x", d->pci_vendor, d->pci_device);
    if (d->index >= 0)
        snprintf(index, sizeof(index), "%d", d->index);
    return tprintf(fp, "%-9s %-*s %5s ", pci, TABLE_CATALOG_WIDTH,
                   d->catalog_id != NULL ? d->catalog_id : "-", index);
}

enum dc_status probe_snapshot_format_table(const struct probe_snapshot *s, FILE *fp, bool wide)
{
    static const double gib = 1024.0 * 1024.0 * 1024.0;
    if (s == NULL || fp == NULL)
        return DC_EINVAL;
    bool ok = true;
    char cores[32] = "? logical cores";
    char mem[48] = "? memory";
    if (s->host.logical_cores > 0)
        snprintf(cores, sizeof(cores), "%u logical cores", s->host.logical_cores);
    if (s->host.memory_total_bytes > 0)
        snprintf(mem, sizeof(mem), "%.1f GiB memory", (double)s->host.memory_total_bytes / gib);
    ok = ok && tprintf(fp, "host: %s, %s, %s\n",
                       s->host.cpu_model != NULL ? s->host.cpu_model : "unknown CPU", cores, mem);
    if (s->n_devices == 0) {
        ok = ok && tprintf(fp, "no accelerators found\n");
    } else {
        ok = ok && tprintf(fp, "%-13s ", "ADDRESS") &&
             (!wide ||
              tprintf(fp, "%-9s %-*s %5s ", "PCI ID", TABLE_CATALOG_WIDTH, "CATALOG", "INDEX")) &&
             tprintf(fp, "%-7s %-6s %-*s %-17s %5s %-6s %-*s %-6s %s\n", "VENDOR", "FAMILY",
                     TABLE_MODEL_WIDTH, "MODEL", "MEMORY GiB", "UTIL", "IN USE", TABLE_PIDS_WIDTH,
                     "PIDS", "SOURCE", "STATE");
    }
    for (size_t i = 0; ok && i < s->n_devices; i++) {
        const struct probe_device *d = &s->devices[i];
        char memory[40], util[8], pids[TABLE_PIDS_WIDTH + 8];
        char used[16] = "-", total[16] = "-";
        if (d->has_memory_used)
            snprintf(used, sizeof(used), "%.1f", (double)d->memory_used_bytes / gib);
        if (d->has_memory_total)
            snprintf(total, sizeof(total), "%.1f", (double)d->memory_total_bytes / gib);
        snprintf(memory, sizeof(memory), "%s/%s", used, total);
        if (d->has_utilization)
            snprintf(util, sizeof(util), "%u%%", d->utilization_percent);
        else
            snprintf(util, sizeof(util), "-");
        size_t pl = 0;
        pids[0] = '\0';
        for (size_t j = 0; j < d->n_pids; j++) {
            char one[16];
            int n = snprintf(one, sizeof(one), "%s%ld", j > 0 ? "," : "", (long)d->pids[j]);
            if (n < 0 || pl + (size_t)n > TABLE_PIDS_WIDTH - 3) {
                snprintf(pids + pl, sizeof(pids) - pl, "...");
                break;
            }
            memcpy(pids + pl, one, (size_t)n + 1);
            pl += (size_t)n;
        }
        if (d->n_pids == 0)
            snprintf(pids, sizeof(pids), "-");
        const char *in_use = d->in_use == PROBE_IN_USE_YES  ? "yes"
                             : d->in_use == PROBE_IN_USE_NO ? "no"
                                                            : "-";
        ok = tprintf(fp, "%-13s ", d->pci_address[0] != '\0' ? d->pci_address : "-") &&
             (!wide || wide_cells(fp, d)) &&
             tprintf(fp, "%-7s %-6s %-*.*s %-17s %5s %-6s %-*s %-6s %s%s%s\n", d->vendor,
                     d->family != NULL ? d->family : "-", TABLE_MODEL_WIDTH, TABLE_MODEL_WIDTH,
                     d->name != NULL ? d->name : "-", memory, util, in_use, TABLE_PIDS_WIDTH, pids,
                     probe_data_source_name(d->source), probe_device_state_name(d->state),
                     d->message != NULL ? ": " : "", d->message != NULL ? d->message : "");
    }
    for (int i = 0; ok && i < PROBE_SOURCE_COUNT; i++) {
        const struct probe_source_report *r = &s->sources[i];
        if (r->state != PROBE_SOURCE_ERROR && r->state != PROBE_SOURCE_UNAVAILABLE)
            continue;
        ok = tprintf(fp, "source %s: %s%s%s\n", probe_source_name((enum probe_source)i),
                     probe_source_state_name(r->state), r->message != NULL ? ": " : "",
                     r->message != NULL ? r->message : "");
    }
    if (ok && s->nvml_driver_version != NULL)
        ok = tprintf(fp, "NVIDIA driver %s\n", s->nvml_driver_version);
    for (size_t i = 0; ok && i < s->n_warnings; i++)
        ok = tprintf(fp, "warning: %s\n", s->warnings[i]);
    if (ok && s->n_warnings_dropped > 0)
        ok = tprintf(fp, "warning: %zu more not kept\n", s->n_warnings_dropped);
    if (!ok || ferror(fp))
        return DC_EIO;
    return DC_OK;
}
