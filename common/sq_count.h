/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Send-queue accounting by a hardware RNIC's rules, pure logic (KUnit:
 * kunit/sq_count_test.c).
 *
 * An RNIC frees a send-queue slot only when the consumer polls the CQE of
 * its work request or of a later signalled one on the same QP; an
 * unsignalled WR (REG_MR, an inline SEND) holds its slot until then, even
 * after the request it served has ended. So the count is kept in posting
 * order: every WR posted adds to @posted, a signalled WR remembers @posted
 * right after itself (its mark), and polling its CQE retires everything up
 * to that mark. What a command may still post later (a LOCAL_INV after its
 * response) is reserved when the command is admitted, so that a command
 * admitted never meets a full queue half-way. A few WRs may be kept apart
 * for single signalled WRs posted outside admission (the host's AER SEND,
 * which has no request to wait in blk-mq): nvmeof_sq_kept_post().
 *
 * Which WRs are signalled is decided when they are posted, in posting
 * order (nvmeof_sq_signal_due()): at most @unsignalled_max WRs follow the
 * newest signalled one. So once the CQEs of the signalled WRs in flight
 * are polled, at most that many are outstanding, and a command always
 * fits again; a rule decided before admission (every Nth command drawn,
 * posted or not) can lose its signal to a command that waits, and let
 * unsignalled WRs fill the queue with no CQE to come that retires them.
 *
 * The caller serializes nvmeof_sq_admit(), nvmeof_sq_post(),
 * nvmeof_sq_unpost() and nvmeof_sq_unreserve() (and posts in the same
 * order); nvmeof_sq_retire() runs in the CQ's context and is read without
 * the lock: a stale @retired only makes the queue look fuller.
 */
#ifndef NVMEOF_SQ_COUNT_H
#define NVMEOF_SQ_COUNT_H

#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define NVMEOF_SQ_KEPT_MAX	2	/* a power of two */

struct nvmeof_sq_count {
	u32 size;	/* WRs that may be outstanding (without the drain's) */
	u32 posted;	/* WRs posted since the QP was created (wraps) */
	u32 retired;	/* @posted as of the newest polled signalled WR */
	u32 reserved;	/* admitted, not yet posted */
	u32 signalled;	/* @posted as of the newest signalled WR posted */
	u32 unsignalled_max;	/* WRs after it, at most */
	u32 kept;	/* of @size, for nvmeof_sq_kept_post() alone */
	u32 kept_posted;	/* kept WRs posted ... */
	u32 kept_done;		/* ... and their CQEs polled */
	u32 kept_marks[NVMEOF_SQ_KEPT_MAX];	/* of those in flight */
};

/**
 * nvmeof_sq_init() - an empty send queue
 * @c: the count
 * @size: the WRs it may hold outstanding
 * @kept: how many of them only nvmeof_sq_kept_post() may use (at most
 *	NVMEOF_SQ_KEPT_MAX)
 */
static inline void nvmeof_sq_init(struct nvmeof_sq_count *c, u32 size,
				  u32 kept)
{
	c->size = size;
	c->posted = 0;
	c->retired = 0;
	c->reserved = 0;
	c->kept = min_t(u32, kept, min_t(u32, size, NVMEOF_SQ_KEPT_MAX));
	c->kept_posted = 0;
	c->kept_done = 0;
	c->signalled = 0;
	c->unsignalled_max = (size - c->kept) / 2;
}

/**
 * nvmeof_sq_limit_unsignalled() - how many WRs may follow a signalled one
 * @c: the count
 * @max: at most this many (never more than half the room for commands, so
 *	that a command of up to half of it fits once the signalled WRs
 *	before are polled)
 */
static inline void nvmeof_sq_limit_unsignalled(struct nvmeof_sq_count *c,
					       u32 max)
{
	c->unsignalled_max = min(max, (c->size - c->kept) / 2);
}

/**
 * nvmeof_sq_signal_due() - must the last of the next @n WRs be signalled?
 * @c: the count
 * @n: the WRs about to be posted, none of them signalled otherwise
 *
 * Asked at posting time, under the caller's lock, in posting order.
 *
 * Return: true if posting them all unsignalled would put more than
 * @c->unsignalled_max WRs after the newest signalled one.
 */
static inline bool nvmeof_sq_signal_due(const struct nvmeof_sq_count *c,
					u32 n)
{
	return c->posted + n - c->signalled > c->unsignalled_max;
}

/**
 * nvmeof_sq_admit() - reserve room for a command's work requests
 * @c: the count
 * @n: every WR the command may post, now and later
 *
 * Return: true if they fit, and are reserved; false if the queue is too
 * full now (the command waits: it must not be posted in part).
 */
static inline bool nvmeof_sq_admit(struct nvmeof_sq_count *c, u32 n)
{
	u32 used = c->posted - READ_ONCE(c->retired) + c->reserved;
	u32 room = c->size - c->kept;

	if (n > room || used > room - n)
		return false;
	c->reserved += n;
	return true;
}

/**
 * nvmeof_sq_post() - @n reserved WRs go on the queue, in posting order
 * @c: the count
 * @n: the WRs
 *
 * Return: the mark of the last of them: the value a signalled one among
 * them passes to nvmeof_sq_retire() when its CQE is polled.
 */
static inline u32 nvmeof_sq_post(struct nvmeof_sq_count *c, u32 n)
{
	c->reserved -= n;
	c->posted += n;
	return c->posted;
}

/**
 * nvmeof_sq_post_signalled() - nvmeof_sq_post() of WRs whose last one is
 *	signalled
 * @c: the count
 * @n: the WRs
 *
 * Return: the mark of the signalled one.
 */
static inline u32 nvmeof_sq_post_signalled(struct nvmeof_sq_count *c, u32 n)
{
	c->signalled = nvmeof_sq_post(c, n);
	return c->signalled;
}

/*
 * The signalled WR last posted may be among the WRs unposted: the one
 * before it is not known, so the next WR posted is signalled.
 */
static inline void nvmeof_sq_unpost_signalled(struct nvmeof_sq_count *c)
{
	if ((s32)(c->signalled - c->posted) > 0)
		c->signalled = c->posted - c->unsignalled_max;
}

/**
 * nvmeof_sq_unpost() - @n WRs counted by nvmeof_sq_post() were not taken
 *	by the device (a failed post): they hold nothing
 * @c: the count
 * @n: the WRs, the last ones posted
 */
static inline void nvmeof_sq_unpost(struct nvmeof_sq_count *c, u32 n)
{
	c->posted -= n;
	nvmeof_sq_unpost_signalled(c);
}

/**
 * nvmeof_sq_unreserve() - give back a reservation that will not be posted
 * @c: the count
 * @n: the WRs (a LOCAL_INV the target's remote invalidation made needless,
 *	or a command ended unposted)
 */
static inline void nvmeof_sq_unreserve(struct nvmeof_sq_count *c, u32 n)
{
	c->reserved -= n;
}

/**
 * nvmeof_sq_retire() - a signalled WR's CQE was polled
 * @c: the count
 * @mark: its mark from nvmeof_sq_post()
 *
 * It and every WR posted before it are retired. CQEs of a send queue come
 * in posting order, so marks only grow; an older one changes nothing.
 */
static inline void nvmeof_sq_retire(struct nvmeof_sq_count *c, u32 mark)
{
	if ((s32)(mark - c->retired) > 0)
		WRITE_ONCE(c->retired, mark);
}

/**
 * nvmeof_sq_kept_post() - one signalled WR goes on the queue in a kept WR
 * @c: the count
 *
 * Admission keeps @c->kept WRs free of commands, so such a WR always fits
 * unless the kept ones before it are still in flight (their CQEs, which
 * come in posting order, not yet polled). Serialized as nvmeof_sq_post().
 *
 * Return: true if it is counted and may be posted; false if all kept WRs
 * are in flight (the caller posts it after nvmeof_sq_kept_done()).
 */
static inline bool nvmeof_sq_kept_post(struct nvmeof_sq_count *c)
{
	if (c->kept_posted - c->kept_done >= c->kept)
		return false;
	c->kept_marks[c->kept_posted++ % NVMEOF_SQ_KEPT_MAX] = ++c->posted;
	c->signalled = c->posted;
	return true;
}

/**
 * nvmeof_sq_kept_unpost() - the WR of the last nvmeof_sq_kept_post() was
 *	not taken by the device
 * @c: the count
 */
static inline void nvmeof_sq_kept_unpost(struct nvmeof_sq_count *c)
{
	c->kept_posted--;
	c->posted--;
	nvmeof_sq_unpost_signalled(c);
}

/**
 * nvmeof_sq_kept_done() - the CQE of the oldest kept WR in flight was
 *	polled: it and every WR before it are retired
 * @c: the count
 *
 * Serialized with nvmeof_sq_kept_post(), which reads @c->kept_done.
 */
static inline void nvmeof_sq_kept_done(struct nvmeof_sq_count *c)
{
	if (c->kept_done == c->kept_posted)
		return;		/* not ours: nothing to retire */
	nvmeof_sq_retire(c, c->kept_marks[c->kept_done++ % NVMEOF_SQ_KEPT_MAX]);
}

#endif /* NVMEOF_SQ_COUNT_H */
