/* The speed of light of a reduction (speed_of_light.cu), for the roofline stage and every program's table. */
#ifndef REDUCE_SPEED_OF_LIGHT_H
#define REDUCE_SPEED_OF_LIGHT_H

#include <stdint.h>

#include "gpu.h"

/* The speed of light of a reduction of B bytes: the launch floor (an empty kernel between the timing
 * events) plus B over the read-only streaming bandwidth (the fastest of several read-only kernels over a
 * large buffer, as the slope of time against bytes). No kernel that reads its input can beat it. */
typedef struct {
    double floor_us;
    double round_trip_us; /* the launch floor with one DRAM round trip: one warp's first load, after a flush */
    double read_gbps;    /* the slope: bytes per second once the stream runs */
    double whole_gbps;   /* bytes over the whole time of one stream over the buffer */
    uint64_t bytes;
    const char *variant; /* the fastest read-only kernel */
} SpeedOfLight;
void measure_speed_of_light(SpeedOfLight *s, const GpuInfo *d, const L2Flush *flush, const void *buf, uint64_t bytes);
double speed_of_light_us(const SpeedOfLight *s, double bytes);

#endif
