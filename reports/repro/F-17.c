/*
 * Reproducer of a `crash` result of mpit-conform, case all_handles.mixed.after_init (must),
 * subject: none.
 *
 * Found on: MPICH Version:      5.0.2 (.targets/mpich5/lib/libmpi_abi.so.1)
 *   ABI family standard, sha256 42918a6749a42355dee5388281a94c37303832f9e11bc138709fb5e7622529fa
 * Case: after MPI_Init, start/stop/reset with ALL_HANDLES on a session holding every pvar (bound ones on MPI_COMM_WORLD) return MPI_SUCCESS
 * Clause: MPI-4.1 §15.3.7 R-PSTART-2 R-PRESET-1
 *   R-PSTART-2 (MPI-4.1 §15.3.7): "start/stop with MPI_T_PVAR_ALL_HANDLES ignore continuous and already started/stopped handles; MPI_SUCCESS even with none"
 *   R-PRESET-1 (MPI-4.1 §15.3.7): "pvar_reset sets the starting value or returns NO_WRITE; with ALL_HANDLES read-only ones are ignored"
 * mpit-conform saw: worker killed by SIGSEGV in MPI_T_pvar_start(handle: 1, session: 94548259267552)
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
/* A value buffer (cvar/pvar read and write): count x element size, 8-byte aligned. */
typedef struct {
    guarded_t g;
    MPI_Datatype dt; /* of the variable, when known (typed = 1) */
    int typed;
} vbuf_t;
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
static void note_handle(uintptr_t h, int count, MPI_Datatype dt, int typed);
static vbuf_t vbuf_for(uintptr_t h);
static int pvar_entry(int i, entry_t *e);
static int pvar_datatype(int i, MPI_Datatype *dt);

/* ---- The case ---------------------------------------------------------------- */
static MPI_T_pvar_session v_s;
static int g_num_pvars = 0;
static MPI_T_pvar_handle v_hs[4096];
static int v_hs_n = 0;
static MPI_T_pvar_handle v_hc[4096];
static int v_hc_n = 0;
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: all_handles.mixed.after_init on (no subject)\n");
    rc = MPI_Init(NULL, NULL);
    show_call("MPI_Init(NULL, NULL)", rc);
    {
        int provided = -1;
        rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        show_call("MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)", rc);
        if (rc != MPI_SUCCESS) { deviation(1, "MPI_T_init_thread", "failed (R-INIT-1)"); goto done; }
        t_depth++;
        {
            MPI_T_pvar_session o_session; memset(&o_session, FILL, sizeof o_session);
            rc = MPI_T_pvar_session_create(&o_session);
            show_call("MPI_T_pvar_session_create()", rc);
            printf("      session = %#llx\n", (unsigned long long)(uintptr_t)(o_session));
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_session_create", returned(rc, "MPI_SUCCESS"))) goto done;
            v_s = o_session;
        }
        rc = MPI_T_pvar_get_num(&g_num_pvars); show_call("MPI_T_pvar_get_num(&num_pvars)", rc); printf("      num_pvars = %d\n", g_num_pvars);
        v_hs_n = 0;
        for (int it = 0; it < g_num_pvars; it++) {
            entry_t it_e; if (!pvar_entry(it, &it_e)) continue;
            if (!(it_e.bind == MPI_T_BIND_NO_OBJECT)) continue;
            {
                MPI_T_pvar_handle o_handle; memset(&o_handle, FILL, sizeof o_handle);
                int o_count; memset(&o_count, FILL, sizeof o_count);
                MPI_Datatype hdt; int typed = pvar_datatype(it_e.index, &hdt);
                rc = MPI_T_pvar_handle_alloc(v_s, it_e.index, NULL, &o_handle, &o_count);
                show_call("MPI_T_pvar_handle_alloc(session=$s, index=$index, obj=NULL)", rc);
                printf("      handle = %#llx, count = %lld\n", (unsigned long long)(uintptr_t)(o_handle), (long long)(o_count));
                if (rc == MPI_SUCCESS) note_handle((uintptr_t)o_handle, o_count, hdt, typed);
                if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_handle_alloc", returned(rc, "MPI_SUCCESS"))) goto done;
                if (rc == MPI_SUCCESS && v_hs_n < 4096) v_hs[v_hs_n++] = o_handle;
            }
        }
        rc = MPI_T_pvar_get_num(&g_num_pvars); show_call("MPI_T_pvar_get_num(&num_pvars)", rc); printf("      num_pvars = %d\n", g_num_pvars);
        v_hc_n = 0;
        for (int it = 0; it < g_num_pvars; it++) {
            entry_t it_e; if (!pvar_entry(it, &it_e)) continue;
            if (!(it_e.bind == MPI_T_BIND_MPI_COMM)) continue;
            {
                MPI_Comm a_obj = MPI_COMM_WORLD;
                MPI_T_pvar_handle o_handle; memset(&o_handle, FILL, sizeof o_handle);
                int o_count; memset(&o_count, FILL, sizeof o_count);
                MPI_Datatype hdt; int typed = pvar_datatype(it_e.index, &hdt);
                rc = MPI_T_pvar_handle_alloc(v_s, it_e.index, &a_obj, &o_handle, &o_count);
                show_call("MPI_T_pvar_handle_alloc(session=$s, index=$index, obj=&MPI_COMM_WORLD)", rc);
                printf("      handle = %#llx, count = %lld\n", (unsigned long long)(uintptr_t)(o_handle), (long long)(o_count));
                if (rc == MPI_SUCCESS) note_handle((uintptr_t)o_handle, o_count, hdt, typed);
                if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_handle_alloc", returned(rc, "MPI_SUCCESS"))) goto done;
                if (rc == MPI_SUCCESS && v_hc_n < 4096) v_hc[v_hc_n++] = o_handle;
            }
        }
        {
            rc = MPI_T_pvar_start(v_s, MPI_T_PVAR_ALL_HANDLES);
            show_call("MPI_T_pvar_start(session=$s, handle=MPI_T_PVAR_ALL_HANDLES)", rc);
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_start", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            rc = MPI_T_pvar_stop(v_s, MPI_T_PVAR_ALL_HANDLES);
            show_call("MPI_T_pvar_stop(session=$s, handle=MPI_T_PVAR_ALL_HANDLES)", rc);
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_stop", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            rc = MPI_T_pvar_reset(v_s, MPI_T_PVAR_ALL_HANDLES);
            show_call("MPI_T_pvar_reset(session=$s, handle=MPI_T_PVAR_ALL_HANDLES)", rc);
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_reset", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        for (int it = 0; it < v_hs_n; it++) {
            MPI_T_pvar_handle it_item = v_hs[it];
            {
                vbuf_t o_value = vbuf_for((uintptr_t)it_item);
                rc = MPI_T_pvar_read(v_s, it_item, o_value.g.buf);
                show_call("MPI_T_pvar_read(session=$s, handle=$item)", rc);
                if (rc == MPI_SUCCESS) { printf("      value: %zu bytes:", o_value.g.len); for (size_t i = 0; i < o_value.g.len && i < 16; i++) printf(" %02x", o_value.g.buf[i]); printf("\n"); }
                if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_read", returned(rc, "MPI_SUCCESS"))) goto done;
            }
        }
        for (int it = 0; it < v_hc_n; it++) {
            MPI_T_pvar_handle it_item = v_hc[it];
            {
                vbuf_t o_value = vbuf_for((uintptr_t)it_item);
                rc = MPI_T_pvar_read(v_s, it_item, o_value.g.buf);
                show_call("MPI_T_pvar_read(session=$s, handle=$item)", rc);
                if (rc == MPI_SUCCESS) { printf("      value: %zu bytes:", o_value.g.len); for (size_t i = 0; i < o_value.g.len && i < 16; i++) printf(" %02x", o_value.g.buf[i]); printf("\n"); }
                if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_pvar_read", returned(rc, "MPI_SUCCESS"))) goto done;
            }
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
    printf("clause: MPI-4.1 §15.3.7 R-PSTART-2 R-PRESET-1\n");
    printf("mpit-conform saw on MPICH Version:      5.0.2: worker killed by SIGSEGV in MPI_T_pvar_start(handle: 1, session: 94548259267552)\n");
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

static vbuf_t vbuf(size_t bytes)
{
    vbuf_t v;
    v.g = guarded(bytes, 8);
    v.typed = 0;
    return v;
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

/* The buffer a read of handle h needs: count x element size, typed by its datatype. */
static vbuf_t vbuf_for(uintptr_t h)
{
    int i = n_handles - 1;
    while (i >= 0 && handles[i].h != h) i--;
    vbuf_t v = vbuf(i >= 0 ? handles[i].bytes : 8);
    if (i >= 0) { v.dt = handles[i].dt; v.typed = handles[i].typed; }
    return v;
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
