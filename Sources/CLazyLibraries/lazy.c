#include "lazy.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/// Keeps `library`'s first failure (under `lock`).
static void fail(wh_lazy_library *library, const char *format, const char *detail) {
    if (atomic_load(&library->error)) return;
    snprintf(library->message, sizeof library->message, format, library->soname, detail);
    atomic_store(&library->error, library->message);
}

void *wh_lazy_symbol(wh_lazy_library *library, const char *name) {
    void *handle = atomic_load_explicit(&library->handle, memory_order_acquire);
    if (!handle) {
        if (atomic_load(&library->failed)) return NULL;
        pthread_mutex_lock(&lock);
        handle = atomic_load_explicit(&library->handle, memory_order_relaxed);
        if (!handle && !atomic_load(&library->failed)) {
            // RTLD_LOCAL: its symbols stay its own and do not meet another library's.
            handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
            if (handle) {
                atomic_store_explicit(&library->handle, handle, memory_order_release);
            } else {
                const char *why = dlerror();
                fail(library, "cannot open %s: %s", why ? why : "unknown error");
                atomic_store(&library->failed, 1);
            }
        }
        pthread_mutex_unlock(&lock);
        if (!handle) return NULL;
    }
    void *symbol = dlsym(handle, name);
    if (!symbol && !atomic_load(&library->error)) {
        pthread_mutex_lock(&lock);
        fail(library, "%s has no %s (too old?)", name);
        pthread_mutex_unlock(&lock);
    }
    return symbol;
}
