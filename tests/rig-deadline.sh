# SPDX-License-Identifier: GPL-2.0
#
# rig-deadline: the rig's deadline checked on the debug kernel. A task
# blocks in the kernel on purpose (null_blk completing its I/O ten minutes
# late: modprobe's partition scan waits in state D), so the scenario never
# ends by itself. It passes only if the guest ends it at its deadline
# (rig_deadline: timeout x rig.deadline_scale) as a failure, with the
# blocked tasks printed, and boots again for the scenarios after it
# (rig_deadline_verdict); those then get verdicts of their own: it runs
# first in its guest (order=first), so that there are some.
# covers: the rig itself: a scenario stuck in the kernel ends at its deadline with its verdict
# rig: pairs=ours/ours kernels=debug rdma=rxe timeout=10 expect=deadline order=first fast=debug:ours/ours:rxe
rig_check "null_blk loads (its I/O completes after ten minutes)" \
	$MODPROBE null_blk nr_devices=1 irqmode=2 completion_nsec=600000000000
rig_check "a read of it returns" sh -c 'head -c 4096 /dev/nullb0 > /dev/null'
