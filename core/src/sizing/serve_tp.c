/* core/src/sizing/serve_tp.c -- what a serving replica's chips spend meeting each
 * other: the all-reduces of tensor parallelism within the fast domain
 * (NVLink/NVSwitch or Infinity Fabric on GPUs, ICI on a TPU slice,
 * NeuronLink or RoCE on ASICs), the hops between pipeline stages on
 * different machines (the data-center network), and the all-to-alls of an
 * expert-parallel mixture of experts and of sharded embedding tables (the
 * latter for training too, core/src/sizing/embed.c). Owned by the serving physics
 * work (issue 30); the replica that calls it is sizing.c.
 *
 * Method for users: docs/scoring.md, section 5 ("Serving"); parameters:
 * rules/sizing.yaml (tp_allreduce_us, tp_activation_bytes, network_hop_us,
 * network_gbps), each with its source. */
#include <math.h>

#include "ruleset_internal.h"
#include "sizing.h"

void dc__tp_init(struct dc__part *p)
{
    const struct dc_sizing_params *s = p->s;
    double us = s->tp_allreduce_us[p->a->family];
    p->allreduce_s = isfinite(us) ? us * 1e-6 : 0;
    p->act_bytes = isfinite(s->tp_activation_bytes.value) ? s->tp_activation_bytes.value : 0;
    /* The catalog lists a link's bandwidth both ways (NVLink 4: 900 GB/s a
     * GPU, 450 each way); an all-reduce's ring sends one way at a time. */
    double link = p->a->interconnect_gbps;
    p->link_bps = isfinite(link) && link > 0 ? link * 1e9 / 2.0 : NAN;
    p->hop_s = isfinite(s->network_hop_us.value) ? s->network_hop_us.value * 1e-6 : 0;
    p->net_bps = isfinite(s->network_gbps.value) ? s->network_gbps.value * 1e9 : NAN;
}

/* One all-reduce of `bytes` over `tp` chips: its fixed latency (launch and
 * the synchronisation steps, whatever the size) plus the ring's traffic, 2
 * (tp - 1) / tp of the bytes sent by each chip (nccl-tests' bus bandwidth,
 * https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md). A
 * link of unknown bandwidth counts its latency alone. */
static double allreduce_s(const struct dc__part *p, unsigned tp, double bytes)
{
    double traffic = isfinite(p->link_bps) ? 2.0 * (tp - 1.0) / tp * bytes / p->link_bps : 0;
    return p->allreduce_s + traffic;
}

double dc__tp_sync_s(const struct dc__part *p, unsigned tp, double stages, double tokens,
                     double layers, double hidden)
{
    double bytes = tokens * hidden * p->act_bytes;
    double sync = 0;
    /* Megatron-style tensor parallelism reduces each layer's output twice:
     * after attention and after the MLP (Shoeybi et al. 2019,
     * https://arxiv.org/abs/1909.08053, section 3). */
    if (tp > 1 && p->allreduce_s > 0)
        sync += 2.0 * layers * allreduce_s(p, tp, bytes);
    /* Each stage boundary sends the batch's activations to the next machine. */
    if (stages > 1.0) {
        double send = isfinite(p->net_bps) ? bytes / p->net_bps : 0;
        sync += (stages - 1.0) * (p->hop_s + send);
    }
    return sync;
}

double dc__decode_sync_s(const struct dc__part *p, unsigned tp, double stages, double batch)
{
    const struct dc__derived *d = p->d;
    double sync =
        dc__tp_sync_s(p, tp, stages, batch * d->tokens_per_request_step, d->layers, d->hidden);
    /* The draft runs its own steps on the same chips, one token a request each,
     * and meets the other chips as often a layer as the model does. */
    if (d->draft_steps > 0)
        sync +=
            d->draft_steps * dc__tp_sync_s(p, tp, stages, batch, d->draft_layers, d->draft_hidden);
    return sync;
}

double dc__alltoall_s(const struct dc__part *p, unsigned chips, double bytes)
{
    if (chips <= 1 || !(bytes > 0))
        return 0;
    double n = chips;
    /* A TPU slice's ICI joins all of its chips (past the largest slice,
     * Multislice crosses the data-center network); a machine's NVLink its own. */
    double domain = p->a->n_slices > 0 ? (double)dc__unit_chips(p->a)
                                       : (p->a->domain > 0 ? (double)p->a->domain : 1.0);
    double inside = fmin(domain, n);
    double local = bytes * (inside - 1.0) / n, remote = bytes * (n - inside) / n;
    double s = p->allreduce_s;
    if (isfinite(p->link_bps))
        s += local / p->link_bps;
    /* No ring aggregates an all-to-all: each chip's share for the other
     * machines leaves over its own network link. */
    if (remote > 0)
        s += p->hop_s + (isfinite(p->net_bps) ? remote / p->net_bps : 0);
    return s;
}

double dc__ep_sync_s(const struct dc__part *p, unsigned chips, double tokens)
{
    const struct dc__derived *d = p->d;
    double k = p->w->experts_per_token;
    if (chips <= 1 || !(tokens > 0) || !isfinite(k))
        return 0;
    /* Each chip sends its tokens' activations to the k experts each picks
     * (spread over all chips) and takes the results back: two all-to-alls a
     * MoE layer, every layer counted as one (DeepSeek-V3: 58 of 61). */
    double bytes = tokens / chips * k * d->hidden * p->act_bytes;
    return 2.0 * d->layers * dc__alltoall_s(p, chips, bytes);
}
