/* read_cvar.c: find control variables by name and read them, after the MPI-3.1
 * chapter's Example 14.5 ("Reading the Value of a Control Variable"), including its
 * communicator-bound getValue_int_comm once MPI is initialized. */
#include <stdio.h>
#include <string.h>
#include "mpit_reference.h"
#include "check.h"

/* Example 14.5, unchanged apart from the error reporting. */
static int getValue_int_comm(int index, MPI_Comm comm, int *val)
{
    int err, count;
    MPI_T_cvar_handle handle;

    /* This example assumes that the variable index can be bound to a communicator. */
    err = MPI_T_cvar_handle_alloc(index, &comm, &handle, &count);
    if (err != MPI_SUCCESS) return err;
    /* The following assumes that the variable is represented by a single integer. */
    err = MPI_T_cvar_read(handle, val);
    if (err != MPI_SUCCESS) return err;
    err = MPI_T_cvar_handle_free(&handle);
    return err;
}


int main(void)
{
    int provided, index, count, value, written = 7;
    char text[64];
    MPI_T_cvar_handle handle;

    TRY(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

    /* get_index, handle_alloc (no object), read, print, write, read back, free. */
    TRY(MPI_T_cvar_get_index("ref_cvar_int_local", &index));
    TRY(MPI_T_cvar_handle_alloc(index, NULL, &handle, &count));
    TRY(MPI_T_cvar_read(handle, &value));
    printf("ref_cvar_int_local = %d (index %d, count %d)\n", value, index, count);
    TRY(MPI_T_cvar_write(handle, &written));
    TRY(MPI_T_cvar_read(handle, &value));
    printf("ref_cvar_int_local after write = %d\n", value);
    TRY(MPI_T_cvar_handle_free(&handle));
    printf("handle after free is %s\n", handle == MPI_T_CVAR_HANDLE_NULL ? "MPI_T_CVAR_HANDLE_NULL" : "not NULL");

    /* An MPI_CHAR variable: count includes the NUL (R-TYPE-2). */
    TRY(MPI_T_cvar_get_index("ref_cvar_string", &index));
    TRY(MPI_T_cvar_handle_alloc(index, NULL, &handle, &count));
    if (count > (int)sizeof text) {
        printf("ref_cvar_string count %d too large\n", count);
        return 1;
    }
    TRY(MPI_T_cvar_read(handle, text));
    printf("ref_cvar_string = \"%s\" (count %d)\n", text, count);
    TRY(MPI_T_cvar_handle_free(&handle));

    /* A communicator-bound variable needs MPI initialized (R-BIND-2). */
    TRY(MPI_Init(NULL, NULL));
    TRY(MPI_T_cvar_get_index("ref_cvar_bind_comm", &index));
    TRY(getValue_int_comm(index, MPI_COMM_WORLD, &value));
    printf("ref_cvar_bind_comm on MPI_COMM_WORLD = %d\n", value);
    TRY(MPI_Finalize());

    TRY(MPI_T_finalize());
    return 0;
}
