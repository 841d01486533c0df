// SPDX-License-Identifier: GPL-2.0
/*
 * inet_addr_is_any(struct sockaddr_storage *): the argument a whole socket
 * address storage, not a struct sockaddr: Debian's 7.2 has it, its 6.12 not.
 */
#include <linux/inet.h>

bool probe(struct sockaddr_storage *addr);
bool probe(struct sockaddr_storage *addr)
{
	return inet_addr_is_any(addr);
}
