/* mpi_funcs.c: the MPI_ functions the reference exports for a singleton process:
 * versions, MPI_Init/Finalize and their effect on MPI_T (entries that appear at
 * MPI_Init are appended: R-CVAR-1), communicators, MPI_Info and MPI_Wtime; and the
 * fault list hooks. Prints one line per failed check and a summary. */
#include <stdio.h>
#include <string.h>
#include "mpit_reference.h"

#include "check.h"


int main(void)
{
    int v = -1, sv = -1, len = -1, flag = -1, n, before, after, provided, i;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], key[MPI_MAX_INFO_KEY], val[16];
    MPI_Info info = MPI_INFO_NULL;
    double t0, t1;

    OK(MPI_Get_version(&v, &sv));
    printf("MPI_Get_version: %d.%d\n", v, sv);
    OK(MPI_Abi_get_version(&v, &sv));
    printf("MPI_Abi_get_version: %d.%d\n", v, sv);
    OK(MPI_Get_library_version(lib, &len));
    CHECK(len == (int)strlen(lib), "library version resultlen is strlen");
    printf("MPI_Get_library_version: %s\n", lib);

    OK(MPI_Initialized(&flag));
    CHECK(flag == 0, "not initialized yet");
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n) != MPI_SUCCESS, "MPI_Comm_size before MPI_Init fails");

    OK(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided));
    CHECK(provided == MPI_THREAD_FUNNELED, "provided is the level required");
    OK(MPI_T_cvar_get_num(&before));
    OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provides the level required");
    CHECK(MPI_Init(NULL, NULL) != MPI_SUCCESS, "a second MPI_Init fails");
    OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "initialized");
    OK(MPI_T_cvar_get_num(&after));
    printf("cvars: %d before MPI_Init, %d after\n", before, after);
    CHECK(after > before, "MPI_Init adds cvars");

    OK(MPI_Comm_rank(MPI_COMM_WORLD, &n));
    CHECK(n == 0, "rank 0");
    OK(MPI_Comm_size(MPI_COMM_SELF, &n));
    CHECK(n == 1, "size 1");
    CHECK(MPI_Comm_size(MPI_COMM_NULL, &n) != MPI_SUCCESS, "MPI_COMM_NULL is not a communicator");
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, NULL) != MPI_SUCCESS, "NULL rank");

    OK(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL, "a new info object");
    OK(MPI_Info_set(info, "ref_key", "a_long_value"));
    OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 1, "one key");
    OK(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "ref_key") == 0, "nthkey");
    len = sizeof val;
    OK(MPI_Info_get_string(info, "ref_key", &len, val, &flag));
    CHECK(flag == 1 && len == 13 && strcmp(val, "a_long_value") == 0, "get_string fits");
    len = 4;
    memset(val, 'Z', sizeof val);
    OK(MPI_Info_get_string(info, "ref_key", &len, val, &flag));
    CHECK(flag == 1 && len == 13 && strcmp(val, "a_l") == 0 && val[4] == 'Z', "get_string truncates");
    OK(MPI_Info_get_string(info, "nope", &len, val, &flag));
    CHECK(flag == 0, "missing key");
    OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free sets MPI_INFO_NULL");
    CHECK(MPI_Info_get_nkeys(info, &n) != MPI_SUCCESS, "MPI_INFO_NULL has no keys");

    t0 = MPI_Wtime();
    t1 = PMPI_Wtime();
    CHECK(t1 >= t0 && t0 >= 0.0, "MPI_Wtime is monotonic");

    OK(MPI_Finalize());
    OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "finalized");
    OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized stays true after MPI_Finalize");
    OK(MPI_T_cvar_get_num(&n));
    CHECK(n == after, "MPI_T works after MPI_Finalize and keeps its entries (R-GEN-4)");
    OK(MPI_T_finalize());

    n = MPIT_Reference_fault_count();
    CHECK(n > 0, "faults listed");
    for (i = 0; i < n; i++) CHECK(MPIT_Reference_fault_name(i) != NULL, "fault name");
    CHECK(MPIT_Reference_fault_name(n) == NULL, "NULL past the end");
    CHECK(MPIT_Reference_fault_name(-1) == NULL, "NULL before the start");
    printf("faults: %d, first %s\n", n, n > 0 ? MPIT_Reference_fault_name(0) : "-");

    printf("mpi_funcs: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
