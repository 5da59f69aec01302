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
/* ---- The reproducer's helpers (the same in every file mpit-conform writes) ------------- */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#define UNUSED __attribute__((unused)) /* not every reproducer needs every helper */
#define FILL 0xA5  /* the byte every buffer and guard is filled with: not NUL */
#define GUARD 16   /* checked bytes after a buffer, then a PROT_NONE page */
#define CANARY 16  /* checked bytes before a buffer */

/* A deviation of a MUST counts; SHOULD and robustness ones only with -DREPRO_STRICT
 * (mpit-conform's --strict). */
#ifdef REPRO_STRICT
#define STRICT 1
#else
#define STRICT 0
#endif

static UNUSED const char *rc_name(int rc)
{
    static char other[32];
    if (rc == MPI_SUCCESS) return "MPI_SUCCESS";
#if defined(MPI_T_ERR_CANNOT_INIT) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_CANNOT_INIT) return "MPI_T_ERR_CANNOT_INIT";
#endif
#if defined(MPI_T_ERR_NOT_ACCESSIBLE) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_NOT_ACCESSIBLE) return "MPI_T_ERR_NOT_ACCESSIBLE";
#endif
#if defined(MPI_T_ERR_NOT_INITIALIZED) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_NOT_INITIALIZED) return "MPI_T_ERR_NOT_INITIALIZED";
#endif
#if defined(MPI_T_ERR_NOT_SUPPORTED) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_NOT_SUPPORTED) return "MPI_T_ERR_NOT_SUPPORTED";
#endif
#if defined(MPI_T_ERR_MEMORY) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_MEMORY) return "MPI_T_ERR_MEMORY";
#endif
#if defined(MPI_T_ERR_INVALID) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_INVALID) return "MPI_T_ERR_INVALID";
#endif
#if defined(MPI_T_ERR_INVALID_INDEX) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_INVALID_INDEX) return "MPI_T_ERR_INVALID_INDEX";
#endif
#if defined(MPI_T_ERR_INVALID_ITEM) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_INVALID_ITEM) return "MPI_T_ERR_INVALID_ITEM";
#endif
#if defined(MPI_T_ERR_INVALID_SESSION) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_INVALID_SESSION) return "MPI_T_ERR_INVALID_SESSION";
#endif
#if defined(MPI_T_ERR_INVALID_HANDLE) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_INVALID_HANDLE) return "MPI_T_ERR_INVALID_HANDLE";
#endif
#if defined(MPI_T_ERR_INVALID_NAME) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_INVALID_NAME) return "MPI_T_ERR_INVALID_NAME";
#endif
#if defined(MPI_T_ERR_OUT_OF_HANDLES) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_OUT_OF_HANDLES) return "MPI_T_ERR_OUT_OF_HANDLES";
#endif
#if defined(MPI_T_ERR_OUT_OF_SESSIONS) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_OUT_OF_SESSIONS) return "MPI_T_ERR_OUT_OF_SESSIONS";
#endif
#if defined(MPI_T_ERR_CVAR_SET_NOT_NOW) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_CVAR_SET_NOT_NOW) return "MPI_T_ERR_CVAR_SET_NOT_NOW";
#endif
#if defined(MPI_T_ERR_CVAR_SET_NEVER) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_CVAR_SET_NEVER) return "MPI_T_ERR_CVAR_SET_NEVER";
#endif
#if defined(MPI_T_ERR_PVAR_NO_WRITE) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_PVAR_NO_WRITE) return "MPI_T_ERR_PVAR_NO_WRITE";
#endif
#if defined(MPI_T_ERR_PVAR_NO_STARTSTOP) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_PVAR_NO_STARTSTOP) return "MPI_T_ERR_PVAR_NO_STARTSTOP";
#endif
#if defined(MPI_T_ERR_PVAR_NO_ATOMIC) || defined(MPI_ABI_VERSION)
    if (rc == MPI_T_ERR_PVAR_NO_ATOMIC) return "MPI_T_ERR_PVAR_NO_ATOMIC";
#endif
    snprintf(other, sizeof other, "%d (not an MPI_T code)", rc);
    return other;
}

/* One element's size (MPI-4.1 §15.3.5, LP64); 8 outside the table, so a library's
 * write still lands in the buffer. */
static UNUSED size_t dt_size(MPI_Datatype d)
{
    if (d == MPI_INT) return 4;
    if (d == MPI_INT32_T) return 4;
    if (d == MPI_INT64_T) return 8;
    if (d == MPI_UNSIGNED) return 4;
    if (d == MPI_UNSIGNED_LONG) return 8;
    if (d == MPI_UNSIGNED_LONG_LONG) return 8;
    if (d == MPI_UINT32_T) return 4;
    if (d == MPI_UINT64_T) return 8;
    if (d == MPI_COUNT) return 8;
    if (d == MPI_CHAR) return 1;
    if (d == MPI_DOUBLE) return 8;
    return 8;
}

static UNUSED int dt_kind(MPI_Datatype d)
{
    if (d == MPI_INT) return 'i';
    if (d == MPI_INT32_T) return 'i';
    if (d == MPI_INT64_T) return 'i';
    if (d == MPI_UNSIGNED) return 'u';
    if (d == MPI_UNSIGNED_LONG) return 'u';
    if (d == MPI_UNSIGNED_LONG_LONG) return 'u';
    if (d == MPI_UINT32_T) return 'u';
    if (d == MPI_UINT64_T) return 'u';
    if (d == MPI_COUNT) return 'i';
    if (d == MPI_CHAR) return 'c';
    if (d == MPI_DOUBLE) return 'd';
    return 0;
}

static UNUSED const char *dt_name(MPI_Datatype d)
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
    if (d == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
#ifdef MPI_C_BOOL /* not an MPI_T type: named because Open MPI returns it (FINDINGS F-1) */
    if (d == MPI_C_BOOL) return "MPI_C_BOOL";
#endif
    return "a datatype outside MPI-4.1's MPI_T table";
}

static int deviations = 0;
static int step_no = 0;

static UNUSED void deviation(int must, const char *what)
{
    if (must || STRICT) {
        deviations++;
        printf("  DEVIATION: %s\n", what);
    } else {
        printf("  warn (not a MUST): %s\n", what);
    }
    fflush(stdout);
}

/* A broken expectation of `call`: reported; whether it ends the sequence (a MUST, or
 * any level under REPRO_STRICT), as a failed MUST ends mpit-conform's. */
static char whybuf[1024];
static UNUSED int failed(int must, const char *call, const char *why)
{
    char msg[1200];
    snprintf(msg, sizeof msg, "%s %s", call, why);
    deviation(must, msg);
    return must || STRICT;
}

static UNUSED void show_call(const char *text, int rc)
{
    printf("[%d] %s -> %s\n", ++step_no, text, rc_name(rc));
    fflush(stdout);
}

/* Memory the library writes into:
 *   [ FILL | canary (CANARY) | buffer (len) | guard (GUARD) ][ PROT_NONE page ]
 * A write up to GUARD bytes past the end (or CANARY before the start) is reported with
 * its offset; a longer one faults at the protected page. */
typedef struct {
    unsigned char *base; /* the mapping */
    size_t map_len, data;
    unsigned char *buf; /* NULL for a NULL buffer */
    size_t len;
} guarded_t;

static UNUSED guarded_t guarded(size_t len, size_t align)
{
    guarded_t g;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g.data = (CANARY + len + GUARD + align + page - 1) / page * page;
    g.map_len = g.data + page;
    g.base = mmap(NULL, g.map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g.base == MAP_FAILED) { perror("mmap"); exit(2); }
    memset(g.base, FILL, g.data);
    if (mprotect(g.base + g.data, page, PROT_NONE) != 0) { perror("mprotect"); exit(2); }
    g.buf = g.base + (g.data - GUARD - len) / align * align;
    g.len = len;
    return g;
}

/* Offsets written outside [0, len): -CANARY..-1 and len..len+GUARD-1; the count. */
static UNUSED int stray_writes(const guarded_t *g, char *where, size_t cap)
{
    int n = 0;
    size_t used = 0;
    where[0] = 0;
    if (!g->buf) return 0;
    for (long off = -CANARY; off < (long)(g->len + GUARD); off++) {
        if (off >= 0 && off < (long)g->len) continue;
        if (g->buf + off < g->base || g->buf + off >= g->base + g->data) continue;
        if (g->buf[off] != FILL) {
            n++;
            if (used + 16 < cap) used += (size_t)snprintf(where + used, cap - used, "%s%ld", n > 1 ? ", " : "", off);
        }
    }
    return n;
}

/* A (buf, len) pair of the string convention (MPI-4.1 §15.3.3). */
typedef struct {
    guarded_t g;
    int len;       /* the value passed in *len */
    int len_out;   /* *len after the call */
    int null_len;  /* a NULL length pointer was passed */
} sarg_t;

static UNUSED sarg_t sarg(int cap, int len, int null_buf, int null_len)
{
    sarg_t s;
    s.g = guarded(null_buf ? 0 : (size_t)(cap < 0 ? 0 : cap), 1);
    if (null_buf) s.g.buf = NULL;
    s.len = len;
    s.len_out = len;
    s.null_len = null_len;
    return s;
}
#define SBUF(s) ((char *)(s).g.buf)
#define SLEN(s) ((s).null_len ? (int *)NULL : &(s).len_out)

static UNUSED void show_string(const char *what, const sarg_t *s)
{
    printf("      %s: buffer of %d bytes%s, len %s%d -> %d", what, s->g.buf ? (int)s->g.len : 0,
           s->g.buf ? "" : " (NULL)", s->null_len ? "(NULL) " : "", s->len, s->len_out);
    if (s->g.buf && s->g.len > 0 && memchr(s->g.buf, 0, s->g.len))
        printf(", \"%s\"", (const char *)s->g.buf);
    printf("\n");
}

/* The string convention, judged as mpit-conform judges it: `want` is the whole string
 * (from a call with a buffer large enough). kind: 0 truncated (*len = strlen+1),
 * 1 truncated_n (*len = bytes written when cut), 2 exact, 3 non_empty. Returns NULL when
 * the convention holds, else what broke. */
static UNUSED const char *string_broken(const sarg_t *s, int kind, const char *want)
{
    static char why[512];
    char where[128];
    int l = (int)strlen(want) + 1;
    if (stray_writes(&s->g, where, sizeof where)) {
        snprintf(why, sizeof why, "wrote outside the %d-byte buffer, at byte offsets [%s] (R-STR-1)",
                 s->g.buf ? (int)s->g.len : 0, where);
        return why;
    }
    if (kind == 3) {
        if (!s->g.buf || s->g.len == 0 || s->g.buf[0] == 0) return "empty name (R-STR-6: length >= 1)";
        return NULL;
    }
    if (s->null_len) {
        for (size_t i = 0; s->g.buf && i < s->g.len; i++)
            if (s->g.buf[i] != FILL) return "len was NULL but the buffer was written (R-STR-4)";
        return NULL;
    }
    if (!s->g.buf || s->len <= 0) {
        for (size_t i = 0; s->g.buf && i < s->g.len; i++)
            if (s->g.buf[i] != FILL) return "n was 0 but the buffer was written (R-STR-3)";
        if (s->len_out != l) {
            snprintf(why, sizeof why, "*len = %d, want strlen+1 = %d (R-STR-3)", s->len_out, l);
            return why;
        }
        return NULL;
    }
    int n = s->len;
    int k = (n - 1 < l - 1) ? n - 1 : l - 1;
    if (memcmp(s->g.buf, want, (size_t)k) != 0 || s->g.buf[k] != 0) {
        snprintf(why, sizeof why, "buffer of %d does not hold the first %d characters of \"%s\" then NUL (R-STR-1/2)", n, k, want);
        return why;
    }
    if (kind == 2 && k != l - 1) {
        snprintf(why, sizeof why, "string cut at %d of %d characters", k, l - 1);
        return why;
    }
    int want_len = (kind == 1 && l > n) ? n : l;
    if (s->len_out != want_len) {
        snprintf(why, sizeof why, "*len = %d, want %s = %d (R-STR-2)", s->len_out,
                 kind == 1 && l > n ? "the bytes written" : "strlen+1", want_len);
        return why;
    }
    return NULL;
}

/* A value buffer (cvar/pvar read and write): count x element size, 8-byte aligned. */
typedef struct {
    guarded_t g;
    MPI_Datatype dt; /* of the variable, when known (typed = 1) */
    int typed;
} vbuf_t;

static UNUSED vbuf_t vbuf(size_t bytes)
{
    vbuf_t v;
    v.g = guarded(bytes, 8);
    v.typed = 0;
    return v;
}

static UNUSED vbuf_t vbuf_copy(const vbuf_t *from)
{
    vbuf_t v = vbuf(from->g.len);
    memcpy(v.g.buf, from->g.buf, from->g.len);
    v.dt = from->dt;
    v.typed = from->typed;
    return v;
}

static UNUSED int vbuf_overrun(const vbuf_t *v)
{
    char where[128];
    return stray_writes(&v->g, where, sizeof where);
}

/* Element i of a value, decoded by its datatype (0 past the end). */
static UNUSED double vbuf_num(const vbuf_t *v, size_t i)
{
    size_t sz = v->typed ? dt_size(v->dt) : 8;
    if ((i + 1) * sz > v->g.len) return 0;
    const unsigned char *p = v->g.buf + i * sz;
    switch (v->typed ? dt_kind(v->dt) : 0) {
    case 'd': { double x; memcpy(&x, p, sizeof x); return x; }
    case 'c': return (double)*p;
    case 'u':
        if (sz == 4) { uint32_t x; memcpy(&x, p, 4); return x; }
        { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    case 'i':
        if (sz == 4) { int32_t x; memcpy(&x, p, 4); return x; }
        /* fall through */
    default: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    }
}

/* Two values equal as mpit-conform compares them: an MPI_CHAR value as the string it
 * holds, any other element by element. */
static UNUSED int vbuf_equal(const vbuf_t *a, const vbuf_t *b)
{
    if (a->typed && dt_kind(a->dt) == 'c')
        return strnlen((const char *)a->g.buf, a->g.len) == strnlen((const char *)b->g.buf, b->g.len)
            && memcmp(a->g.buf, b->g.buf, strnlen((const char *)a->g.buf, a->g.len)) == 0;
    return a->g.len == b->g.len && memcmp(a->g.buf, b->g.buf, a->g.len) == 0;
}

/* Every element of a against the same element of b (lists of one length): op 0 <, 1 <=,
 * 2 >, 3 >=. */
static UNUSED int vbuf_all(const vbuf_t *a, const vbuf_t *b, int op)
{
    size_t sz = a->typed ? dt_size(a->dt) : 8;
    if (a->g.len != b->g.len) return 0;
    for (size_t i = 0; (i + 1) * sz <= a->g.len; i++) {
        double x = vbuf_num(a, i), y = vbuf_num(b, i);
        int ok = op == 0 ? x < y : op == 1 ? x <= y : op == 2 ? x > y : x >= y;
        if (!ok) return 0;
    }
    return 1;
}

/* What mpit-conform knows of a handle it was given: bytes a read of it needs. */
static struct { uintptr_t h; size_t bytes; MPI_Datatype dt; int typed; } handles[4096];
static int n_handles = 0;
static UNUSED void note_handle(uintptr_t h, int count, MPI_Datatype dt, int typed)
{
    if (n_handles < 4096) {
        handles[n_handles].h = h;
        handles[n_handles].bytes = (size_t)(count < 0 ? 0 : count) * (typed ? dt_size(dt) : 8);
        handles[n_handles].dt = dt;
        handles[n_handles].typed = typed;
        n_handles++;
    }
}
static UNUSED size_t handle_bytes(uintptr_t h)
{
    for (int i = n_handles - 1; i >= 0; i--)
        if (handles[i].h == h) return handles[i].bytes;
    return 8;
}
/* The buffer a read of handle h needs: count x element size, typed by its datatype. */
static UNUSED vbuf_t vbuf_for(uintptr_t h)
{
    vbuf_t v = vbuf(handle_bytes(h));
    for (int i = n_handles - 1; i >= 0; i--)
        if (handles[i].h == h) { v.dt = handles[i].dt; v.typed = handles[i].typed; break; }
    return v;
}

/* The subject, looked up by name (never by the index one library gave it). */
typedef struct {
    int index;
    char name[4096];
    char desc[65536];
    int len, desc_len; /* strlen + 1 of each */
    int var_class, verbosity, bind, scope, readonly, continuous, atomic;
    MPI_Datatype datatype;
    MPI_T_enum enumtype; /* of a variable; an enumeration subject's own handle */
    int item, value, num_items; /* an enumeration item subject */
} entry_t;

static UNUSED void not_applicable(const char *what)
{
    printf("not applicable: %s\n", what);
    fflush(stdout);
    exit(77);
}


static int t_depth = 0; /* MPI_T initializations not yet finalized */

/* A literal value written: every element of the handle's datatype holding n. */
static UNUSED vbuf_t vbuf_number(uintptr_t h, long long n)
{
    vbuf_t v = vbuf_for(h);
    size_t sz = v.typed ? dt_size(v.dt) : 8;
    for (size_t i = 0; (i + 1) * sz <= v.g.len; i++) {
        unsigned char *p = v.g.buf + i * sz;
        if (v.typed && dt_kind(v.dt) == 'd') { double x = (double)n; memcpy(p, &x, sizeof x); }
        else if (sz == sizeof(int)) { int x = (int)n; memcpy(p, &x, sizeof x); }
        else if (sz == 1) { *p = (unsigned char)n; }
        else memcpy(p, &n, sizeof n < sz ? sizeof n : sz);
    }
    return v;
}

/* Entries a category_get_* call wrote past the `len` it was given. */
static UNUSED int indices_overrun(const int *a, int len)
{
    int n = 0;
    for (int i = len > 0 ? len : 0; i < (len > 0 ? len : 0) + 4; i++) n += a[i] != -7;
    return n;
}

static char e_name[4096], e_desc[65536];

/* One catalog entry, read with buffers large enough (what mpit-conform's inventory holds). */
static UNUSED int cvar_entry(int i, entry_t *e)
{
    int nl = sizeof e_name, dl = sizeof e_desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    if (MPI_T_cvar_get_info(i, e_name, &nl, &e->verbosity, &e->datatype, &e->enumtype, e_desc, &dl, &e->bind, &e->scope) != MPI_SUCCESS) return 0;
    snprintf(e->name, sizeof e->name, "%s", e_name);
    snprintf(e->desc, sizeof e->desc, "%s", e_desc);
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}

static UNUSED int pvar_entry(int i, entry_t *e)
{
    int nl = sizeof e_name, dl = sizeof e_desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    if (MPI_T_pvar_get_info(i, e_name, &nl, &e->verbosity, &e->var_class, &e->datatype, &e->enumtype, e_desc, &dl,
                            &e->bind, &e->readonly, &e->continuous, &e->atomic) != MPI_SUCCESS) return 0;
    snprintf(e->name, sizeof e->name, "%s", e_name);
    snprintf(e->desc, sizeof e->desc, "%s", e_desc);
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}

static UNUSED int category_entry(int i, entry_t *e)
{
    int nl = sizeof e_name, dl = sizeof e_desc, a, b, c;
    memset(e, 0, sizeof *e);
    e->index = i;
    if (MPI_T_category_get_info(i, e_name, &nl, e_desc, &dl, &a, &b, &c) != MPI_SUCCESS) return 0;
    snprintf(e->name, sizeof e->name, "%s", e_name);
    snprintf(e->desc, sizeof e->desc, "%s", e_desc);
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}

/* An enumeration by name: the first variable (cvars, then pvars) that carries it. */
static UNUSED int enum_named(const char *name, entry_t *e)
{
    int n[2] = {0, 0};
    MPI_T_cvar_get_num(&n[0]);
    MPI_T_pvar_get_num(&n[1]);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < n[k]; i++) {
            entry_t v;
            if (!(k == 0 ? cvar_entry(i, &v) : pvar_entry(i, &v)) || v.enumtype == MPI_T_ENUM_NULL) continue;
            int num = 0, nl = sizeof e_name;
            if (MPI_T_enum_get_info(v.enumtype, &num, e_name, &nl) != MPI_SUCCESS || strcmp(e_name, name) != 0) continue;
            memset(e, 0, sizeof *e);
            e->index = -1;
            e->enumtype = v.enumtype;
            e->num_items = num;
            snprintf(e->name, sizeof e->name, "%s", e_name);
            e->len = (int)strlen(e->name) + 1;
            e->desc_len = 1;
            return 1;
        }
    }
    return 0;
}

/* An item of an enumeration (found by name first) by its name. */
static UNUSED int item_named(const char *enum_name, const char *name, entry_t *e)
{
    entry_t en;
    if (!enum_named(enum_name, &en)) return 0;
    for (int i = 0; i < en.num_items; i++) {
        int value = 0, nl = sizeof e_name;
        if (MPI_T_enum_get_item(en.enumtype, i, &value, e_name, &nl) != MPI_SUCCESS || strcmp(e_name, name) != 0) continue;
        *e = en;
        e->item = i;
        e->value = value;
        snprintf(e->name, sizeof e->name, "%s", e_name);
        e->len = (int)strlen(e->name) + 1;
        return 1;
    }
    return 0;
}

/* A variable's datatype (for the buffers of reads and writes); 0 when unreadable. */
static UNUSED int pvar_datatype(int i, MPI_Datatype *dt)
{
    entry_t e;
    if (!pvar_entry(i, &e)) return 0;
    *dt = e.datatype;
    return 1;
}

static UNUSED int cvar_datatype(int i, MPI_Datatype *dt)
{
    entry_t e;
    if (!cvar_entry(i, &e)) return 0;
    *dt = e.datatype;
    return 1;
}

/* MPI_T_pvar_read made from inside a signal handler (R-PVAR-ASYNC). */
static MPI_T_pvar_session sig_session;
static MPI_T_pvar_handle sig_handle;
static void *sig_buf;
static int sig_rc;
static UNUSED void read_handler(int sig)
{
    (void)sig;
    sig_rc = MPI_T_pvar_read(sig_session, sig_handle, sig_buf);
}
static UNUSED int read_in_signal_handler(MPI_T_pvar_session s, MPI_T_pvar_handle h, void *buf)
{
    sig_session = s;
    sig_handle = h;
    sig_buf = buf;
    signal(SIGUSR1, read_handler);
    raise(SIGUSR1);
    signal(SIGUSR1, SIG_DFL);
    return sig_rc;
}

/* ---- The case ------------------------------------------------------------------ */
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 0)
static MPI_Session v_s1;
static MPI_Session v_s2;
static MPI_Session v_s3;
#endif

int main(void)
{
    int rc = MPI_SUCCESS;
    (void)rc;
    printf("mpit-conform reproducer: lifecycle.matrix.repeated_sessions_under_t on (no subject)\n");
#if MPI_VERSION < 4 || (MPI_VERSION == 4 && MPI_SUBVERSION < 0)
    not_applicable("the rule is from MPI 4.0; this mpi.h is older");
#else
    {
        {
            int a_required = MPI_THREAD_SINGLE;
            int o_provided; memset(&o_provided, FILL, sizeof o_provided);
            rc = MPI_T_init_thread(a_required, &o_provided);
            show_call("MPI_T_init_thread(required=MPI_THREAD_SINGLE)", rc);
            if (rc == MPI_SUCCESS) t_depth++;
            printf("      provided = %lld\n", (long long)(o_provided));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (why && failed(1, "MPI_T_init_thread", why)) goto done;
        }
        {
            MPI_Session o_mpi_session; memset(&o_mpi_session, FILL, sizeof o_mpi_session);
            rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_mpi_session);
            show_call("MPI_Session_init()", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (!why && !(o_mpi_session != MPI_SESSION_NULL)) { snprintf(whybuf, sizeof whybuf, "mpi_session: %#llx is not != MPI_SESSION_NULL", (unsigned long long)(uintptr_t)(o_mpi_session)); why = whybuf; }
            if (why && failed(1, "MPI_Session_init", why)) goto done;
            v_s1 = o_mpi_session;
        }
        {
            MPI_Session a_mpi_session = v_s1;
            MPI_Session o_mpi_session = a_mpi_session;
            rc = MPI_Session_finalize(&o_mpi_session);
            show_call("MPI_Session_finalize(mpi_session=$s1)", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (why && failed(1, "MPI_Session_finalize", why)) goto done;
        }
        {
            MPI_Session o_mpi_session; memset(&o_mpi_session, FILL, sizeof o_mpi_session);
            rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_mpi_session);
            show_call("MPI_Session_init()", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (!why && !(o_mpi_session != MPI_SESSION_NULL)) { snprintf(whybuf, sizeof whybuf, "mpi_session: %#llx is not != MPI_SESSION_NULL", (unsigned long long)(uintptr_t)(o_mpi_session)); why = whybuf; }
            if (why && failed(1, "MPI_Session_init", why)) goto done;
            v_s2 = o_mpi_session;
        }
        {
            MPI_Session a_mpi_session = v_s2;
            MPI_Session o_mpi_session = a_mpi_session;
            rc = MPI_Session_finalize(&o_mpi_session);
            show_call("MPI_Session_finalize(mpi_session=$s2)", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (why && failed(1, "MPI_Session_finalize", why)) goto done;
        }
        {
            MPI_Session o_mpi_session; memset(&o_mpi_session, FILL, sizeof o_mpi_session);
            rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &o_mpi_session);
            show_call("MPI_Session_init()", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (!why && !(o_mpi_session != MPI_SESSION_NULL)) { snprintf(whybuf, sizeof whybuf, "mpi_session: %#llx is not != MPI_SESSION_NULL", (unsigned long long)(uintptr_t)(o_mpi_session)); why = whybuf; }
            if (why && failed(1, "MPI_Session_init", why)) goto done;
            v_s3 = o_mpi_session;
        }
        {
            int o_num; memset(&o_num, FILL, sizeof o_num);
            rc = MPI_T_cvar_get_num(&o_num);
            show_call("MPI_T_cvar_get_num()", rc);
            printf("      num = %lld\n", (long long)(o_num));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (!why && !(o_num >= 0)) { snprintf(whybuf, sizeof whybuf, "num: %lld is not >= 0", (long long)(o_num)); why = whybuf; }
            if (why && failed(1, "MPI_T_cvar_get_num", why)) goto done;
        }
        {
            MPI_Session a_mpi_session = v_s3;
            MPI_Session o_mpi_session = a_mpi_session;
            rc = MPI_Session_finalize(&o_mpi_session);
            show_call("MPI_Session_finalize(mpi_session=$s3)", rc);
            printf("      mpi_session = %#llx\n", (unsigned long long)(uintptr_t)(o_mpi_session));
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (why && failed(1, "MPI_Session_finalize", why)) goto done;
        }
        {
            rc = MPI_T_finalize();
            show_call("MPI_T_finalize()", rc);
            if (rc == MPI_SUCCESS) t_depth--;
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) { snprintf(whybuf, sizeof whybuf, "returned %s, want MPI_SUCCESS", rc_name(rc)); why = whybuf; }
            if (why && failed(1, "MPI_T_finalize", why)) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
#endif
    goto done;
done:
    printf("clause: MPI-4.1 §15.3, §15.3.4 R-MPI-2 R-GEN-4 R-FIN-2\n");
    printf("mpit-conform saw on MPICH Version:\t4.0.2: worker killed by exit(1) inside the library in MPI_Session_init()\n");
    if (deviations) printf("verdict: REPRODUCED (%d deviation%s)\n", deviations, deviations == 1 ? "" : "s");
    else printf("verdict: not reproduced: every call returned as the standard says\n");
    fflush(stdout);
    return deviations ? 1 : 0;
}
