/*
 * Reproducer of a `fail` result of mpit-conform, case differential.event_get_info.fdc7396b (must),
 * subject: none.
 *
 * Found on: MPICH Version:	4.0.2 (/usr/lib/x86_64-linux-gnu/libmpich.so.12)
 *   ABI family mpich, sha256 86406bb225ffe9ef2f9176406407b4569671417d0ff3f3b8ac490c5380199f72
 * Case: an invalid event index with a NULL name_len is MPI_T_ERR_INVALID_INDEX (found by fuzz-props on MPICH 4.0.2)
 * Clause: MPI-4.1 §15.3.8 R-EVT-IDX R-STR-4
 *   R-EVT-IDX (MPI-4.1 §15.3.8): "event_get_info bad index: INVALID_INDEX; event_get_index unknown name: INVALID_NAME"
 *   R-STR-4 (MPI-4.1 §15.3.3): "If len is NULL, the buffer argument is ignored and nothing is returned"
 * mpit-conform saw: MPI_T_event_get_info returned MPI_T_ERR_INVALID, want MPI_T_ERR_INVALID_INDEX
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
#include <sys/mman.h>
#include <unistd.h>
#define FILL 0xA5 /* the byte every buffer and OUT argument is filled with: not NUL */
#define GUARD 16  /* checked bytes after a buffer, then a PROT_NONE page */
#define CANARY 16 /* checked bytes before a buffer */
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
static int g_num_events = 0;
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: differential.event_get_info.fdc7396b on (no subject)\n");
    {
        int provided = -1;
        rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        show_call("MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)", rc);
        if (rc != MPI_SUCCESS) { deviation(1, "MPI_T_init_thread", "failed (R-INIT-1)"); goto done; }
        t_depth++;
        {
            rc = MPI_T_event_get_num(&g_num_events); show_call("MPI_T_event_get_num(&num_events)", rc); printf("      num_events = %d\n", g_num_events);
            sarg_t a_name = sarg(4096, 4096, 0, 1);
            sarg_t a_desc = sarg(9, 9, 0, 0);
            int o_verbosity; memset(&o_verbosity, FILL, sizeof o_verbosity);
            MPI_Datatype o_datatypes[64 + 4]; memset(o_datatypes, FILL, sizeof o_datatypes);
            MPI_Aint o_displacements[64 + 4]; for (int i = 0; i < 64 + 4; i++) o_displacements[i] = -1;
            int o_num_elements = 64;
            MPI_T_enum o_enumtype; memset(&o_enumtype, FILL, sizeof o_enumtype);
            int o_bind; memset(&o_bind, FILL, sizeof o_bind);
            rc = MPI_T_event_get_info((g_num_events + 0), SBUF(a_name), SLEN(a_name), &o_verbosity, o_datatypes, o_displacements, &o_num_elements, &o_enumtype, NULL, SBUF(a_desc), SLEN(a_desc), &o_bind);
            show_call("MPI_T_event_get_info(index=$num_events + 0, name=<NULL length>, desc=<9 bytes>, capacity=64)", rc);
            printf("      verbosity = %lld, enumtype = %#llx, bind = %lld\n", (long long)(o_verbosity), (unsigned long long)(uintptr_t)(o_enumtype), (long long)(o_bind));
            show_string("name", &a_name); show_string("desc", &a_desc);
            if (!(rc == MPI_T_ERR_INVALID_INDEX) && deviation(1, "MPI_T_event_get_info", returned(rc, "MPI_T_ERR_INVALID_INDEX"))) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.8 R-EVT-IDX R-STR-4\n");
    printf("mpit-conform saw on MPICH Version:\t4.0.2: MPI_T_event_get_info returned MPI_T_ERR_INVALID, want MPI_T_ERR_INVALID_INDEX\n");
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
    guarded_t g;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g.data = (CANARY + len + GUARD + align + page - 1) / page * page;
    g.base = mmap(NULL, g.data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g.base == MAP_FAILED) { perror("mmap"); exit(2); }
    memset(g.base, FILL, g.data);
    if (mprotect(g.base + g.data, page, PROT_NONE) != 0) { perror("mprotect"); exit(2); }
    g.buf = g.base + (g.data - GUARD - len) / align * align;
    g.len = len;
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
