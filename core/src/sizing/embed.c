/* core/src/sizing/embed.c -- a recommender's embedding tables in a step
 * (docs/scoring.md, section 2, "Recommender"): the rows a batch looks up,
 * gathered at random from memory at gather_efficiency of its peak bandwidth,
 * and, with the tables sharded across the chips (model-parallel tables, as
 * TorchRec and HugeCTR place tables too large for one chip), the all-to-all
 * that brings each sample its pooled rows and, in training, takes their
 * gradients back. Across machines that all-to-all is a message to every
 * peer on another machine, each paying the network's per-step latency
 * (sizing.yaml's alltoall_peer_us), a cost that stays while each chip's
 * share of a fixed global batch shrinks. The dense part (bottom and top MLPs, the interaction) is
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
    double peer = p->s->alltoall_peer_us.value;
    p->gather_bps = 0;
    p->peer_s = isfinite(peer) ? peer * 1e-6 : 0;
    if (p->d->kind == DC__KIND_RECOMMENDER && p->d->pooled_values > 0 && isfinite(g) &&
        isfinite(peak))
        p->gather_bps = peak * g;
}

/* One all-to-all of the tables' pooled rows among `chips` chips, each
 * sending `bytes` in all: the exchange dc__alltoall_s times (one latency,
 * the traffic inside the machine and over each chip's network link), plus
 * the latency of a message to each peer on another machine. An all-to-all
 * is a send and a receive per peer (NCCL's ncclSend/ncclRecv in a group,
 * as HugeCTR's and TorchRec's exchanges are), and each message that leaves
 * the machine takes a network step's latency however few its bytes: what a
 * step costs across machines whatever its batch. */
static double tables_alltoall_s(const struct dc__part *p, unsigned chips, double bytes)
{
    double s = dc__alltoall_s(p, chips, bytes);
    double domain = p->a->n_slices > 0 ? (double)dc__unit_chips(p->a)
                                       : (p->a->domain > 0 ? (double)p->a->domain : 1.0);
    double remote = (double)chips - fmin(domain, (double)chips);
    if (s > 0 && remote > 0)
        s += remote * p->peer_s;
    return s;
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
    double exchange = d->samples / batch * 2.0 * tables_alltoall_s(p, chips, bytes) / goodput;
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
    return gather + tables_alltoall_s(p, chips, bytes);
}
