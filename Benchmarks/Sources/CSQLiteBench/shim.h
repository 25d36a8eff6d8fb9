#ifndef STRATA_CSQLITEBENCH_SHIM_H
#define STRATA_CSQLITEBENCH_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a function-like cast macro Swift cannot import.
static inline sqlite3_destructor_type bench_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// SQLITE_STATIC is a cast macro too; binding with it avoids a copy when the buffer outlives the step.
static inline sqlite3_destructor_type bench_sqlite_static(void) {
    return SQLITE_STATIC;
}

#endif
