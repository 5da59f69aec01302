/* robustness.c: NULL pointers and garbage, stale or foreign handles must give an
 * MPI_T_ERR_* return code, never a crash (R-GEN-3 robustness; R-CVAR-3 for the NULL
 * OUT arguments of *_get_info, which are ignored and give MPI_SUCCESS). Prints one line
 * per failed check and a summary; exits 1 if any check failed. */
#include <stdio.h>
#include <string.h>
#include "mpit_reference.h"

#include "check.h"


/* The call must return some MPI_T_ERR_* code. */
#define ERR(call) CHECK(IS_T_ERR(call), #call " returns an MPI_T_ERR code")
/* The call must succeed. */

#define GARBAGE(type) ((type)(intptr_t)0x12345)

int main(void)
{
    int provided, n, i, count, idx;
    char buf[64];
    int ibuf[16];
    MPI_T_cvar_handle ch, freed;
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
    MPI_T_pvar_handle ph;
    MPI_T_event_registration reg;
    MPI_Count ts;

    /* Before initialization: NOT_INITIALIZED, even with garbage. */
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "cvar_get_num before init");
    ERR(MPI_T_cvar_read(GARBAGE(MPI_T_cvar_handle), ibuf));
    ERR(MPI_T_finalize());
    ERR(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL));
    ERR(MPI_T_init_thread(12345, &provided));

    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

    /* NULL required pointers. */
    ERR(MPI_T_cvar_get_num(NULL));
    ERR(MPI_T_pvar_get_num(NULL));
    ERR(MPI_T_category_get_num(NULL));
    ERR(MPI_T_event_get_num(NULL));
    ERR(MPI_T_source_get_num(NULL));
    ERR(MPI_T_category_changed(NULL));
    ERR(MPI_T_category_get_num_events(0, NULL));
    ERR(MPI_T_cvar_get_index(NULL, &idx));
    ERR(MPI_T_cvar_get_index("ref_cvar_int_local", NULL));
    ERR(MPI_T_pvar_get_index(NULL, MPI_T_PVAR_CLASS_COUNTER, &idx));
    ERR(MPI_T_pvar_get_index("ref_pvar_counter", 12345, &idx));
    ERR(MPI_T_category_get_index(NULL, &idx));
    ERR(MPI_T_event_get_index(NULL, &idx));
    ERR(MPI_T_cvar_handle_alloc(0, NULL, NULL, &count));
    ERR(MPI_T_cvar_handle_alloc(0, NULL, &ch, NULL));
    ERR(MPI_T_cvar_handle_free(NULL));
    ERR(MPI_T_pvar_session_create(NULL));
    ERR(MPI_T_pvar_session_free(NULL));
    ERR(MPI_T_category_get_cvars(0, 4, NULL));
    ERR(MPI_T_source_get_timestamp(0, NULL));
    ERR(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, NULL));

    /* NULL OUT arguments of *_get_info are ignored (R-CVAR-3). */
    OK(MPI_T_cvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    memset(buf, 'Z', sizeof buf);
    OK(MPI_T_cvar_get_info(0, buf, NULL, NULL, NULL, NULL, buf, NULL, NULL, NULL));
    CHECK(buf[0] == 'Z', "a NULL name_len leaves the buffer untouched (R-STR-4)");
    n = 10;
    OK(MPI_T_cvar_get_info(0, NULL, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(n > 1, "a NULL name buffer still returns the length (R-STR-3)");
    OK(MPI_T_category_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    ERR(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    ERR(MPI_T_cvar_get_info(1 << 30, buf, &n, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    ERR(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    ERR(MPI_T_event_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));

    /* Garbage and stale cvar handles. */
    ERR(MPI_T_cvar_read(GARBAGE(MPI_T_cvar_handle), ibuf));
    ERR(MPI_T_cvar_write(GARBAGE(MPI_T_cvar_handle), ibuf));
    ERR(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, ibuf));
    ch = GARBAGE(MPI_T_cvar_handle);
    ERR(MPI_T_cvar_handle_free(&ch));
    OK(MPI_T_cvar_get_index("ref_cvar_int_local", &idx));
    OK(MPI_T_cvar_handle_alloc(idx, NULL, &ch, &count));
    ERR(MPI_T_cvar_read(ch, NULL));
    ERR(MPI_T_cvar_write(ch, NULL));
    freed = ch;
    OK(MPI_T_cvar_handle_free(&ch));
    ERR(MPI_T_cvar_read(freed, ibuf));
    ERR(MPI_T_cvar_handle_free(&freed));
    ERR(MPI_T_cvar_read((MPI_T_cvar_handle)((char *)freed + 1), ibuf));

    /* Enumerations. */
    ERR(MPI_T_enum_get_info(GARBAGE(MPI_T_enum), &n, buf, &n));
    ERR(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL));
    ERR(MPI_T_enum_get_item(GARBAGE(MPI_T_enum), 0, &n, NULL, NULL));

    /* Categories. */
    ERR(MPI_T_category_get_cvars(-1, 4, ibuf));
    ERR(MPI_T_category_get_pvars(1 << 30, 4, ibuf));
    ERR(MPI_T_category_get_categories(0, -1, ibuf));

    /* Sessions and pvar handles: garbage, stale, foreign, and a cvar handle. */
    ERR(MPI_T_pvar_handle_alloc(GARBAGE(MPI_T_pvar_session), 0, NULL, &ph, &count));
    ERR(MPI_T_pvar_start(GARBAGE(MPI_T_pvar_session), MPI_T_PVAR_ALL_HANDLES));
    ERR(MPI_T_pvar_read(GARBAGE(MPI_T_pvar_session), GARBAGE(MPI_T_pvar_handle), ibuf));
    s = GARBAGE(MPI_T_pvar_session);
    ERR(MPI_T_pvar_session_free(&s));
    if (MPI_T_pvar_session_create(&s) == MPI_SUCCESS && MPI_T_pvar_session_create(&s2) == MPI_SUCCESS) {
        OK(MPI_T_cvar_handle_alloc(idx, NULL, &ch, &count));
        ERR(MPI_T_pvar_read(s, (MPI_T_pvar_handle)ch, ibuf));
        ERR(MPI_T_pvar_start(s, (MPI_T_pvar_handle)ch));
        ERR(MPI_T_pvar_handle_free(s, (MPI_T_pvar_handle *)&ch));
        OK(MPI_T_cvar_handle_free(&ch));
        ERR(MPI_T_pvar_read(s, GARBAGE(MPI_T_pvar_handle), ibuf));
        ERR(MPI_T_pvar_handle_free(s, NULL));
        ERR(MPI_T_pvar_handle_alloc(s, 0, NULL, NULL, &count));
        ERR(MPI_T_pvar_handle_alloc(s, -1, NULL, &ph, &count));
        ERR(MPI_T_pvar_handle_alloc(s, 0, NULL, &ph, NULL));
        if (MPI_T_pvar_get_index("ref_pvar_counter", MPI_T_PVAR_CLASS_COUNTER, &i) == MPI_SUCCESS &&
            MPI_T_pvar_handle_alloc(s, i, NULL, &ph, &count) == MPI_SUCCESS) {
            ERR(MPI_T_pvar_read(s2, ph, ibuf)); /* R-PH-1: another session's handle */
            ERR(MPI_T_pvar_read(s, ph, NULL));
            ERR(MPI_T_pvar_write(s, ph, NULL));
            ERR(MPI_T_pvar_readreset(s, ph, NULL));
            OK(MPI_T_pvar_handle_free(s, &ph));
            CHECK(ph == MPI_T_PVAR_HANDLE_NULL, "pvar_handle_free sets MPI_T_PVAR_HANDLE_NULL");
        } else {
            CHECK(0, "ref_pvar_counter handle");
        }
        OK(MPI_T_pvar_session_free(&s2));
        s2 = s;
        OK(MPI_T_pvar_session_free(&s));
        ERR(MPI_T_pvar_session_free(&s2)); /* stale */
        ERR(MPI_T_pvar_start(s2, MPI_T_PVAR_ALL_HANDLES));
    } else {
        CHECK(0, "pvar_session_create");
    }

    /* Events and sources: garbage registrations and instances, bad indices. */
    ERR(MPI_T_event_handle_free(GARBAGE(MPI_T_event_registration), NULL, NULL));
    ERR(MPI_T_event_handle_free((MPI_T_event_registration)0, NULL, NULL));
    ERR(MPI_T_event_handle_set_info(GARBAGE(MPI_T_event_registration), MPI_INFO_NULL));
    ERR(MPI_T_event_handle_get_info(GARBAGE(MPI_T_event_registration), NULL));
    ERR(MPI_T_event_register_callback(GARBAGE(MPI_T_event_registration), MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                      NULL));
    ERR(MPI_T_event_set_dropped_handler(GARBAGE(MPI_T_event_registration), NULL));
    ERR(MPI_T_event_read(GARBAGE(MPI_T_event_instance), 0, ibuf));
    ERR(MPI_T_event_copy(GARBAGE(MPI_T_event_instance), ibuf));
    ERR(MPI_T_event_get_timestamp(GARBAGE(MPI_T_event_instance), &ts));
    ERR(MPI_T_event_get_source(GARBAGE(MPI_T_event_instance), &i));
    ERR(MPI_T_event_read(GARBAGE(MPI_T_event_instance), 0, NULL));
    ERR(MPI_T_event_get_source(GARBAGE(MPI_T_event_instance), NULL));
    ERR(MPI_T_source_get_timestamp(-1, &ts));
    ERR(MPI_T_source_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    if (MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS) {
        ERR(MPI_T_event_register_callback(reg, 12345, MPI_INFO_NULL, NULL, NULL));
        ERR(MPI_T_event_callback_get_info(reg, 12345, NULL));
        ERR(MPI_T_event_callback_set_info(reg, 12345, MPI_INFO_NULL));
        OK(MPI_T_event_handle_free(reg, NULL, NULL));
    } else {
        CHECK(0, "event_handle_alloc");
    }
    ERR(MPIT_Reference_raise_event(0, 12345));
    ERR(MPIT_Reference_simulate(-1));

    /* Full finalization invalidates everything; one finalize too many is an error. */
    OK(MPI_T_finalize());
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "cvar_get_num after finalize");
    ERR(MPI_T_finalize());

    printf("robustness: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
