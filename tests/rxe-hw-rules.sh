# SPDX-License-Identifier: GPL-2.0
# rxe-hw-rules: the rig's RNIC-faithful soft-RoCE (rig/rxe-hw) keeps the
# rule it is built for, so that a scenario passing on it means something.
# Its KUnit tests (rxe_hw_test.ko: two connected QPs posting LOCAL_INVs,
# which complete without the wire) show that unsignalled WRs keep their
# send-queue slots once executed, that a signalled WR retires them only
# when its CQE is polled, that a chain stops at the first WR that does not
# fit (bad_wr), and that flush CQEs retire slots as they are polled; the
# device's refusal counter moves with them. The scenarios run on rxe-hw are
# listed in testing.md.
# covers: the rig itself: rxe-hw keeps an RNIC's send-queue rule
# rig: pairs=ours/ours kernels=debug rdma=rxe-hw timeout=120 fast=debug:ours/ours:rxe-hw

# ktap_ok NAME - the kernel log has KTAP's "ok N NAME" (and not "not ok")
ktap_ok() { dmesg | grep -Eq "\] +ok [0-9]+ $1\$"; }

rig_setup_rdma
rig_check "rdma link shows $RIG_RDMA_DEV" sh -c "rdma link show | grep -q '$RIG_RDMA_DEV/1'"
refusals=/sys/kernel/debug/rxe_hw/sq_full_refusals
before=$(cat $refusals)
rig_must "load the rxe-hw KUnit tests" insmod /rig/rxe-hw/rxe_hw_test.ko
for c in unsignalled_hold_slots_test signalled_retires_when_polled_test \
	chain_stops_at_full_test flush_retires_when_polled_test; do
	rig_check "rxe-hw: $c" ktap_ok $c
done
rig_check "rxe-hw: the suite passed" ktap_ok rxe_hw_sq
rig_check "rxe-hw: no case failed" sh -c '! dmesg | grep -q "not ok"'
# one refused post per -ENOMEM the tests expect (2 + 1 + 1 + 1)
rig_check "rxe-hw counted 5 refused posts" test $(( $(cat $refusals) - before )) -eq 5
rig_check "rmmod rxe_hw_test" $RMMOD rxe_hw_test
