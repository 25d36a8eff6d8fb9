#ifndef STRATA_CJSONC_SHIM_H
#define STRATA_CJSONC_SHIM_H

#include <json-c/json.h>

#endif
