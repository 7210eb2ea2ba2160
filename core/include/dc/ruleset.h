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
#define DC_RULESET_MAX_FILES        64
#define DC_RULESET_MAX_FILE_BYTES   (1u << 20)
#define DC_RULESET_MAX_RULES        1000
#define DC_RULESET_MAX_ACCELERATORS 100
#define DC_RULESET_MAX_DIAGS        200
#define DC_ID_MAX                   32 /* rule and accelerator ids */

/* asic: purpose-built accelerators that are neither GPUs nor TPUs (AWS Trainium
 * and Inferentia, Intel Gaudi), each with its own compiler stack. */
enum dc_family { DC_FAMILY_GPU, DC_FAMILY_TPU, DC_FAMILY_CPU, DC_FAMILY_ASIC, DC_FAMILY_COUNT };

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

/* Price bases a workload can ask for (constraints.pricing). */
enum dc_pricing {
    DC_PRICING_ON_DEMAND,
    DC_PRICING_SPOT,
    DC_PRICING_COMMITTED_1Y,
    DC_PRICING_COMMITTED_3Y,
    DC_PRICING_COUNT
};
DC_API const char *dc_pricing_name(enum dc_pricing p); /* "on_demand", "committed_1y" */
DC_API bool dc_pricing_parse(const char *s, enum dc_pricing *out);

/* The bases machines are had on (prices.yaml `capacity:`): the four price
 * bases, and reservations (capacity blocks, short-term reserved clusters),
 * which a workload does not ask for but a configuration past a basis's limit
 * needs. The first four equal enum dc_pricing's values. */
enum dc_basis {
    DC_BASIS_ON_DEMAND = DC_PRICING_ON_DEMAND,
    DC_BASIS_SPOT = DC_PRICING_SPOT,
    DC_BASIS_COMMITTED_1Y = DC_PRICING_COMMITTED_1Y,
    DC_BASIS_COMMITTED_3Y = DC_PRICING_COMMITTED_3Y,
    DC_BASIS_RESERVED = DC_PRICING_COUNT,
    DC_BASIS_COUNT
};
DC_API const char *dc_basis_name(enum dc_basis b); /* "reserved" */
DC_API bool dc_basis_parse(const char *s, enum dc_basis *out);

/* The regimes a figure's uncertainty is stated for (docs/calibration.md):
 * each calibration row falls in one, and each figure a result prints takes
 * the band of its regime. The pooled ones (training, serving) hold every row
 * of their task and stand in for a regime with too few rows of its own. */
enum dc_regime {
    DC_REGIME_TRAINING,        /* pooled */
    DC_REGIME_TRAINING_DENSE,  /* dense transformers, full training */
    DC_REGIME_TRAINING_MOE,    /* mixtures of experts */
    DC_REGIME_FINE_TUNING,     /* adapters (LoRA, QLoRA) on a frozen base */
    DC_REGIME_TRAINING_OTHER,  /* convolutions, diffusion, recommenders, ... */
    DC_REGIME_SERVING,         /* pooled */
    DC_REGIME_SERVING_DENSE,   /* a dense decoder's throughput at load */
    DC_REGIME_SERVING_MOE,     /* a mixture of experts' throughput at load */
    DC_REGIME_SERVING_LATENCY, /* one request's decode step at batch 1 */
    DC_REGIME_SERVING_OTHER,   /* models that generate no tokens (images, encoders) */
    DC_REGIME_COUNT
};
DC_API const char *dc_regime_name(enum dc_regime r); /* "training-moe" */
DC_API bool dc_regime_parse(const char *s, enum dc_regime *out);
/* The pooled regime of `r`'s task (itself for a pooled one). */
DC_API enum dc_regime dc_regime_pool(enum dc_regime r);

/* One dated price on one basis; NAN when the offer has none on that basis. */
struct dc_price {
    double usd_per_hour;      /* one instance (machine) an hour; NAN for per-chip offers */
    double usd_per_chip_hour; /* per accelerator: usd_per_hour / accelerators */
    const char *as_of;        /* YYYY-MM or YYYY-MM-DD */
};

/* An offer's reservation (prices.yaml `reserved`): its instances booked ahead
 * as a capacity block or short-term reserved cluster, priced per instance-hour
 * (or per chip-hour for a per-chip offer) like the other bases, for a booking
 * of min_hours to max_hours; price NAN when the offer has none. */
struct dc_reservation {
    struct dc_price price;
    double min_hours, max_hours;
    double lead_time_days; /* days from booking to the machines; NAN where not public */
};

/* One provider's public offer of an accelerator (prices.yaml): an instance
 * (machine) type with a fixed number of accelerators, priced per instance-hour,
 * or, for parts bought as named slices (TPUs), a price per chip that applies to
 * every documented slice. */
struct dc_offer {
    enum dc_provider provider;
    const char *region;
    const char *instance_type; /* "p5.48xlarge", "a3-highgpu-4g", "TPU v5p" */
    unsigned accelerators;     /* per instance; 0: priced per chip for every slice */
    double vcpus;              /* per instance; NAN when not given */
    double memory_gb;          /* host memory per instance; NAN when not given */
    const char *source;        /* the provider's own pricing page */
    const char
        *via; /* where the number was read: a copy of the provider's price API; may be NULL */
    bool low_confidence;
    struct dc_price price[DC_PRICING_COUNT];
    struct dc_reservation reserved;
};

/* How many machines (instances, TPU slices) one buyer can have at once from
 * a provider on a basis (prices.yaml `capacity:`): a published limit, or a
 * conservative stated assumption an operator overrides. */
struct dc_capacity {
    enum dc_provider provider;
    enum dc_basis basis;
    const struct dc_accelerator *accelerator; /* NULL: every part the provider rents */
    unsigned max_instances;
    const char *source; /* the limit's public page, or the basis of the assumption */
    const char *as_of;
    const char *note; /* may be NULL */
    bool assumption;  /* a stated assumption, not a published limit */
};

/* Named limits on prices.yaml. */
#define DC_RULESET_MAX_OFFERS 1000
/* Entries under `capacity`: one per provider, basis and part (or all parts). */
#define DC_RULESET_MAX_CAPACITY (DC_PROVIDER_COUNT * DC_BASIS_COUNT * 8)
/* A limit above this many machines is no limit a buyer meets. */
#define DC_CAPACITY_MAX_INSTANCES 1000000
/* Entries under `unpriced` (why no public price exists), per file: one for a
 * part, or one for each provider of it. */
#define DC_RULESET_MAX_UNPRICED (DC_RULESET_MAX_ACCELERATORS * (DC_PROVIDER_COUNT + 1))
/* Characters in one `unpriced` reason: a recommendation quotes it whole in a
 * reason message (dc_reason_text), whose buffers are DC_REASON_TEXT_MAX. */
#define DC_RULESET_MAX_UNPRICED_REASON 640

/* Named limits on one catalog entry's purchasable shapes. */
#define DC_ACC_MAX_NODE_SIZES 8
#define DC_ACC_MAX_SLICES     40

/* A TPU slice shape as Google documents it: accelerator type and chips. */
struct dc_slice {
    const char *name; /* "v5p-128" */
    unsigned chips;   /* 64 */
};

/* One catalog entry. Numbers a public source does not give are NAN. */
struct dc_accelerator {
    const char *id;
    const char *name;
    const char *short_name; /* for shapes: "H100" in "4 x 8 H100"; defaults to the id */
    const char *vendor;     /* nvidia | amd | google | intel | aws | generic (catalog.c) */
    enum dc_family family;
    const char *fact; /* may be NULL */
    const char *source;
    uint16_t pci_vendor; /* 0 when none */
    const uint16_t *pci_devices;
    size_t n_pci_devices;
    double memory_gb;
    double memory_bandwidth_gbps;
    double peak_tflops[DC_PREC_COUNT]; /* dense; NAN when unknown; fp32 is IEEE FP32 */
    double peak_tf32_tflops;           /* fp32 matmuls as TF32 (workload tf32); NAN: none */
    unsigned precisions;               /* bit (1u << enum dc_precision) when supported */
    const char *interconnect;          /* may be NULL */
    double interconnect_gbps;
    /* The fast domain: chips joined by the fast interconnect (an NVLink board,
     * the largest TPU slice over ICI). Beyond it jobs cross the slower network. */
    unsigned domain;
    /* What can be bought: GPUs and CPUs per machine (ascending; larger jobs take
     * whole machines of the largest), or TPU slices (ascending chips; larger jobs
     * take several slices of one shape, Multislice). */
    unsigned node_sizes[DC_ACC_MAX_NODE_SIZES];
    size_t n_node_sizes;
    struct dc_slice slices[DC_ACC_MAX_SLICES];
    size_t n_slices;
    const char *shapes_source;
    /* On premises, the unit the part is sold in (chips): a GB200 NVL72 rack
     * (72), an HGX machine (8); 0 when the catalog states none (then the
     * machine sizes above). */
    unsigned on_prem_unit;
    const char *on_prem_source;
    /* The cluster: the most chips one job can use across domains. */
    unsigned max_chips;
    const char *scale_out_network;
    const char *scale_out_source;
    /* Each chip's share of the network between fast domains, Gbit/s (the
     * machine's or slice's published network over its chips); NAN when the
     * catalog gives none (sizing.yaml's network_gbit_per_chip stands in). */
    double network_gbit_per_chip;
    const char *network_source;
    /* Share of its family's MFU this part reaches with its software stack, as
     * measured (1 unless the catalog cites a measurement): serving, and
     * training (the same unless the catalog measured them apart). */
    double mfu_factor;
    double training_mfu_factor;
    /* Share of the memory bandwidth sizing.yaml's hbm_efficiency gives that
     * this part's serving stack reads weights at in a decode step (1 unless
     * the catalog cites a measurement: mfu_factor.hbm). */
    double hbm_factor;
    const char *mfu_factor_source;
    double power_watts;
    unsigned providers; /* bit (1u << enum dc_provider) */
    bool on_prem;
    /* Public offers from prices.yaml, in file order (views into the rule set). */
    const struct dc_offer *offers;
    size_t n_offers;
    /* prices.yaml's `unpriced` entry: why no public price exists and what was
     * checked; NULL when none (then the part should have an offer). */
    const char *unpriced_reason;
    /* prices.yaml's `unpriced` entries with a `provider`: why that provider,
     * which the catalog lists for the part, rents it at no public price; NULL
     * where none is stated (then the provider should have an offer). */
    const char *unpriced_provider_reason[DC_PROVIDER_COUNT];
    /* A hardware list price per chip for on-premises cost; NAN when none is
     * public (none is, for any shipped part: operators add their own). */
    double list_price_usd;
    const char *list_price_as_of;
    const char *list_price_source;
};

/* The p10 and p90 of a regime's calibration ratios, estimated time over
 * measured time (throughputs: measured over estimated), as a prediction
 * interval from its fit rows (docs/calibration.md, "Stated uncertainty"): a
 * time t is between t / p90 and t / p10, a rate r between r x p10 and r x
 * p90, four times in five. rows 0: the regime states none. */
struct dc_band_params {
    double p10, p90;
    unsigned rows;
};

/* One sizing number and the public source it rests on. */
struct dc_param {
    double value;
    const char *source;
};

/* Sizing and scoring parameters (sizing.yaml; method: docs/scoring.md). Every
 * value is echoed with its source in a result's `assumptions`. */
struct dc_sizing_params {
    struct dc_param memory_usable_fraction;
    /* training */
    struct dc_param state_bytes_per_parameter; /* full: weights, gradients, Adam */
    struct dc_param lora_adapter_fraction;     /* adapter / base parameters */
    struct dc_param lora_flops_factor;         /* FLOPs per parameter and token (vs 6) */
    struct dc_param qlora_bytes_per_parameter; /* 4-bit base with its constants */
    struct dc_param checkpoint_bytes;          /* per token x hidden x layer, kept */
    struct dc_param layer_bytes;               /* per token x hidden, one layer recomputed */
    struct dc_param micro_batch;               /* sequences per chip and step */
    struct dc_param sequence_length;           /* default training.sequence_length */
    struct dc_param tokens_per_parameter;      /* default tokens for training */
    struct dc_param fine_tuning_tokens;        /* default tokens for fine-tuning */
    struct dc_param target_hours_training;     /* default run length, no deadline */
    struct dc_param target_hours_fine_tuning;
    struct dc_param goodput;            /* whole-run share of steady-state speed */
    struct dc_param efficiency_floor;   /* objective time: scale while above */
    struct dc_param chips_per_sequence; /* chips one sequence of a global batch keeps busy */
    struct dc_param min_run_hours;      /* objective time: no shorter than */
    /* RL post-training: share of a step spent generating rollouts; value NAN
     * when sizing.yaml gives none (training.rl.rollout_share is then needed). */
    struct dc_param rl_rollout_share;
    /* A mixture of experts trains at w / (w + this) of a dense model's MFU,
     * w its experts' width (narrow experts make small grouped matmuls); value
     * NAN when sizing.yaml gives none (then no MoE factor). */
    struct dc_param moe_expert_width;
    /* Chips that split each sequence of the global batch (chips / batch = g
     * > 1) train at 1 / (1 + this x (g - 1) / hidden) of the MFU: value NAN
     * when sizing.yaml gives none. */
    struct dc_param sequence_split;
    /* A decoder of hidden size h trains at h / (h + this) of its family's
     * MFU; value NAN when sizing.yaml gives none. */
    struct dc_param matmul_width;
    /* Data-parallel gradient synchronisation (core/src/sizing/sync.c): bytes per
     * trained parameter all-reduced each step, the share of a step's compute
     * the all-reduce hides behind, and each chip's network where the catalog
     * gives none; values NAN when sizing.yaml gives none (then no term). */
    struct dc_param gradient_bytes;
    struct dc_param sync_overlap;
    struct dc_param network_gbit_per_chip;
    /* A sharded table's all-to-all (core/src/sizing/embed.c): the latency each
     * peer on another machine adds, microseconds (NAN: sizing.yaml gives
     * none, and the all-to-all's single hop stands for all of them). */
    struct dc_param alltoall_peer_us;
    /* A training run's fixed costs (core/src/sizing/overheads.c): start-up hours per
     * run, weights loaded at load_gb_per_s, and cloud billing's granularity
     * and minimum in hours; values NAN when sizing.yaml gives none (no term). */
    struct dc_param startup_hours;
    struct dc_param load_gb_per_s;
    struct dc_param billing_granularity_hours;
    struct dc_param billing_minimum_hours;
    /* inference */
    double infer_bytes_per_param[DC_PREC_COUNT];
    const char *infer_bytes_source;
    struct dc_param infer_overhead; /* weights x this: runtime and activations */
    struct dc_param context_tokens; /* default KV length per request */
    struct dc_param output_tokens;  /* default generated tokens per request */
    struct dc_param max_batch;      /* most concurrent requests per replica */
    /* Most concurrent requests one attention data-parallel rank of an
     * expert-parallel replica batches (core/src/sizing/sizing.c); value NAN
     * when sizing.yaml gives none (then max_batch a rank). */
    struct dc_param attention_dp_batch;
    /* The expert width of a mixture of experts' serving matmuls: decode and
     * prefill matmuls run at w / (w + this) of the serving MFU
     * (core/src/sizing/sizing.c); value NAN when sizing.yaml gives none (then
     * training's moe_expert_width). */
    struct dc_param serve_moe_expert_width;
    /* Achieved share of peak HBM bandwidth: a large batch's decode step and
     * every other weight read (prefill, non-generative passes). */
    struct dc_param hbm_efficiency;
    /* The same for a decode step of one token row (GEMV kernels); a step of
     * B rows reaches hbm_efficiency - (hbm_efficiency - this) / B
     * (dc__decode_hbm_scale, core/src/sizing/sizing.c); value NAN when
     * sizing.yaml gives none (then hbm_efficiency at every batch). */
    struct dc_param hbm_efficiency_batch1;
    /* Embedding rows gathered at random (core/src/sizing/embed.c): the share of
     * peak memory bandwidth they reach; value NAN when sizing.yaml gives none
     * (then the rows a recommender looks up are not timed). */
    struct dc_param gather_efficiency;
    const char *kv_source;
    double hours_per_month;
    struct dc_param serving_max_chips; /* all replicas together, without max_accelerators */
    /* When no configuration meets a serving latency target: a decode step
     * within this share of the fastest the search reaches is as near, and the
     * objective chooses among those (core/src/sizing/configs.c, near_pick);
     * value NAN when sizing.yaml gives none (then the fastest outright). */
    struct dc_param near_miss_tolerance;
    /* A diffusion network's speed at 8 bits or fewer over its 16-bit speed
     * (NAN: the part's listed low-precision peak). */
    struct dc_param diffusion_8bit_gain;
    /* Seconds of audio one host vCPU decodes a second to a speech model's
     * input (value NAN: not bound; core/src/sizing/sizing.c). */
    struct dc_param audio_decode_s_per_vcpu;
    /* Tensor-parallel synchronisation (core/src/sizing/serve_tp.c): the fixed latency
     * of one all-reduce by family's link, microseconds (NAN: sizing.yaml gives
     * none, and no synchronisation is counted), with its source; the bytes of
     * one activation element exchanged; and the network between machines
     * that pipeline stages cross: a hop's latency and the bytes a chip sends
     * a second. Each NAN when sizing.yaml leaves it out. */
    double tp_allreduce_us[DC_FAMILY_COUNT];
    const char *tp_allreduce_source;
    struct dc_param tp_activation_bytes;
    struct dc_param network_hop_us;
    struct dc_param network_gbps;
    /* Model FLOPs utilisation per family, each family with its source. */
    double mfu_training[DC_FAMILY_COUNT];     /* steady state within one fast domain */
    double mfu_cross_domain[DC_FAMILY_COUNT]; /* factor once a job spans domains */
    double mfu_decay[DC_FAMILY_COUNT];        /* loss per doubling beyond one domain */
    double mfu_inference[DC_FAMILY_COUNT];    /* compute-bound serving work */
    const char *mfu_source[DC_FAMILY_COUNT];
    /* Training MFU factor of architectures that run below transformer matmul
     * rates (convolutions), by name; unlisted architectures: 1. */
    struct dc_arch_factor {
        const char *architecture;
        struct dc_param factor;
    } arch_mfu[8];
    size_t n_arch_mfu;
    /* Measured speed-up of low-precision matmuls over bf16, per precision and
     * family (never above the ratio of the catalog's peaks); 1 when unlisted. */
    double precision_gain[DC_PREC_COUNT][DC_FAMILY_COUNT];
    const char *precision_gain_source[DC_PREC_COUNT];
    /* Stated uncertainty per regime, derived from the calibration's fit rows
     * by `accel-advisor calibrate --bands`; rows 0 where the set states none. */
    struct dc_band_params uncertainty[DC_REGIME_COUNT];
    /* on-premises cost: energy at a stated price and PUE, hardware amortised */
    struct dc_param usd_per_kwh;
    struct dc_param pue;
    struct dc_param amortization_years;
    /* scoring (docs/scoring.md, sections 7 and 8) */
    double score_base;            /* rule_score = base + soft points, for information */
    double soft_band;             /* soft points move a value by at most half this each way */
    double soft_full_points;      /* the soft points that take the whole half-band */
    double balanced_premium;      /* balanced: spend at most this share more, to be faster */
    double negligible_cost_usd;   /* costs under it compare as equal to it */
    double points_per_doubling;   /* score lost per doubling of the objective value */
    double availability_points;   /* prefer_available: soft points of a free part */
    double low_confidence_points; /* soft points a low-confidence price loses */
    double price_stale_after_days;
};

/* One rule, as loaded. */
struct dc_rule_info {
    const char *id;
    const char *description;
    const char *message;
    const char *source;
    const char *fact; /* may be NULL; rules citing one fact share this pointer */
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
DC_API void dc_ruleset_release(dc_ruleset *rs);       /* NULL-safe; frees at zero */

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

/* The band a figure of regime *r takes: the regime's own, else its pool's
 * (*r is then set to the pool); rows 0 when neither states one. */
DC_API struct dc_band_params dc_sizing_band(const struct dc_sizing_params *s, enum dc_regime *r);

/* The offer of `a` with the lowest price per chip-hour on `basis` from one of
 * `providers` (bit set of enum dc_provider; 0 = any), whatever machine size it
 * rents, the first in file order on a tie; NULL when none is priced on that
 * basis. What a configuration costs depends on its machine size: the engine
 * prices it with the offers that rent that size (core/src/sizing/cost.c). */
DC_API const struct dc_offer *dc_cheapest_offer(const struct dc_accelerator *a,
                                                enum dc_pricing basis, unsigned providers);

/* The limit on machines of `a` that one buyer can have at once from provider
 * `p` on basis `b`: prices.yaml's entry for the part, else the provider's
 * entry for every part on that basis; NULL when the file states none (then
 * no limit is known). */
DC_API const struct dc_capacity *dc_capacity_limit(const dc_ruleset *rs, enum dc_provider p,
                                                   enum dc_basis b, const struct dc_accelerator *a);
/* Every `capacity:` entry, in file order. */
DC_API size_t dc_ruleset_capacity_count(const dc_ruleset *rs);
DC_API const struct dc_capacity *dc_ruleset_capacity(const dc_ruleset *rs, size_t i);

/* How many offers of `a` provider `p` has, on any basis. */
DC_API size_t dc_offers_from(const struct dc_accelerator *a, enum dc_provider p);

/* Why `a` has no public price from `providers` (bit set of enum dc_provider;
 * 0 = any), as prices.yaml states it: the part's own reason (it has no offer
 * anywhere), or, when the asked providers that the catalog lists for the part
 * come down to one, that provider's reason (it has no offer there); NULL when
 * the file states none that covers them. */
DC_API const char *dc_unpriced_reason(const struct dc_accelerator *a, unsigned providers);

#endif /* DC_RULESET_H */
