/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RDMA READ/WRITE work requests over a list of local scatter/gather
 * entries: how many a transfer takes and how they are laid out. Pure
 * arithmetic on the work request structures (nothing is posted), so that
 * KUnit can check the split at every boundary.
 */
#ifndef NVMEOF_RDMA_WRS_H
#define NVMEOF_RDMA_WRS_H

#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

/**
 * nvmeof_rdma_wr_count() - work requests a transfer of @nr_sge entries needs
 * @nr_sge: local scatter/gather entries (one per data page)
 * @max_sge: entries one work request may carry on this queue pair
 *
 * Return: @nr_sge / @max_sge rounded up (no overflow near U32_MAX); 0 when
 * @max_sge is 0, which the caller must treat as "cannot post".
 */
static inline u32 nvmeof_rdma_wr_count(u32 nr_sge, u32 max_sge)
{
	if (!max_sge)
		return 0;
	return nr_sge / max_sge + !!(nr_sge % max_sge);
}

/**
 * nvmeof_build_rdma_wrs() - lay RDMA READ or WRITE work requests over SGEs
 * @wrs: nvmeof_rdma_wr_count(@nr_sge, @max_sge) work requests to fill
 * @sges: @nr_sge filled entries, in the order of the remote buffer
 * @nr_sge: number of entries (at least 1)
 * @max_sge: entries per work request (at least 1)
 * @opcode: IB_WR_RDMA_READ or IB_WR_RDMA_WRITE
 * @remote_addr: the remote buffer's address
 * @rkey: the remote buffer's key
 *
 * The remote buffer is one contiguous range: each work request takes the
 * next @max_sge entries (the last one the rest) and starts where the bytes
 * of the previous ones end. The requests are chained through wr.next, the
 * last one's next is NULL, and none is signalled or has a completion
 * handler: the caller finishes the last one (signal it, or chain a SEND).
 * As the kernel's rdma_rw does (rdma_rw_init_map_wrs()), without allocating.
 *
 * Return: the bytes the work requests move (0, touching nothing, when
 * @max_sge is 0).
 */
static inline u64 nvmeof_build_rdma_wrs(struct ib_rdma_wr *wrs,
					struct ib_sge *sges, u32 nr_sge,
					u32 max_sge, enum ib_wr_opcode opcode,
					u64 remote_addr, u32 rkey)
{
	u64 moved = 0;
	u32 n, i;

	if (!max_sge)
		return 0;
	for (; nr_sge; wrs++) {
		n = min(nr_sge, max_sge);
		memset(&wrs->wr, 0, sizeof(wrs->wr));
		wrs->wr.opcode = opcode;
		wrs->wr.sg_list = sges;
		wrs->wr.num_sge = n;
		wrs->remote_addr = remote_addr + moved;
		wrs->rkey = rkey;
		for (i = 0; i < n; i++)
			moved += sges[i].length;
		sges += n;
		nr_sge -= n;
		if (nr_sge)
			wrs->wr.next = &wrs[1].wr;
	}
	return moved;
}

#endif /* NVMEOF_RDMA_WRS_H */
