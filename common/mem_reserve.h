/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target's memory reserve: a new queue whose buffers would leave less
 * memory available than the reserve is refused, with a message that says
 * so, instead of its allocations waking the OOM killer (a target's memory
 * grows with hosts x queues x queue depth x in-capsule size). Pure
 * arithmetic, so that KUnit can feed it every boundary.
 */
#ifndef NVMEOF_MEM_RESERVE_H
#define NVMEOF_MEM_RESERVE_H

#include <linux/minmax.h>
#include <linux/types.h>

/* the default reserve's bounds, MiB (nvmeof_mem_reserve_auto_mb()) */
#define NVMEOF_MEM_RESERVE_MIN_MB	32
#define NVMEOF_MEM_RESERVE_MAX_MB	1024

/**
 * nvmeof_mem_reserve_auto_mb() - the reserve a target keeps by default
 * @total_mb: the machine's memory, MiB
 *
 * Return: 1/64 of @total_mb, at least NVMEOF_MEM_RESERVE_MIN_MB and at
 * most NVMEOF_MEM_RESERVE_MAX_MB, but never more than half of @total_mb
 * (a small guest still takes connections).
 */
static inline u32 nvmeof_mem_reserve_auto_mb(u64 total_mb)
{
	u64 mb = clamp_t(u64, total_mb / 64, NVMEOF_MEM_RESERVE_MIN_MB,
			 NVMEOF_MEM_RESERVE_MAX_MB);

	return min(mb, total_mb / 2);
}

/**
 * nvmeof_mem_admits() - whether a new queue may take its buffers
 * @need: bytes its buffers take
 * @available: bytes available now (the kernel's MemAvailable)
 * @reserve_mb: the reserve, MiB; 0 turns the check off
 *
 * Return: true if @reserve_mb is 0, or if @available less @need leaves at
 * least @reserve_mb (no wrap: a @need beyond @available never fits).
 */
static inline bool nvmeof_mem_admits(u64 need, u64 available, u32 reserve_mb)
{
	if (!reserve_mb)
		return true;
	return available >= need &&
	       available - need >= (u64)reserve_mb << 20;
}

/*
 * One fast-registration MR of an rdma_rw pool, an upper estimate from the
 * drivers read: siw keeps 24 bytes a page (256 pages fill an 8 KiB slab),
 * mlx5 8 a page (a 2 KiB list at 256 pages); the MR's own structures
 * beside.
 */
#define NVMEOF_MR_BYTES_PER_PAGE	32
#define NVMEOF_MR_BYTES_FIXED		512

/**
 * nvmeof_mr_pool_bytes() - what a pool of fast-registration MRs holds
 * @nr_mrs: MRs in the pool
 * @pages_per_mr: the page list each MR is made for (rdma_rw's at most 256)
 *
 * Return: bytes, by the estimate above (below 2^53: no wrap).
 */
static inline u64 nvmeof_mr_pool_bytes(u32 nr_mrs, u16 pages_per_mr)
{
	return (u64)nr_mrs * ((u64)pages_per_mr * NVMEOF_MR_BYTES_PER_PAGE +
			      NVMEOF_MR_BYTES_FIXED);
}

#endif /* NVMEOF_MEM_RESERVE_H */
