// libcurl's functions the transport calls, forwarded to libcurl.so.4 opened on first use.
#define CURL_DISABLE_TYPECHECK
#include "../CCurl/shim.h"
#include "lazy.h"

static wh_lazy_library curl = {.soname = "libcurl.so.4"};

const char *wh_lazy_curl_error(void) { return atomic_load(&curl.error); }

const char *wh_lazy_curl_check(void) {
    // A libcurl without one of these would fail each call at once: the network thread would
    // spin on curl_multi_poll instead of sleeping in it.
    static const char *const names[] = {
        "curl_global_init", "curl_easy_init", "curl_easy_cleanup", "curl_easy_strerror", "curl_free",
        "curl_slist_append", "curl_slist_free_all", "curl_multi_init", "curl_multi_cleanup",
        "curl_multi_add_handle", "curl_multi_remove_handle", "curl_multi_perform", "curl_multi_poll",
        "curl_multi_wakeup", "curl_multi_timeout", "curl_multi_info_read", "curl_url", "curl_url_cleanup",
        "curl_url_set", "curl_url_get", "curl_easy_setopt", "curl_easy_getinfo", "curl_multi_setopt",
    };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!wh_lazy_symbol(&curl, names[i])) break;
    }
    return wh_lazy_curl_error();
}

WH_FORWARD(curl, CURLcode, curl_global_init, CURLE_FAILED_INIT, (long flags), (flags))
WH_FORWARD(curl, CURL *, curl_easy_init, NULL, (void), ())
WH_FORWARD_VOID(curl, curl_easy_cleanup, (CURL *handle), (handle))
WH_FORWARD(curl, const char *, curl_easy_strerror, "libcurl could not be loaded", (CURLcode code), (code))
WH_FORWARD_VOID(curl, curl_free, (void *pointer), (pointer))
WH_FORWARD(curl, struct curl_slist *, curl_slist_append, NULL, (struct curl_slist *list, const char *data), (list, data))
WH_FORWARD_VOID(curl, curl_slist_free_all, (struct curl_slist *list), (list))
WH_FORWARD(curl, CURLM *, curl_multi_init, NULL, (void), ())
WH_FORWARD(curl, CURLMcode, curl_multi_cleanup, CURLM_INTERNAL_ERROR, (CURLM *multi), (multi))
WH_FORWARD(curl, CURLMcode, curl_multi_add_handle, CURLM_INTERNAL_ERROR, (CURLM *multi, CURL *handle), (multi, handle))
WH_FORWARD(curl, CURLMcode, curl_multi_remove_handle, CURLM_INTERNAL_ERROR, (CURLM *multi, CURL *handle), (multi, handle))
WH_FORWARD(curl, CURLMcode, curl_multi_perform, CURLM_INTERNAL_ERROR, (CURLM *multi, int *running), (multi, running))
WH_FORWARD(curl, CURLMcode, curl_multi_poll, CURLM_INTERNAL_ERROR,
           (CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready),
           (multi, extra, count, timeout, ready))
WH_FORWARD(curl, CURLMcode, curl_multi_wakeup, CURLM_INTERNAL_ERROR, (CURLM *multi), (multi))
WH_FORWARD(curl, CURLMcode, curl_multi_timeout, CURLM_INTERNAL_ERROR, (CURLM *multi, long *milliseconds), (multi, milliseconds))
WH_FORWARD(curl, CURLMsg *, curl_multi_info_read, NULL, (CURLM *multi, int *left), (multi, left))
WH_FORWARD(curl, CURLU *, curl_url, NULL, (void), ())
WH_FORWARD_VOID(curl, curl_url_cleanup, (CURLU *url), (url))
WH_FORWARD(curl, CURLUcode, curl_url_set, CURLUE_OUT_OF_MEMORY,
           (CURLU *url, CURLUPart part, const char *text, unsigned int flags), (url, part, text, flags))
WH_FORWARD(curl, CURLUcode, curl_url_get, CURLUE_OUT_OF_MEMORY,
           (CURLU *url, CURLUPart part, char **text, unsigned int flags), (url, part, text, flags))

// The variadic three, which Swift cannot call: one typed entry point per argument type, each
// calling libcurl's variadic function through a pointer of its own (variadic) type.
typedef CURLcode (*easy_variadic)(CURL *, int, ...);
typedef CURLMcode (*multi_variadic)(CURLM *, CURLMoption, ...);

static void *_Atomic setopt_slot;
static void *_Atomic getinfo_slot;
static void *_Atomic multi_setopt_slot;

/// `name`'s address, found once and kept in `slot` (dlsym is not for every call).
static void *cached(void *_Atomic *slot, const char *name) {
    void *function = atomic_load_explicit(slot, memory_order_acquire);
    if (!function) {
        function = wh_lazy_symbol(&curl, name);
        if (function) atomic_store_explicit(slot, function, memory_order_release);
    }
    return function;
}

#define WH_SETOPT(name, type)                                                          \
    CURLcode name(CURL *handle, CURLoption option, type value) {                       \
        easy_variadic function = (easy_variadic)cached(&setopt_slot, "curl_easy_setopt"); \
        return function ? function(handle, (int)option, value) : CURLE_FAILED_INIT;    \
    }
#define WH_GETINFO(name, type)                                                         \
    CURLcode name(CURL *handle, CURLINFO info, type *value) {                          \
        easy_variadic function = (easy_variadic)cached(&getinfo_slot, "curl_easy_getinfo"); \
        return function ? function(handle, (int)info, value) : CURLE_FAILED_INIT;      \
    }

WH_SETOPT(wh_curl_easy_setopt_long, long)
WH_SETOPT(wh_curl_easy_setopt_off, curl_off_t)
WH_SETOPT(wh_curl_easy_setopt_string, const char *)
WH_SETOPT(wh_curl_easy_setopt_pointer, void *)
WH_SETOPT(wh_curl_easy_setopt_slist, struct curl_slist *)
WH_SETOPT(wh_curl_easy_setopt_data_callback, wh_curl_data_callback)
WH_GETINFO(wh_curl_easy_getinfo_long, long)
WH_GETINFO(wh_curl_easy_getinfo_off, curl_off_t)
WH_GETINFO(wh_curl_easy_getinfo_string, char *)
WH_GETINFO(wh_curl_easy_getinfo_pointer, void *)


CURLcode wh_curl_easy_setopt_xferinfo(CURL *handle, wh_curl_xferinfo_callback callback) {
    easy_variadic function = (easy_variadic)cached(&setopt_slot, "curl_easy_setopt");
    return function ? function(handle, (int)CURLOPT_XFERINFOFUNCTION, callback) : CURLE_FAILED_INIT;
}

CURLcode wh_curl_easy_setopt_header_callback(CURL *handle, wh_curl_header_callback callback) {
    easy_variadic function = (easy_variadic)cached(&setopt_slot, "curl_easy_setopt");
    return function ? function(handle, (int)CURLOPT_HEADERFUNCTION, callback) : CURLE_FAILED_INIT;
}

CURLMcode wh_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    multi_variadic function = (multi_variadic)cached(&multi_setopt_slot, "curl_multi_setopt");
    return function ? function(multi, option, value) : CURLM_INTERNAL_ERROR;
}

CURLcode wh_curl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
