#include "CStrataThread.h"

_Thread_local void *_Nullable strata_materializing_sink = 0;
