// libcurl and libmosquitto are opened on first use (dlopen), not at process start.
//
// A process that never fetches (`widgethost activity update`, `reload`, `events`, `--help`)
// then maps neither them nor the ~30 libraries they pull in (GnuTLS, Kerberos, LDAP, SSH,
// OpenSSL…), which was most of such a command's start-up (issue 27). The Swift code calls the
// libraries' own function names; the definitions in this target forward each call to the
// function `dlsym` found in the opened library.
#ifndef WIDGETHOST_LAZY_LIBRARIES_H
#define WIDGETHOST_LAZY_LIBRARIES_H

/// Why a library could not be opened (its soname and dlerror), or NULL when nothing failed.
const char *wh_lazy_library_error(void);

#endif
