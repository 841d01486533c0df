/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rxe-hw: soft-RoCE with the rules of a hardware RNIC, for nvmeof-rdma's
 * test rig only (never installed). See rxe_hw.c.
 */

#ifndef RXE_HW_H
#define RXE_HW_H

struct rxe_qp;
struct rxe_cq;
struct rxe_cqe;
struct rxe_send_wqe;
struct ib_wc;
struct ib_send_wr;
struct rxe_dev;
struct device;
struct ib_device;
struct page;

void rxe_hw_qp_init(struct rxe_qp *qp, u32 max_send_wr);
void rxe_hw_cq_init(struct rxe_cq *cq);
bool rxe_hw_cq_event_deferred(struct rxe_cq *cq);
void rxe_hw_cq_cleanup(struct rxe_cq *cq);
bool rxe_hw_sq_full(struct rxe_qp *qp);
int rxe_hw_chain_fault(struct rxe_qp *qp, const struct ib_send_wr *first,
		       const struct ib_send_wr *wr);
bool rxe_hw_wqe_error(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
void rxe_hw_posted(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
void rxe_hw_tag_send_cqe(struct rxe_qp *qp, struct rxe_send_wqe *wqe,
			 struct rxe_cqe *cqe);
int rxe_hw_post_send_cqe(struct rxe_qp *qp, struct rxe_cqe *cqe);
void rxe_hw_reply_delivered(struct rxe_qp *qp);
void rxe_hw_polled(struct ib_wc *wc);
void rxe_hw_qp_reset(struct rxe_qp *qp);
void rxe_hw_qp_cleanup(struct rxe_qp *qp);
struct device *rxe_hw_dma_device(void);
/* what the device does to the memory at a DMA address */
#define RXE_HW_DEV_READS	BIT(0)
#define RXE_HW_DEV_WRITES	BIT(1)
struct page *rxe_hw_dma_to_page(struct rxe_dev *rxe, u64 dma,
				unsigned int access);
int rxe_hw_dma_copy(struct rxe_dev *rxe, u64 dma, void *addr,
		    unsigned int length, bool to_dma);
struct ib_device *rxe_hw_get_device(const char *name);
int rxe_hw_init(void);
void rxe_hw_exit(void);

#endif /* RXE_HW_H */
