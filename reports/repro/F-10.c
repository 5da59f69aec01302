/*
 * Reproducer of a `crash` result of mpit-conform, case pvars.handle.alloc_free (must),
 * subject: pvar 1 mtl_psm2_rx_user_bytes.
 *
 * Found on: Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022 (/usr/lib/x86_64-linux-gnu/libmpi.so.40)
 *   ABI family openmpi, sha256 daaa3633ea55e6fbf2e3752230cd1fd2748c80e8bf5b360a0ca04f1a2572341b
 * Case: handle_alloc gives a handle and writes its count; handle_free sets MPI_T_PVAR_HANDLE_NULL
 * Clause: MPI-4.1 §15.3.7 R-PH-1
 *   R-PH-1 (MPI-4.1 §15.3.7): "A handle not associated with the session gives MPI_T_ERR_INVALID_HANDLE; handle_free sets MPI_T_PVAR_HANDLE_NULL"
 * mpit-conform saw: worker killed by SIGSEGV in MPI_T_pvar_handle_alloc(index: 1, obj: "NULL", session: 94245026151360)
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
/* The subject, looked up by name (never by the index one library gave it). */
typedef struct {
    int index, len, desc_len; /* len, desc_len: strlen + 1 of name and desc */
    char name[4096], desc[65536];
    int var_class, verbosity, bind, scope, readonly, continuous, atomic;
    MPI_Datatype datatype;
    MPI_T_enum enumtype; /* of a variable; an enumeration subject's own handle */
    int item, value, num_items; /* an enumeration item subject */
} entry_t;

static int deviation(int must, const char *call, const char *why);
static const char *returned(int rc, const char *want);
static void show_call(const char *text, int rc);
static void not_applicable(const char *what);
static void note_handle(uintptr_t h, int count, MPI_Datatype dt, int typed);
static int pvar_entry(int i, entry_t *e);
static int pvar_datatype(int i, MPI_Datatype *dt);

/* ---- The case ---------------------------------------------------------------- */
static entry_t subj;
static void lookup_subject(entry_t *e)
{
    int idx = -1, at = 0, n = 0, rc;
    static const int classes[] = {MPI_T_PVAR_CLASS_STATE, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE, MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_PVAR_CLASS_LOWWATERMARK, MPI_T_PVAR_CLASS_COUNTER, MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER, MPI_T_PVAR_CLASS_GENERIC};
    rc = MPI_T_ERR_INVALID_NAME;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        int i = -1;
        if (MPI_T_pvar_get_index("mtl_psm2_rx_user_bytes", classes[c], &i) != MPI_SUCCESS) continue;
        if (rc != MPI_SUCCESS || i == 1) idx = i;
        rc = MPI_SUCCESS;
    }
    show_call("MPI_T_pvar_get_index(\"mtl_psm2_rx_user_bytes\", each class)", rc);
    if (rc != MPI_SUCCESS) not_applicable("pvar mtl_psm2_rx_user_bytes is not in this library's catalog");
    /* That index must hold the name, else the name is searched for (a wrong index is a
     * finding of its own, R-CVAR-5). */
    if (!pvar_entry(idx, e) || strcmp(e->name, "mtl_psm2_rx_user_bytes") != 0) {
        MPI_T_pvar_get_num(&n);
        for (at = 0; at < n && !(pvar_entry(at, e) && strcmp(e->name, "mtl_psm2_rx_user_bytes") == 0); at++) {}
        printf("      MPI_T_pvar_get_index gave %d, which is not mtl_psm2_rx_user_bytes; found by name at %d\n", idx, at < n ? at : -1);
        if (at == n) not_applicable("the pvar of that name cannot be read");
    }
    printf("      mtl_psm2_rx_user_bytes = index %d, strlen(name)+1 = %d, strlen(desc)+1 = %d\n", e->index, e->len, e->desc_len);
}
static MPI_T_pvar_session v_s;
static MPI_T_pvar_handle v_h;
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: pvars.handle.alloc_free on pvar 1 mtl_psm2_rx_user_bytes\n");
    {
        int provided = -1;
        rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        show_call("MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)", rc);
        if (rc != MPI_SUCCESS) { deviation(1, "MPI_T_init_thread", "failed (R-INIT-1)"); goto done; }
        t_depth++;
        if (t_depth > 0) lookup_subject(&subj);
        {
            MPI_T_pvar_session o_session; memset(&o_session, FILL, sizeof o_session);
            rc = MPI_T_pvar_session_create(&o_session);
            show_call("MPI_T_pvar_session_create()", rc);
            printf("      session = %#llx\n", (unsigned long long)(uintptr_t)(o_session));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_session_create", returned(rc, "MPI_SUCCESS"))) goto done;
            v_s = o_session;
        }
        {
            MPI_T_pvar_handle o_handle; memset(&o_handle, FILL, sizeof o_handle);
            int o_count; memset(&o_count, FILL, sizeof o_count);
            MPI_Datatype hdt; int typed = pvar_datatype(subj.index, &hdt);
            rc = MPI_T_pvar_handle_alloc(v_s, subj.index, NULL, &o_handle, &o_count);
            show_call("MPI_T_pvar_handle_alloc(session=$s, index=$index, obj=NULL)", rc);
            printf("      handle = %#llx, count = %lld\n", (unsigned long long)(uintptr_t)(o_handle), (long long)(o_count));
            if (rc == MPI_SUCCESS) note_handle((uintptr_t)o_handle, o_count, hdt, typed);
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_count >= 0)) { snprintf(whybuf, sizeof whybuf, "count: %lld is not >= 0", (long long)(o_count)); why = whybuf; }
            if (!why && !(o_handle != MPI_T_PVAR_HANDLE_NULL)) { snprintf(whybuf, sizeof whybuf, "handle: %#llx is not != MPI_T_PVAR_HANDLE_NULL", (unsigned long long)(uintptr_t)(o_handle)); why = whybuf; }
            if (why && deviation(1, "MPI_T_pvar_handle_alloc", why)) goto done;
            v_h = o_handle;
        }
        {
            MPI_T_pvar_handle o_handle = v_h;
            rc = MPI_T_pvar_handle_free(v_s, &o_handle);
            show_call("MPI_T_pvar_handle_free(session=$s, handle=$h)", rc);
            printf("      handle = %#llx\n", (unsigned long long)(uintptr_t)(o_handle));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_handle == MPI_T_PVAR_HANDLE_NULL)) { snprintf(whybuf, sizeof whybuf, "handle: %#llx is not == MPI_T_PVAR_HANDLE_NULL", (unsigned long long)(uintptr_t)(o_handle)); why = whybuf; }
            if (why && deviation(1, "MPI_T_pvar_handle_free", why)) goto done;
        }
        {
            MPI_T_pvar_session o_session = v_s;
            rc = MPI_T_pvar_session_free(&o_session);
            show_call("MPI_T_pvar_session_free(session=$s)", rc);
            printf("      session = %#llx\n", (unsigned long long)(uintptr_t)(o_session));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_session_free", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.7 R-PH-1\n");
    printf("mpit-conform saw on Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022: worker killed by SIGSEGV in MPI_T_pvar_handle_alloc(index: 1, obj: \"NULL\", session: 94245026151360)\n");
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

/* One element's size (MPI-4.1 §15.3.5, LP64); 8 outside the table, so a library's
 * write still lands in the buffer. */
static size_t dt_size(MPI_Datatype d)
{
    if (d == MPI_INT || d == MPI_INT32_T || d == MPI_UNSIGNED || d == MPI_UINT32_T) return 4;
    if (d == MPI_CHAR) return 1;
    return 8;
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

static void not_applicable(const char *what)
{
    printf("not applicable: %s\n", what);
    fflush(stdout);
    exit(77);
}

/* What mpit-conform knows of a handle it was given: bytes a read of it needs. */
static struct { uintptr_t h; size_t bytes; MPI_Datatype dt; int typed; } handles[4096];
static int n_handles = 0;

static void note_handle(uintptr_t h, int count, MPI_Datatype dt, int typed)
{
    size_t bytes = (size_t)(count < 0 ? 0 : count) * (typed ? dt_size(dt) : 8);
    if (n_handles < 4096) {
        handles[n_handles].h = h, handles[n_handles].bytes = bytes;
        handles[n_handles].dt = dt, handles[n_handles].typed = typed;
        n_handles++;
    }
}

static int entry_lengths(entry_t *e)
{
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}

static int pvar_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_pvar_get_info(i, e->name, &nl, &e->verbosity, &e->var_class, &e->datatype, &e->enumtype, e->desc, &dl,
                               &e->bind, &e->readonly, &e->continuous, &e->atomic) == MPI_SUCCESS && entry_lengths(e);
}

/* A variable's datatype (for the buffers of reads and writes); 0 when unreadable. */
static int pvar_datatype(int i, MPI_Datatype *dt)
{
    entry_t e;
    if (!pvar_entry(i, &e)) return 0;
    *dt = e.datatype;
    return 1;
}
