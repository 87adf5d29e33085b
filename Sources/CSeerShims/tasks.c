#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "CSeerShims.h"

/* The Swift runtime's hook for jobs enqueued on the global concurrent executor
   (swift/Runtime/Concurrency.h: swift_task_enqueueGlobal_hook). Its value is a function called with
   the job and the runtime's own enqueue function, in Swift's calling convention. It is declared here
   by its storage alone, as a pointer: a statically linked standard library keeps the symbol out of the
   executable's dynamic symbols, so it cannot be looked up at run time, only linked to. */
extern void *swift_task_enqueueGlobal_hook;

static seer_job_sink sink;

#if __has_attribute(swiftcall)
__attribute__((swiftcall))
#endif
static void seer_enqueue_global(void *job, void *original) {
    (void)original;
    sink(job);
}

#if __has_attribute(swiftcall)
/* The Swift runtime's entry point for an executor that runs a job (swift/Runtime/Concurrency.h:
   swift_job_run), whose second argument, an executor reference of two words, is passed as two
   arguments in Swift's calling convention. The generic executor, the global concurrent one, is the
   reference whose two words are zero. */
extern __attribute__((swiftcall)) void swift_job_run(void *job, void *executor_identity, uintptr_t executor_implementation);
#endif

void seer_run_global_job(void *job) {
#if __has_attribute(swiftcall)
    swift_job_run(job, NULL, 0);
#else
    (void)job;
#endif
}

int seer_route_global_jobs(seer_job_sink target) {
#if __has_attribute(swiftcall)
    if (target == NULL || sink != NULL || swift_task_enqueueGlobal_hook != NULL) return 0;
    sink = target;
    __atomic_store_n(&swift_task_enqueueGlobal_hook, (void *)seer_enqueue_global, __ATOMIC_SEQ_CST);
    return 1;
#else
    (void)target;
    return 0;
#endif
}

int seer_name_thread(const char *name) {
#if defined(__linux__)
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    return pthread_setname_np(pthread_self(), shortened) == 0;
#else
    (void)name;
    return 0;
#endif
}

#if defined(__linux__)
/* Puts the calling thread under `policy` (one without a static priority); 1 when set. */
static int seer_thread_scheduling(int policy) {
    struct sched_param parameter = {0};
    return sched_setscheduler(0, policy, &parameter) == 0;
}

int seer_thread_batch_scheduling(void) { return seer_thread_scheduling(SCHED_BATCH); }
int seer_thread_idle_scheduling(void) { return seer_thread_scheduling(SCHED_IDLE); }
#else
int seer_thread_batch_scheduling(void) { return 0; }
int seer_thread_idle_scheduling(void) { return 0; }
#endif

int seer_thread_is_batch_scheduled(void) {
#if defined(__linux__)
    return sched_getscheduler(0) == SCHED_BATCH;
#else
    return 0;
#endif
}

int seer_allowed_cpus(int *cpus, int capacity) {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    int count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && count < capacity; cpu++) {
        if (CPU_ISSET(cpu, &set)) cpus[count++] = cpu;
    }
    return count;
#else
    (void)cpus;
    (void)capacity;
    return 0;
#endif
}

int seer_pin_thread(int cpu) {
#if defined(__linux__)
    if (cpu < 0 || cpu >= CPU_SETSIZE) return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
#else
    (void)cpu;
    return 0;
#endif
}
