/*
 * Reproducer of a `fail` result of mpit-conform, case indices.reinit_inside_mpi.catalog_kept (must),
 * subject: none.
 *
 * Found on: Intel(R) MPI Library 2021.19.0 for Linux* OS (.targets/impi/lib/libmpi.so.12)
 *   ABI family mpich, sha256 80efa2431859a34fa386dfde26f76ddd3671568d9f2c54c7805ac5fc6dcb5e30
 * Case: MPI_T finalized and re-initialized while MPI is initialized keeps every entry's index and info
 * Clause: MPI-4.1 §15.3.4, §15.3.6, §15.3.7, §15.3.9 R-FIN-3 R-CVAR-1 R-CVAR-2 R-PVAR-1 R-CAT-1
 *   R-FIN-3 (MPI-4.1 §15.3.4): "Re-initialization after full finalization is allowed"
 *   R-CVAR-1 (MPI-4.1 §15.3.6): "Indices run 0..num-1; the count may grow; an index never changes and a variable is never deleted"
 *   R-CVAR-2 (MPI-4.1 §15.3.6): "After one successful cvar_get_info(i), every later call returns the same information"
 *   R-PVAR-1 (MPI-4.1 §15.3.7): "pvar indices grow only; get_info immutable; NULL OUT arguments ignored"
 *   R-CAT-1 (MPI-4.1 §15.3.9): "Indices grow only; members only added; no cycles; unwritten indices[] entries unmodified"
 * mpit-conform saw: pvar 0 idle vanished (num_pvars 2 before, 0 after); num_pvars shrank from 2 to 0
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
typedef struct {
    int n[3];        /* cvars, pvars, categories */
    char **name[3];  /* NULL where get_info failed */
    int *rc[3];
    int *members[3]; /* per category: num_cvars, num_pvars, num_categories (3 ints each) */
    int **lists;     /* per category: its cvars, then pvars, then categories */
} snap_t;

static int deviation(int must, const char *call, const char *why);
static const char *returned(int rc, const char *want);
static void show_call(const char *text, int rc);
static void snapshot(snap_t *s);
static int snap_extends(const snap_t *before, const snap_t *after, int only_categories, int must);

/* ---- The case ---------------------------------------------------------------- */
static snap_t v_before;
static snap_t v_after;
int main(void)
{
    int rc = MPI_SUCCESS; (void)rc;
    printf("mpit-conform reproducer: indices.reinit_inside_mpi.catalog_kept on (no subject)\n");
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
            rc = MPI_Init(NULL, NULL);
            show_call("MPI_Init()", rc);
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_Init", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        snapshot(&v_before); show_call("catalog snapshot: every cvar, pvar and category by index", MPI_SUCCESS);
        printf("      %d cvars, %d pvars, %d categories\n", v_before.n[0], v_before.n[1], v_before.n[2]);
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
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_init_thread", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        snapshot(&v_after); show_call("catalog snapshot: every cvar, pvar and category by index", MPI_SUCCESS);
        printf("      %d cvars, %d pvars, %d categories\n", v_after.n[0], v_after.n[1], v_after.n[2]);
        if (snap_extends(&v_before, &v_after, 0, 1)) goto done;
        {
            rc = MPI_T_finalize();
            show_call("MPI_T_finalize()", rc);
            if (rc == MPI_SUCCESS) t_depth--;
            if (!(rc == MPI_SUCCESS) && deviation(1, "MPI_T_finalize", returned(rc, "MPI_SUCCESS"))) goto done;
        }
        {
            rc = MPI_Finalize();
            show_call("MPI_Finalize()", rc);
        }
        while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;
    }
    goto done;
done:
    printf("clause: MPI-4.1 §15.3.4, §15.3.6, §15.3.7, §15.3.9 R-FIN-3 R-CVAR-1 R-CVAR-2 R-PVAR-1 R-CAT-1\n");
    printf("mpit-conform saw on Intel(R) MPI Library 2021.19.0 for Linux* OS: pvar 0 idle vanished (num_pvars 2 before, 0 after); num_pvars shrank from 2 to 0\n");
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

static int pvar_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_pvar_get_info(i, e->name, &nl, &e->verbosity, &e->var_class, &e->datatype, &e->enumtype, e->desc, &dl,
                               &e->bind, &e->readonly, &e->continuous, &e->atomic) == MPI_SUCCESS && entry_lengths(e);
}

static int category_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc, a, b, c;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_category_get_info(i, e->name, &nl, e->desc, &dl, &a, &b, &c) == MPI_SUCCESS && entry_lengths(e);
}

static const char *kind_name[3] = {"cvar", "pvar", "category"};

static const char *info_fn[3] = {"MPI_T_cvar_get_info", "MPI_T_pvar_get_info", "MPI_T_category_get_info"};

static void snapshot(snap_t *s)
{
    memset(s, 0, sizeof *s);
    MPI_T_cvar_get_num(&s->n[0]);
    MPI_T_pvar_get_num(&s->n[1]);
    MPI_T_category_get_num(&s->n[2]);
    for (int k = 0; k < 3; k++) {
        s->name[k] = calloc((size_t)s->n[k] + 1, sizeof(char *));
        s->rc[k] = calloc((size_t)s->n[k] + 1, sizeof(int));
    }
    s->members[0] = calloc((size_t)s->n[2] * 3 + 1, sizeof(int));
    s->lists = calloc((size_t)s->n[2] + 1, sizeof(int *));
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < s->n[k]; i++) {
            entry_t e;
            int ok = k == 0 ? cvar_entry(i, &e) : k == 1 ? pvar_entry(i, &e) : category_entry(i, &e);
            if (ok) {
                s->name[k][i] = strdup(e.name);
            } else {
                /* the code, for the message */
                int nl = 0;
                s->rc[k][i] = k == 0 ? MPI_T_cvar_get_info(i, NULL, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
                            : k == 1 ? MPI_T_pvar_get_info(i, NULL, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
                                     : MPI_T_category_get_info(i, NULL, &nl, NULL, NULL, NULL, NULL, NULL);
            }
        }
    }
    for (int i = 0; i < s->n[2]; i++) {
        int *m = s->members[0] + 3 * i;
        int nl = 0, dl = 0;
        if (MPI_T_category_get_info(i, NULL, &nl, NULL, &dl, &m[0], &m[1], &m[2]) != MPI_SUCCESS) continue;
        int total = m[0] + m[1] + m[2];
        s->lists[i] = calloc((size_t)total + 1, sizeof(int));
        if (m[0]) MPI_T_category_get_cvars(i, m[0], s->lists[i]);
        if (m[1]) MPI_T_category_get_pvars(i, m[1], s->lists[i] + m[0]);
        if (m[2]) MPI_T_category_get_categories(i, m[2], s->lists[i] + m[0] + m[1]);
    }
}

/* R-CVAR-1, R-PVAR-1, R-CAT-1: a later snapshot keeps every entry of an earlier one at
 * its index with its name, and a category's members are only appended to. Returns
 * whether a MUST deviation was seen. */
static int snap_extends(const snap_t *before, const snap_t *after, int only_categories, int must)
{
    char what[1024];
    int seen = 0;
    for (int k = only_categories ? 2 : 0; k < 3; k++) {
        if (after->n[k] < before->n[k]) {
            snprintf(what, sizeof what, "the number of %ss shrank from %d to %d", kind_name[k], before->n[k], after->n[k]);
            deviation(must, "catalog:", what);
            seen = 1;
        }
        for (int i = 0; i < before->n[k]; i++) {
            if (!before->name[k][i]) continue;
            if (i >= after->n[k] || !after->name[k][i]) {
                snprintf(what, sizeof what, "%s %d %s vanished (%s(%d) returned %s)", kind_name[k], i, before->name[k][i],
                         info_fn[k], i, i >= after->n[k] ? "nothing: beyond the count" : rc_name(after->rc[k][i]));
                deviation(must, "catalog:", what);
                return 1;
            }
            if (strcmp(before->name[k][i], after->name[k][i]) != 0) {
                snprintf(what, sizeof what, "%s %d was %s, is now %s", kind_name[k], i, before->name[k][i], after->name[k][i]);
                deviation(must, "catalog:", what);
                return 1;
            }
        }
    }
    for (int i = 0; i < before->n[2] && i < after->n[2]; i++) {
        const int *mb = before->members[0] + 3 * i, *ma = after->members[0] + 3 * i;
        if (!before->lists[i] || !after->lists[i]) continue;
        for (int g = 0, ob = 0, oa = 0; g < 3; ob += mb[g], oa += ma[g], g++) {
            if (ma[g] < mb[g] || memcmp(before->lists[i] + ob, after->lists[i] + oa, (size_t)mb[g] * sizeof(int)) != 0) {
                snprintf(what, sizeof what, "category %d %s: its %ss changed (%d before, %d after; members may only be appended)",
                         i, before->name[2][i], kind_name[g], mb[g], ma[g]);
                deviation(must, "catalog:", what);
                return 1;
            }
        }
    }
    if (!seen) printf("      the later snapshot extends the earlier one\n");
    return seen && must;
}
