#ifndef FRAMEFLOW_CMOSQUITTO_SHIM_H
#define FRAMEFLOW_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
