//@ Names unique within their kind (R-STR-6): sections of the format helpers.c describes.
//@ tail entry_name
/* The name of entry i of kind k (cvar, pvar, category, event, source), allocated, and a
 * pvar's class in *cls (0 for the others); NULL where get_info fails. */
static char *entry_name(int k, int i, int *cls)
{
    entry_t e;
    *cls = 0;
    switch (k) {
    case 0: return cvar_entry(i, &e) ? strdup(e.name) : NULL;
    case 1: if (!pvar_entry(i, &e)) return NULL; *cls = e.var_class; return strdup(e.name);
    case 2: return category_entry(i, &e) ? strdup(e.name) : NULL;
#if MPI_VERSION >= 4
    case 3: {
        int nl = sizeof e_name, dl = sizeof e_desc, verbosity = 0, num = 0, bind = 0;
        if (MPI_T_event_get_info(i, e_name, &nl, &verbosity, NULL, NULL, &num, NULL, NULL, e_desc, &dl, &bind) != MPI_SUCCESS) return NULL;
        return strdup(e_name);
    }
    case 4: {
        int nl = sizeof e_name, dl = sizeof e_desc;
        MPI_T_source_order order;
        MPI_Count tps, max;
        if (MPI_T_source_get_info(i, e_name, &nl, e_desc, &dl, &order, &tps, &max, NULL) != MPI_SUCCESS) return NULL;
        return strdup(e_name);
    }
#endif
    default: return NULL;
    }
}
//@ tail names_repeat
/* Two equal names among n (with equal classes); returns 1 and says so if found. */
static int names_repeat(const char *kind, char **names, const int *cls, int n, int must)
{
    char what[9000];
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            if (names[i] && names[j] && cls[i] == cls[j] && strcmp(names[i], names[j]) == 0) {
                snprintf(what, sizeof what, "%s name \"%s\" at indices %d and %d (names are unique within their kind)", kind, names[i], i, j);
                deviation(must, "names:", what);
                return 1;
            }
        }
    }
    return 0;
}
//@ tail check_names_unique
/* R-STR-6: names are unique within their kind: cvars, pvars (a name and a class
 * together), categories, events and sources (MPI-4), the enumerations the variables
 * carry, and the items within each enumeration (what mpit-conform's `names_unique`
 * reads). Returns whether a MUST deviation was seen. */
static int check_names_unique(int must)
{
    static const char *kinds[5] = {"cvar", "pvar", "category", "event", "source"};
    MPI_T_enum enums[256];
    int n_enums = 0;
    for (int k = 0; k < 5; k++) {
        int n = 0;
        if (k == 0) MPI_T_cvar_get_num(&n);
        else if (k == 1) MPI_T_pvar_get_num(&n);
        else if (k == 2) MPI_T_category_get_num(&n);
#if MPI_VERSION >= 4
        else if (k == 3) MPI_T_event_get_num(&n);
        else MPI_T_source_get_num(&n);
#endif
        char **names = calloc((size_t)n + 1, sizeof(char *));
        int *cls = calloc((size_t)n + 1, sizeof(int));
        for (int i = 0; i < n; i++) {
            names[i] = entry_name(k, i, &cls[i]);
            /* The enumerations the variables carry, each once. */
            entry_t e;
            if (k < 2 && names[i] && (k == 0 ? cvar_entry(i, &e) : pvar_entry(i, &e)) && e.enumtype != MPI_T_ENUM_NULL) {
                int seen = 0;
                for (int x = 0; x < n_enums; x++) seen |= enums[x] == e.enumtype;
                if (!seen && n_enums < 256) enums[n_enums++] = e.enumtype;
            }
        }
        int found = names_repeat(kinds[k], names, cls, n, must);
        for (int i = 0; i < n; i++) free(names[i]);
        free(names);
        free(cls);
        if (found) return must;
    }
    char *enames[256] = {0};
    int ecls[256] = {0};
    for (int x = 0; x < n_enums; x++) {
        int num = 0, nl = sizeof e_name;
        if (MPI_T_enum_get_info(enums[x], &num, e_name, &nl) != MPI_SUCCESS) continue;
        enames[x] = strdup(e_name);
        char **items = calloc((size_t)num + 1, sizeof(char *));
        int *zero = calloc((size_t)num + 1, sizeof(int));
        for (int i = 0; i < num; i++) {
            int value = 0, il = sizeof e_name;
            if (MPI_T_enum_get_item(enums[x], i, &value, e_name, &il) == MPI_SUCCESS) items[i] = strdup(e_name);
        }
        char kind[4200];
        snprintf(kind, sizeof kind, "item of %s,", enames[x]);
        int found = names_repeat(kind, items, zero, num, must);
        for (int i = 0; i < num; i++) free(items[i]);
        free(items);
        free(zero);
        if (found) return must;
    }
    int found = names_repeat("enum", enames, ecls, n_enums, must);
    for (int x = 0; x < n_enums; x++) free(enames[x]);
    if (found) return must;
    printf("      every name is unique within its kind\n");
    return 0;
}
