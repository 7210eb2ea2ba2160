/* core/src/sizing/sync.c -- data-parallel gradient synchronisation in training
 * (docs/scoring.md, section 5): each step all-reduces the gradients of what
 * is trained (every parameter, or a LoRA/QLoRA run's adapters only) across
 * the data-parallel replicas, as a ring over the slowest link it crosses: the
 * fast domain's interconnect while the job fits one domain, each chip's share
 * of the network between machines or slices beyond it, times the chips
 * of a domain (one ring channel per network link). The backward pass
 * hides the all-reduce up to sizing.yaml's sync_overlap share of a step's
 * compute; the rest of it adds to the step. Owned by issue 27's sizing
 * terms; called from core/src/sizing/sizing.c. */
#include <limits.h>
#include <math.h>

#include "part.h"
#include "sizing.h"

/* Gradients the run all-reduces, bytes: the policy's parameters (the ones a
 * full, DPO or RL step updates), or the adapters of LoRA and QLoRA. A
 * recommender's tables are sharded, not replicated (their rows' gradients
 * go back in the all-to-all, core/src/sizing/embed.c): only its dense part is. */
static double gradient_bytes(const struct dc__part *p)
{
    const struct dc_sizing_params *s = p->s;
    double n = p->w->parameters;
    if (p->d->kind == DC__KIND_RECOMMENDER && p->w->embedding_parameters > 0)
        n -= p->w->embedding_parameters;
    if (p->w->method == DC_METHOD_LORA || p->w->method == DC_METHOD_QLORA)
        n *= s->lora_adapter_fraction.value;
    return n * s->gradient_bytes.value;
}

/* Chips that hold one copy of the model's state between them (tensor and
 * pipeline parallel): the fewest whose memory holds it beside one
 * micro-batch's activations, at least one. Data-parallel replicas are the
 * job's chips over these. */
static double replica_chips(const struct dc__part *p)
{
    /* A recommender's dense part is copied to every chip beside its share
     * of the tables: every chip is a data-parallel replica of it. */
    if (p->d->kind == DC__KIND_RECOMMENDER && p->w->embedding_parameters > 0)
        return 1.0;
    double usable = p->a->memory_gb * p->s->memory_usable_fraction.value;
    double tp = p->a->domain > 0 ? (double)p->a->domain : 1.0;
    double room = usable - p->d->activations_gb / tp;
    if (!(room > 0))
        return tp;
    return fmax(1.0, ceil(p->d->state_gb / room));
}

void dc__sync_init(struct dc__part *p)
{
    const struct dc_sizing_params *s = p->s;
    const struct dc_workload *w = p->w;
    p->sync_bytes = 0;
    /* What dc__sync_factor reads for every count the searches probe, where
     * the batch is the workload's (not grown with the replicas). */
    p->step_flops =
        w->tokens > 0 ? p->d->training_flops * w->global_batch_size * w->sequence_length / w->tokens
                      : NAN;
    if (!(p->d->training_flops > 0) || !isfinite(s->gradient_bytes.value) ||
        !isfinite(s->sync_overlap.value))
        return;
    p->replica_chips = replica_chips(p);
    /* Each chip of a replica reduces its share of the replica's gradients. */
    p->sync_bytes = gradient_bytes(p) / p->replica_chips;
    const struct dc_accelerator *a = p->a;
    double net = isfinite(a->network_gbit_per_chip) ? a->network_gbit_per_chip
                                                    : s->network_gbit_per_chip.value;
    double domain = a->domain > 0 ? (double)a->domain : 1.0;
    /* The catalog's interconnect figure counts both directions (NVLink 4's
     * 900 GB/s is 450 each way); a ring sends one way. Without one, the
     * domain's chips share what their network links would carry. */
    p->domain_bps = isfinite(a->interconnect_gbps) && a->interconnect_gbps > 0
                        ? a->interconnect_gbps * 1e9 / 2.0
                        : domain * net * 1e9 / 8.0;
    /* Between domains, NCCL-style rings run one channel per network link:
     * every chip of a domain carries a share of each step's crossing, so a
     * ring moves at the domain's whole network (Gbit/s per chip x chips),
     * never faster than within the domain. */
    p->network_bps = fmin(p->domain_bps, domain * net * 1e9 / 8.0);
}

double dc__sync_seconds(const struct dc__part *p, unsigned chips)
{
    double n = (double)chips / p->replica_chips;
    if (!(p->sync_bytes > 0) || !(n > 1.0))
        return 0;
    unsigned domain = p->a->domain > 0 ? p->a->domain : 1;
    double bps = chips <= domain ? p->domain_bps : p->network_bps;
    if (!(bps > 0))
        return 0;
    /* A ring all-reduce sends 2 (n - 1) / n of the buffer from each member. */
    return 2.0 * (n - 1.0) / n * p->sync_bytes / bps;
}

double dc__sync_factor(const struct dc__part *p, unsigned chips, double mfu)
{
    double sync = dc__sync_seconds(p, chips);
    const struct dc_workload *w = p->w;
    if (!(sync > 0) || !(w->tokens > 0) || !(p->peak > 0) || !(mfu > 0))
        return 1.0;
    /* One step's tokens: the global batch; without one given, a team grows
     * the batch with the replicas, micro_batch sequences each at least. */
    double step_flops = p->step_flops;
    if (w->global_batch_defaulted) {
        double replicas = (double)chips / p->replica_chips;
        double batch = dc__fmax(w->global_batch_size, replicas * p->s->micro_batch.value);
        step_flops = p->d->training_flops * batch * w->sequence_length / w->tokens;
    }
    double rate = (double)chips * p->peak * mfu * p->factor / p->s->goodput.value;
    double step = step_flops / rate;
    double exposed = dc__fmax(0.0, sync - p->s->sync_overlap.value * step);
    return step / (step + exposed);
}
