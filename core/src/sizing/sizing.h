/* core/src/sizing/sizing.h -- the physics model behind every number a result prints:
 * shapes that can be bought and the rates of a part (shapes.c), one
 * configuration of a part (struct dc__part, part.h) sized (sizing.c: training
 * time, serving replicas, latency and rate), and the configurations a part is
 * offered in, of which the objective keeps one (configs.c). What a workload
 * needs before any part is considered is derive.c. Method for users:
 * docs/scoring.md, section 5; calibration against published runs:
 * docs/calibration.md. Not part of the public API. */
#ifndef DC_SIZING_H
#define DC_SIZING_H

#include <math.h>
#include <stdbool.h>

#include "dc/result.h"
#include "part.h"
#include "workload_internal.h"

#define DC__GB               1e9
#define DC__SECONDS_PER_HOUR 3600.0

/* Workload-level quantities (no accelerator yet): core/src/sizing/derive.c. */
void dc__derive(const dc_ruleset *rs, const struct dc_workload *w, struct dc__derived *d);

/* A robustness probe on one accelerator (struct dc_recommend_opts): factors
 * on its price per chip-hour and on its MFU. */
struct dc__perturb {
    double price;
    double mfu;
};
#define DC__UNPERTURBED ((struct dc__perturb){1.0, 1.0})

/* ---- shapes and rates (shapes.c) ------------------------------------------------ */

static inline unsigned dc__shape_chips(const struct dc_shape *s)
{
    return s->units * s->per_unit;
}

/* Most chips one job may use on `a`: the cluster, or max_accelerators if lower. */
unsigned dc__chip_cap(const struct dc_workload *w, const struct dc_accelerator *a);

/* The unit larger jobs are built from: a whole machine, or the largest slice. */
unsigned dc__unit_chips(const struct dc_accelerator *a);

/* The largest purchasable shape of at most `limit` chips (at least one chip's
 * machine or the smallest slice, even above the limit). */
void dc__shape_at_most(const struct dc_accelerator *a, unsigned limit, struct dc_shape *out);

/* Dense FLOP/s per chip for the workload's precision before MFU: the bf16
 * rate times the measured low-precision gain (never above the catalog's
 * ratio of peaks). NAN when no rate is listed. */
double dc__compute_peak(const dc_ruleset *rs, const struct dc_accelerator *a, enum dc_precision p);

/* The peak at a precision as the catalog lists it (for display and serving):
 * fp16 and bf16 stand in for each other, fp32 falls back to bf16. NAN: none. */
double dc__listed_peak(const struct dc_accelerator *a, enum dc_precision p);

/* Training MFU relative to the bf16 peak on `chips` chips of `a`. */
double dc__training_mfu(const dc_ruleset *rs, const struct dc_accelerator *a, unsigned chips);

/* ---- one part, one configuration (sizing.c) ------------------------------------- */

void dc__part_init(struct dc__part *p, const dc_ruleset *rs, const struct dc_workload *w,
                   const struct dc__derived *d, const struct dc_accelerator *a,
                   struct dc__perturb k);

/* The share of p->bandwidth a decode step of `rows` token rows (batch x
 * tokens a request a step) reaches: hbm_efficiency_batch1 x the part's
 * hbm_factor at one row, approaching hbm_efficiency as the batch grows; 1
 * when sizing.yaml gives no batch-1 figure (sizing.c). */
double dc__decode_hbm_scale(const struct dc__part *p, double rows);

/* ---- tensor-parallel synchronisation (serve_tp.c) ---------------------------------- */

/* Fill the part's link parameters from sizing.yaml and the catalog. */
void dc__tp_init(struct dc__part *p);
/* Seconds one pass of `tokens` tokens (a decode step's batch, or a prompt)
 * through `layers` layers of width `hidden` spends synchronising: two
 * all-reduces a layer within a tensor-parallel group of `tp` chips, and one
 * hop a token's activations make between each of `stages` pipeline stages. */
double dc__tp_sync_s(const struct dc__part *p, unsigned tp, double stages, double tokens,
                     double layers, double hidden);
/* The synchronisation of one decode step of `batch` requests on a replica
 * of `tp` chips x `stages`: the model's and, under speculative decoding, the
 * draft's own steps. */
double dc__decode_sync_s(const struct dc__part *p, unsigned tp, double stages, double batch);
/* Seconds one all-to-all among `chips` chips takes when each sends `bytes`
 * in all, a share to every other chip: a fixed latency, the traffic within
 * the fast domain over its links, the rest over each chip's network link. */
double dc__alltoall_s(const struct dc__part *p, unsigned chips, double bytes);
/* Seconds an expert-parallel replica of `chips` chips spends sending
 * `tokens` tokens to their experts and back in every MoE layer. */
double dc__ep_sync_s(const struct dc__part *p, unsigned chips, double tokens);

/* ---- a recommender's embedding tables (embed.c) --------------------------------- */

/* Set the part's gather rate (none unless the workload is a recommender
 * with its lookups and sizing.yaml gives gather_efficiency). */
void dc__embed_init(struct dc__part *p);
/* Training: the share of a step left to the dense part's compute once the
 * rows a step looks up are gathered and, with the tables sharded across
 * `chips` chips, their pooled rows exchanged both ways (1 without them). */
double dc__embed_train_factor(const struct dc__part *p, unsigned chips, double mfu);
/* Serving: seconds one batch of `batch` requests spends gathering its rows
 * from tables sharded across the replica's `chips` chips and exchanging the
 * pooled rows (0 for other models). */
double dc__embed_batch_s(const struct dc__part *p, unsigned chips, double batch);

/* ---- data-parallel gradient synchronisation (sync.c) ---------------------------- */

/* Set the part's all-reduce terms (none unless training with sizing.yaml's
 * gradient_bytes and sync_overlap). */
void dc__sync_init(struct dc__part *p);
/* Seconds one step's gradient all-reduce takes on `chips` chips (0: one
 * replica, or no term). */
double dc__sync_seconds(const struct dc__part *p, unsigned chips);
/* The share of a step's time left to compute once the all-reduce the
 * backward pass cannot hide is added, at MFU `mfu` (before the part's and
 * the architecture's factors); 1 without a term. Never rises with more chips
 * at a fixed global batch. */
double dc__sync_factor(const struct dc__part *p, unsigned chips, double mfu);

/* ---- a training run's fixed costs (overheads.c) -------------------------------- */

/* The start-up every run pays (0 without sizing.yaml's startup_hours, and
 * for serving). */
double dc__startup_hours(const struct dc__part *p);
/* Work out p's start-up once (dc__part_init): every configuration sized
 * and every target test reads it. */
void dc__overheads_init(struct dc__part *p);
/* Set z->overheads from the sized and priced run (every field NAN when the
 * hours are unknown or the set gives no start-up), add their cost to
 * z->cost_usd, and check the deadline and the budget with them. */
void dc__overheads(const struct dc__part *p, struct dc_sizing *z);

/* ---- what can be had at once (buying.c) ----------------------------------------- */

/* Set z->capacity for a priced cloud configuration: the asked basis's stated
 * limit for its offer's provider, and whether (and which basis) sells more. */
void dc__capacity_need(const struct dc__part *p, struct dc_sizing *z);

/* A sizing with nothing decided: unknown numbers NAN, every target met. */
void dc__sizing_init(const struct dc__part *p, struct dc_sizing *z);

/* Training: the smallest purchasable shape within `cap` chips whose memory
 * holds the job (false when none does; then *out is the smallest at any
 * size, or 0 chips when not even a fast domain holds one micro-batch). */
bool dc__train_min_shape(const struct dc__part *p, unsigned cap, struct dc_shape *out);
/* Training MFU on `chips` chips, relative to the bf16 peak, before the
 * architecture's and the part's factors: sequence splitting, the gradient
 * all-reduce and a recommender's table exchange included. Over the family's
 * MFU (mfu_training) it is the scale efficiency. A search that asks of the
 * same counts again keeps it (configs.c). */
double dc__train_mfu(const struct dc__part *p, unsigned chips);
/* Training hours on `chips` chips at training MFU `mfu` (dc__train_mfu);
 * NAN when the part lists no rate. */
double dc__train_hours_at(const struct dc__part *p, unsigned chips, double mfu);
/* Size and price the run on `shape` (`chips` of it: a pinned count may not be
 * a whole shape), `mfu` being dc__train_mfu(p, chips) (read only when the
 * part lists a rate); dc__sizing_finish completes it. */
void dc__train_at(const struct dc__part *p, const struct dc_shape *shape, unsigned chips,
                  double mfu, struct dc_sizing *z);

/* Serving: one replica of `chips` chips serving `batch` concurrent requests. */
struct dc__replica {
    unsigned chips;
    unsigned batch;
    double prefill_s;
    double step_s;    /* one decode step, or one batch for non-generative models */
    double request_s; /* what one request waits: prefill + output tokens x step */
    double rps;       /* requests per second the replica completes */
    bool compute_bound;
    bool expert_parallel; /* laid out expert parallel, attention data parallel */
};

/* What a replica of `chips` chips is, whatever its batch: its layouts, their
 * batch caps and (with prompts) their prefill, worked out once for the
 * batches a search probes on it (dc__replica_chips_init). */
struct dc__replica_chips {
    unsigned chips;
    unsigned tp;          /* tensor-parallel degree (tensor_parallel) */
    unsigned tp_cap;      /* batch cap of the tensor-parallel layout */
    unsigned ep_cap;      /* of the expert-parallel layout, 0 without it */
    double stages;        /* pipeline stages: chips / tp */
    double bw, tp_bw, fl; /* the replica's and a tensor-parallel group's rates */
    double tp_prefill_s;  /* a prompt's prefill, per layout; NAN without prompts */
    double ep_prefill_s;
    /* How its replicas are bought (dc__serve_buy): units of buy_per chips
     * (0: no shape holds one), buy_fit replicas a unit, or buy_take units a
     * replica where it is larger than a machine; a TPU slice's name. */
    unsigned buy_per, buy_fit, buy_take;
    const char *buy_name;
};

/* The first replica size after `prev` chips (0: the first): a tensor-parallel
 * group of 1, 2, 4 ... chips within one machine, then whole machines; a TPU
 * replica is one documented slice. 0 when there is none. */
unsigned dc__next_replica_size(const struct dc_accelerator *a, unsigned prev);
/* The first replica size whose memory holds the weights (with runtime
 * overhead) and `batch` requests' KV caches, found in one jump whatever the
 * model's size; 0 when no size does. */
unsigned dc__replica_holding(const struct dc__part *p, double batch);
/* The most concurrent requests `chips` chips hold (weights, then one KV cache
 * each; at most max_batch unless the workload asks for more); 0: none. */
unsigned dc__serve_batch_cap(const struct dc__part *p, unsigned chips);
void dc__replica_at(const struct dc__part *p, unsigned chips, unsigned batch,
                    struct dc__replica *r);
/* `c` for `chips` chips; with `prompts` the prefill too (dc__replica_probed
 * reads it, dc__serve_latency_within does not). */
void dc__replica_chips_init(const struct dc__part *p, unsigned chips, bool prompts,
                            struct dc__replica_chips *c);
/* dc__serve_batch_cap of c's chips. */
unsigned dc__replica_chips_cap(const struct dc__replica_chips *c);
/* The step-only replicas a latency search kept (dc__serve_latency_within):
 * at batch 1 and at the batch it found, by the batch asked for (a replica's
 * own batch may be the smaller its tensor-parallel layout holds). */
struct dc__step_probes {
    size_t n;
    unsigned batch[2];
    struct dc__replica step[2];
};
/* dc__replica_at on c's chips (initialised with prompts); a step `probed`
 * (may be NULL) kept at `batch` is finished, not worked out again. */
void dc__replica_probed(const struct dc__part *p, const struct dc__replica_chips *c, unsigned batch,
                        const struct dc__step_probes *probed, struct dc__replica *r);
/* Time per output token: one decode step over the tokens a step yields
 * (more than one under speculative decoding), or one batch for a model that
 * generates no tokens; what latency_ms_p99 and decode_ms are. */
double dc__replica_token_s(const struct dc__part *p, const struct dc__replica *r);
/* The time per output token meets latency_ms_p99 (always, with no target). */
bool dc__replica_latency_ok(const struct dc__part *p, const struct dc__replica *r);
/* The largest batch in [1, cap] whose step meets the latency target (1 when
 * even batch 1 misses). */
unsigned dc__serve_latency_batch(const struct dc__part *p, unsigned chips, unsigned cap);
/* The rules' near_miss_tolerance, 0 where they give none. */
static inline double dc__near_miss_slack(const struct dc_sizing_params *s)
{
    return isfinite(s->near_miss_tolerance.value) ? s->near_miss_tolerance.value : 0;
}
/* The slowest step as near a missed latency target `target_ms` as a step of
 * `step_ms` (> target_ms): one whose share of the target (target / step, what
 * a no-fit answer ranks by, docs/scoring.md section 10) is at most `slack`
 * below that step's. Near the target that is about `slack` of the step
 * (18 ms missed by 19 ms: up to 20.1 ms); on a far miss it is more (50 ms
 * missed by 123 ms: up to 140 ms), where a buyer weighs cost over a step the
 * target misses by half; INFINITY when any step is as near. */
static inline double dc__near_miss_limit_ms(double slack, double target_ms, double step_ms)
{
    double share = target_ms / step_ms - slack;
    return share > 0 ? target_ms / share : INFINITY;
}
/* The same on c's chips, except that where even batch 1 misses the target
 * and `slack` > 0 it is the largest batch whose step is as near the target
 * as batch 1's within `slack` (dc__near_miss_limit_ms; near_miss_tolerance:
 * as near a miss, on fewer replicas);
 * `probed` (may be NULL) keeps its step-only replicas at batch 1 and at the
 * batch returned, where it probed them. */
unsigned dc__serve_latency_within(const struct dc__part *p, const struct dc__replica_chips *c,
                                  unsigned cap, double slack, struct dc__step_probes *probed);
/* The largest batch in [1, cap] on c's chips whose time per output token is
 * at most `limit_ms` (0 when batch 1's is not), probed as the above. */
unsigned dc__serve_batch_within(const struct dc__part *p, const struct dc__replica_chips *c,
                                unsigned cap, double limit_ms, struct dc__step_probes *probed);
/* Replicas `r` needs for the workload's rate (at least 1). */
unsigned dc__replicas_for(const struct dc__part *p, const struct dc__replica *r);
/* Machines for `n` replicas of c's chips: GPUs and CPUs come as whole
 * machines the replicas fill (a replica larger than a machine takes whole
 * machines), each TPU replica is its own slice. False when no shape holds
 * one replica. */
bool dc__serve_buy(const struct dc__replica_chips *c, unsigned n, struct dc_shape *out);
/* Size and price `n` replicas of `r` bought as `buy`; dc__sizing_finish
 * completes it. */
void dc__serve_at(const struct dc__part *p, const struct dc__replica *r, unsigned n,
                  const struct dc_shape *buy, struct dc_sizing *z);
/* What no comparison of configurations reads, so worked out only for those
 * an answer keeps (the pick, the frontier's): a training configuration's
 * capacity need (buying.c) and the uncertainty bands (uncertainty.c). */
void dc__sizing_finish(const struct dc__part *p, struct dc_sizing *z);

/* The regime of the workload's figures (docs/calibration.md): training
 * dense, MoE, fine-tuning or other; serving dense, MoE or other at load (the
 * caller takes serving-latency for one request's step at batch 1). */
enum dc_regime dc__regime_of(const struct dc_workload *w, const struct dc__derived *d);
/* Set z->uncertainty: the p10-p90 band of each of its figures from the
 * calibration of its regime (core/src/sizing/uncertainty.c). */
void dc__uncertainty(const struct dc__part *p, struct dc_sizing *z);

/* Parse `workload`, derive what it needs and size it on catalog entry `id` at
 * exactly `pinned` chips: dc_size_at, and the calibration that also wants
 * the parsed workload (*w) and its derived quantities (*d). Errors as
 * dc_size_at's. */
enum dc_status dc__size_workload_at(const dc_ruleset *rs, const cJSON *workload, const char *id,
                                    unsigned pinned, struct dc_workload *w, struct dc__derived *d,
                                    struct dc_sizing *z, struct dc_error *err);

/* Size `w` on `a` at exactly `pinned` chips (a published run's count, for
 * calibration: dc_size_at). Never fails: unknown numbers stay NAN. */
void dc__size_pinned(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__derived *d,
                     const struct dc_accelerator *a, unsigned pinned, struct dc_sizing *z);

/* Price the sized configuration of part `p`: cost_basis, offer,
 * usd_per_chip_hour (times p->price_scale, a robustness probe's factor, 1
 * otherwise), cost_usd, cost_per_hour_usd, energy_usd and within_budget
 * (core/src/sizing/cost.c). */
void dc__cost(const struct dc__part *p, struct dc_sizing *z);

/* Find the offers of p->a on p->w's basis and providers that
 * dc__offer_for_shape picks for each machine size (dc__part.offer_units);
 * dc__part_init's last step. */
void dc__part_offers(struct dc__part *p);

/* The least any training run of part `p` can cost, a little under it: its
 * compute at the family's MFU (dc__train_mfu never exceeds it: the scale,
 * the sequence split, the all-reduce and a recommender's tables each only
 * lower it, so chips x hours never falls below this), at the lowest rate
 * dc__cost may price it at (the cheapest allowed offer, or the on-premises
 * rate), the overheads adding to it; INFINITY when nothing prices it, NAN
 * when unknown (cost.c). What an answer where nothing fits skips a part by. */
double dc__train_cost_floor(const struct dc__part *p);

/* The offer that prices shape `s` of `a` on `basis` from one of `providers`
 * (bit set; 0 = any): the cheapest per chip-hour among those renting instances
 * of exactly s->per_unit accelerators, or, for a TPU slice, the per-chip
 * offers; the first in file order on a tie.
 * *instances (may be NULL) is how many of its instances the shape takes.
 * NULL (and 0 instances) when none rents that size, or on a NULL argument or
 * a basis out of range. */
const struct dc_offer *dc__offer_for_shape(const struct dc_accelerator *a, const struct dc_shape *s,
                                           enum dc_pricing basis, unsigned providers,
                                           unsigned *instances);

/* The distinct machine sizes (accelerators per instance, ascending) that an
 * offer of one of `providers` (0 = any) rents on `basis`, at most `max` of them
 * (the smallest); the count written. 0 for parts bought as named slices
 * (TPUs, CPU machine types: the engine uses the catalog's), for a NULL
 * argument or a basis out of range. */
unsigned dc__rentable_node_sizes(const struct dc_accelerator *a, enum dc_pricing basis,
                                 unsigned providers, unsigned *sizes, unsigned max);

/* Which providers (bit set into *providers_out, which may be NULL) rent shape
 * `s` of `a` on `basis`; false when none does, or on a NULL argument or a
 * basis out of range. */
bool dc__providers_renting(const struct dc_accelerator *a, const struct dc_shape *s,
                           enum dc_pricing basis, unsigned *providers_out);

/* Why a cloud candidate with offers on the workload's basis has no price:
 * "No public offer rents machines of 4 H100 on demand (instances of 1 and 8
 * H100 are offered)". False (buf untouched) when no allowed offer is priced on
 * that basis at all, which the caller words itself. */
bool dc__unrented_size_text(const struct dc_workload *w, const struct dc_accelerator *a,
                            const struct dc_shape *s, char *buf, size_t len);

/* ---- the configurations of a part (configs.c) ----------------------------------- */

/* The cost side of an objective for a configuration: its cost (no less than
 * negligible_cost_usd: cents apart are no reason to prefer a part), or for a
 * part with no price its chip-hours (training) or chips (serving), so that an
 * unpriced part is still sized as a priced one would be; NAN on premises
 * with no list price and max_accelerators given: the chips are the team's
 * and time decides. */
double dc__config_spend(const struct dc_sizing_params *s, const struct dc_workload *w,
                        const struct dc_sizing *z);
/* The time side: run hours, no shorter than min_run_hours (training, and an
 * offline inference job), or one request's latency in ms (serving); NAN when
 * unknown. */
double dc__config_time(const struct dc_sizing_params *s, const struct dc_workload *w,
                       const struct dc_sizing *z);

/* Two objective values within this share of each other are a tie. */
#define DC__TIE 1e-9
/* -1 when x < y beyond a tie, 1 when x > y, 0 on a tie; an unknown value
 * (NAN) compares above every known one. Inline: the ranking, the balanced
 * walk and the frontier call it some 3,000 times a recommendation. */
static inline int dc__cmp_value(double x, double y)
{
    bool kx = isfinite(x), ky = isfinite(y);
    if (kx != ky)
        return kx ? -1 : 1;
    /* Both finite here: the larger magnitude without fmax's call (fmax of two
     * finite non-negative numbers is the larger of them). */
    double ax = fabs(x), ay = fabs(y);
    if (!kx || fabs(x - y) <= DC__TIE * (ax > ay ? ax : ay))
        return 0;
    return x < y ? -1 : 1;
}

/* Fewer machines first, then fewer chips: how ties of cost are broken
 * (issue 27: a tie is no reason to buy more). */
int dc__cmp_machines(const struct dc_sizing *x, const struct dc_sizing *y);

/* The configuration meets the deadline (or the default run length) in
 * training; the latency target and the rate in serving. */
bool dc__meets_targets(const struct dc__part *p, const struct dc_sizing *z);

/* One configuration for the frontier (struct dc_frontier_point, less the part).
 * Its capacity need and uncertainty bands are not worked out
 * (dc__sizing_finish): neither the frontier nor a comparison reads them, and
 * the one point a balanced pick takes is finished then (dc__balance). */
struct dc__point {
    size_t acc; /* catalog index */
    struct dc_sizing z;
};

/* Where a part's feasible, priced configurations go for the frontier: a
 * growable array the engine owns (free()). */
struct dc__points {
    struct dc__point *v;
    size_t n, cap;
};

/* Whether a configuration may be chosen at all, beyond memory, budget and
 * targets: bought from every provider the workload requires, allowed by the
 * rules that read the sized configuration (the engine's). */
struct dc__config_filter {
    bool (*ok)(void *ctx, const struct dc__part *p, const struct dc_sizing *z);
    void *ctx;
    /* Not NULL: a training part also keeps here the pick it would make with
     * the budget lifted (every configuration within budget), from the same
     * configurations and filter verdicts; what an answer where nothing fits
     * reads when only the budget is lifted (select/shortfall.c). */
    struct dc_sizing *budget_lifted;
};

/* Enumerate the configurations of part `p` (catalog index `idx`), size and
 * price each, and keep in *pick the one the workload's objective prefers
 * (docs/scoring.md, section 5). `filter` (may be NULL) tells whether a
 * configuration may be chosen; one that may not ranks after every one that may.
 * Feasible priced configurations are appended to `pts` (may be NULL). False
 * when nothing fits (then *pick says why: chips_for_memory). DC_ENOMEM only
 * from `pts`, in *rc. */
bool dc__configure(const struct dc__part *p, size_t idx, const struct dc__config_filter *filter,
                   struct dc__points *pts, struct dc_sizing *pick, enum dc_status *rc);

/* ---- words of a price, and what would make a job fit ------------------------------ */

/* A price basis in words: "on-demand", "spot", "1-year committed" (cost.c). */
const char *dc__pricing_words(enum dc_pricing p);

/* For a job that fits nowhere within its chip limit: the changes that make it
 * fit, each verified by sizing the changed workload again (LoRA or QLoRA for
 * a full fine-tune on `smallest`'s part, a part the allow-list left out), as
 * "; "-separated clauses in buf; NULL when none (core/src/sizing/fit_options.c). */
const char *dc__fit_options(const dc_ruleset *rs, const struct dc_result *res,
                            const struct dc_candidate *smallest, const struct dc_candidate *all,
                            size_t n_all, char *buf, size_t len);

#endif
