/* core/include/dc/availability.h -- what is free to run on, as the engine takes
 * it (struct dc_recommend_opts, dc/engine.h): one catalog accelerator's live
 * availability on this host (the probe) or across a fleet (Prometheus). Its
 * own header so that the service's inventory and fleet, which fill it, need
 * nothing else of the engine. */
#ifndef DC_AVAILABILITY_H
#define DC_AVAILABILITY_H

/* Free devices on one node told apart by dc_availability.nodes_by_free; a node
 * with more counts as this many (no catalog machine holds more than 8). */
#define DC_AVAILABILITY_NODE_MAX 16

/* Live availability of one catalog accelerator: on this host (the probe), or
 * across a fleet of nodes (Prometheus; docs/operations.md, "Fleet"). */
struct dc_availability {
    const char *accelerator_id; /* catalog id */
    unsigned attached;          /* devices of this model attached here, or seen in the fleet */
    unsigned free;              /* of which idle now (no process, low utilisation) */
    double memory_free_gb;      /* summed over free devices; NAN when unknown */
    /* Node by node: nodes_by_free[k] nodes hold exactly k free devices of this
     * model (0 included: nodes where none is free). All zero: one node holding
     * `attached` and `free` (a host probe). */
    unsigned nodes_by_free[DC_AVAILABILITY_NODE_MAX + 1];
    /* Devices on nodes where every device of this model is free: what slices
     * larger than one node's free devices can take (whole hosts). */
    unsigned whole_node_free;
};

#endif
