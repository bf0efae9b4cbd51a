// libmosquitto's functions the `mqtt` widget calls, forwarded to libmosquitto.so.1 opened on
// first use.
#include "../CMosquitto/shim.h"
#include "lazy.h"

static wh_lazy_library mosquitto = {.soname = "libmosquitto.so.1"};

const char *wh_lazy_mosquitto_error(void) { return atomic_load(&mosquitto.error); }

typedef void (*on_connect)(struct mosquitto *, void *, int);
typedef void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *);
typedef void (*on_subscribe)(struct mosquitto *, void *, int, int, const int *);
typedef int (*on_password)(char *, int, int, void *);

WH_FORWARD(mosquitto, int, mosquitto_lib_init, MOSQ_ERR_UNKNOWN, (void), ())
WH_FORWARD(mosquitto, struct mosquitto *, mosquitto_new, NULL,
           (const char *id, bool clean, void *object), (id, clean, object))
WH_FORWARD_VOID(mosquitto, mosquitto_destroy, (struct mosquitto *m), (m))
WH_FORWARD(mosquitto, int, mosquitto_connect, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, const char *host, int port, int keepalive), (m, host, port, keepalive))
WH_FORWARD(mosquitto, int, mosquitto_connect_async, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, const char *host, int port, int keepalive), (m, host, port, keepalive))
WH_FORWARD(mosquitto, int, mosquitto_disconnect, MOSQ_ERR_UNKNOWN, (struct mosquitto *m), (m))
WH_FORWARD_VOID(mosquitto, mosquitto_connect_callback_set, (struct mosquitto *m, on_connect f), (m, f))
WH_FORWARD_VOID(mosquitto, mosquitto_disconnect_callback_set, (struct mosquitto *m, on_connect f), (m, f))
WH_FORWARD_VOID(mosquitto, mosquitto_message_callback_set, (struct mosquitto *m, on_message f), (m, f))
WH_FORWARD_VOID(mosquitto, mosquitto_subscribe_callback_set, (struct mosquitto *m, on_subscribe f), (m, f))
WH_FORWARD(mosquitto, int, mosquitto_int_option, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, enum mosq_opt_t option, int value), (m, option, value))
WH_FORWARD(mosquitto, int, mosquitto_tls_set, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, const char *caFile, const char *caPath, const char *certFile, const char *keyFile,
            on_password f),
           (m, caFile, caPath, certFile, keyFile, f))
WH_FORWARD(mosquitto, int, mosquitto_username_pw_set, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, const char *user, const char *password), (m, user, password))
WH_FORWARD(mosquitto, int, mosquitto_subscribe, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, int *mid, const char *pattern, int qos), (m, mid, pattern, qos))
WH_FORWARD(mosquitto, int, mosquitto_publish, MOSQ_ERR_UNKNOWN,
           (struct mosquitto *m, int *mid, const char *topic, int length, const void *payload, int qos, bool retain),
           (m, mid, topic, length, payload, qos, retain))
WH_FORWARD(mosquitto, int, mosquitto_socket, -1, (struct mosquitto *m), (m))
WH_FORWARD(mosquitto, bool, mosquitto_want_write, false, (struct mosquitto *m), (m))
WH_FORWARD(mosquitto, int, mosquitto_loop_read, MOSQ_ERR_UNKNOWN, (struct mosquitto *m, int packets), (m, packets))
WH_FORWARD(mosquitto, int, mosquitto_loop_write, MOSQ_ERR_UNKNOWN, (struct mosquitto *m, int packets), (m, packets))
WH_FORWARD(mosquitto, int, mosquitto_loop_misc, MOSQ_ERR_UNKNOWN, (struct mosquitto *m), (m))
WH_FORWARD(mosquitto, const char *, mosquitto_strerror, "libmosquitto could not be loaded", (int code), (code))
WH_FORWARD(mosquitto, const char *, mosquitto_connack_string, "libmosquitto could not be loaded", (int code), (code))
