// libcurl and libmosquitto are opened on first use (dlopen), not at process start.
//
// A process that never fetches (`widgethost activity update`, `reload`, `events`, `--help`)
// then maps neither them nor the ~30 libraries they pull in (GnuTLS, Kerberos, LDAP, SSH,
// OpenSSL…), which was most of such a command's start-up (issue 27). The Swift code calls the
// libraries' own function names; the definitions in this target forward each call to the
// function `dlsym` found in the opened library.
#ifndef WIDGETHOST_LAZY_LIBRARIES_H
#define WIDGETHOST_LAZY_LIBRARIES_H

/// Why libcurl cannot be used (its soname and dlerror, or a function it lacks), or NULL.
const char *wh_lazy_curl_error(void);
/// Looks up every libcurl function the transport calls; `wh_lazy_curl_error` afterwards.
const char *wh_lazy_curl_check(void);
/// Why libmosquitto cannot be used, or NULL.
const char *wh_lazy_mosquitto_error(void);

#endif
