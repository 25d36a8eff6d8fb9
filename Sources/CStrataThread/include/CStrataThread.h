#ifndef CSTRATA_THREAD_H
#define CSTRATA_THREAD_H

/// The initial-value sink of the model class a context is materializing on the current
/// thread (StrataCore's `MaterializingThread`): an unretained object pointer whose lowest
/// bit says a model took it, or null.
///
/// A C thread-local rather than `pthread_getspecific`: the accessors below inline into
/// Swift as a load or a store relative to the thread pointer, where the pthread calls took
/// about 20 (read) and 40 (write) instructions with the key's lazy initialization, for
/// every model a context materializes.
extern _Thread_local void *_Nullable strata_materializing_sink;

/// The current thread's sink pointer, tagged, or null.
static inline void *_Nullable strata_materializing_sink_get(void) {
    return strata_materializing_sink;
}

/// Sets the current thread's sink pointer.
static inline void strata_materializing_sink_set(void *_Nullable sink) {
    strata_materializing_sink = sink;
}

#endif
