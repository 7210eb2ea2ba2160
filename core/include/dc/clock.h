/* core/include/dc/clock.h -- the project's one clock helper: monotonic
 * nanoseconds (CLOCK_MONOTONIC, POSIX
 * https://pubs.opengroup.org/onlinepubs/9799919799/functions/clock_gettime.html),
 * for budgets, deadlines and durations, never the time of day. Used by core
 * (the explanations' time budget), the probe (how long the running probe has
 * been busy) and the service (connection deadlines, the rules watcher, reload
 * and fleet query durations). Header-only. */
#ifndef DC_CLOCK_H
#define DC_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds since an unspecified start, never going back. */
static inline uint64_t dc_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* DC_CLOCK_H */
