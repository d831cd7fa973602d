#ifndef STOREDKIT_CSQLITE_SHIM_H
#define STOREDKIT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro Swift cannot import: it tells SQLite to copy bound bytes.
static inline sqlite3_destructor_type storedkit_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif
