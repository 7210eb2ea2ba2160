/* core/src/sizing/embed.c -- a recommender's embedding tables in a step
 * (docs/scoring.md, section 2, "Recommender"): the rows a batch looks up,
 * gathered at random from memory at gather_efficiency of its peak bandwidth,
 * and, with the tables sharded across the chips (model-parallel tables, as
 * TorchRec and HugeCTR place tables too large for one chip), the all-to-all
 * that brings each sample its pooled rows and, in training, takes their
 * gradients back. The dense part (bottom and top MLPs, the interaction) is
 * timed as any other model's; the tables' phase comes before and after it
 * in a step (the interaction needs the pooled rows), so the times add.
 * Owned by the recommender and serving physics (issue 30); called from
 * core/src/sizing/sizing.c. */
#include <math.h>

#include "ruleset_internal.h"
#include "sizing.h"

/* Bytes of one trained table value: fp32, as derive.c keeps the tables. */
#define TABLE_BYTES 4.0

void dc__embed_init(struct dc__part *p)
{
    double g = p->s->gather_efficiency.value, peak = p->a->memory_bandwidth_gbps * 1e9;
    p->gather_bps = 0;
    if (p->d->kind == DC__KIND_RECOMMENDER && p->d->pooled_values > 0 && isfinite(g) &&
        isfinite(peak))
        p->gather_bps = peak * g;
}

double dc__embed_train_factor(const struct dc__part *p, unsigned chips, double mfu)
{
    const struct dc__derived *d = p->d;
    const struct dc_workload *w = p->w;
    double rate = (double)chips * p->peak * mfu * p->factor;
    if (!(p->gather_bps > 0) || !(d->training_bytes > 0) || !(rate > 0))
        return 1.0;
    double goodput = p->s->goodput.value;
    double compute = d->training_flops / rate;
    double gather = d->training_bytes / ((double)chips * p->gather_bps) / goodput;
    /* Each step exchanges the pooled rows of its batch forward and their
     * gradients backward: every chip sends the rows it pooled for the others'
     * samples, its share of the batch's, in the tables' fp32 (derive.c). */
    double batch = fmax(w->global_batch_size, 1.0);
    double bytes = batch / chips * d->pooled_values * TABLE_BYTES;
    double exchange = d->samples / batch * 2.0 * dc__alltoall_s(p, chips, bytes) / goodput;
    return compute / (compute + gather + exchange);
}

double dc__embed_batch_s(const struct dc__part *p, unsigned chips, double batch)
{
    const struct dc__derived *d = p->d;
    if (!(p->gather_bps > 0) || !(d->lookup_bytes > 0))
        return 0;
    /* Each chip gathers the rows of its tables for the whole batch, then
     * sends each pooled row to the chip serving that request. */
    double gather = batch * d->lookup_bytes / (chips * p->gather_bps);
    double bytes = batch / chips * d->pooled_values * p->act_bytes;
    return gather + dc__alltoall_s(p, chips, bytes);
}
