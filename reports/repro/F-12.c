/*
 * Reproducer of a `crash` result of mpit-conform, case lifecycle.reinit.works (must),
 * subject: none.
 *
 * Found on: MPICH Version:	4.0.2 (/usr/lib/x86_64-linux-gnu/libmpich.so.12)
 *   ABI family mpich, sha256 86406bb225ffe9ef2f9176406407b4569671417d0ff3f3b8ac490c5380199f72
 * Case: MPI_T can be initialized again after it was fully finalized (and keeps its variables)
 * Clause: MPI-4.1 §15.3.4 R-FIN-3 R-CVAR-1
 *   R-FIN-3 (MPI-4.1 §15.3.4): "Re-initialization after full finalization is allowed"
 *   R-CVAR-1 (MPI-4.1 §15.3.6): "Indices run 0..num-1; the count may grow; an index never changes and a variable is never deleted"
 * mpit-conform saw: worker killed by SIGSEGV in MPI_T_cvar_get_num()
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
static int v_cvars;
static int v_categories;
static int v_pvars;
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: lifecycle.reinit.works on (no subject)\n");
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
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_cvar_get_num(&o_num);
            show_call("MPI_T_cvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_cvar_get_num", returned(rc, "MPI_SUCCESS"))) goto done;
            v_cvars = o_num;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_category_get_num(&o_num);
            show_call("MPI_T_category_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_category_get_num", returned(rc, "MPI_SUCCESS"))) goto done;
            v_categories = o_num;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_pvar_get_num(&o_num);
            show_call("MPI_T_pvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_get_num", returned(rc, "MPI_SUCCESS"))) goto done;
            v_pvars = o_num;
        }
        {
            rc = MPI_T_finalize();
            show_call("MPI_T_finalize()", rc);
            if (rc == MPI_SUCCESS) t_depth--;
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            int o_provided; memset(&o_provided, FILL, sizeof o_provided);
            rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &o_provided);
            show_call("MPI_T_init_thread(required=MPI_THREAD_SINGLE)", rc);
            if (rc == MPI_SUCCESS) t_depth++;
            printf("      provided = %lld\n", (long long)(o_provided));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !((o_provided == MPI_THREAD_SINGLE || o_provided == MPI_THREAD_FUNNELED || o_provided == MPI_THREAD_SERIALIZED || o_provided == MPI_THREAD_MULTIPLE))) { snprintf(whybuf, sizeof whybuf, "provided: %lld is not one of [MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE]", (long long)(o_provided)); why = whybuf; }
            if (why && deviation(1, "MPI_T_init_thread", why)) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_cvar_get_num(&o_num);
            show_call("MPI_T_cvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_cvar_get_num", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_cvar_get_num(&o_num);
            show_call("MPI_T_cvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            const char *why = NULL;
            if (!why && !(o_num >= v_cvars)) { snprintf(whybuf, sizeof whybuf, "num: %lld is not >= $cvars", (long long)(o_num)); why = whybuf; }
            if (why && deviation(1, "MPI_T_cvar_get_num", why)) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_category_get_num(&o_num);
            show_call("MPI_T_category_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_category_get_num", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_category_get_num(&o_num);
            show_call("MPI_T_category_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            const char *why = NULL;
            if (!why && !(o_num >= v_categories)) { snprintf(whybuf, sizeof whybuf, "num: %lld is not >= $categories", (long long)(o_num)); why = whybuf; }
            if (why && deviation(1, "MPI_T_category_get_num", why)) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_pvar_get_num(&o_num);
            show_call("MPI_T_pvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_get_num", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_pvar_get_num(&o_num);
            show_call("MPI_T_pvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            const char *why = NULL;
            if (!why && !(o_num >= v_pvars)) { snprintf(whybuf, sizeof whybuf, "num: %lld is not >= $pvars", (long long)(o_num)); why = whybuf; }
            if (why && deviation(1, "MPI_T_pvar_get_num", why)) goto done;
        }
        {
            rc = MPI_T_finalize();
            show_call("MPI_T_finalize()", rc);
            if (rc == MPI_SUCCESS) t_depth--;
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_cvar_get_num(&o_num);
            show_call("MPI_T_cvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            if (!(rc == MPI_T_ERR_NOT_INITIALIZED) && deviation(1, "MPI_T_cvar_get_num", returned(rc, "MPI_T_ERR_NOT_INITIALIZED"))) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.4 R-FIN-3 R-CVAR-1\n");
    printf("mpit-conform saw on MPICH Version:\t4.0.2: worker killed by SIGSEGV in MPI_T_cvar_get_num()\n");
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
