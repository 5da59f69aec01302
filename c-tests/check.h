/* Shared by the C test programs: counted checks that print the failing line. */
#ifndef MPIT_CHECK_H
#define MPIT_CHECK_H
#include <stdio.h>

/* Unused by programs that only TRY. */
static int checks __attribute__((unused)), failures __attribute__((unused));

#define CHECK(cond, what)                                     \
    do {                                                      \
        checks++;                                             \
        if (!(cond)) {                                        \
            failures++;                                       \
            printf("FAIL line %d: %s\n", __LINE__, what);     \
        }                                                     \
    } while (0)

/* The call must succeed. */
#define OK(call) CHECK((call) == MPI_SUCCESS, #call " returns MPI_SUCCESS")
/* A value is one of the MPI_T_ERR_* codes of the standard ABI. */
#define IS_T_ERR(rc) ((rc) >= MPI_T_ERR_CANNOT_INIT && (rc) <= MPI_T_ERR_PVAR_NO_ATOMIC)

/* The call must succeed, else the program reports it and exits 1 (the examples' style). */
#define TRY(call)                                                        \
    do {                                                                 \
        int rc_ = (call);                                                \
        if (rc_ != MPI_SUCCESS) {                                        \
            printf("%s failed: %d (line %d)\n", #call, rc_, __LINE__);  \
            return 1;                                                    \
        }                                                                \
    } while (0)

#endif
