// User-space instructions retired by the calling thread, through perf_event_open(2): a count that
// does not move with the machine's load, where the hardware (or the VM) exposes one.

#include "CBenchmarkCounters.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int instruction_counter_open(void) {
    struct perf_event_attr attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.size = sizeof attributes;
    attributes.type = PERF_TYPE_HARDWARE;
    attributes.config = PERF_COUNT_HW_INSTRUCTIONS;
    attributes.exclude_kernel = 1;
    attributes.exclude_hv = 1;
    long descriptor = syscall(SYS_perf_event_open, &attributes, 0, -1, -1, 0);
    return descriptor < 0 ? -1 : (int)descriptor;
}

uint64_t instruction_counter_read(int descriptor) {
    uint64_t value = 0;
    if (descriptor < 0 || read(descriptor, &value, sizeof value) != (ssize_t)sizeof value) return UINT64_MAX;
    return value;
}

void instruction_counter_close(int descriptor) {
    if (descriptor >= 0) close(descriptor);
}
