/* list_cvars.c: print every control variable, after the MPI-3.1 chapter's Example 14.4
 * ("Printing All Control Variables"), with verbosity, datatype and description. Names
 * and descriptions longer than the first buffer are fetched again with the length the
 * string convention returned (strlen + 1, MPI-4.1 §15.3.3). */
#include <stdio.h>
#include <stdlib.h>
#include "mpit_reference.h"

static const char *verbosity_name(int v)
{
    switch (v) {
    case MPI_T_VERBOSITY_USER_BASIC: return "MPI_T_VERBOSITY_USER_BASIC";
    case MPI_T_VERBOSITY_USER_DETAIL: return "MPI_T_VERBOSITY_USER_DETAIL";
    case MPI_T_VERBOSITY_USER_ALL: return "MPI_T_VERBOSITY_USER_ALL";
    case MPI_T_VERBOSITY_TUNER_BASIC: return "MPI_T_VERBOSITY_TUNER_BASIC";
    case MPI_T_VERBOSITY_TUNER_DETAIL: return "MPI_T_VERBOSITY_TUNER_DETAIL";
    case MPI_T_VERBOSITY_TUNER_ALL: return "MPI_T_VERBOSITY_TUNER_ALL";
    case MPI_T_VERBOSITY_MPIDEV_BASIC: return "MPI_T_VERBOSITY_MPIDEV_BASIC";
    case MPI_T_VERBOSITY_MPIDEV_DETAIL: return "MPI_T_VERBOSITY_MPIDEV_DETAIL";
    case MPI_T_VERBOSITY_MPIDEV_ALL: return "MPI_T_VERBOSITY_MPIDEV_ALL";
    default: return "?";
    }
}

static const char *datatype_name(MPI_Datatype d)
{
    if (d == MPI_INT) return "MPI_INT";
    if (d == MPI_INT32_T) return "MPI_INT32_T";
    if (d == MPI_INT64_T) return "MPI_INT64_T";
    if (d == MPI_UNSIGNED) return "MPI_UNSIGNED";
    if (d == MPI_UNSIGNED_LONG) return "MPI_UNSIGNED_LONG";
    if (d == MPI_UNSIGNED_LONG_LONG) return "MPI_UNSIGNED_LONG_LONG";
    if (d == MPI_UINT32_T) return "MPI_UINT32_T";
    if (d == MPI_UINT64_T) return "MPI_UINT64_T";
    if (d == MPI_COUNT) return "MPI_COUNT";
    if (d == MPI_CHAR) return "MPI_CHAR";
    if (d == MPI_DOUBLE) return "MPI_DOUBLE";
    return "?";
}

int main(void)
{
    int i, err, num, namelen, desclen, bind, verbose, scope;
    int threadsupport;
    char name[100], desc[100];
    MPI_Datatype datatype;

    err = MPI_T_init_thread(MPI_THREAD_SINGLE, &threadsupport);
    if (err != MPI_SUCCESS) {
        printf("MPI_T_init_thread: %d\n", err);
        return 1;
    }
    err = MPI_T_cvar_get_num(&num);
    if (err != MPI_SUCCESS) {
        printf("MPI_T_cvar_get_num: %d\n", err);
        return 1;
    }
    printf("%d control variables\n", num);

    for (i = 0; i < num; i++) {
        char *n = name, *d = desc;
        namelen = sizeof name;
        desclen = sizeof desc;
        err = MPI_T_cvar_get_info(i, name, &namelen, &verbose, &datatype, NULL, desc, &desclen, &bind, &scope);
        if (err != MPI_SUCCESS) {
            printf("MPI_T_cvar_get_info(%d): %d\n", i, err);
            return 1;
        }
        if (namelen > (int)sizeof name || desclen > (int)sizeof desc) {
            n = malloc(namelen);
            d = malloc(desclen);
            err = MPI_T_cvar_get_info(i, n, &namelen, NULL, NULL, NULL, d, &desclen, NULL, NULL);
            if (err != MPI_SUCCESS || !n || !d) {
                printf("MPI_T_cvar_get_info(%d) again: %d\n", i, err);
                return 1;
            }
        }
        printf("Var %d: %s verbosity=%s datatype=%s desc=\"%s\"\n", i, n, verbosity_name(verbose),
               datatype_name(datatype), d);
        if (n != name) {
            free(n);
            free(d);
        }
    }

    err = MPI_T_finalize();
    if (err != MPI_SUCCESS) {
        printf("MPI_T_finalize: %d\n", err);
        return 1;
    }
    return 0;
}
