// Shim for libmosquitto (Debian libmosquitto-dev, 2.0): the client library the `mqtt` widget
// drives from the transport's network thread (mosquitto_socket, mosquitto_loop_read/write/misc),
// never from a thread of its own (no mosquitto_loop_start).
#ifndef WIDGETHOST_CMOSQUITTO_SHIM_H
#define WIDGETHOST_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
