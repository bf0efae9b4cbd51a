// Shim for sqlite3. SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift
// cannot import.
#ifndef WIDGETHOST_CSQLITE_SHIM_H
#define WIDGETHOST_CSQLITE_SHIM_H
#include <sqlite3.h>
static inline sqlite3_destructor_type wh_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
