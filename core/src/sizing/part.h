/* core/src/sizing/part.h -- one part as the sizing sees it (struct dc__part:
 * what sizing one workload on one accelerator needs, computed once by
 * dc__part_init in sizing.c) and the comparison the model files use on its
 * figures (dc__fmax). A header of its own, included by sizing.h, so that a
 * model file that reads a part and is called by sizing.c (sync.c, the
 * gradient all-reduce) takes nothing back from sizing.c. Owned by core; not
 * part of the public API. */
#ifndef DC_SIZING_PART_H
#define DC_SIZING_PART_H

#include <math.h>
#include <stdbool.h>

#include "dc/result.h"
#include "workload_internal.h"

/* Machine sizes a part keeps its offers by (dc__part.offer_units). */
#define DC__PART_OFFER_UNITS 16

/* What sizing one workload on one part needs, computed once per part. The
 * struct holds the MFU-scaled copy of the part a robustness probe sizes
 * against, so it is never copied: `a` may point into it. */
struct dc__part {
    const dc_ruleset *rs;
    const struct dc_sizing_params *s;
    const struct dc_workload *w;
    const struct dc__derived *d;
    const struct dc_accelerator *a;
    struct dc_accelerator scaled;
    double price_scale;
    unsigned cap; /* most chips of one job (training) or one replica (serving) */
    /* training */
    double peak;   /* FLOP/s per chip at the precision, before MFU; NAN unknown */
    double factor; /* the architecture's MFU factor x the part's x goodput */
    /* serving */
    unsigned fleet_cap; /* most chips of all replicas together */
    double bandwidth;   /* bytes/s per chip achieved */
    double flops;       /* FLOP/s per chip achieved */
    double attn_flops;  /* the same for attention over the KV cache (16-bit) */
    /* the links a replica's chips meet over (serve_tp.c) */
    double allreduce_s; /* fixed latency of one all-reduce; 0 when none is counted */
    double link_bps;    /* bytes/s one chip sends over the fast link; NAN unknown */
    double hop_s;       /* fixed latency of a pipeline hop between machines */
    double net_bps;     /* bytes/s one chip sends over the network; NAN unknown */
    double act_bytes;   /* bytes of one activation element exchanged */
    /* training: the data-parallel gradient all-reduce (sync.c) */
    double replica_chips; /* chips holding one copy of the model's state */
    double sync_bytes;    /* gradient bytes each chip all-reduces a step; 0: none */
    double domain_bps;    /* bytes/s each chip sends within the fast domain */
    double network_bps;   /* bytes/s each chip sends between domains */
    double step_flops;    /* one step's FLOPs at the workload's global batch */
    /* a recommender's tables (embed.c) */
    double gather_bps; /* bytes/s of table rows one chip gathers; 0: not timed */
    double peer_s;     /* latency each peer on another machine adds to an all-to-all */
    /* speech: seconds of audio the host's vCPUs decode a second for one chip;
     * INFINITY when the audio arrives decoded or the host is not known */
    double host_audio_s;
    double startup_hours; /* dc__startup_hours, set by dc__overheads_init */
    /* The offers dc__offer_for_shape picks on the workload's basis and
     * providers, found once (dc__part_offers): the cheapest (first on a tie)
     * of each machine size offers rent (offer_units[k] chips an instance),
     * and of the per-chip ones, which rent slices; offers_listed is false
     * when the sizes outnumber the room, and every shape asks
     * dc__offer_for_shape. */
    bool offers_listed;
    unsigned n_offer_units;
    unsigned offer_units[DC__PART_OFFER_UNITS];
    const struct dc_offer *unit_offer[DC__PART_OFFER_UNITS];
    const struct dc_offer *chip_offer;
};

/* fmax(x, y) without the call (GCC does not inline fmax, for its NaN and
 * signed-zero rules): the one that is not a NaN, else the larger, and y when
 * they compare equal, as glibc's x86-64 fmax does (maxsd's rule,
 * sysdeps/x86_64/fpu/s_fmax.S). Which zero fmax(0.0, -0.0) gives already
 * depended on the order GCC passed them in (fmax is commutative to it); the
 * callers' values are positive, or (the all-reduce's exposed time) added to
 * a positive step, where a zero's sign does not show. Where the sizing calls
 * it for every configuration or count it probes (some 700 times a
 * recommendation). */
static inline double dc__fmax(double x, double y)
{
    if (isnan(x))
        return isnan(y) ? x + y : y;
    if (isnan(y))
        return x;
    return x > y ? x : y;
}

#endif /* DC_SIZING_PART_H */
