//@ The helpers a reproducer may call. A line `//@ head NAME...` or `//@ tail NAME...`
//@ starts a section: the names it defines (the first names it), `head` for what goes
//@ before the case (headers, types, macros, what main() itself reads), `tail` for what
//@ goes after main() (functions, each declared before the case by its signature line,
//@ and the variables only they use). `if=NAME`: this version of a section, in place of
//@ the plain one, where the program reaches NAME (`tight_buffers`: it passes buffers
//@ sized to the byte, repro/helpers.rs TIGHT). `mpi4`: only where mpi.h is MPI-4.0 or
//@ later. repro/helpers.rs keeps the sections main() reaches, and drops these lines.
//@ head <stdint.h> uintptr_t intptr_t uint32_t uint64_t int32_t int64_t
#include <stdint.h>
//@ head <stdio.h> printf snprintf fflush perror stdout NULL size_t
#include <stdio.h>
//@ head <stdlib.h> exit calloc free
#include <stdlib.h>
//@ head <string.h> memset memcpy memcmp memchr strcmp strlen strnlen strdup strncmp
#include <string.h>
//@ head <signal.h> signal raise SIGUSR1 SIG_DFL
#include <signal.h>
//@ head <sys/mman.h> mmap mprotect PROT_NONE PROT_READ PROT_WRITE MAP_PRIVATE MAP_ANONYMOUS MAP_FAILED
#include <sys/mman.h>
//@ head <unistd.h> sysconf _SC_PAGESIZE
#include <unistd.h>
//@ head FILL
#define FILL 0xA5 /* the byte every buffer and OUT argument is filled with: not NUL */
//@ head GUARD CANARY
#define GUARD 16  /* checked bytes after a buffer, then a PROT_NONE page */
#define CANARY 16 /* checked bytes before a buffer */
//@ head REPRO_STRICT
#ifndef REPRO_STRICT /* -DREPRO_STRICT: SHOULD and robustness deviations count too (--strict) */
#define REPRO_STRICT 0
#endif
//@ head deviations
static int deviations = 0;
//@ head t_depth
static int t_depth = 0; /* MPI_T initializations not yet finalized */
//@ head whybuf
static char whybuf[1024]; /* why the last check failed */
//@ tail deviation
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
//@ tail returned
/* Why a call's return code is not the one the case wants. */
static const char *returned(int rc, const char *want)
{
    snprintf(whybuf, sizeof whybuf, "returned %s, want %s", rc_name(rc), want);
    return whybuf;
}
//@ tail show_call
static void show_call(const char *text, int rc)
{
    static int step_no = 0;
    printf("[%d] %s -> %s\n", ++step_no, text, rc_name(rc));
    fflush(stdout);
}
//@ tail not_applicable
static void not_applicable(const char *what)
{
    printf("not applicable: %s\n", what);
    fflush(stdout);
    exit(77);
}
//@ head guarded_t
/* Memory the library writes into, filled with FILL; where the case checks bounds,
 * [ canary (CANARY) | buffer (len) | guard (GUARD) ][ PROT_NONE page ]. */
typedef struct {
    unsigned char *base, *buf; /* the mapping; the buffer (NULL for a NULL buffer) */
    size_t data, len;
} guarded_t;
//@ tail guarded
static guarded_t guarded(size_t len, size_t align)
{
    guarded_t g = {calloc(1, len + align + 16), NULL, len + align + 16, len}; /* with slack */
    if (!g.base) { perror("calloc"); exit(2); }
    memset(g.base, FILL, g.data);
    g.buf = g.base + (align - (uintptr_t)g.base % align) % align;
    return g;
}
//@ tail guarded if=stray_writes if=tight_buffers
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
//@ tail stray_writes
/* Offsets written outside [0, len): -CANARY..-1 and len..len+GUARD-1; the count. */
static int stray_writes(const guarded_t *g, char *where, size_t cap)
{
    int n = 0;
    size_t used = 0;
    where[0] = 0;
    if (!g->buf) return 0;
    for (long off = -CANARY; off < (long)(g->len + GUARD); off++) {
        if (off >= 0 && off < (long)g->len) continue;
        if (g->buf + off < g->base || g->buf + off >= g->base + g->data || g->buf[off] == FILL) continue;
        n++;
        if (used + 16 < cap) used += (size_t)snprintf(where + used, cap - used, "%s%ld", n > 1 ? ", " : "", off);
    }
    return n;
}
//@ head sarg_t SBUF SLEN
/* A (buf, len) pair of the string convention (MPI-4.1 §15.3.3). */
typedef struct {
    guarded_t g;
    int len, len_out; /* the value passed in *len; *len after the call */
    int null_len;     /* a NULL length pointer was passed */
} sarg_t;
#define SBUF(s) ((char *)(s).g.buf)
#define SLEN(s) ((s).null_len ? (int *)NULL : &(s).len_out)
//@ tail sarg
static sarg_t sarg(int cap, int len, int null_buf, int null_len)
{
    sarg_t s;
    s.g = guarded(null_buf ? 0 : (size_t)(cap < 0 ? 0 : cap), 1);
    if (null_buf) s.g.buf = NULL;
    s.len = s.len_out = len;
    s.null_len = null_len;
    return s;
}
//@ head size_row
/* A buffer size a case tries: n bytes, or the string's length (strlen + 1) plus n; a
 * NULL buffer, a NULL length. */
typedef struct { const char *text; int from_len, n, null_buf, null_len; } size_row;
//@ tail sized
/* The buffer of size `s` for a string of l - 1 characters. */
static sarg_t sized(size_row s, int l)
{
    int c = (s.from_len ? l : 0) + s.n;
    return sarg(c > 0 ? c : 0, c > 0 ? c : 0, s.null_buf, s.null_len);
}
//@ tail show_string
static void show_string(const char *what, const sarg_t *s)
{
    printf("      %s: buffer of %d bytes%s, len %s%d -> %d", what, s->g.buf ? (int)s->g.len : 0,
           s->g.buf ? "" : " (NULL)", s->null_len ? "(NULL) " : "", s->len, s->len_out);
    if (s->g.buf && s->g.len > 0 && memchr(s->g.buf, 0, s->g.len))
        printf(", \"%s\"", (const char *)s->g.buf);
    printf("\n");
}
//@ tail string_broken
/* The string convention, judged as mpit-conform judges it: `want` is the whole string
 * (from a call with a buffer large enough). kind: 0 truncated (*len = strlen+1),
 * 1 truncated_n (*len = bytes written when cut), 2 exact, 3 non_empty. Returns NULL when
 * the convention holds, else what broke. */
static const char *string_broken(const sarg_t *s, int kind, const char *want)
{
    static char why[512];
    char where[128];
    int l = (int)strlen(want) + 1, n = s->len, k = (n - 1 < l - 1) ? n - 1 : l - 1;
    int want_len = (kind == 1 && l > n) ? n : l, untouched = 1;
    for (size_t i = 0; s->g.buf && i < s->g.len; i++) untouched &= s->g.buf[i] == FILL;
    if (stray_writes(&s->g, where, sizeof where))
        snprintf(why, sizeof why, "wrote outside the %d-byte buffer, at byte offsets [%s] (R-STR-1)",
                 s->g.buf ? (int)s->g.len : 0, where);
    else if (kind == 3)
        return s->g.buf && s->g.len > 0 && s->g.buf[0] ? NULL : "empty name (R-STR-6: length >= 1)";
    else if (s->null_len)
        return untouched ? NULL : "len was NULL but the buffer was written (R-STR-4)";
    else if ((!s->g.buf || n <= 0) && !untouched)
        return "n was 0 but the buffer was written (R-STR-3)";
    else if (!s->g.buf || n <= 0) {
        if (s->len_out == l) return NULL;
        snprintf(why, sizeof why, "*len = %d, want strlen+1 = %d (R-STR-3)", s->len_out, l);
    } else if (memcmp(s->g.buf, want, (size_t)k) != 0 || s->g.buf[k] != 0)
        snprintf(why, sizeof why, "buffer of %d does not hold the first %d characters of \"%s\" then NUL (R-STR-1/2)", n, k, want);
    else if (kind == 2 && k != l - 1)
        snprintf(why, sizeof why, "string cut at %d of %d characters", k, l - 1);
    else if (s->len_out != want_len)
        snprintf(why, sizeof why, "*len = %d, want %s = %d (R-STR-2)", s->len_out,
                 kind == 1 && l > n ? "the bytes written" : "strlen+1", want_len);
    else
        return NULL;
    return why;
}
//@ head vbuf_t
/* A value buffer (cvar/pvar read and write): count x element size, 8-byte aligned. */
typedef struct {
    guarded_t g;
    MPI_Datatype dt; /* of the variable, when known (typed = 1) */
    int typed;
} vbuf_t;
//@ tail vbuf
static vbuf_t vbuf(size_t bytes)
{
    vbuf_t v;
    v.g = guarded(bytes, 8);
    v.typed = 0;
    return v;
}
//@ tail vbuf_copy
static vbuf_t vbuf_copy(const vbuf_t *from)
{
    vbuf_t v = vbuf(from->g.len);
    memcpy(v.g.buf, from->g.buf, from->g.len);
    v.dt = from->dt;
    v.typed = from->typed;
    return v;
}
//@ tail vbuf_overrun
static int vbuf_overrun(const vbuf_t *v)
{
    char where[128];
    return stray_writes(&v->g, where, sizeof where);
}
//@ tail vbuf_num
/* Element i of a value, decoded by its datatype (0 past the end). */
static double vbuf_num(const vbuf_t *v, size_t i)
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
//@ tail vbuf_equal
/* Two values equal as mpit-conform compares them: an MPI_CHAR value as the string it
 * holds, any other element by element. */
static int vbuf_equal(const vbuf_t *a, const vbuf_t *b)
{
    if (a->typed && dt_kind(a->dt) == 'c')
        return strnlen((const char *)a->g.buf, a->g.len) == strnlen((const char *)b->g.buf, b->g.len)
            && memcmp(a->g.buf, b->g.buf, strnlen((const char *)a->g.buf, a->g.len)) == 0;
    return a->g.len == b->g.len && memcmp(a->g.buf, b->g.buf, a->g.len) == 0;
}
//@ tail vbuf_all
/* Every element of a against the same element of b (lists of one length): op 0 <, 1 <=,
 * 2 >, 3 >=. */
static int vbuf_all(const vbuf_t *a, const vbuf_t *b, int op)
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
//@ tail handles n_handles
/* What mpit-conform knows of a handle it was given: bytes a read of it needs. */
static struct { uintptr_t h; size_t bytes; MPI_Datatype dt; int typed; } handles[4096];
static int n_handles = 0;
//@ tail note_handle
static void note_handle(uintptr_t h, int count, MPI_Datatype dt, int typed)
{
    size_t bytes = (size_t)(count < 0 ? 0 : count) * (typed ? dt_size(dt) : 8);
    if (n_handles < 4096) {
        handles[n_handles].h = h, handles[n_handles].bytes = bytes;
        handles[n_handles].dt = dt, handles[n_handles].typed = typed;
        n_handles++;
    }
}
//@ tail vbuf_for
/* The buffer a read of handle h needs: count x element size, typed by its datatype. */
static vbuf_t vbuf_for(uintptr_t h)
{
    int i = n_handles - 1;
    while (i >= 0 && handles[i].h != h) i--;
    vbuf_t v = vbuf(i >= 0 ? handles[i].bytes : 8);
    if (i >= 0) { v.dt = handles[i].dt; v.typed = handles[i].typed; }
    return v;
}
//@ tail vbuf_number
/* A literal value written: every element of the handle's datatype holding n. */
static vbuf_t vbuf_number(uintptr_t h, long long n)
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
//@ tail indices_overrun
/* Entries a category_get_* call wrote past the `len` it was given. */
static int indices_overrun(const int *a, int len)
{
    int n = 0;
    for (int i = len > 0 ? len : 0; i < (len > 0 ? len : 0) + 4; i++) n += a[i] != -7;
    return n;
}
//@ head entry_t
/* The subject, looked up by name (never by the index one library gave it). */
typedef struct {
    int index, len, desc_len; /* len, desc_len: strlen + 1 of name and desc */
    char name[4096], desc[65536];
    int var_class, verbosity, bind, scope, readonly, continuous, atomic;
    MPI_Datatype datatype;
    MPI_T_enum enumtype; /* of a variable; an enumeration subject's own handle */
    int item, value, num_items; /* an enumeration item subject */
} entry_t;
//@ tail entry_lengths
static int entry_lengths(entry_t *e)
{
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}
//@ tail cvar_entry
/* One catalog entry, read with buffers large enough (what mpit-conform's inventory holds). */
static int cvar_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_cvar_get_info(i, e->name, &nl, &e->verbosity, &e->datatype, &e->enumtype, e->desc, &dl, &e->bind,
                               &e->scope) == MPI_SUCCESS && entry_lengths(e);
}
//@ tail pvar_entry
static int pvar_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_pvar_get_info(i, e->name, &nl, &e->verbosity, &e->var_class, &e->datatype, &e->enumtype, e->desc, &dl,
                               &e->bind, &e->readonly, &e->continuous, &e->atomic) == MPI_SUCCESS && entry_lengths(e);
}
//@ tail category_entry
static int category_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc, a, b, c;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_category_get_info(i, e->name, &nl, e->desc, &dl, &a, &b, &c) == MPI_SUCCESS && entry_lengths(e);
}
//@ tail e_name e_desc
static char e_name[4096], e_desc[65536];
//@ tail enum_named
/* An enumeration by name: the first variable (cvars, then pvars) that carries it. */
static int enum_named(const char *name, entry_t *e)
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
            return entry_lengths(e);
        }
    }
    return 0;
}
//@ tail item_named
/* An item of an enumeration (found by name first) by its name. */
static int item_named(const char *enum_name, const char *name, entry_t *e)
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
        return entry_lengths(e);
    }
    return 0;
}
//@ tail pvar_datatype
/* A variable's datatype (for the buffers of reads and writes); 0 when unreadable. */
static int pvar_datatype(int i, MPI_Datatype *dt)
{
    entry_t e;
    if (!pvar_entry(i, &e)) return 0;
    *dt = e.datatype;
    return 1;
}
//@ tail cvar_datatype
static int cvar_datatype(int i, MPI_Datatype *dt)
{
    entry_t e;
    if (!cvar_entry(i, &e)) return 0;
    *dt = e.datatype;
    return 1;
}
//@ tail read_in_signal_handler read_handler
/* MPI_T_pvar_read made from inside a signal handler (R-PVAR-ASYNC). */
static MPI_T_pvar_session sig_session;
static MPI_T_pvar_handle sig_handle;
static void *sig_buf;
static int sig_rc;
static void read_handler(int sig)
{
    (void)sig;
    sig_rc = MPI_T_pvar_read(sig_session, sig_handle, sig_buf);
}
static int read_in_signal_handler(MPI_T_pvar_session s, MPI_T_pvar_handle h, void *buf)
{
    sig_session = s;
    sig_handle = h;
    sig_buf = buf;
    signal(SIGUSR1, read_handler);
    raise(SIGUSR1);
    signal(SIGUSR1, SIG_DFL);
    return sig_rc;
}
