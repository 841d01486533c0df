// SPDX-License-Identifier: GPL-2.0
/* The target's tracepoints (trace.h), instantiated once. */
#include "nvmet_rdma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
