/* faults.c: one observable behaviour per mode, for the fault-injection tests
 * (MPIT_REFERENCE_FAULTS / MPIT_REFERENCE_CATALOG are set by the caller):
 *   init       MPI_T_init_thread's return code and provided level
 *   codes      the codes of a garbage cvar handle and of an unknown cvar name
 *   verbosity  cvar 0's verbosity
 *   null-len   cvar_get_info with a buffer but a NULL length (R-STR-4)
 *   crash      cvar_read of an MPI_CHAR cvar
 * Prints `survived` at the end of the last two. */
#include <stdio.h>
#include <string.h>
#include "mpit_reference.h"

int main(int argc, char **argv)
{
    int rc, provided = -1, idx = -1, count, verbosity = -1;
    char buf[128];
    MPI_T_cvar_handle h;

    if (argc != 2) {
        printf("usage: faults MODE\n");
        return 2;
    }
    rc = MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided);
    printf("init rc=%d provided=%d\n", rc, provided);
    if (strcmp(argv[1], "init") == 0 || rc != MPI_SUCCESS) return 0;

    if (strcmp(argv[1], "codes") == 0) {
        printf("garbage handle rc=%d\n", MPI_T_cvar_read((MPI_T_cvar_handle)(intptr_t)0x12345, buf));
        printf("unknown name rc=%d\n", MPI_T_cvar_get_index("no_such_cvar", &idx));
    } else if (strcmp(argv[1], "verbosity") == 0) {
        rc = MPI_T_cvar_get_info(0, NULL, NULL, &verbosity, NULL, NULL, NULL, NULL, NULL, NULL);
        printf("verbosity rc=%d value=%d\n", rc, verbosity);
    } else if (strcmp(argv[1], "null-len") == 0) {
        rc = MPI_T_cvar_get_info(0, buf, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        printf("get_info rc=%d\nsurvived\n", rc);
    } else if (strcmp(argv[1], "crash") == 0) {
        rc = MPI_T_cvar_get_index("ref_cvar_string", &idx);
        if (rc == MPI_SUCCESS) rc = MPI_T_cvar_handle_alloc(idx, NULL, &h, &count);
        if (rc == MPI_SUCCESS && count <= (int)sizeof buf) rc = MPI_T_cvar_read(h, buf);
        printf("read rc=%d\nsurvived\n", rc);
    } else {
        printf("unknown mode %s\n", argv[1]);
        return 2;
    }
    fflush(stdout);
    MPI_T_finalize();
    return 0;
}
