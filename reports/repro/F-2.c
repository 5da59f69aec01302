/*
 * Reproducer of a `fail` result of mpit-conform, case enums_datatypes.cvar.no_enum (must),
 * subject: cvar 0 base_help_aggregate.
 *
 * Found on: Open MPI v5.0.11, package: Open MPI user@localhost Distribution, ident: 5.0.11, repo rev: v5.0.11rc1, Sep 16, 2026 (.targets/openmpi5/lib/libmpi.so.40)
 *   ABI family openmpi, sha256 bc3f48a50c040f8b28a96415caddfda17bb56c53df9239a731f6547314f0ed82
 * Case: a cvar whose datatype is not MPI_INT returns MPI_T_ENUM_NULL
 * Clause: MPI-4.1 §15.3.5 R-ENUM-1
 *   R-ENUM-1 (MPI-4.1 §15.3.5): "Only MPI_INT variables may carry an enumeration; otherwise enumtype = MPI_T_ENUM_NULL"
 * mpit-conform saw: MPI_T_cvar_get_info enumtype: 140642625050144, want 0
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
/* The subject, looked up by name (never by the index one library gave it). */
typedef struct {
    int index, len, desc_len; /* len, desc_len: strlen + 1 of name and desc */
    char name[4096], desc[65536];
    int var_class, verbosity, bind, scope, readonly, continuous, atomic;
    MPI_Datatype datatype;
    MPI_T_enum enumtype; /* of a variable; an enumeration subject's own handle */
    int item, value, num_items; /* an enumeration item subject */
} entry_t;

static const char *dt_name(MPI_Datatype d);
static int deviation(int must, const char *call, const char *why);
static const char *returned(int rc, const char *want);
static void show_call(const char *text, int rc);
static void not_applicable(const char *what);
static sarg_t sarg(int cap, int len, int null_buf, int null_len);
static void show_string(const char *what, const sarg_t *s);
static int cvar_entry(int i, entry_t *e);

/* ---- The case ---------------------------------------------------------------- */
static entry_t subj;
static void lookup_subject(entry_t *e)
{
    int idx = -1, at = 0, n = 0, rc;
    rc = MPI_T_cvar_get_index("base_help_aggregate", &idx);
    show_call("MPI_T_cvar_get_index(\"base_help_aggregate\")", rc);
    if (rc != MPI_SUCCESS) not_applicable("cvar base_help_aggregate is not in this library's catalog");
    /* That index must hold the name, else the name is searched for (a wrong index is a
     * finding of its own, R-CVAR-5). */
    if (!cvar_entry(idx, e) || strcmp(e->name, "base_help_aggregate") != 0) {
        MPI_T_cvar_get_num(&n);
        for (at = 0; at < n && !(cvar_entry(at, e) && strcmp(e->name, "base_help_aggregate") == 0); at++) {}
        printf("      MPI_T_cvar_get_index gave %d, which is not base_help_aggregate; found by name at %d\n", idx, at < n ? at : -1);
        if (at == n) not_applicable("the cvar of that name cannot be read");
    }
    printf("      base_help_aggregate = index %d, strlen(name)+1 = %d, strlen(desc)+1 = %d\n", e->index, e->len, e->desc_len);
}
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: enums_datatypes.cvar.no_enum on cvar 0 base_help_aggregate\n");
    {
        int provided = -1;
        rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        show_call("MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)", rc);
        if (rc != MPI_SUCCESS) { deviation(1, "MPI_T_init_thread", "failed (R-INIT-1)"); goto done; }
        t_depth++;
        if (t_depth > 0) lookup_subject(&subj);
        {
            sarg_t a_name = sarg((subj.len + 64), (subj.len + 64), 0, 0);
            sarg_t a_desc = sarg((subj.desc_len + 64), (subj.desc_len + 64), 0, 0);
            int o_verbosity; memset(&o_verbosity, FILL, sizeof o_verbosity);
            MPI_Datatype o_datatype; memset(&o_datatype, FILL, sizeof o_datatype);
            MPI_T_enum o_enumtype; memset(&o_enumtype, FILL, sizeof o_enumtype);
            int o_bind; memset(&o_bind, FILL, sizeof o_bind);
            int o_scope; memset(&o_scope, FILL, sizeof o_scope);
            rc = MPI_T_cvar_get_info(subj.index, SBUF(a_name), SLEN(a_name), &o_verbosity, &o_datatype, &o_enumtype, SBUF(a_desc), SLEN(a_desc), &o_bind, &o_scope);
            show_call("MPI_T_cvar_get_info(index=subj.index, name=<(subj.len + 64) bytes>, desc=<(subj.desc_len + 64) bytes>)", rc);
            printf("      verbosity = %lld, datatype = %s, enumtype = %#llx, bind = %lld, scope = %lld\n", (long long)(o_verbosity), dt_name(o_datatype), (unsigned long long)(uintptr_t)(o_enumtype), (long long)(o_bind), (long long)(o_scope));
            show_string("name", &a_name); show_string("desc", &a_desc);
            const char *why = NULL;
            if (!why && !(rc == MPI_SUCCESS)) why = returned(rc, "MPI_SUCCESS");
            if (!why && !(o_enumtype == MPI_T_ENUM_NULL)) { snprintf(whybuf, sizeof whybuf, "enumtype: %#llx is not == MPI_T_ENUM_NULL", (unsigned long long)(uintptr_t)(o_enumtype)); why = whybuf; }
            if (why && deviation(1, "MPI_T_cvar_get_info", why)) goto done;
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.5 R-ENUM-1\n");
    printf("mpit-conform saw on Open MPI v5.0.11, package: Open MPI user@localhost Distribution, ident: 5.0.11, repo rev: v5.0.11rc1, Sep 16, 2026: MPI_T_cvar_get_info enumtype: 140642625050144, want 0\n");
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

static const char *dt_name(MPI_Datatype d)
{
#define DT(x) if (d == x) return #x;
    DT(MPI_INT) DT(MPI_INT32_T) DT(MPI_INT64_T)
    DT(MPI_UNSIGNED) DT(MPI_UNSIGNED_LONG) DT(MPI_UNSIGNED_LONG_LONG)
    DT(MPI_UINT32_T) DT(MPI_UINT64_T) DT(MPI_COUNT)
    DT(MPI_CHAR) DT(MPI_DOUBLE)
    DT(MPI_DATATYPE_NULL)
#ifdef MPI_C_BOOL /* not an MPI_T type: named because Open MPI returns it (FINDINGS F-1) */
    DT(MPI_C_BOOL)
#endif
#undef DT
    return "a datatype outside MPI-4.1's MPI_T table";
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

static int entry_lengths(entry_t *e)
{
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}

/* One catalog entry, read with buffers large enough (what mpit-conform's inventory holds). */
static int cvar_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_cvar_get_info(i, e->name, &nl, &e->verbosity, &e->datatype, &e->enumtype, e->desc, &dl, &e->bind,
                               &e->scope) == MPI_SUCCESS && entry_lengths(e);
}
