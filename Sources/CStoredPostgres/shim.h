#ifndef STOREDKIT_CPOSTGRES_SHIM_H
#define STOREDKIT_CPOSTGRES_SHIM_H
// libpq's client API (Debian: libpq-dev, found through pkg-config as "libpq").
#include <libpq-fe.h>
// The listener thread's wake-up signal (System/SocketWait.swift): Swift's Glibc module lacks eventfd.
#include <sys/eventfd.h>
#endif
