/* pvar_queue.c: the MPI-3.1 chapter's Example 14.6 ("Tool to Detect Receives with Long
 * Unexpected Message Queues") reduced to MPI_T: find the queue-length variable by
 * name and class through the PMPI_T_ interface, open a session, allocate a handle,
 * start, let the reference simulate MPI activity, read, stop, free. A message counter
 * bound to MPI_COMM_WORLD shows that a stopped variable no longer counts. */
#include <stdio.h>
#include <string.h>
#include "mpit_reference.h"
#include "check.h"


static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle, counter;

/* The example's search loop: the index of the pvar with this name and class, or -1. */
static int find(const char *wanted, int wanted_class)
{
    int err, num, i, namelen, verbosity, var_class, bind, readonly, continuous, atomic;
    char name[64];
    MPI_Datatype datatype;
    MPI_T_enum enumtype;

    err = PMPI_T_pvar_get_num(&num);
    if (err != MPI_SUCCESS) return -1;
    for (i = 0; i < num; i++) {
        namelen = sizeof name;
        err = PMPI_T_pvar_get_info(i, name, &namelen, &verbosity, &var_class, &datatype, &enumtype, NULL, NULL,
                                   &bind, &readonly, &continuous, &atomic);
        if (err != MPI_SUCCESS) return -1;
        if (strcmp(name, wanted) == 0 && var_class == wanted_class) return i;
    }
    return -1;
}

int main(void)
{
    int threadsup, index, count;
    unsigned int queue_length;
    unsigned long long sent, sent_later;
    MPI_Comm comm = MPI_COMM_WORLD;

    TRY(PMPI_Init(NULL, NULL));
    TRY(PMPI_T_init_thread(MPI_THREAD_SINGLE, &threadsup));

    index = find("ref_pvar_level", MPI_T_PVAR_CLASS_LEVEL);
    if (index < 0) {
        printf("ref_pvar_level not found\n");
        return 1;
    }
    TRY(PMPI_T_pvar_session_create(&session));
    TRY(PMPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count));
    TRY(PMPI_T_pvar_start(session, handle));

    index = find("ref_pvar_comm_counter", MPI_T_PVAR_CLASS_COUNTER);
    if (index < 0) {
        printf("ref_pvar_comm_counter not found\n");
        return 1;
    }
    TRY(PMPI_T_pvar_handle_alloc(session, index, &comm, &counter, &count));
    TRY(PMPI_T_pvar_start(session, counter));

    TRY(MPIT_Reference_simulate(10));

    TRY(PMPI_T_pvar_read(session, handle, &queue_length));
    printf("ref_pvar_level = %u\n", queue_length);
    TRY(PMPI_T_pvar_read(session, counter, &sent));
    printf("ref_pvar_comm_counter = %llu\n", sent);

    TRY(PMPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));
    TRY(MPIT_Reference_simulate(10));
    TRY(PMPI_T_pvar_read(session, counter, &sent_later));
    printf("ref_pvar_comm_counter after stop = %llu\n", sent_later);

    TRY(PMPI_T_pvar_handle_free(session, &handle));
    TRY(PMPI_T_pvar_handle_free(session, &counter));
    TRY(PMPI_T_pvar_session_free(&session));
    printf("after free: handle %s, session %s\n", handle == MPI_T_PVAR_HANDLE_NULL ? "NULL" : "not NULL",
           session == MPI_T_PVAR_SESSION_NULL ? "NULL" : "not NULL");

    TRY(PMPI_T_finalize());
    TRY(PMPI_Finalize());
    return 0;
}
