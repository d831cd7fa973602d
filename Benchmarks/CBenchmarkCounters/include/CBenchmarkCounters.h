#ifndef C_BENCHMARK_COUNTERS_H
#define C_BENCHMARK_COUNTERS_H

#include <stdint.h>

/// Starts counting heap allocations (malloc, calloc, realloc, aligned allocations) made by the
/// calling thread from zero. Other threads are never counted.
void allocation_counter_start(void);

/// Stops counting on the calling thread and returns how many allocations it made since
/// allocation_counter_start().
uint64_t allocation_counter_stop(void);

/// 1 when this process's malloc is the counting one (the executable's definitions won over
/// libc's), 0 when the counts cannot be trusted.
int allocation_counter_is_active(void);

/// Opens a counter of user-space instructions retired by the calling thread (perf_event_open).
/// Returns a descriptor, or -1 where the machine has no hardware counters (many VMs) or the
/// kernel forbids them.
int instruction_counter_open(void);

/// The counter's current value, or UINT64_MAX when it cannot be read.
uint64_t instruction_counter_read(int descriptor);

/// Closes a counter opened by instruction_counter_open().
void instruction_counter_close(int descriptor);

#endif
