//@ A catalog snapshot: every cvar, pvar and category by index (sections of the format
//@ helpers.c describes).
//@ head snap_t
typedef struct {
    int n[3];        /* cvars, pvars, categories */
    char **name[3];  /* NULL where get_info failed */
    int *rc[3];
    int *members[3]; /* per category: num_cvars, num_pvars, num_categories (3 ints each) */
    int **lists;     /* per category: its cvars, then pvars, then categories */
} snap_t;
//@ tail kind_name
static const char *kind_name[3] = {"cvar", "pvar", "category"};
//@ tail info_fn
static const char *info_fn[3] = {"MPI_T_cvar_get_info", "MPI_T_pvar_get_info", "MPI_T_category_get_info"};
//@ tail snapshot
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
//@ tail snap_extends
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
//@ tail snap_categories_same
/* R-CAT (§15.3.9: "If two calls to this routine return the same update number, it is
 * guaranteed that the category information has not changed between the two calls"):
 * with equal numbers, the categories of the two snapshots must be the same (count,
 * names, members). Returns whether a MUST deviation was seen. */
static int snap_categories_same(const snap_t *before, const snap_t *after, int n0, int n1, int must)
{
    char what[1024];
    if (n0 != n1) {
        printf("      the update number moved (%d, then %d)\n", n0, n1);
        return 0;
    }
    if (before->n[2] != after->n[2]) {
        snprintf(what, sizeof what, "MPI_T_category_changed returned %d before and after, yet num_categories went from %d to %d",
                 n0, before->n[2], after->n[2]);
        deviation(must, "catalog:", what);
        return must;
    }
    for (int i = 0; i < before->n[2]; i++) {
        const int *mb = before->members[0] + 3 * i, *ma = after->members[0] + 3 * i;
        for (int g = 0, ob = 0, oa = 0; g < 3; ob += mb[g], oa += ma[g], g++) {
            int same = ma[g] == mb[g] && (!before->lists[i] || !after->lists[i] ||
                       memcmp(before->lists[i] + ob, after->lists[i] + oa, (size_t)mb[g] * sizeof(int)) == 0);
            if (!same) {
                snprintf(what, sizeof what, "MPI_T_category_changed returned %d before and after, yet category %d %s has %d %s members, %d before",
                         n0, i, after->name[2][i] ? after->name[2][i] : "?", ma[g], kind_name[g], mb[g]);
                deviation(must, "catalog:", what);
                return must;
            }
        }
    }
    printf("      the categories did not change, nor did the update number\n");
    return 0;
}
