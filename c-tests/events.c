/* events.c: MPI-4.1 §15.3.8 through the C ABI. Callbacks run without the library's
 * lock held, so they call MPI_T functions (event_read, event_copy, get_source,
 * get_timestamp, even event_handle_free on their own registration). Checks the event
 * type metadata, callback selection by safety level, that an instance is only valid
 * inside its callback, dropped-event reporting before the next event of the source,
 * and handle_free's free callback. Prints failed checks and a summary. */
#include <stdio.h>
#include <string.h>
#include "mpit_reference.h"

#include "check.h"


static int calls1, calls2, freed, dropped_count = -1;
static char seq2[64];
static MPI_T_event_instance last_instance;
static MPI_T_event_registration reg1, reg2;
static int ud1, ud2, udf;
static int source_expected = -1;

static void cb1(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    int dest = -1, tag = -1, source = -1;
    MPI_Count bytes = -1, ts = -1;
    unsigned char copy[64];

    calls1++;
    last_instance = inst;
    CHECK(reg == reg1, "cb1 gets its registration");
    CHECK(user_data == &ud1, "cb1 gets its user_data");
    CHECK(safety == MPI_T_CB_REQUIRE_NONE || safety == MPI_T_CB_REQUIRE_MPI_RESTRICTED ||
              safety == MPI_T_CB_REQUIRE_THREAD_SAFE || safety == MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
          "cb1 gets a safety level");
    OK(MPI_T_event_read(inst, 0, &dest));
    OK(MPI_T_event_read(inst, 1, &tag));
    OK(MPI_T_event_read(inst, 2, &bytes));
    CHECK(IS_T_ERR(MPI_T_event_read(inst, 3, &dest)), "element 3 does not exist");
    OK(MPI_T_event_copy(inst, copy));
    OK(MPI_T_event_get_timestamp(inst, &ts));
    OK(MPI_T_event_get_source(inst, &source));
    CHECK(source == source_expected, "the event's source");
    CHECK(memcmp(copy, &dest, sizeof dest) == 0, "event_copy starts with element 0");
    printf("cb1: dest=%d tag=%d bytes=%lld source=%d timestamp=%lld\n", dest, tag, (long long)bytes, source,
           (long long)ts);
}

static void cb2(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    int source = -1;
    (void)safety;
    calls2++;
    strcat(seq2, "E");
    CHECK(reg == reg2 && user_data == &ud2, "cb2 gets its registration and user_data");
    OK(MPI_T_event_get_source(inst, &source));
    if (calls2 == 2) {
        /* Free the registration from inside its own callback (the ABI holds no lock). */
        OK(MPI_T_event_handle_free(reg, NULL, NULL));
    }
}

static void dropped(MPI_Count count, MPI_T_event_registration reg, int source_index, MPI_T_cb_safety safety,
                    void *user_data)
{
    char s[16];
    (void)safety;
    dropped_count = (int)count;
    snprintf(s, sizeof s, "D%d", (int)count);
    strcat(seq2, s);
    CHECK(reg == reg2, "dropped handler gets the registration");
    CHECK(user_data == &ud2, "dropped handler gets the callback's user_data");
    CHECK(source_index == source_expected, "dropped handler gets the source");
}

static void free_cb(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data)
{
    (void)safety;
    CHECK(reg == reg1, "free callback gets the registration");
    CHECK(user_data == &udf, "free callback gets its user_data");
    freed++;
}

int main(void)
{
    int provided, idx, n, num_el = 8, source, namelen = 64, bind, verbosity, tmp;
    char name[64];
    MPI_Datatype types[8];
    MPI_Aint displs[8];
    MPI_T_enum enumtype;
    MPI_Info info = MPI_INFO_NULL;
    MPI_T_source_order order;
    MPI_Count tps, max;

    OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));

    /* Metadata of ref_event_send and its source. */
    OK(MPI_T_event_get_index("ref_event_send", &idx));
    OK(MPI_T_event_get_info(idx, name, &namelen, &verbosity, types, displs, &num_el, &enumtype, &info, NULL, NULL,
                            &bind));
    CHECK(strcmp(name, "ref_event_send") == 0, "event name");
    CHECK(num_el == 3 && types[0] == MPI_INT && types[1] == MPI_INT && types[2] == MPI_COUNT, "event datatypes");
    CHECK(displs[0] == 0 && displs[1] > displs[0] && displs[2] > displs[1], "ascending displacements from 0");
    CHECK(info != MPI_INFO_NULL, "event_get_info returns a new info object");
    if (info != MPI_INFO_NULL) OK(MPI_Info_free(&info));
    /* num_elements is INOUT; a NULL array is ignored, the other still filled. */
    num_el = 2;
    memset(displs, 0x55, sizeof displs);
    OK(MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, displs, &num_el, NULL, NULL, NULL, NULL, NULL));
    CHECK(num_el == 3 && displs[0] == 0 && displs[1] > 0, "the required count and a truncated array");
    CHECK(displs[2] == (MPI_Aint)0x5555555555555555LL, "nothing written past the capacity");
    num_el = 8;
    OK(MPI_T_event_get_info(idx, NULL, NULL, NULL, types, NULL, &num_el, NULL, NULL, NULL, NULL, NULL));
    CHECK(num_el == 3 && types[2] == MPI_COUNT, "datatypes without displacements");
    OK(MPI_T_source_get_num(&n));
    for (source = 0; source < n; source++) {
        namelen = sizeof name;
        OK(MPI_T_source_get_info(source, name, &namelen, NULL, NULL, &order, &tps, &max, &info));
        if (strcmp(name, "ref_source_progress") == 0) source_expected = source;
        CHECK(info != MPI_INFO_NULL, "source_get_info returns a new info object");
        if (info != MPI_INFO_NULL) OK(MPI_Info_free(&info));
    }
    CHECK(source_expected >= 0, "ref_source_progress exists");

    /* reg1: one callback, at the highest level, usable in any context. */
    OK(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg1));
    OK(MPI_T_event_register_callback(reg1, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, &ud1, cb1));
    OK(MPI_T_event_handle_get_info(reg1, &info));
    CHECK(info != MPI_INFO_NULL, "event_handle_get_info returns a new info object");
    if (info != MPI_INFO_NULL) OK(MPI_Info_free(&info));
    OK(MPI_T_event_callback_get_info(reg1, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &info));
    if (info != MPI_INFO_NULL) OK(MPI_Info_free(&info));

    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_NONE));
    CHECK(calls1 == 1, "one event, one callback");
    CHECK(IS_T_ERR(MPI_T_event_read(last_instance, 0, &tmp)), "the instance is invalid after its callback");
    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE));
    CHECK(calls1 == 2, "an ASYNC_SIGNAL_SAFE callback serves an ASYNC_SIGNAL_SAFE context");

    /* reg2: only a NONE callback, so a THREAD_SAFE context drops its instance; the
     * dropped handler runs before its next event (MPI-4.1 §15.3.8.6). */
    OK(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg2));
    OK(MPI_T_event_register_callback(reg2, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &ud2, cb2));
    OK(MPI_T_event_set_dropped_handler(reg2, dropped));
    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_THREAD_SAFE));
    CHECK(calls1 == 3 && calls2 == 0, "the THREAD_SAFE event reaches reg1 only");
    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_NONE));
    CHECK(calls1 == 4 && calls2 == 1, "the next event reaches both");
    printf("reg2 sequence: %s\n", seq2);
    CHECK(strcmp(seq2, "D1E") == 0, "dropped handler (count 1) before the next event");
    CHECK(dropped_count == 1, "one dropped event");
    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_NONE)); /* cb2 frees reg2 */
    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_NONE));
    CHECK(calls2 == 2, "no events after the registration was freed");

    /* handle_free with a free callback; then the handle is invalid. */
    OK(MPI_T_event_handle_free(reg1, &udf, free_cb));
    CHECK(freed == 1, "the free callback ran");
    n = calls1;
    OK(MPIT_Reference_raise_event(idx, MPI_T_CB_REQUIRE_NONE));
    CHECK(calls1 == n, "no events after handle_free");
    CHECK(MPI_T_event_handle_free(reg1, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE, "freed registration");

    OK(MPI_T_finalize());
    printf("events: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
