/* probe/src/probe_metrics.c -- a snapshot's devices as Prometheus series: what
 * `accel-advisor agent` and `serve --probe` export on /metrics, one series per
 * device labelled with the node, the PCI address, the vendor and the catalog id,
 * so that Prometheus can tell the service what is free across a fleet
 * (docs/probe.md, "Metrics"; docs/operations.md, "Fleet").
 * Owner: the fleet availability work (issue 19). */
#include "probe_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Room for one escaped label value of the series written here: a PCI address,
 * a catalog id, a vendor, a node name (DNS names are at most 253 bytes). */
#define LABEL_MAX 1024

/* One per-device gauge family. */
enum gauge { G_UP, G_FREE, G_MEM_TOTAL, G_MEM_USED, G_UTIL, G_COUNT };

static const struct {
    const char *name;
    const char *help;
} gauges[G_COUNT] = {
    [G_UP] = {"accel_advisor_probe_device_up",
              "1 when the device answers, 0 when it is lost or failing."},
    [G_FREE] = {"accel_advisor_probe_device_free",
                "1 when the device is free now: it answers, no process holds it, at most 5% "
                "utilised and at most 5% of its memory used where measured (docs/probe.md); "
                "lost devices are left out."},
    [G_MEM_TOTAL] = {"accel_advisor_probe_device_memory_total_bytes",
                     "Device memory (NVML or amdgpu when read, else the catalog's)."},
    [G_MEM_USED] = {"accel_advisor_probe_device_memory_used_bytes", "Device memory in use."},
    [G_UTIL] = {"accel_advisor_probe_device_utilization_ratio", "Device utilisation, 0 to 1."},
};

static bool put(FILE *fp, const char *fmt, ...) DC_PRINTF(2, 3);

static bool put(FILE *fp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(fp, fmt, ap);
    va_end(ap);
    return n >= 0;
}

static const char *model_of(const struct probe_device *d)
{
    return d->catalog_id != NULL ? d->catalog_id : "unknown";
}

/* The value of gauge `g` for `d`; false when the figure is not known. */
static bool gauge_value(const struct probe_device *d, enum gauge g, double *v)
{
    switch (g) {
    case G_UP:
        *v = d->state == PROBE_DEVICE_OK ? 1 : 0;
        return true;
    case G_FREE:
        *v = probe_device_free(d) ? 1 : 0;
        return d->state != PROBE_DEVICE_LOST;
    case G_MEM_TOTAL:
        *v = (double)d->memory_total_bytes;
        return d->has_memory_total;
    case G_MEM_USED:
        *v = (double)d->memory_used_bytes;
        return d->has_memory_used;
    case G_UTIL:
        *v = d->utilization_percent / 100.0;
        return d->has_utilization;
    case G_COUNT:
        break;
    }
    return false;
}

/* The labels of device i: device (its PCI address, else its index), vendor,
 * model (catalog id) and node, escaped. */
static void device_labels(const struct probe_snapshot *s, size_t i, const char *node, char *out,
                          size_t cap)
{
    const struct probe_device *d = &s->devices[i];
    char dev[LABEL_MAX], ven[LABEL_MAX], model[LABEL_MAX], nd[LABEL_MAX];
    if (d->pci_address[0] != '\0')
        probe_metrics_label(dev, sizeof(dev), d->pci_address);
    else if (d->index >= 0)
        snprintf(dev, sizeof(dev), "index-%d", d->index);
    else
        snprintf(dev, sizeof(dev), "device-%zu", i);
    probe_metrics_label(ven, sizeof(ven), d->vendor);
    probe_metrics_label(model, sizeof(model), model_of(d));
    probe_metrics_label(nd, sizeof(nd), node);
    snprintf(out, cap, "device=\"%s\",vendor=\"%s\",model=\"%s\",node=\"%s\"", dev, ven, model, nd);
}

/* Devices of one (vendor, model) pair: attached (lost excluded) and free. */
static bool write_counts(const struct probe_snapshot *s, const char *node, FILE *fp)
{
    char nd[LABEL_MAX];
    probe_metrics_label(nd, sizeof(nd), node);
    bool ok =
        put(fp, "# HELP accel_advisor_probe_devices Accelerators of the latest probe by vendor "
                "and catalog model (unknown: ids not in the catalog): attached (lost ones "
                "excluded) and free (docs/probe.md).\n"
                "# TYPE accel_advisor_probe_devices gauge\n");
    for (size_t i = 0; i < s->n_devices && ok; i++) {
        const struct probe_device *d = &s->devices[i];
        bool seen = false; /* counted with an earlier device of the same pair */
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(s->devices[j].vendor, d->vendor) == 0 &&
                   strcmp(model_of(&s->devices[j]), model_of(d)) == 0;
        if (seen)
            continue;
        unsigned n = 0, n_free = 0;
        for (size_t j = i; j < s->n_devices; j++) {
            const struct probe_device *e = &s->devices[j];
            if (strcmp(e->vendor, d->vendor) != 0 || strcmp(model_of(e), model_of(d)) != 0 ||
                e->state == PROBE_DEVICE_LOST)
                continue;
            n++;
            n_free += probe_device_free(e);
        }
        char v[LABEL_MAX], m[LABEL_MAX];
        probe_metrics_label(v, sizeof(v), d->vendor);
        probe_metrics_label(m, sizeof(m), model_of(d));
        ok = put(fp,
                 "accel_advisor_probe_devices{vendor=\"%s\",model=\"%s\",state=\"attached\","
                 "node=\"%s\"} %u\n"
                 "accel_advisor_probe_devices{vendor=\"%s\",model=\"%s\",state=\"free\","
                 "node=\"%s\"} %u\n",
                 v, m, nd, n, v, m, nd, n_free);
    }
    return ok;
}

/* ---- library-wide functions below ---- */

void probe_metrics_label(char *dst, size_t cap, const char *s)
{
    size_t n = 0;
    if (cap == 0)
        return;
    for (; s != NULL && *s != '\0' && n + 3 < cap; s++) {
        if (*s == '\\' || *s == '"') {
            dst[n++] = '\\';
            dst[n++] = *s;
        } else if (*s == '\n') {
            dst[n++] = '\\';
            dst[n++] = 'n';
        } else {
            dst[n++] = *s;
        }
    }
    dst[n] = '\0';
}

enum dc_status probe_snapshot_format_metrics(const struct probe_snapshot *s, const char *node,
                                             FILE *fp)
{
    if (s == NULL || fp == NULL)
        return DC_EINVAL;
    if (node == NULL)
        node = "";
    bool ok = write_counts(s, node, fp);
    char labels[4 * LABEL_MAX + 64];
    for (int g = 0; g < G_COUNT && ok; g++) {
        ok = put(fp, "# HELP %s %s\n# TYPE %s gauge\n", gauges[g].name, gauges[g].help,
                 gauges[g].name);
        for (size_t i = 0; i < s->n_devices && ok; i++) {
            double v = 0;
            if (!gauge_value(&s->devices[i], (enum gauge)g, &v))
                continue;
            device_labels(s, i, node, labels, sizeof(labels));
            ok = put(fp, "%s{%s} %.17g\n", gauges[g].name, labels, v);
        }
    }
    return ok && !ferror(fp) ? DC_OK : DC_EIO;
}
