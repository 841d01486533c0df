/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KUnit simulations' random numbers: xorshift32 from a fixed seed, so
 * that every run takes the same path and a failure repeats.
 */
#ifndef NVMEOF_TEST_RAND_H
#define NVMEOF_TEST_RAND_H

#include <linux/types.h>

/* the next number below @n from the generator at *@state (not 0) */
static inline u32 nvmeof_test_rand(u32 *state, u32 n)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state % n;
}

#endif /* NVMEOF_TEST_RAND_H */
