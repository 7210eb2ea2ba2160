/* core/include/dc/ruleset.h -- the loaded rule set: rules, accelerator catalog,
 * sizing and scoring parameters (format: docs/rules-format.md).
 *
 * A rule set is immutable once loaded and reference-counted, so a server can
 * swap in a new one while requests still finish on the old one. Every string
 * and struct handed out below is a view valid while the caller holds a
 * reference. */
#ifndef DC_RULESET_H
#define DC_RULESET_H

#include <stdbool.h>
#include <stdint.h>

#include "dc/common.h"
#include "dc/logic.h"

/* Named limits on a rule set (untrusted files). */
#define DC_RULESET_MAX_FILES 64
#define DC_RULESET_MAX_FILE_BYTES (1u << 20)
#define DC_RULESET_MAX_RULES 1000
#define DC_RULESET_MAX_ACCELERATORS 100
#define DC_RULESET_MAX_DIAGS 200
#define DC_ID_MAX 32 /* rule and accelerator ids */

enum dc_family { DC_FAMILY_GPU, DC_FAMILY_TPU, DC_FAMILY_CPU, DC_FAMILY_COUNT };

enum dc_precision {
    DC_PREC_FP64,
    DC_PREC_FP32,
    DC_PREC_BF16,
    DC_PREC_FP16,
    DC_PREC_FP8,
    DC_PREC_FP4,
    DC_PREC_INT8,
    DC_PREC_INT4,
    DC_PREC_COUNT
};

enum dc_provider {
    DC_PROVIDER_AWS,
    DC_PROVIDER_GCP,
    DC_PROVIDER_AZURE,
    DC_PROVIDER_OCI,
    DC_PROVIDER_NEOCLOUD,
    DC_PROVIDER_COUNT
};

DC_API const char *dc_family_name(enum dc_family f);       /* "gpu" */
DC_API const char *dc_precision_name(enum dc_precision p); /* "bf16" */
DC_API const char *dc_provider_name(enum dc_provider p);   /* "gcp" */
/* Parse names; return false when unknown. */
DC_API bool dc_family_parse(const char *s, enum dc_family *out);
DC_API bool dc_precision_parse(const char *s, enum dc_precision *out);
DC_API bool dc_provider_parse(const char *s, enum dc_provider *out);

/* One catalog entry. Numbers a public source does not give are NAN. */
struct dc_accelerator {
    const char *id;
    const char *name;
    const char *vendor; /* nvidia | amd | google | generic */
    enum dc_family family;
    const char *fact;   /* may be NULL */
    const char *source;
    uint16_t pci_vendor;        /* 0 when none */
    const uint16_t *pci_devices;
    size_t n_pci_devices;
    double memory_gb;
    double memory_bandwidth_gbps;
    double peak_tflops[DC_PREC_COUNT]; /* dense; NAN when unknown */
    unsigned precisions;               /* bit (1u << enum dc_precision) when supported */
    const char *interconnect;          /* may be NULL */
    double interconnect_gbps;
    unsigned domain;                   /* chips in one fast domain; 0 when unknown */
    unsigned max_chips;
    double power_watts;
    unsigned providers; /* bit (1u << enum dc_provider) */
    bool on_prem;
    bool has_price;
    double price_usd_per_chip_hour;
    const char *price_as_of;
    const char *price_basis;
    const char *price_source;
    bool price_low_confidence;
};

/* Sizing and scoring parameters (sizing.yaml). */
struct dc_sizing_params {
    double memory_usable_fraction;
    double train_bytes_per_param;
    const char *train_bytes_source;
    double activation_overhead;
    double tokens_per_param;
    const char *tokens_source;
    double fine_tuning_tokens;
    double infer_bytes_per_param[DC_PREC_COUNT];
    double infer_overhead;
    const char *infer_overhead_source;
    double default_context_tokens;
    const char *kv_source;
    double hours_per_month;
    double mfu_training[DC_FAMILY_COUNT];
    double mfu_inference[DC_FAMILY_COUNT];
    const char *mfu_source;
    double score_base;
    double rule_weight;
    double objective_weight;
    double unknown_objective;
    double availability_bonus;
    double price_stale_after_days;
};

/* One rule, as loaded. */
struct dc_rule_info {
    const char *id;
    const char *description;
    const char *message;
    const char *source;
    const char *fact; /* may be NULL */
    const char *file;
    unsigned line;
    const cJSON *when; /* the condition as written (JSON) */
    bool excludes;     /* has an exclusion effect */
};

/* One load problem: `file:line: id: message`. */
struct dc_diag {
    char file[128];
    unsigned line;
    char id[DC_ID_MAX + 1]; /* rule or accelerator id, "" when none */
    char msg[384];
};

/* Every problem found by one load, up to DC_RULESET_MAX_DIAGS. */
struct dc_diags {
    struct dc_diag *items;
    size_t count;
    size_t cap;
    bool truncated;
};

DC_API void dc_diags_init(struct dc_diags *d);
DC_API void dc_diags_cleanup(struct dc_diags *d);
/* Format one diagnostic as "file:line: id: message" into buf. */
DC_API void dc_diag_format(const struct dc_diag *d, char *buf, size_t len);

/* An in-memory file of a rule set. */
struct dc_source_file {
    const char *name; /* base name: "rules.yaml" */
    const char *data;
    size_t len;
};

typedef struct dc_ruleset dc_ruleset; /* opaque, immutable, reference-counted */

/* Load a rule set from in-memory files (borrowed; copied as needed). On DC_OK
 * *out holds one reference (release with dc_ruleset_release). On failure every
 * problem is appended to `diags` (may be NULL) and the status is DC_EVALIDATE
 * (content), DC_ELIMIT, DC_EINVAL or DC_ENOMEM. Thread-safe. */
DC_API DC_NODISCARD enum dc_status dc_ruleset_load_files(const struct dc_source_file *files,
                                                        size_t n, dc_ruleset **out,
                                                        struct dc_diags *diags);

/* Load every non-hidden *.yaml file of directory `dir`. DC_EIO when the
 * directory or a file cannot be read (reported in diags). */
DC_API DC_NODISCARD enum dc_status dc_ruleset_load_dir(const char *dir, dc_ruleset **out,
                                                      struct dc_diags *diags);

/* Load the files of an embedded table (dc/embedded.h) whose names start with
 * "rules/" (the prefix is dropped, as the loader wants base names). Same
 * contract as dc_ruleset_load_files; DC_ELIMIT past DC_RULESET_MAX_FILES. */
struct aa_embedded_file;
DC_API DC_NODISCARD enum dc_status dc_ruleset_load_embedded(const struct aa_embedded_file *files,
                                                           dc_ruleset **out,
                                                           struct dc_diags *diags);

DC_API dc_ruleset *dc_ruleset_retain(dc_ruleset *rs); /* returns rs; NULL-safe */
DC_API void dc_ruleset_release(dc_ruleset *rs);      /* NULL-safe; frees at zero */

/* SHA-256 (hex, 64 chars) of the canonical content. */
DC_API const char *dc_ruleset_version(const dc_ruleset *rs);
/* Where it came from: a directory path or "embedded". */
DC_API const char *dc_ruleset_origin(const dc_ruleset *rs);

DC_API size_t dc_ruleset_rule_count(const dc_ruleset *rs);
DC_API const struct dc_rule_info *dc_ruleset_rule(const dc_ruleset *rs, size_t i);
DC_API size_t dc_ruleset_accelerator_count(const dc_ruleset *rs);
DC_API const struct dc_accelerator *dc_ruleset_accelerator(const dc_ruleset *rs, size_t i);
DC_API const struct dc_accelerator *dc_ruleset_find_accelerator(const dc_ruleset *rs,
                                                                const char *id);
/* The entry whose PCI ids match, or NULL. */
DC_API const struct dc_accelerator *dc_ruleset_find_pci(const dc_ruleset *rs, uint16_t vendor,
                                                        uint16_t device);
DC_API const struct dc_sizing_params *dc_ruleset_sizing(const dc_ruleset *rs);

#endif /* DC_RULESET_H */
