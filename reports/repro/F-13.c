/*
 * Reproducer of a `fail` result of mpit-conform, case errors.codes.profile (must),
 * subject: none.
 *
 * Found on: MPICH Version:	4.0.2 (/usr/lib/x86_64-linux-gnu/libmpich.so.12)
 *   ABI family mpich, sha256 86406bb225ffe9ef2f9176406407b4569671417d0ff3f3b8ac490c5380199f72
 * Case: the MPI_T_ERR_* codes are all defined, distinct, in (MPI_SUCCESS, MPI_ERR_LASTCODE], and none is an MPI error class
 * Clause: MPI-4.1 §15.3.10 R-RC-2 R-RC-1 R-ENUM-3
 *   R-RC-2 (MPI-4.1 §15.3.10): "MPI_T_ERR_* unique, 0 = MPI_SUCCESS < MPI_T_ERR_* <= MPI_ERR_LASTCODE, no overlap with error classes"
 *   R-RC-1 (MPI-4.1 §15.3.10): "Every MPI_T procedure returns an integer return code"
 *   R-ENUM-3 (MPI-4.1 §15.3.5): "enum_get_item returns item indx; name unique within the enum; bad indx: MPI_T_ERR_INVALID_INDEX"
 * mpit-conform saw: MPI_T_ERR_NOT_ACCESSIBLE is not defined by this ABI
 *
 * Build and run with the library's own compiler wrapper:
 *   mpicc repro.c -o repro && ./repro
 * For the MPI-5 standard ABI (libmpi_abi.so), the same source:
 *   mpicc -DMPI_ABI repro.c -o repro -lmpi_abi && ./repro   (or MPICH's mpicc_abi)
 * Exit status: 1 the deviation reproduces; 0 it does not; 77 not applicable (the
 * subject is not in this library's catalog). Variables are looked up by name.
 * -DREPRO_STRICT also counts SHOULD and robustness deviations (mpit-conform --strict).
 */
#include <mpi.h>
#include <stdio.h>
#ifndef REPRO_STRICT /* -DREPRO_STRICT: SHOULD and robustness deviations count too (--strict) */
#define REPRO_STRICT 0
#endif
static int deviations = 0;
static int t_depth = 0; /* MPI_T initializations not yet finalized */

static void check_error_codes(int must);
static int deviation(int must, const char *call, const char *why);
static void show_call(const char *text, int rc);

/* ---- The case ---------------------------------------------------------------- */
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: errors.codes.profile on (no subject)\n");
    {
        int provided = -1;
        rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        show_call("MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)", rc);
        if (rc != MPI_SUCCESS) { deviation(1, "MPI_T_init_thread", "failed (R-INIT-1)"); goto done; }
        t_depth++;
        check_error_codes(1);
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.10 R-RC-2 R-RC-1 R-ENUM-3\n");
    printf("mpit-conform saw on MPICH Version:\t4.0.2: MPI_T_ERR_NOT_ACCESSIBLE is not defined by this ABI\n");
    if (deviations) printf("verdict: REPRODUCED (%d deviation%s)\n", deviations, deviations == 1 ? "" : "s");
    else printf("verdict: not reproduced: every call returned as the standard says\n");
    return deviations ? 1 : 0;
}

/* ---- What the case calls ------------------------------------------------------ */
/* The name of a return code (MPI-4.1 §15.3.10), from mpit-conform's table of them. */
static const char *rc_name(int rc)
{
    static char other[32];
#define RC(c) if (rc == c) return #c;
    RC(MPI_SUCCESS)
#if defined(MPI_ABI_VERSION) || (defined(MPI_T_ERR_CANNOT_INIT) \
    && defined(MPI_T_ERR_NOT_INITIALIZED) && defined(MPI_T_ERR_MEMORY) \
    && defined(MPI_T_ERR_INVALID) && defined(MPI_T_ERR_INVALID_INDEX) \
    && defined(MPI_T_ERR_INVALID_ITEM) && defined(MPI_T_ERR_INVALID_SESSION) \
    && defined(MPI_T_ERR_INVALID_HANDLE) && defined(MPI_T_ERR_INVALID_NAME) \
    && defined(MPI_T_ERR_OUT_OF_HANDLES) && defined(MPI_T_ERR_OUT_OF_SESSIONS) \
    && defined(MPI_T_ERR_CVAR_SET_NOT_NOW) && defined(MPI_T_ERR_CVAR_SET_NEVER) \
    && defined(MPI_T_ERR_PVAR_NO_WRITE) && defined(MPI_T_ERR_PVAR_NO_STARTSTOP) \
    && defined(MPI_T_ERR_PVAR_NO_ATOMIC))
    RC(MPI_T_ERR_CANNOT_INIT) RC(MPI_T_ERR_NOT_INITIALIZED) RC(MPI_T_ERR_MEMORY)
    RC(MPI_T_ERR_INVALID) RC(MPI_T_ERR_INVALID_INDEX) RC(MPI_T_ERR_INVALID_ITEM)
    RC(MPI_T_ERR_INVALID_SESSION) RC(MPI_T_ERR_INVALID_HANDLE) RC(MPI_T_ERR_INVALID_NAME)
    RC(MPI_T_ERR_OUT_OF_HANDLES) RC(MPI_T_ERR_OUT_OF_SESSIONS) RC(MPI_T_ERR_CVAR_SET_NOT_NOW)
    RC(MPI_T_ERR_CVAR_SET_NEVER) RC(MPI_T_ERR_PVAR_NO_WRITE) RC(MPI_T_ERR_PVAR_NO_STARTSTOP)
    RC(MPI_T_ERR_PVAR_NO_ATOMIC)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_NOT_ACCESSIBLE)
    RC(MPI_T_ERR_NOT_ACCESSIBLE)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_NOT_SUPPORTED)
    RC(MPI_T_ERR_NOT_SUPPORTED)
#endif
#undef RC
    snprintf(other, sizeof other, "%d (not an MPI_T code)", rc);
    return other;
}

/* R-RC-2: every MPI_T_ERR_* code defined by mpi.h, distinct, in (MPI_SUCCESS, MPI_ERR_LASTCODE]. */
static void check_error_codes(int must)
{
    int codes[32], n = 0;
    char what[256];
#define HAS(c) codes[n++] = c; printf("      " #c " = %d\n", c); \
    if (c <= MPI_SUCCESS || c > MPI_ERR_LASTCODE) { \
        snprintf(what, sizeof what, #c " = %d is outside (MPI_SUCCESS, MPI_ERR_LASTCODE]", c); deviation(must, "mpi.h:", what); }
#define LACKS(c) deviation(must, "mpi.h:", #c " is not defined (R-RC-2)");
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_CANNOT_INIT)
    HAS(MPI_T_ERR_CANNOT_INIT)
#else
    LACKS(MPI_T_ERR_CANNOT_INIT)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_NOT_ACCESSIBLE)
    HAS(MPI_T_ERR_NOT_ACCESSIBLE)
#elif MPI_VERSION >= 4
    LACKS(MPI_T_ERR_NOT_ACCESSIBLE)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_NOT_INITIALIZED)
    HAS(MPI_T_ERR_NOT_INITIALIZED)
#else
    LACKS(MPI_T_ERR_NOT_INITIALIZED)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_NOT_SUPPORTED)
    HAS(MPI_T_ERR_NOT_SUPPORTED)
#elif MPI_VERSION >= 4
    LACKS(MPI_T_ERR_NOT_SUPPORTED)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_MEMORY)
    HAS(MPI_T_ERR_MEMORY)
#else
    LACKS(MPI_T_ERR_MEMORY)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_INVALID)
    HAS(MPI_T_ERR_INVALID)
#else
    LACKS(MPI_T_ERR_INVALID)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_INVALID_INDEX)
    HAS(MPI_T_ERR_INVALID_INDEX)
#else
    LACKS(MPI_T_ERR_INVALID_INDEX)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_INVALID_ITEM)
    HAS(MPI_T_ERR_INVALID_ITEM)
#else
    LACKS(MPI_T_ERR_INVALID_ITEM)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_INVALID_SESSION)
    HAS(MPI_T_ERR_INVALID_SESSION)
#else
    LACKS(MPI_T_ERR_INVALID_SESSION)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_INVALID_HANDLE)
    HAS(MPI_T_ERR_INVALID_HANDLE)
#else
    LACKS(MPI_T_ERR_INVALID_HANDLE)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_INVALID_NAME)
    HAS(MPI_T_ERR_INVALID_NAME)
#else
    LACKS(MPI_T_ERR_INVALID_NAME)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_OUT_OF_HANDLES)
    HAS(MPI_T_ERR_OUT_OF_HANDLES)
#else
    LACKS(MPI_T_ERR_OUT_OF_HANDLES)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_OUT_OF_SESSIONS)
    HAS(MPI_T_ERR_OUT_OF_SESSIONS)
#else
    LACKS(MPI_T_ERR_OUT_OF_SESSIONS)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_CVAR_SET_NOT_NOW)
    HAS(MPI_T_ERR_CVAR_SET_NOT_NOW)
#else
    LACKS(MPI_T_ERR_CVAR_SET_NOT_NOW)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_CVAR_SET_NEVER)
    HAS(MPI_T_ERR_CVAR_SET_NEVER)
#else
    LACKS(MPI_T_ERR_CVAR_SET_NEVER)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_PVAR_NO_WRITE)
    HAS(MPI_T_ERR_PVAR_NO_WRITE)
#else
    LACKS(MPI_T_ERR_PVAR_NO_WRITE)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_PVAR_NO_STARTSTOP)
    HAS(MPI_T_ERR_PVAR_NO_STARTSTOP)
#else
    LACKS(MPI_T_ERR_PVAR_NO_STARTSTOP)
#endif
#if defined(MPI_ABI_VERSION) || defined(MPI_T_ERR_PVAR_NO_ATOMIC)
    HAS(MPI_T_ERR_PVAR_NO_ATOMIC)
#else
    LACKS(MPI_T_ERR_PVAR_NO_ATOMIC)
#endif
#undef HAS
#undef LACKS
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (codes[i] == codes[j]) { snprintf(what, sizeof what, "two MPI_T_ERR_* codes are both %d", codes[i]); deviation(must, "mpi.h:", what); }
}

/* A deviation of `call`: it counts when of a MUST (of any level under REPRO_STRICT), and
 * then ends the sequence, as a failed MUST ends mpit-conform's. */
static int deviation(int must, const char *call, const char *why)
{
    int counts = must || REPRO_STRICT;
    deviations += counts;
    printf("  %s: %s %s\n", counts ? "DEVIATION" : "warn (not a MUST)", call, why);
    fflush(stdout);
    return counts;
}

static void show_call(const char *text, int rc)
{
    static int step_no = 0;
    printf("[%d] %s -> %s\n", ++step_no, text, rc_name(rc));
    fflush(stdout);
}
