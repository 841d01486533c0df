/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rxe-hw: what differs between the kernels it is built for, in one place.
 * build.sh probes the kernel source it builds from and passes what it
 * found as -D flags (never a version number):
 *
 *   RXE_HW_HAVE_HRTIMER_SETUP  hrtimer_setup() (6.13 on), which replaced
 *                              hrtimer_init() and setting ->function
 *   RXE_HW_VTD_GENERIC_PT      intel-iommu's page tables are the generic
 *                              page table's (drivers/iommu/generic_pt): a
 *                              dmar_domain has no pgd/agaw of its own but
 *                              a pt_iommu_vtdss (sspt) whose top_of_table
 *                              holds the top table and its level
 *   RXE_HW_VTD_READ_ALWAYS     intel-iommu sets the read bit of every
 *                              entry it maps (6.x: __domain_mapping() sets
 *                              the first stage's "present", bit 0, for
 *                              the second stage too), not only of those
 *                              mapped for reading (the generic page
 *                              table's second stage: its set_prot())
 *
 * Include after the kernel's headers and, for the VT-d part, after the
 * kernel source's intel iommu.h (rxe_hw.c).
 */

#ifndef RXE_HW_COMPAT_H
#define RXE_HW_COMPAT_H

#include <linux/hrtimer.h>

#ifdef RXE_HW_HAVE_HRTIMER_SETUP
#define rxe_hw_hrtimer_setup hrtimer_setup
#else
static inline void
rxe_hw_hrtimer_setup(struct hrtimer *timer,
		     enum hrtimer_restart (*function)(struct hrtimer *),
		     clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#if IS_ENABLED(CONFIG_INTEL_IOMMU)
/*
 * The top table of @dmar's DMA page table and its level, counted as VT-d
 * does from 1 (the leaf table of 4 KiB pages) up to 5.
 */
#ifdef RXE_HW_VTD_GENERIC_PT
static inline struct dma_pte *rxe_hw_vtd_top(struct dmar_domain *dmar,
					     int *level)
{
	/* the table's address, its level (0: the leaf table) in the low bits */
	uintptr_t top = READ_ONCE(dmar->sspt.vtdss_pt.common.top_of_table);

	*level = (top & PT_TOP_LEVEL_MASK) + 1;
	return (struct dma_pte *)(top & ~(uintptr_t)PT_TOP_LEVEL_MASK);
}
#else
static inline struct dma_pte *rxe_hw_vtd_top(struct dmar_domain *dmar,
					     int *level)
{
	/* agaw 0 is a two-level table (30 bits), each one more a level more */
	*level = dmar->agaw + 2;
	return dmar->pgd;
}
#endif
#endif /* CONFIG_INTEL_IOMMU */

/*
 * Whether the device may read a page mapped DMA_FROM_DEVICE behind VT-d:
 * the kernel's choice, not rxe-hw's (its walk reads the entry as it is);
 * the DMA self-test says which its kernel makes.
 */
#ifdef RXE_HW_VTD_READ_ALWAYS
#define RXE_HW_VTD_READ_BIT	"always"
#else
#define RXE_HW_VTD_READ_BIT	"as mapped"
#endif

#endif /* RXE_HW_COMPAT_H */
