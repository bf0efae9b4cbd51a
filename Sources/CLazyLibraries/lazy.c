#include "lazy.h"
#include "lazy_libraries.h"  // its one declaration is also in CLinux/shim.h, for Swift
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char error[512];
static const char *_Atomic failed;

const char *wh_lazy_library_error(void) { return atomic_load(&failed); }

void *wh_lazy_symbol(wh_lazy_library *library, const char *name) {
    void *handle = atomic_load_explicit(&library->handle, memory_order_acquire);
    if (!handle) {
        pthread_mutex_lock(&lock);
        handle = atomic_load_explicit(&library->handle, memory_order_relaxed);
        if (!handle) {
            // RTLD_LOCAL: its symbols stay its own and do not meet another library's.
            handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
            if (handle) {
                atomic_store_explicit(&library->handle, handle, memory_order_release);
            } else if (!atomic_load(&failed)) {
                const char *why = dlerror();
                snprintf(error, sizeof error, "cannot open %s: %s", library->soname, why ? why : "unknown error");
                atomic_store(&failed, error);
            }
        }
        pthread_mutex_unlock(&lock);
        if (!handle) return NULL;
    }
    void *symbol = dlsym(handle, name);
    if (!symbol && !atomic_load(&failed)) {
        pthread_mutex_lock(&lock);
        if (!atomic_load(&failed)) {
            snprintf(error, sizeof error, "%s has no %s", library->soname, name);
            atomic_store(&failed, error);
        }
        pthread_mutex_unlock(&lock);
    }
    return symbol;
}
