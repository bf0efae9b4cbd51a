// The loader the forwarding functions share (private to this target).
#ifndef WIDGETHOST_LAZY_H
#define WIDGETHOST_LAZY_H
#include <stdatomic.h>

/// A library opened on first use: its soname and, once opened, its handle; once a `dlopen`
/// failed, `failed` (it is not tried again on every call) and `error`, its own first failure.
typedef struct {
    const char *soname;
    void *_Atomic handle;
    _Atomic int failed;
    const char *_Atomic error;
    char message[320];
} wh_lazy_library;

/// The address of `name` in `library` (opened now if need be), or NULL when the library or
/// the symbol cannot be found (`library->error` says why).
void *wh_lazy_symbol(wh_lazy_library *library, const char *name);

/// A function `name` of type `ret (params)` that forwards `args` to the library's own, found
/// once and kept in `slot`; returns `failure` when it cannot be found.
#define WH_FORWARD(library, ret, name, failure, params, args)                          \
    ret name params {                                                                  \
        static void *_Atomic slot;                                                     \
        void *function = atomic_load_explicit(&slot, memory_order_acquire);            \
        if (!function) {                                                               \
            function = wh_lazy_symbol(&(library), #name);                              \
            if (!function) return failure;                                             \
            atomic_store_explicit(&slot, function, memory_order_release);              \
        }                                                                              \
        return ((ret(*) params)function) args;                                         \
    }

/// `WH_FORWARD` for a function that returns nothing (a call that cannot be made does nothing).
#define WH_FORWARD_VOID(library, name, params, args)                                   \
    void name params {                                                                 \
        static void *_Atomic slot;                                                     \
        void *function = atomic_load_explicit(&slot, memory_order_acquire);            \
        if (!function) {                                                               \
            function = wh_lazy_symbol(&(library), #name);                              \
            if (!function) return;                                                     \
            atomic_store_explicit(&slot, function, memory_order_release);              \
        }                                                                              \
        ((void(*) params)function) args;                                               \
    }

#endif
