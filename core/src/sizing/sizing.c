/* core/src/sizing/sizing.c -- one configuration of one part, sized: training memory
 * and run time on a shape, serving replicas with their batch, latency and
 * rate (what a workload needs before that is derive.c; which configurations
 * are tried is configs.c).
 *
 * The model is documented for users in docs/scoring.md (section 5) and checked
 * against published runs in docs/calibration.md; keep the three in step. Every
 * constant it uses comes from sizing.yaml or the catalog, each with a source. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ruleset_internal.h"
#include "sizing.h"

/* The larger of two times, unknown when either is (fmax would drop a NAN and
 * time a CPU with no listed bandwidth on its FLOPs alone). */
static double max_known(double a, double b)
{
    return isnan(a) || isnan(b) ? NAN : dc__fmax(a, b);
}

/* ceil(v) as a chip count, saturating; 0 for v <= 0 or NAN. */
static unsigned ceil_count(double v)
{
    if (!(v > 0))
        return 0;
    if (v >= (double)UINT_MAX)
        return UINT_MAX;
    return (unsigned)ceil(v - 1e-9);
}

static double arch_mfu_factor(const struct dc_sizing_params *s, const char *arch)
{
    for (size_t i = 0; i < s->n_arch_mfu; i++) {
        if (strcmp(s->arch_mfu[i].architecture, arch) == 0)
            return s->arch_mfu[i].factor.value;
    }
    return 1.0;
}

/* A mixture of experts runs its experts as grouped matmuls as narrow as each
 * expert's feed-forward layer (DeepSeek-V3: 2,048): the narrower, the further
 * below a dense layer's rate (sizing.yaml, moe_expert_width). */
static double moe_factor(const struct dc_sizing_params *s, const struct dc__derived *d)
{
    double c = s->moe_expert_width.value;
    if (!isfinite(d->expert_width) || !isfinite(c))
        return 1.0;
    return d->expert_width / (d->expert_width + c);
}

/* The same for serving: decode and prefill steps give each routed expert the
 * tokens of one step that pick it (tens to hundreds, against training's
 * thousands a micro-batch), so its grouped matmuls run further below a dense
 * layer's rate than in training: at w / (w + sizing.inference's
 * moe_expert_width), training's width where the rules give none. */
static double serve_moe_factor(const struct dc_sizing_params *s, const struct dc__derived *d)
{
    double c = s->serve_moe_expert_width.value;
    if (!isfinite(d->expert_width) || !isfinite(c))
        return moe_factor(s, d);
    return d->expert_width / (d->expert_width + c);
}

/* A narrow model's matmuls (hidden 2,048 against 16,384) keep a chip's
 * matrix units less busy, and its attention, norms and communication take a
 * larger share of a step: it trains at h / (h + this) of the family's MFU
 * (sizing.yaml, matmul_width). */
static double width_factor(const struct dc_sizing_params *s, const struct dc__derived *d)
{
    double c = s->matmul_width.value;
    if (!isfinite(c) || d->kind != DC__KIND_DECODER)
        return 1.0;
    return d->hidden / (d->hidden + c);
}

/* A speech model's serving compute is its encoder's pass over 1,500 frames
 * at Whisper's hidden 1,280, narrower than any decoder the serving MFU was
 * fitted on (4,096 to 16,384): its matmuls run at the same h / (h +
 * matmul_width) as a narrow model trains (MLPerf Inference v5.1's Whisper
 * results on L4, L40S, H200, B200 and GB200 put the encoder at 0.5-0.6 of
 * the decoders' prefill rate; docs/calibration.md, "What is not in the
 * table"). Decoders keep the serving MFU their own rows set. */
static double serving_width_factor(const struct dc_sizing_params *s, const struct dc__derived *d)
{
    double c = s->matmul_width.value;
    if (!isfinite(c) || d->kind != DC__KIND_ENCODER_DECODER)
        return 1.0;
    return d->hidden / (d->hidden + c);
}

/* Keep the catalog's machine sizes that are rented (`sizes`, ascending, n of
 * them): configurations are built only from machines that can be bought. A
 * part none of whose catalog sizes is rented keeps them all (each is then
 * unpriced, and says why). */
static void rentable_sizes(struct dc_accelerator *a, const unsigned *sizes, unsigned n)
{
    unsigned kept[DC_ACC_MAX_NODE_SIZES];
    unsigned largest = 0;
    size_t m = 0;
    for (size_t i = 0; i < a->n_node_sizes; i++) {
        if (a->node_sizes[i] > largest)
            largest = a->node_sizes[i];
        for (unsigned j = 0; j < n; j++)
            if (a->node_sizes[i] == sizes[j])
                kept[m++] = a->node_sizes[i];
    }
    if (m == 0)
        return;
    memcpy(a->node_sizes, kept, m * sizeof(kept[0]));
    a->n_node_sizes = m;
    /* NVLink joins the GPUs of one machine only: rented by smaller machines,
     * the fast domain is one of them. A domain wider than the catalog's
     * largest machine spans machines (a GB200 NVL72 rack joins eighteen
     * 4-GPU trays): renting the machines keeps it. */
    if (a->domain <= largest && a->domain > kept[m - 1])
        a->domain = kept[m - 1];
}

/* On premises a part is bought in the unit it is sold in (catalog
 * shapes.on_prem_unit): whole NVL72 racks, whole HGX machines. */
static void on_prem_units(struct dc__part *p)
{
    if (p->a != &p->scaled) {
        p->scaled = *p->a;
        p->a = &p->scaled;
    }
    p->scaled.node_sizes[0] = p->scaled.on_prem_unit;
    p->scaled.n_node_sizes = 1;
}

/* The serving peak, TFLOP/s: the part's at the workload's precision, except
 * that a diffusion network at 8 bits or fewer (convolutions, norms and
 * attention beside its quantised matmuls) runs at diffusion_8bit_gain times
 * its 16-bit rate at most (sizing.yaml, fitted on MLPerf's SDXL rows), and
 * that MXFP4 weights on a part whose catalog lists no FP4 rate (H100,
 * H200, L40S, A100, MI300X) are widened to 16 bits inside the kernel and
 * multiplied at the 16-bit rate, whatever `precision` asks: TensorRT-LLM's
 * MoE support matrix for gpt-oss gives bf16 activations on Hopper (MXFP8 on
 * Blackwell, which has FP4 math),
 * https://github.com/NVIDIA/TensorRT-LLM/blob/main/examples/models/core/gpt_oss/README.md */
static double serving_peak(const struct dc_sizing_params *s, const struct dc_accelerator *a,
                           const struct dc_workload *w, const struct dc__derived *d)
{
    double peak = dc__listed_peak(a, w->precision);
    if (w->quantization == DC_QUANT_MXFP4 && !isfinite(dc__listed_peak(a, DC_PREC_FP4))) {
        double half = dc__listed_peak(a, DC_PREC_BF16);
        if (isfinite(half))
            peak = fmin(peak, half);
    }
    if (d->kind != DC__KIND_DIFFUSION || d->precision_bits > 8 ||
        !isfinite(s->diffusion_8bit_gain.value))
        return peak;
    double half = dc__listed_peak(a, DC_PREC_BF16);
    if (!isfinite(half))
        half = dc__listed_peak(a, DC_PREC_FP16);
    return isfinite(half) ? fmin(peak, half * s->diffusion_8bit_gain.value) : peak;
}

/* The rate of a decode step's attention over the KV cache, FLOP/s per chip:
 * its kernels multiply in 16 bits whatever the weights' format (FlashMLA,
 * https://github.com/deepseek-ai/FlashMLA, and FlashAttention's decode run
 * BF16), at the serving MFU; the expert-width factor is the routed
 * experts' matmuls', not attention's. */
static double attention_rate(const struct dc_sizing_params *s, const struct dc_accelerator *a,
                             const struct dc_workload *w, const struct dc__derived *d)
{
    double peak = serving_peak(s, a, w, d);
    double half = dc__listed_peak(a, DC_PREC_BF16);
    if (!isfinite(half))
        half = dc__listed_peak(a, DC_PREC_FP16);
    if (isfinite(half))
        peak = fmin(peak, half);
    return peak * 1e12 * s->mfu_inference[a->family] * a->mfu_factor;
}

/* Seconds of audio a second the host decodes for one of a part's chips: its
 * vCPUs per accelerator, the most any offer of prices.yaml rents with it
 * (a host decodes the compressed audio, resamples it to 16 kHz and takes its
 * log-mel spectrogram before the encoder runs), at audio_decode_s_per_vcpu.
 * INFINITY for audio that arrives decoded, for a model that is not speech,
 * and for a part no offer states the vCPUs of (on premises: the operator's
 * host). */
static double host_audio_s(const struct dc_sizing_params *s, const struct dc_workload *w,
                           const struct dc__derived *d, const struct dc_accelerator *a)
{
    double rate = s->audio_decode_s_per_vcpu.value;
    if (d->audio_seconds <= 0 || w->audio_decoded || !isfinite(rate))
        return INFINITY;
    double vcpus = 0;
    for (size_t i = 0; i < a->n_offers; i++) {
        const struct dc_offer *o = &a->offers[i];
        if (o->accelerators > 0 && isfinite(o->vcpus))
            vcpus = fmax(vcpus, o->vcpus / o->accelerators);
    }
    return vcpus > 0 ? vcpus * rate : INFINITY;
}

void dc__part_init(struct dc__part *p, const dc_ruleset *rs, const struct dc_workload *w,
                   const struct dc__derived *d, const struct dc_accelerator *a,
                   struct dc__perturb k)
{
    const struct dc_sizing_params *s = &rs->sizing;
    /* Zeroed but for `scaled`, a copy of the catalog's part written whole
     * where it stands in for it and read nowhere else. */
    size_t at = offsetof(struct dc__part, scaled), past = at + sizeof(p->scaled);
    memset(p, 0, at);
    memset((unsigned char *)p + past, 0, sizeof(*p) - past);
    p->rs = rs;
    p->s = s;
    p->w = w;
    p->d = d;
    p->a = a;
    /* A copy of the part stands in for it when a robustness probe scales its
     * MFU (every rate below reads the part's measured factor), or when the
     * cloud rents it in fewer machine sizes than the catalog lists. */
    unsigned sizes[DC_ACC_MAX_NODE_SIZES];
    unsigned n =
        w->deployment == DC_DEPLOY_CLOUD
            ? dc__rentable_node_sizes(a, w->pricing, w->providers, sizes, DC_ACC_MAX_NODE_SIZES)
            : 0;
    if (k.mfu != 1.0 || n > 0) {
        p->scaled = *a;
        p->scaled.mfu_factor *= k.mfu;
        p->scaled.training_mfu_factor *= k.mfu;
        p->a = &p->scaled;
    }
    if (n > 0)
        rentable_sizes(&p->scaled, sizes, n);
    if (w->deployment == DC_DEPLOY_ON_PREM && a->on_prem_unit > 0 && a->n_slices == 0)
        on_prem_units(p);
    /* precision tf32: fp32 matmuls at the part's TF32 rate where it has one
     * (issue 29; plain fp32 is IEEE FP32). */
    if (w->tf32 && a->peak_tf32_tflops > 0) {
        if (p->a != &p->scaled) {
            p->scaled = *a;
            p->a = &p->scaled;
        }
        p->scaled.peak_tflops[DC_PREC_FP32] = a->peak_tf32_tflops;
    }
    a = p->a;
    p->price_scale = k.price;
    dc__part_offers(p);
    p->cap = dc__chip_cap(w, a);
    p->peak = dc__compute_peak(rs, a, w->precision);
    p->factor = arch_mfu_factor(s, w->architecture) * a->training_mfu_factor * moe_factor(s, d) *
                width_factor(s, d) * s->goodput.value;
    /* Serving replicas are independent machines: all of them together are
     * bounded by max_accelerators, or by the fleet a provider rents. */
    double fleet = isfinite(w->max_accelerators) ? w->max_accelerators : s->serving_max_chips.value;
    p->fleet_cap = fleet >= (double)UINT_MAX ? UINT_MAX : (unsigned)fleet;
    /* A stack's hbm_factor is its small-batch shortfall: with a batch-1
     * figure it scales that end of the decode step's efficiency alone
     * (dc__decode_hbm_scale); without one, every weight read. */
    double hbm = isfinite(s->hbm_efficiency_batch1.value) ? 1.0 : a->hbm_factor;
    p->bandwidth = a->memory_bandwidth_gbps * 1e9 * s->hbm_efficiency.value * hbm;
    p->flops = serving_peak(s, a, w, d) * 1e12 * s->mfu_inference[a->family] * a->mfu_factor *
               serve_moe_factor(s, d) * serving_width_factor(s, d);
    p->attn_flops = attention_rate(s, a, w, d);
    p->host_audio_s = host_audio_s(s, w, d, a);
    dc__tp_init(p);
    dc__sync_init(p);
    dc__embed_init(p);
    dc__overheads_init(p);
}

void dc__sizing_init(const struct dc__part *p, struct dc_sizing *z)
{
    memset(z, 0, sizeof(*z));
    z->memory_per_chip_gb = p->a->memory_gb * p->s->memory_usable_fraction.value;
    z->peak_tflops = dc__listed_peak(p->a, p->w->precision);
    z->mfu = NAN;
    z->scale_efficiency = 1.0;
    z->hours = NAN;
    z->cost_usd = NAN;
    z->cost_per_hour_usd = NAN;
    z->usd_per_chip_hour = NAN;
    z->energy_usd = NAN;
    z->prefill_ms = NAN;
    z->decode_ms = NAN;
    z->fastest_decode_ms = NAN;
    z->request_ms = NAN;
    z->throughput_rps = NAN;
    z->tokens_per_second = NAN;
    z->meets_deadline = true;
    z->meets_latency = true;
    z->meets_rate = true;
    z->within_budget = true;
    z->replicas = 1;
    z->machines = 0;
    z->overheads = (struct dc_overheads){NAN, NAN, NAN, NAN, NAN, NAN};
    z->capacity = (struct dc_capacity_need){.lead_time_days = NAN};
    struct dc_band none = {NAN, NAN};
    z->uncertainty = (struct dc_uncertainty){.hours = none,
                                             .cost_usd = none,
                                             .throughput_rps = none,
                                             .tokens_per_second = none,
                                             .decode_ms = none,
                                             .request_ms = none};
}

/* An estimate off by more than 3x is not shown (derive.c names the field
 * that would fix it): the chips that hold the job stay, their time, speed
 * and cost go, and as for an unknown price a cost not estimated does not
 * pass a budget. */
static void withhold(const struct dc__part *p, struct dc_sizing *z)
{
    if (p->d->withheld == NULL)
        return;
    z->estimate_withheld = p->d->withheld;
    z->hours = z->cost_usd = z->cost_per_hour_usd = z->energy_usd = NAN;
    z->mfu = z->prefill_ms = z->decode_ms = z->request_ms = NAN;
    z->throughput_rps = z->tokens_per_second = NAN;
    z->meets_deadline = z->meets_latency = z->meets_rate = true;
    z->within_budget = !isfinite(p->w->budget_usd);
}

/* ---- training --------------------------------------------------------------------- */

/* Memory on each of `chips` chips: the state is sharded across all of them
 * (ZeRO-3/FSDP, F4.6); activations split across the tensor-parallel group,
 * which stays within one fast domain. */
static double training_gb_per_chip(const struct dc__derived *d, const struct dc_accelerator *a,
                                   unsigned chips)
{
    unsigned tp = a->domain > 0 && a->domain < chips ? a->domain : chips;
    return d->state_gb / chips + d->activations_gb / tp;
}

/* Passes of memory_shape's search, at most: it ends within a few (see there);
 * the bound guards against rounding. Past it no shape is said to hold the job. */
#define TRAIN_MAX_SHAPE_PASSES 64

/* The smallest purchasable shape within `cap` whose chips hold the job. Each
 * pass jumps to the count the state needs beside the activations of the
 * tensor-parallel group it reached, which stops growing at the fast domain,
 * so the loop ends within a few passes. */
static bool memory_shape(const struct dc__derived *d, const struct dc_accelerator *a, double usable,
                         unsigned cap, struct dc_shape *out)
{
    unsigned max_tp = a->domain > 0 ? a->domain : 1;
    if (d->activations_gb / max_tp >= usable)
        return false;
    unsigned need = ceil_count(d->state_gb / usable);
    for (unsigned pass = 0; pass < TRAIN_MAX_SHAPE_PASSES; pass++) {
        if (!dc_shape_at_least(a, need, cap, out))
            return false;
        unsigned chips = dc__shape_chips(out);
        if (training_gb_per_chip(d, a, chips) <= usable)
            return true;
        unsigned tp = chips < max_tp ? chips : max_tp;
        unsigned next = ceil_count(d->state_gb / (usable - d->activations_gb / tp));
        if (chips == UINT_MAX)
            return false;
        need = next > chips ? next : chips + 1;
    }
    return false;
}

bool dc__train_min_shape(const struct dc__part *p, unsigned cap, struct dc_shape *out)
{
    double usable = p->a->memory_gb * p->s->memory_usable_fraction.value;
    if (memory_shape(p->d, p->a, usable, cap, out))
        return true;
    if (!memory_shape(p->d, p->a, usable, UINT_MAX, out))
        *out = (struct dc_shape){0, dc__unit_chips(p->a), NULL}; /* no count holds it */
    return false;
}

/* A global batch of B sequences on more than B chips splits each sequence
 * over g = chips / B of them (tensor, context or pipeline parallel): each chip's
 * share of a layer's matmuls shrinks with g while the activations it exchanges
 * do not, so the exchange costs (g - 1) / hidden of the compute, in units the
 * sizing.yaml's sequence_split sets (Narayanan et al. 2021, section 3.2:
 * tensor-parallel communication over computation grows as g / h,
 * https://arxiv.org/abs/2104.04473). 1 with a sequence or more per chip, and
 * when the workload gives no batch: teams size it to the cluster then. */
static double split_factor(const struct dc__part *p, unsigned chips)
{
    double beta = p->s->sequence_split.value;
    double g = (double)chips / p->w->global_batch_size;
    if (!isfinite(beta) || !(g > 1.0) || p->w->global_batch_defaulted)
        return 1.0;
    return 1.0 / (1.0 + beta * (g - 1.0) / p->d->hidden);
}

/* Training MFU on `chips` chips, relative to the bf16 peak, before the
 * architecture's and the part's factors: the family's at its scale, less
 * what splitting sequences costs, what the gradient all-reduce adds to a
 * step (core/src/sizing/sync.c) and, for a recommender, what gathering its table
 * rows and exchanging them take (core/src/sizing/embed.c). */
double dc__train_mfu(const struct dc__part *p, unsigned chips)
{
    double mfu = dc__training_mfu(p->rs, p->a, chips) * split_factor(p, chips);
    mfu *= dc__sync_factor(p, chips, mfu);
    return mfu * dc__embed_train_factor(p, chips, mfu);
}

double dc__train_hours_at(const struct dc__part *p, unsigned chips, double mfu)
{
    return p->d->training_flops / ((double)chips * p->peak * mfu * p->factor) /
           DC__SECONDS_PER_HOUR;
}

void dc__train_at(const struct dc__part *p, const struct dc_shape *shape, unsigned chips,
                  double mfu, struct dc_sizing *z)
{
    const struct dc_workload *w = p->w;
    const struct dc_sizing_params *s = p->s;
    z->memory_need_gb = p->d->state_gb + p->d->activations_gb;
    z->shape = *shape;
    z->chips = chips;
    z->chips_per_replica = chips;
    z->replicas = 1;
    if (isfinite(p->peak)) {
        z->scale_efficiency = mfu / s->mfu_training[p->a->family];
        z->hours = dc__train_hours_at(p, chips, mfu);
        /* The steady-state MFU frameworks report: before goodput, at the listed peak. */
        if (isfinite(z->peak_tflops))
            z->mfu = p->peak * mfu * p->factor / s->goodput.value / (z->peak_tflops * 1e12);
    }
    z->meets_deadline = !isfinite(w->deadline_hours) || z->hours <= w->deadline_hours * (1 + 1e-9);
    unsigned per = shape->per_unit > 0 ? shape->per_unit : 1;
    z->machines = (chips + per - 1) / per;
    dc__cost(p, z);
    withhold(p, z);
    dc__overheads(p, z);
}

void dc__sizing_finish(const struct dc__part *p, struct dc_sizing *z)
{
    /* The capacity need reads the offer and instances dc__cost set, which
     * neither withhold nor the overheads change. */
    if (p->w->task != DC_TASK_INFERENCE)
        dc__capacity_need(p, z);
    dc__uncertainty(p, z);
}

/* ---- serving ------------------------------------------------------------------------ */

/* The chips of a replica that work on one token together: all of a TPU slice
 * (its ICI joins every chip); for machines, a tensor-parallel group within the
 * fast domain. A replica larger than the domain is pipeline stages: they hold
 * more (weights, KV caches) and keep more requests in flight, but a token
 * still passes the stages one after another, so its weights are read no
 * faster than one domain reads them (docs/scoring.md, section 5). */
static unsigned tensor_parallel(const struct dc_accelerator *a, unsigned chips)
{
    unsigned domain = a->domain > 0 ? a->domain : 1;
    return a->n_slices > 0 || chips <= domain ? chips : domain;
}

/* One decode step's time on `chips` chips, before the chips meet: a
 * step runs its kernels one after another, each bound by its own
 * roofline (LLM-Viewer's layer-by-layer analysis, Yuan et al. 2024,
 * https://arxiv.org/abs/2402.16363): the weights' matmuls by the weights
 * they read (`weights_s`) or their FLOPs at the serving rate, attention by
 * the KV cache it reads (`kv_s`) or its FLOPs at attention_rate's. The
 * attention's cache reads do not hide the matmuls' compute, nor the other
 * way round. */
static double decode_kernels_s(const struct dc__part *p, double batch, unsigned chips,
                               double weights_s, double kv_s, bool *compute_bound)
{
    const struct dc__derived *d = p->d;
    double attn = d->decode_attn_flops;
    double mm_s = batch * (d->decode_flops - attn) / p->flops / chips;
    double at_s = attn > 0 ? batch * attn / p->attn_flops / chips : 0;
    *compute_bound = mm_s + at_s > weights_s + kv_s;
    return max_known(weights_s, mm_s) + max_known(kv_s, at_s);
}

/* The share of p->bandwidth (hbm_efficiency) a decode step of `rows` token
 * rows reaches: hbm_efficiency_batch1 x the part's hbm_factor at one row,
 * where the weights' matmuls are GEMVs that read each weight for one token
 * with kernel launches between them, rising as e(B) = e_large - (e_large -
 * e_1) / B towards hbm_efficiency at the large batches whose GEMMs stream
 * the weights (sizing.yaml states the shape as an assumption); a stack's
 * hbm_factor is its small-batch shortfall (catalog.yaml), so it scales the
 * batch-1 end only. 1 when sizing.yaml gives no batch-1 figure (then
 * p->bandwidth carries hbm_factor at every batch). */
double dc__decode_hbm_scale(const struct dc__part *p, double rows)
{
    double e_large = p->s->hbm_efficiency.value, e_1 = p->s->hbm_efficiency_batch1.value;
    if (!isfinite(e_1) || !(e_large > 0))
        return 1.0;
    e_1 *= p->a->hbm_factor;
    if (!(rows >= 1))
        rows = 1;
    return (e_large - (e_large - e_1) / rows) / e_large;
}

/* What a generative replica's prompts add once its step (r->step_s at
 * r->batch, in r's layout) is known: each request's prefill, its wait and
 * the replica's time per batch (every request's prompt, the stages, or the
 * expert-parallel chips, working on as many prompts at once, then the
 * steps); left unset (NAN) without `prompts`. */
static void replica_prompts(const struct dc__part *p, const struct dc__replica_chips *c,
                            bool prompts, struct dc__replica *r)
{
    if (!prompts) {
        r->prefill_s = r->request_s = r->rps = NAN;
        return;
    }
    const struct dc__derived *d = p->d;
    double at_once = r->expert_parallel ? (double)c->chips : c->stages;
    r->prefill_s = r->expert_parallel ? c->ep_prefill_s : c->tp_prefill_s;
    r->request_s = r->prefill_s + d->decode_steps * r->step_s;
    r->rps = r->batch / (r->batch * r->prefill_s / at_once + d->decode_steps * r->step_s);
}

/* A decode step and the prompts of a batch on a replica laid out tensor
 * parallel: a step reads every weight a token of the batch touches (a
 * mixture of experts reads more experts as the batch grows) and each
 * request's KV cache, which averages the prompt plus half the output (F2.6,
 * F4.5); derive.c says how much of each, by kind of model. The stages read
 * their shares of the KV caches side by side. */
static void decode_tensor_parallel(const struct dc__part *p, const struct dc__replica_chips *c,
                                   unsigned batch, bool prompts, struct dc__replica *r)
{
    const struct dc__derived *d = p->d;
    unsigned chips = c->chips, tp = c->tp;
    double stages = c->stages, bw = c->bw, tp_bw = c->tp_bw;
    double weights = dc__step_weight_bytes(d, batch);
    /* A mixture of experts spreads its routed experts over every chip of the
     * replica: they are read side by side at the whole replica's bandwidth,
     * where the shared part is read by one tensor-parallel group after
     * another. */
    double experts = d->expert_weight_bytes > 0 ? weights - d->shared_weight_bytes : 0;
    double kv = batch * d->kv_step_bytes;
    /* Tensor-parallel chips meet twice a layer (all-reduces), pipeline
     * stages once a boundary (serve_tp.c): at batch 1 that, not the
     * weights, can take most of a step. The exchange waits for the step's
     * matmuls and they for it, so it adds to whichever bounds the step. */
    double sync_s = dc__decode_sync_s(p, tp, stages, batch);
    double e = dc__decode_hbm_scale(p, batch * d->tokens_per_request_step);
    double w_s = ((weights - experts) / tp_bw + experts / bw) / e;
    r->step_s = decode_kernels_s(p, batch, chips, w_s, kv / (bw * e), &r->compute_bound) + sync_s;
    r->expert_parallel = false;
    replica_prompts(p, c, prompts, r);
}

/* The same on a replica laid out expert parallel with its attention data
 * parallel (DeepSeek-V3's serving, https://arxiv.org/abs/2412.19437,
 * section 3.4; TensorRT-LLM's "DEP"): every chip holds the shared part
 * (attention, dense layers, shared experts) and runs its own share of the
 * batch through it, the routed experts are spread over the chips and see
 * the whole batch's tokens, and each MoE layer sends every token to its
 * experts' chips and back (two all-to-alls, serve_tp.c). */
static void decode_expert_parallel(const struct dc__part *p, const struct dc__replica_chips *c,
                                   unsigned batch, bool prompts, struct dc__replica *r)
{
    const struct dc__derived *d = p->d;
    unsigned chips = c->chips;
    double bw = c->bw;
    double experts = dc__step_weight_bytes(d, batch) - d->shared_weight_bytes;
    double kv = batch * d->kv_step_bytes;
    double e = dc__decode_hbm_scale(p, batch * d->tokens_per_request_step);
    double w_s = (d->shared_weight_bytes / p->bandwidth + experts / bw) / e;
    r->step_s = decode_kernels_s(p, batch, chips, w_s, kv / (bw * e), &r->compute_bound) +
                dc__ep_sync_s(p, chips, batch * d->tokens_per_request_step);
    r->expert_parallel = true;
    replica_prompts(p, c, prompts, r);
}

/* Whether a replica of `chips` may lay a mixture of experts out expert
 * parallel: more than one chip, and experts whose share a batch touches is
 * known. */
static bool expert_parallel(const struct dc__part *p, unsigned chips)
{
    return chips > 1 && p->d->expert_weight_bytes > 0 && isfinite(p->d->expert_share);
}

/* Most requests a replica batches in `room` GB left for KV caches, its
 * schedulers allowing `most` (a scheduler's default, not memory: a workload
 * that asks for a larger batch is held to what memory allows). */
static unsigned batch_in(const struct dc__part *p, double room, double most)
{
    if (isfinite(p->w->batch_size))
        most = fmax(p->w->batch_size, most);
    if (room <= 0)
        return 0;
    if (p->d->kv_cache_gb <= 0)
        return (unsigned)fmin(most, (double)UINT_MAX);
    double n = floor(room / p->d->kv_cache_gb);
    return n >= 1 ? (unsigned)fmin(n, most) : 0;
}

/* Memory of `chips` chips left for KV caches once they hold the weights:
 * once a replica, or laid out expert parallel with every chip holding its
 * own copy of the shared part (decode_expert_parallel). */
static double kv_room_gb(const struct dc__part *p, unsigned chips, bool expert_parallel)
{
    double held = p->d->weights_gb;
    if (expert_parallel)
        held += (chips - 1.0) * p->d->shared_weight_bytes / DC__GB;
    return chips * p->a->memory_gb * p->s->memory_usable_fraction.value -
           held * p->s->infer_overhead.value;
}

/* The batch cap of the tensor-parallel layout: one scheduler, max_batch. */
static unsigned tp_batch_cap(const struct dc__part *p, unsigned chips)
{
    return batch_in(p, kv_room_gb(p, chips, false), p->s->max_batch.value);
}

/* The batch cap of the expert-parallel layout: every chip's attention is a
 * data-parallel rank with its own KV cache and its own requests
 * (TensorRT-LLM's attention DP,
 * https://docs.nvidia.com/dynamo/additional-resources/tensor-rt-llm-details/dp-rank-routing),
 * so the replica batches attention_dp_batch a chip (sizing.yaml; max_batch
 * where it gives none), within the memory the replicated shared part
 * leaves; 0 without the layout. */
static unsigned ep_batch_cap(const struct dc__part *p, unsigned chips)
{
    if (!expert_parallel(p, chips))
        return 0;
    double rank = p->s->attention_dp_batch.value;
    if (!isfinite(rank))
        rank = p->s->max_batch.value;
    return batch_in(p, kv_room_gb(p, chips, true), rank * chips);
}

/* A prompt's prefill on a tensor-parallel replica: its tokens meet the other
 * chips the same way as a step's, in one pass (a speculative draft's layers
 * too, as it prefills its own cache). */
static double tp_prefill_s(const struct dc__part *p, const struct dc__replica_chips *c)
{
    const struct dc__derived *d = p->d;
    unsigned tp = c->tp;
    double prompt = p->w->input_tokens * (1.0 - p->w->prefix_cache_hit_rate);
    double s = max_known(d->active_weights_gb * DC__GB / c->tp_bw,
                         d->flops_per_request / (tp * p->flops)) +
               dc__tp_sync_s(p, tp, c->stages, prompt, d->layers, d->hidden);
    if (d->draft_steps > 0)
        s += dc__tp_sync_s(p, tp, c->stages, prompt, d->draft_layers, d->draft_hidden);
    return s;
}

/* The same laid out expert parallel: a prompt is prefilled on one chip's
 * attention, its tokens sent to the experts like a step's; the chips
 * prefill their own prompts side by side. */
static double ep_prefill_s(const struct dc__part *p, const struct dc__replica_chips *c)
{
    const struct dc__derived *d = p->d;
    return max_known(d->active_weights_gb * DC__GB / p->bandwidth,
                     d->flops_per_request / p->flops) +
           dc__ep_sync_s(p, c->chips, p->w->input_tokens * (1.0 - p->w->prefix_cache_hit_rate));
}

static void serve_buy_init(const struct dc_accelerator *a, struct dc__replica_chips *c);

void dc__replica_chips_init(const struct dc__part *p, unsigned chips, bool prompts,
                            struct dc__replica_chips *c)
{
    c->chips = chips;
    c->tp = tensor_parallel(p->a, chips);
    c->stages = (double)chips / c->tp;
    c->bw = chips * p->bandwidth;
    c->tp_bw = c->tp * p->bandwidth;
    c->fl = chips * p->flops;
    c->tp_cap = tp_batch_cap(p, chips);
    c->ep_cap = ep_batch_cap(p, chips);
    bool generative = p->d->generative;
    c->tp_prefill_s = prompts && generative ? tp_prefill_s(p, c) : NAN;
    c->ep_prefill_s = prompts && generative && c->ep_cap > 0 ? ep_prefill_s(p, c) : NAN;
    serve_buy_init(p->a, c);
}

unsigned dc__replica_chips_cap(const struct dc__replica_chips *c)
{
    return c->tp_cap > c->ep_cap ? c->tp_cap : c->ep_cap;
}

/* Speech: no more clips a second than the host decodes. */
static void host_audio_cap(const struct dc__part *p, struct dc__replica *r)
{
    if (isfinite(p->host_audio_s))
        r->rps = fmin(r->rps, r->chips * p->host_audio_s / p->d->audio_seconds);
}

/* dc__replica_at; without `prompts` only the step (step_s, compute_bound,
 * the layout) is worked out, the prompts' prefill and what follows from it
 * (request_s, rps) left unset: all a latency test reads under a latency
 * target (dc__replica_latency_ok), which decides the layout there. */
static void replica_at(const struct dc__part *p, const struct dc__replica_chips *c, unsigned batch,
                       bool prompts, struct dc__replica *r)
{
    const struct dc__derived *d = p->d;
    unsigned chips = c->chips;
    r->chips = chips;
    r->batch = batch;
    if (d->generative) {
        /* An engine serves a mixture of experts in whichever layout does
         * better, each at the batch its schedulers and memory allow (the
         * tensor-parallel one may hold fewer): under a latency target the
         * shorter step, or the one that holds the whole batch and meets the
         * target; else the more requests a second. */
        unsigned ep_cap = c->ep_cap, tp_batch = batch;
        if (ep_cap > 0)
            tp_batch = c->tp_cap > 0 && c->tp_cap < batch ? c->tp_cap : batch;
        r->batch = tp_batch;
        decode_tensor_parallel(p, c, tp_batch, prompts, r);
        if (ep_cap > 0 && batch <= ep_cap) {
            struct dc__replica ep = *r;
            ep.batch = batch;
            decode_expert_parallel(p, c, batch, prompts, &ep);
            bool better = ep.rps > r->rps;
            if (isfinite(p->w->latency_ms_p99))
                better =
                    ep.step_s < r->step_s || (tp_batch < batch && dc__replica_latency_ok(p, &ep));
            if (better)
                *r = ep;
        }
        host_audio_cap(p, r);
    } else {
        double mem_s = dc__step_weight_bytes(d, batch) / c->tp_bw;
        double cmp_s = batch * d->flops_per_request / c->fl;
        /* A recommender's rows are gathered and exchanged before its dense
         * part can run (core/src/sizing/embed.c). */
        r->step_s = max_known(mem_s, cmp_s) + dc__embed_batch_s(p, chips, batch);
        r->compute_bound = cmp_s > mem_s;
        r->expert_parallel = false;
        r->prefill_s = 0;
        r->request_s = r->step_s;
        r->rps = batch / r->step_s;
    }
}

void dc__replica_probed(const struct dc__part *p, const struct dc__replica_chips *c, unsigned batch,
                        const struct dc__step_probes *probed, struct dc__replica *r)
{
    /* Under a latency target replica_at picks the layout by the step alone,
     * so a step the search probed at this batch is that layout's step: only
     * what the prompts add is left (what replica_at adds after it). */
    if (probed != NULL && isfinite(p->w->latency_ms_p99)) {
        for (size_t i = 0; i < probed->n; i++) {
            if (probed->batch[i] != batch)
                continue;
            *r = probed->step[i];
            if (p->d->generative) {
                replica_prompts(p, c, true, r);
                host_audio_cap(p, r);
            }
            return;
        }
    }
    replica_at(p, c, batch, true, r);
}

void dc__replica_at(const struct dc__part *p, unsigned chips, unsigned batch, struct dc__replica *r)
{
    struct dc__replica_chips c;
    dc__replica_chips_init(p, chips, true, &c);
    replica_at(p, &c, batch, true, r);
}

double dc__replica_token_s(const struct dc__part *p, const struct dc__replica *r)
{
    double tokens = p->d->generative && p->d->tokens_per_step > 0 ? p->d->tokens_per_step : 1.0;
    return r->step_s / tokens;
}

bool dc__replica_latency_ok(const struct dc__part *p, const struct dc__replica *r)
{
    return !isfinite(p->w->latency_ms_p99) ||
           dc__replica_token_s(p, r) * 1000.0 <= p->w->latency_ms_p99;
}

unsigned dc__serve_batch_cap(const struct dc__part *p, unsigned chips)
{
    unsigned tp = tp_batch_cap(p, chips), ep = ep_batch_cap(p, chips);
    return tp > ep ? tp : ep;
}

/* Keeps the step-only replica `r` probed at `batch` in `probed` (if any). */
static void keep_probe(struct dc__step_probes *probed, unsigned batch, const struct dc__replica *r)
{
    if (probed == NULL)
        return;
    size_t i = probed->n < 2 ? probed->n++ : 1;
    probed->batch[i] = batch;
    probed->step[i] = *r;
}

/* Whether the time per output token of `r` is at most `limit_ms`. */
static bool token_within(const struct dc__part *p, const struct dc__replica *r, double limit_ms)
{
    return dc__replica_token_s(p, r) * 1000.0 <= limit_ms;
}

/* The largest batch in [1, cap] whose time per output token is at most
 * `limit` ms, the caller having found batch 1's within it. */
static unsigned largest_within(const struct dc__part *p, const struct dc__replica_chips *c,
                               unsigned cap, double limit, struct dc__step_probes *probed)
{
    /* Steps grow with the batch, so the test holds up to one batch and fails
     * past it: where the cap meets the limit it is that batch, the search
     * below would have probed its way up to it (a loose target, or a small
     * cap, is the common case). */
    struct dc__replica r;
    if (cap > 1) {
        replica_at(p, c, cap, false, &r);
        if (token_within(p, &r, limit)) {
            keep_probe(probed, cap, &r);
            return cap;
        }
    }
    unsigned lo = 1, hi = cap > 1 ? cap - 1 : cap; /* lo meets the limit */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        replica_at(p, c, mid, false, &r);
        if (token_within(p, &r, limit)) {
            lo = mid;
            keep_probe(probed, mid, &r);
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

unsigned dc__serve_latency_within(const struct dc__part *p, const struct dc__replica_chips *c,
                                  unsigned cap, double slack, struct dc__step_probes *probed)
{
    if (probed != NULL)
        probed->n = 0;
    /* Without a latency target every batch meets it: the cap (the search
     * would probe its way up to it). */
    if (!isfinite(p->w->latency_ms_p99))
        return cap > 0 ? cap : 1;
    /* Under one the test reads the step alone, so the probes leave the
     * prompts' prefill out. */
    struct dc__replica r;
    replica_at(p, c, 1, false, &r);
    keep_probe(probed, 1, &r);
    double limit = p->w->latency_ms_p99;
    if (!token_within(p, &r, limit)) {
        /* Even batch 1 misses: the batches whose step is as near the target
         * within `slack` serve the rate on fewer replicas, as near a miss. */
        if (!(slack > 0))
            return 1;
        limit = dc__near_miss_limit_ms(slack, limit, dc__replica_token_s(p, &r) * 1000.0);
    }
    return largest_within(p, c, cap, limit, probed);
}

unsigned dc__serve_batch_within(const struct dc__part *p, const struct dc__replica_chips *c,
                                unsigned cap, double limit_ms, struct dc__step_probes *probed)
{
    if (probed != NULL)
        probed->n = 0;
    struct dc__replica r;
    replica_at(p, c, 1, false, &r);
    keep_probe(probed, 1, &r);
    return token_within(p, &r, limit_ms) ? largest_within(p, c, cap, limit_ms, probed) : 0;
}

unsigned dc__serve_latency_batch(const struct dc__part *p, unsigned chips, unsigned cap)
{
    struct dc__replica_chips c;
    dc__replica_chips_init(p, chips, false, &c);
    return dc__serve_latency_within(p, &c, cap, 0, NULL);
}

unsigned dc__replicas_for(const struct dc__part *p, const struct dc__replica *r)
{
    unsigned n = ceil_count(p->w->requests_per_second / r->rps);
    return n > 0 ? n : 1;
}

unsigned dc__next_replica_size(const struct dc_accelerator *a, unsigned prev)
{
    if (a->n_slices > 0) {
        for (size_t i = 0; i < a->n_slices; i++) {
            if (a->slices[i].chips > prev)
                return a->slices[i].chips;
        }
        return 0;
    }
    unsigned unit = dc__unit_chips(a);
    if (prev == 0)
        return 1;
    if (prev < unit)
        return prev * 2 < unit ? prev * 2 : unit;
    return prev > UINT_MAX - unit ? 0 : prev + unit;
}

/* A jump, never a walk, so that a model larger than any cluster costs nothing
 * to refuse (issue 22: counting up one machine at a time to the wrap of the
 * count took 7 s of CPU for a 130-byte request). */
static unsigned replica_size_from(const struct dc_accelerator *a, unsigned chips)
{
    unsigned unit = dc__unit_chips(a);
    if (a->n_slices == 0 && chips > unit) {
        unsigned long long up = ((unsigned long long)chips + unit - 1) / unit * unit;
        return up > UINT_MAX ? 0 : (unsigned)up;
    }
    /* Within one machine (doublings) or over the slices: a few steps. */
    unsigned t = dc__next_replica_size(a, 0);
    while (t != 0 && t < chips)
        t = dc__next_replica_size(a, t);
    return t;
}

unsigned dc__replica_holding(const struct dc__part *p, double batch)
{
    const struct dc_sizing_params *s = p->s;
    double usable = p->a->memory_gb * s->memory_usable_fraction.value;
    double need = p->d->weights_gb * s->infer_overhead.value + p->d->kv_cache_gb * batch;
    if (!(usable > 0) || !(need / usable < (double)UINT_MAX))
        return 0;
    unsigned least = (unsigned)ceil(need / usable - 1e-9);
    return replica_size_from(p->a, least > 0 ? least : 1);
}

/* How replicas of c's chips are bought, worked out once a size for the
 * counts dc__serve_buy asks of it: a TPU replica is its own slice; a replica
 * larger than the largest machine takes whole machines of it; else the
 * smallest machine a whole number of replicas fills. buy_per 0: none. */
static void serve_buy_init(const struct dc_accelerator *a, struct dc__replica_chips *c)
{
    unsigned replica_chips = c->chips;
    c->buy_per = c->buy_fit = c->buy_take = 0;
    c->buy_name = NULL;
    if (a->n_slices > 0) {
        for (size_t i = 0; i < a->n_slices; i++) {
            if (a->slices[i].chips == replica_chips) {
                c->buy_per = replica_chips;
                c->buy_fit = 1;
                c->buy_name = a->slices[i].name;
                return;
            }
        }
        return;
    }
    unsigned unit = dc__unit_chips(a);
    if (replica_chips > unit) {
        if (replica_chips % unit == 0) {
            c->buy_per = unit;
            c->buy_take = replica_chips / unit;
        }
        return;
    }
    size_t k = a->n_node_sizes;
    for (size_t i = 0; i < a->n_node_sizes; i++) {
        if (a->node_sizes[i] >= replica_chips && a->node_sizes[i] % replica_chips == 0) {
            k = i;
            break;
        }
    }
    unsigned per = k < a->n_node_sizes ? a->node_sizes[k] : (a->n_node_sizes == 0 ? 1 : 0);
    if (per == 0 || per % replica_chips != 0)
        return;
    c->buy_per = per;
    c->buy_fit = per / replica_chips;
}

bool dc__serve_buy(const struct dc__replica_chips *c, unsigned n, struct dc_shape *out)
{
    if (c->buy_per == 0)
        return false;
    if (c->buy_take > 0) {
        unsigned long long machines = (unsigned long long)n * c->buy_take;
        if (machines > UINT_MAX)
            return false;
        *out = (struct dc_shape){(unsigned)machines, c->buy_per, NULL};
        return true;
    }
    *out = (struct dc_shape){(n + c->buy_fit - 1) / c->buy_fit, c->buy_per, c->buy_name};
    return true;
}

void dc__serve_at(const struct dc__part *p, const struct dc__replica *r, unsigned n,
                  const struct dc_shape *buy, struct dc_sizing *z)
{
    const struct dc_workload *w = p->w;
    const struct dc__derived *d = p->d;
    z->chips_per_replica = r->chips;
    z->shape = *buy;
    z->batch_per_replica = r->batch;
    z->memory_need_gb = d->weights_gb * p->s->infer_overhead.value + d->kv_cache_gb * r->batch;
    if (r->expert_parallel) /* each chip's copy of the shared part */
        z->memory_need_gb +=
            (r->chips - 1.0) * d->shared_weight_bytes / DC__GB * p->s->infer_overhead.value;
    z->replicas = n;
    z->chips = dc__shape_chips(buy);
    /* A rate that cannot be estimated cannot be shown to meet the workload's:
     * unknown stays unknown, and does not pass. */
    z->meets_rate = false;
    z->meets_latency = !isfinite(w->latency_ms_p99);
    if (isfinite(p->bandwidth) && isfinite(p->flops)) {
        z->mfu = p->s->mfu_inference[p->a->family] * p->a->mfu_factor;
        if (r->rps > 0 && isfinite(r->rps)) {
            z->decode_ms = dc__replica_token_s(p, r) * 1000.0;
            z->prefill_ms = d->generative ? r->prefill_s * 1000.0 : NAN;
            z->request_ms = r->request_s * 1000.0;
            z->compute_bound = r->compute_bound;
            z->throughput_rps = r->rps * n;
            z->tokens_per_second = d->generative ? z->throughput_rps * w->output_tokens : NAN;
            z->meets_rate = z->throughput_rps >= w->requests_per_second * (1 - 1e-9);
            z->meets_latency = dc__replica_latency_ok(p, r);
            /* An offline job runs for as long as its requests take, priced per job. */
            if (w->job_requests > 0) {
                z->hours = w->job_requests / z->throughput_rps / DC__SECONDS_PER_HOUR;
                z->meets_deadline = z->hours <= w->job_deadline_hours * (1 + 1e-9);
            }
        }
    }
    dc__cost(p, z);
    withhold(p, z);
}

/* ---- a published run's count (calibration) ---------------------------------------- */

/* Replica sizes a pinned count looks at, at most (past the first that holds
 * one request the sizes grow by whole machines or slices, so a published
 * run's count is reached within a few dozen). */
#define PINNED_MAX_SIZES 64

/* Whether replica `r` (`copies` of it) lays out a published run better than
 * `best` (`best_copies`): a run timed one request at a time (batch 1, or a
 * latency target) as its benchmark would, by the shortest step that meets
 * the target; a run at load by the most requests per second on the chips. */
static bool pinned_better(const struct dc__part *p, const struct dc__replica *r, unsigned copies,
                          const struct dc__replica *best, unsigned best_copies)
{
    if (best->chips == 0)
        return true;
    bool ok = dc__replica_latency_ok(p, r), best_ok = dc__replica_latency_ok(p, best);
    if (ok != best_ok)
        return ok;
    bool one_at_a_time =
        isfinite(p->w->latency_ms_p99) || (isfinite(p->w->batch_size) && p->w->batch_size <= 1);
    if (one_at_a_time)
        return r->step_s < best->step_s;
    return r->rps * copies > best->rps * best_copies;
}

/* The replica layout on exactly `pinned` chips, as many copies as the chips
 * hold, of the replica size pinned_better prefers: each size from the first
 * that holds one request up to the run's count, at the batch the workload
 * gives, else the largest the latency target and memory allow. */
static void serve_pinned(const struct dc__part *p, unsigned pinned, struct dc_sizing *z)
{
    unsigned passes = 0, best_copies = 0;
    struct dc__replica best = {0};
    for (unsigned t = dc__replica_holding(p, 1.0);
         t != 0 && t <= pinned && passes < PINNED_MAX_SIZES;
         t = dc__next_replica_size(p->a, t), passes++) {
        unsigned cap = dc__serve_batch_cap(p, t);
        unsigned batch = isfinite(p->w->batch_size) ? (unsigned)p->w->batch_size
                         : cap > 0                  ? dc__serve_latency_batch(p, t, cap)
                                                    : 0;
        if (cap == 0 || batch > cap)
            continue;
        struct dc__replica r;
        dc__replica_at(p, t, batch, &r);
        if (pinned_better(p, &r, pinned / t, &best, best_copies)) {
            best = r;
            best_copies = pinned / t;
        }
    }
    if (best.chips == 0)
        return;
    struct dc_shape buy = {1, pinned, NULL};
    (void)dc_shape_at_least(p->a, pinned, pinned, &buy);
    z->fits = true;
    z->chips_for_memory = dc__replica_holding(p, 1.0);
    z->basis = DC_BASIS_PINNED;
    dc__serve_at(p, &best, best_copies, &buy, z);
    dc__sizing_finish(p, z);
    z->chips = pinned;
}

enum dc_status dc__size_workload_at(const dc_ruleset *rs, const cJSON *workload, const char *id,
                                    unsigned pinned, struct dc_workload *w, struct dc__derived *d,
                                    struct dc_sizing *z, struct dc_error *err)
{
    const struct dc_accelerator *a = dc_ruleset_find_accelerator(rs, id);
    if (a == NULL)
        return dc_error_set(err, DC_ENOTFOUND, NULL, "no accelerator \"%s\" in the catalog", id);
    enum dc_status rc = dc_workload_parse(rs, workload, w, err);
    if (rc != DC_OK)
        return rc;
    dc__derive(rs, w, d);
    dc__size_pinned(rs, w, d, a, pinned, z);
    return DC_OK;
}

void dc__size_pinned(const dc_ruleset *rs, const struct dc_workload *w, const struct dc__derived *d,
                     const struct dc_accelerator *a, unsigned pinned, struct dc_sizing *z)
{
    struct dc__part p;
    dc__part_init(&p, rs, w, d, a, DC__UNPERTURBED);
    dc__sizing_init(&p, z);
    if (w->task == DC_TASK_INFERENCE) {
        serve_pinned(&p, pinned, z);
        return;
    }
    struct dc_shape mem, shape;
    z->fits = dc__train_min_shape(&p, UINT_MAX, &mem);
    z->chips_for_memory = dc__shape_chips(&mem);
    if (!dc_shape_at_least(a, pinned, pinned, &shape))
        shape = (struct dc_shape){1, pinned, NULL};
    dc__train_at(&p, &shape, pinned, isfinite(p.peak) ? dc__train_mfu(&p, pinned) : NAN, z);
    dc__sizing_finish(&p, z);
    z->basis = DC_BASIS_PINNED;
}
