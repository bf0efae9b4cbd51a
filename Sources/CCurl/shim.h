// Shim for libcurl (multi interface). curl_easy_setopt / curl_easy_getinfo /
// curl_multi_setopt are variadic, which Swift cannot call: typed wrappers below.
#ifndef WIDGETHOST_CCURL_SHIM_H
#define WIDGETHOST_CCURL_SHIM_H
#include <curl/curl.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline CURLcode wh_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wh_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wh_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wh_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wh_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*wh_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode wh_curl_easy_setopt_data_callback(CURL *h, CURLoption o, wh_curl_data_callback cb) { return curl_easy_setopt(h, o, cb); }
typedef int (*wh_curl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode wh_curl_easy_setopt_xferinfo(CURL *h, wh_curl_xferinfo_callback cb) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb); }
static inline CURLcode wh_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wh_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wh_curl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode wh_curl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode wh_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
/// The calling thread's kernel id (gettid(2); glibc's wrapper needs _GNU_SOURCE).
static inline int wh_gettid(void) { return (int)syscall(SYS_gettid); }
typedef size_t (*wh_curl_header_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
static inline CURLcode wh_curl_easy_setopt_header_callback(CURL *h, wh_curl_header_callback cb) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, cb); }
static inline CURLcode wh_curl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
#endif
