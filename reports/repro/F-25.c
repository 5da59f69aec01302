/*
 * Reproducer of a `crash` result of mpit-conform, case lifecycle.matrix.repeated_sessions_under_t (must),
 * subject: none.
 *
 * Found on: MPICH Version:	4.0.2 (/usr/lib/x86_64-linux-gnu/libmpich.so.12)
 *   ABI family mpich, sha256 86406bb225ffe9ef2f9176406407b4569671417d0ff3f3b8ac490c5380199f72
 * Case: MPI sessions begun and ended again and again while MPI_T is initialized all succeed
 * Clause: MPI-4.1 §15.3, §15.3.4 R-MPI-2 R-GEN-4 R-FIN-2
 *   R-MPI-2 (MPI-4.1 §15.3): "The MPI tool information interface can be used independently from the MPI communication functionality [...] the MPI tool information interface uses separate initialization and finalization routines"
 *   R-GEN-4 (MPI-4.1 §15.3): "MPI_T can be called before MPI initialization and after MPI finalization"
 *   R-FIN-2 (MPI-4.1 §15.3.4): "While #finalize < #init the interface stays initialized; once equal it is not"
 * mpit-conform saw: worker killed by exit(1) inside the library in MPI_Session_init()
 * The crash is the evidence: this program makes the same calls, and when the
 * deviation reproduces it dies (or hangs) in the same call.
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
#if MPI_VERSION < 4
#include <stdio.h>
int main(void)
{
    printf("not applicable: the rule is from MPI 4.0; this mpi.h is older\n");
    return 77;
}
#else
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define FILL 0xA5 /* the byte every buffer and OUT argument is filled with: not NUL */
#ifndef REPRO_STRICT /* -DREPRO_STRICT: SHOULD and robustness deviations count too (--strict) */
#define REPRO_STRICT 0
#endif
static int deviations = 0;
static int t_depth = 0; /* MPI_T initializations not yet finalized */
static char whybuf[1024]; /* why the last check failed */

static int deviation(int must, const char *call, const char *why);
static const char *returned(int rc, const char *want);
static void show_call(const char *text, int rc);

/* ---- The case ---------------------------------------------------------------- */
static MPI_Session v_s1;
static MPI_Session v_s2;
static MPI_Session v_s3;
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: lifecycle.matrix.repeated_sessions_under_t on (no subject)\n");
    {
        {
            int o_provided; memset(&o_provided, FILL, sizeof o_provided);
            rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &o_provided);
            show_call("MPI_T_init_thread(required=MPI_THREAD_SINGLE)", rc);
            if (rc == MPI_SUCCESS) t_depth++;
            printf("      provided = %lld\n", (long long)(o_provided));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_init_thread", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            MPI_Session o_mpi_session; memset(&o_mpi_session, FILL, sizeof o_mpi_session);
            rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_mpi_session);
            show_call("MPI_Session_init()", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_mpi_session != MPI_SESSION_NULL)) { snprintf(whybuf, sizeof whybuf, "mpi_session: %#llx is not != MPI_SESSION_NULL", (unsigned long long)(uintptr_t)(o_mpi_session)); why = whybuf; }
            if (why && deviation(1, "MPI_Session_init", why)) goto done;
            v_s1 = o_mpi_session;
        }
        {
            MPI_Session o_mpi_session = v_s1;
            rc = MPI_Session_finalize(&o_mpi_session);
            show_call("MPI_Session_finalize(mpi_session=$s1)", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_Session_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            MPI_Session o_mpi_session; memset(&o_mpi_session, FILL, sizeof o_mpi_session);
            rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_mpi_session);
            show_call("MPI_Session_init()", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_mpi_session != MPI_SESSION_NULL)) { snprintf(whybuf, sizeof whybuf, "mpi_session: %#llx is not != MPI_SESSION_NULL", (unsigned long long)(uintptr_t)(o_mpi_session)); why = whybuf; }
            if (why && deviation(1, "MPI_Session_init", why)) goto done;
            v_s2 = o_mpi_session;
        }
        {
            MPI_Session o_mpi_session = v_s2;
            rc = MPI_Session_finalize(&o_mpi_session);
            show_call("MPI_Session_finalize(mpi_session=$s2)", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_Session_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            MPI_Session o_mpi_session; memset(&o_mpi_session, FILL, sizeof o_mpi_session);
            rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_mpi_session);
            show_call("MPI_Session_init()", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_mpi_session != MPI_SESSION_NULL)) { snprintf(whybuf, sizeof whybuf, "mpi_session: %#llx is not != MPI_SESSION_NULL", (unsigned long long)(uintptr_t)(o_mpi_session)); why = whybuf; }
            if (why && deviation(1, "MPI_Session_init", why)) goto done;
            v_s3 = o_mpi_session;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_cvar_get_num(&o_num);
            show_call("MPI_T_cvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_num >= 0)) { snprintf(whybuf, sizeof whybuf, "num: %lld is not >= 0", (long long)(o_num)); why = whybuf; }
            if (why && deviation(1, "MPI_T_cvar_get_num", why)) goto done;
        }
        {
            MPI_Session o_mpi_session = v_s3;
            rc = MPI_Session_finalize(&o_mpi_session);
            show_call("MPI_Session_finalize(mpi_session=$s3)", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_Session_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            rc = MPI_T_finalize();
            show_call("MPI_T_finalize()", rc);
            if (rc == MPI_SUCCESS) t_depth--;
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3, §15.3.4 R-MPI-2 R-GEN-4 R-FIN-2\n");
    printf("mpit-conform saw on MPICH Version:\t4.0.2: worker killed by exit(1) inside the library in MPI_Session_init()\n");
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

/* Why a call's return code is not the one the case wants. */
static const char *returned(int rc, const char *want)
{
    snprintf(whybuf, sizeof whybuf, "returned %s, want %s", rc_name(rc), want);
    return whybuf;
}

static void show_call(const char *text, int rc)
{
    static int step_no = 0;
    printf("[%d] %s -> %s\n", ++step_no, text, rc_name(rc));
    fflush(stdout);
}
#endif
