// SPDX-License-Identifier: GPL-2.0
/*
 * <linux/unaligned.h>: asm/unaligned.h moved there (absent in 6.1.192,
 * the only one in 6.12).
 */
#include <linux/unaligned.h>

u32 probe(const void *p);
u32 probe(const void *p)
{
	return get_unaligned_le24(p);
}
