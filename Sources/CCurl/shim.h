// Shim for libcurl (multi interface). curl_easy_setopt / curl_easy_getinfo /
// curl_multi_setopt are variadic, which Swift cannot call: typed entry points below.
//
// libcurl is not linked: CLazyLibraries defines these and the libcurl functions the transport
// calls, and opens libcurl.so.4 on the first call (a command that never fetches never maps it).
#ifndef WIDGETHOST_CCURL_SHIM_H
#define WIDGETHOST_CCURL_SHIM_H
#include <curl/curl.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef size_t (*wh_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*wh_curl_xferinfo_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
typedef size_t (*wh_curl_header_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

CURLcode wh_curl_easy_setopt_long(CURL *h, CURLoption o, long v);
CURLcode wh_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v);
CURLcode wh_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v);
CURLcode wh_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v);
CURLcode wh_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v);
CURLcode wh_curl_easy_setopt_data_callback(CURL *h, CURLoption o, wh_curl_data_callback cb);
CURLcode wh_curl_easy_setopt_xferinfo(CURL *h, wh_curl_xferinfo_callback cb);
CURLcode wh_curl_easy_setopt_header_callback(CURL *h, wh_curl_header_callback cb);
CURLcode wh_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode wh_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v);
CURLcode wh_curl_easy_getinfo_string(CURL *h, CURLINFO i, char **v);
CURLcode wh_curl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v);
CURLMcode wh_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v);
CURLcode wh_curl_global_init_default(void);

/// The calling thread's kernel id (gettid(2); glibc's wrapper needs _GNU_SOURCE).
static inline int wh_gettid(void) { return (int)syscall(SYS_gettid); }
#endif
