// Counts heap allocations per thread by defining malloc and friends in the executable: the dynamic
// linker resolves every library's malloc to the first definition, which is this one, and each
// forwards to glibc's own entry points (__libc_malloc, ...). glibc 2.36 has no malloc hooks.
// Counting is off unless the calling thread turned it on, so the cost elsewhere is one
// thread-local load per allocation.

#define _GNU_SOURCE
#include "CBenchmarkCounters.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

// initial-exec: the executable's own TLS block, reached without a call (and so without malloc).
static __thread int counting __attribute__((tls_model("initial-exec")));
static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));
static __thread int probed __attribute__((tls_model("initial-exec")));

static inline void count_one(void) {
    if (counting) allocations += 1;
    probed = 1;
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void allocation_counter_start(void) {
    allocations = 0;
    counting = 1;
}

uint64_t allocation_counter_stop(void) {
    counting = 0;
    return allocations;
}

int allocation_counter_is_active(void) {
    // asprintf allocates inside libc (and, unlike strdup, is not a builtin the compiler could fold
    // away): if that reached this malloc, so do Swift's and Foundation's.
    probed = 0;
    char *text = NULL;
    if (asprintf(&text, "%d", 42) < 0) return 0;
    int active = probed;
    free(text);
    return active;
}
