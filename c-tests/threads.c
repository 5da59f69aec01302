/* threads.c: MPI_THREAD_MULTIPLE. Four threads query, read and write cvars, run pvar
 * sessions and raise events whose callback calls MPI_T_event_read, all at once: no
 * call fails, nothing deadlocks (callbacks run without the library's lock), every
 * event reaches the callback. */
#include <pthread.h>
#include <stdio.h>
#include "mpit_reference.h"

#define THREADS 4
#define ROUNDS 300

static int errors, callbacks, event_idx, cvar_idx, pvar_idx;

static void fail(const char *what, int rc)
{
    __atomic_add_fetch(&errors, 1, __ATOMIC_SEQ_CST);
    printf("FAIL %s: %d\n", what, rc);
}

#define OK(call)                                   \
    do {                                           \
        int rc_ = (call);                          \
        if (rc_ != MPI_SUCCESS) fail(#call, rc_);  \
    } while (0)

static void cb(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    int dest;
    (void)reg;
    (void)safety;
    (void)user_data;
    OK(MPI_T_event_read(inst, 0, &dest));
    __atomic_add_fetch(&callbacks, 1, __ATOMIC_SEQ_CST);
}

static void *worker(void *arg)
{
    int i, n, len, count, value;
    unsigned long long sent;
    char name[256];
    MPI_T_cvar_handle ch;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle ph;
    (void)arg;

    for (i = 0; i < ROUNDS; i++) {
        OK(MPI_T_cvar_get_num(&n));
        len = sizeof name;
        OK(MPI_T_cvar_get_info(i % n, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        OK(MPI_T_cvar_handle_alloc(cvar_idx, NULL, &ch, &count));
        OK(MPI_T_cvar_read(ch, &value));
        OK(MPI_T_cvar_write(ch, &value));
        OK(MPI_T_cvar_handle_free(&ch));
        OK(MPI_T_pvar_session_create(&s));
        OK(MPI_T_pvar_handle_alloc(s, pvar_idx, NULL, &ph, &count));
        OK(MPI_T_pvar_start(s, ph));
        OK(MPIT_Reference_simulate(1));
        OK(MPI_T_pvar_read(s, ph, &sent));
        OK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
        OK(MPI_T_pvar_handle_free(s, &ph));
        OK(MPI_T_pvar_session_free(&s));
        OK(MPIT_Reference_raise_event(event_idx, MPI_T_CB_REQUIRE_NONE));
    }
    return NULL;
}

int main(void)
{
    int provided, i;
    pthread_t t[THREADS];
    MPI_T_event_registration reg;

    OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    if (provided != MPI_THREAD_MULTIPLE) fail("provided MPI_THREAD_MULTIPLE", provided);
    OK(MPI_T_cvar_get_index("ref_cvar_int_local", &cvar_idx));
    OK(MPI_T_pvar_get_index("ref_pvar_counter", MPI_T_PVAR_CLASS_COUNTER, &pvar_idx));
    OK(MPI_T_event_get_index("ref_event_send", &event_idx));
    OK(MPI_T_event_handle_alloc(event_idx, NULL, MPI_INFO_NULL, &reg));
    OK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, cb));
    if (errors) return 1;

    for (i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < THREADS; i++) pthread_join(t[i], NULL);

    OK(MPI_T_event_handle_free(reg, NULL, NULL));
    OK(MPI_T_finalize());
    printf("threads: %d callbacks of %d, %d errors\n", callbacks, THREADS * ROUNDS, errors);
    return errors == 0 && callbacks == THREADS * ROUNDS ? 0 : 1;
}
