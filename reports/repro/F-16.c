/*
 * Reproducer of a `crash` result of mpit-conform, case lifecycle.uninitialized.after_finalize (must),
 * subject: MPI_T_event_get_info.
 *
 * Found on: MPICH Version:      5.0.2 (.targets/mpich5/lib/libmpi_abi.so.1)
 *   ABI family standard, sha256 42918a6749a42355dee5388281a94c37303832f9e11bc138709fb5e7622529fa
 * Case: every MPI_T function other than init returns NOT_INITIALIZED after the last MPI_T_finalize
 * Clause: MPI-4.1 §15.3.4 R-FIN-2 R-INIT-1
 *   R-FIN-2 (MPI-4.1 §15.3.4): "While #finalize < #init the interface stays initialized; once equal it is not"
 *   R-INIT-1 (MPI-4.1 §15.3.4): "MPI_T_init_thread may be called multiple times (reference count); provided is one of the four levels; other routines before init return MPI_T_ERR_NOT_INITIALIZED"
 * mpit-conform saw: worker killed by exit(1) inside the library in MPI_T_event_get_info(capacity: 64, desc: {"buf":4160,"len":4160}, index: 0, name: {"buf":4160,"len":4160})
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
#include <stdlib.h>
#include <string.h>
#define FILL 0xA5 /* the byte every buffer and OUT argument is filled with: not NUL */
#ifndef REPRO_STRICT /* -DREPRO_STRICT: SHOULD and robustness deviations count too (--strict) */
#define REPRO_STRICT 0
#endif
static int deviations = 0;
static int t_depth = 0; /* MPI_T initializations not yet finalized */
static char whybuf[1024]; /* why the last check failed */
/* Memory the library writes into, filled with FILL; where the case checks bounds,
 * [ canary (CANARY) | buffer (len) | guard (GUARD) ][ PROT_NONE page ]. */
typedef struct {
    unsigned char *base, *buf; /* the mapping; the buffer (NULL for a NULL buffer) */
    size_t data, len;
} guarded_t;
/* A (buf, len) pair of the string convention (MPI-4.1 §15.3.3). */
typedef struct {
    guarded_t g;
    int len, len_out; /* the value passed in *len; *len after the call */
    int null_len;     /* a NULL length pointer was passed */
} sarg_t;
#define SBUF(s) ((char *)(s).g.buf)
#define SLEN(s) ((s).null_len ? (int *)NULL : &(s).len_out)

static int deviation(int must, const char *call, const char *why);
static const char *returned(int rc, const char *want);
static void show_call(const char *text, int rc);
static sarg_t sarg(int cap, int len, int null_buf, int null_len);
static void show_string(const char *what, const sarg_t *s);

/* ---- The case ---------------------------------------------------------------- */
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: lifecycle.uninitialized.after_finalize on MPI_T_event_get_info\n");
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
            int o_provided; memset(&o_provided, FILL, sizeof o_provided);
            rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &o_provided);
            show_call("MPI_T_init_thread(required=MPI_THREAD_SINGLE)", rc);
            if (rc == MPI_SUCCESS) t_depth++;
            printf("      provided = %lld\n", (long long)(o_provided));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_init_thread", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        for (int rep = 0; rep < 2; rep++) {
            {
                rc = MPI_T_finalize();
                show_call("MPI_T_finalize()", rc);
                if (rc == MPI_SUCCESS) t_depth--;
                if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
            }
        }
        {
            sarg_t a_name = sarg((4096 + 64), (4096 + 64), 0, 0);
            sarg_t a_desc = sarg((4096 + 64), (4096 + 64), 0, 0);
            int o_verbosity; memset(&o_verbosity, FILL, sizeof o_verbosity);
            MPI_Datatype o_datatypes[64 + 4]; memset(o_datatypes, FILL, sizeof o_datatypes);
            MPI_Aint o_displacements[64 + 4]; for (int i = 0; i < 64 + 4; i++) o_displacements[i] = -1;
            int o_num_elements = 64;
            MPI_T_enum o_enumtype; memset(&o_enumtype, FILL, sizeof o_enumtype);
            int o_bind; memset(&o_bind, FILL, sizeof o_bind);
            rc = MPI_T_event_get_info(0, SBUF(a_name), SLEN(a_name), &o_verbosity, o_datatypes, o_displacements, &o_num_elements, &o_enumtype, NULL, SBUF(a_desc), SLEN(a_desc), &o_bind);
            show_call("MPI_T_event_get_info(index=0, name=<(4096 + 64) bytes>, desc=<(4096 + 64) bytes>, capacity=64)", rc);
            printf("      verbosity = %lld, enumtype = %#llx, bind = %lld\n", (long long)(o_verbosity), (unsigned long long)(uintptr_t)(o_enumtype), (long long)(o_bind));
            show_string("name", &a_name); show_string("desc", &a_desc);
            if (!(rc == MPI_T_ERR_NOT_INITIALIZED) && deviation(1, "MPI_T_event_get_info", returned(rc, "MPI_T_ERR_NOT_INITIALIZED"))) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.4 R-FIN-2 R-INIT-1\n");
    printf("mpit-conform saw on MPICH Version:      5.0.2: worker killed by exit(1) inside the library in MPI_T_event_get_info(capacity: 64, desc: {\"buf\":4160,\"len\":4160}, index: 0, name: {\"buf\":4160,\"len\":4160})\n");
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

static guarded_t guarded(size_t len, size_t align)
{
    guarded_t g = {calloc(1, len + align + 16), NULL, len + align + 16, len}; /* with slack */
    if (!g.base) { perror("calloc"); exit(2); }
    memset(g.base, FILL, g.data);
    g.buf = g.base + (align - (uintptr_t)g.base % align) % align;
    return g;
}

static sarg_t sarg(int cap, int len, int null_buf, int null_len)
{
    sarg_t s;
    s.g = guarded(null_buf ? 0 : (size_t)(cap < 0 ? 0 : cap), 1);
    if (null_buf) s.g.buf = NULL;
    s.len = s.len_out = len;
    s.null_len = null_len;
    return s;
}

static void show_string(const char *what, const sarg_t *s)
{
    printf("      %s: buffer of %d bytes%s, len %s%d -> %d", what, s->g.buf ? (int)s->g.len : 0,
           s->g.buf ? "" : " (NULL)", s->null_len ? "(NULL) " : "", s->len, s->len_out);
    if (s->g.buf && s->g.len > 0 && memchr(s->g.buf, 0, s->g.len))
        printf(", \"%s\"", (const char *)s->g.buf);
    printf("\n");
}
#endif
