// SPDX-License-Identifier: GPL-2.0
/* The host's tracepoints (trace.h), instantiated once. */
#include "nvme_rdma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"
