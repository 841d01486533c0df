/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-capsule data sizing on the target: how much of a port's
 * param_inline_data_size a device can receive, and what its receive buffers
 * cost. Pure arithmetic, so that KUnit can feed it every boundary.
 */
#ifndef NVMEOF_IN_CAPSULE_H
#define NVMEOF_IN_CAPSULE_H

#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/types.h>

/**
 * nvmeof_in_capsule_pages() - pages of in-capsule data a receive buffer holds
 * @asked: the port's in-capsule data size in bytes (0: none)
 * @recv_sge: scatter/gather entries a receive work request may have on
 *	this device (the queue pair's, or the shared receive queue's)
 * @page_size: bytes a page holds (not 0)
 *
 * A receive takes one entry for the 64-byte command and one for each page
 * of data after it, so a device with @recv_sge entries holds @recv_sge - 1
 * pages (none when it takes a single entry).
 *
 * Return: the pages each buffer gets: @asked rounded up to whole pages,
 * but no more than the device takes. The in-capsule data size to
 * advertise is then min(@asked, pages * @page_size).
 */
static inline u32 nvmeof_in_capsule_pages(u32 asked, u32 recv_sge,
					  u32 page_size)
{
	u32 pages = DIV_ROUND_UP_ULL((u64)asked, page_size);

	if (recv_sge < 2)
		return 0;
	return min(pages, recv_sge - 1);
}

/**
 * nvmeof_recv_buffer_bytes() - memory of a set of receive buffers
 * @in_capsule_pages: pages of in-capsule data in each
 *	(nvmeof_in_capsule_pages())
 * @nr_buffers: how many buffers (a queue's depth, or an SRQ's size)
 * @page_size: bytes a page holds
 *
 * Counts the data pages and the 64-byte command of each buffer, in 64 bits
 * (a 1024-buffer SRQ of 16 pages is 64 MiB).
 *
 * Return: bytes, or U64_MAX if that does not fit 64 bits.
 */
static inline u64 nvmeof_recv_buffer_bytes(u32 in_capsule_pages,
					   u32 nr_buffers, u32 page_size)
{
	u64 each = (u64)in_capsule_pages * page_size + 64;	/* < 2^64 */
	u64 total;

	if (check_mul_overflow(each, (u64)nr_buffers, &total))
		return U64_MAX;
	return total;
}

#endif /* NVMEOF_IN_CAPSULE_H */
