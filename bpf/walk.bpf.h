/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Frame-pointer walkers of the user stack. BPF only. */
#ifndef FXS_BPF_WALK_BPF_H
#define FXS_BPF_WALK_BPF_H

/*
 * The plain walker, one 16-byte read per frame: [fp] -> next fp, [fp + 8] ->
 * return address. Stops on fp 0, pc 0, a read fault, or an fp that does not
 * grow (the loop guard). frames[0] already holds the interrupted pc; frames
 * has FXS_MAX_FRAMES slots and max is cfg_max_frames. Returns the frame count;
 * stop reasons go into *flags (FXS_SF_*).
 */
static __always_inline __u32 walk_simple(__u64 *frames, __u64 fp, __u32 max, __u8 *flags)
{
	__u64 pair[2];
	__u32 n = 1;

	for (int i = 1; i < FXS_MAX_FRAMES; i++) {
		if (fp == 0)
			return n;
		if (fp & 7) {
			*flags |= FXS_SF_STOP_BAD_FP;
			return n;
		}
		if (bpf_probe_read_user(pair, sizeof(pair), (void *)fp)) {
			*flags |= FXS_SF_STOP_FAULT;
			return n;
		}
		if (pair[1] == 0)
			return n;
		if (n >= max) {
			/* There is a frame beyond the cap: the stack is cut here. */
			*flags |= FXS_SF_TRUNCATED;
			return n;
		}
		frames[n & 0xff] = pair[1];
		n++;
		if (pair[0] != 0 && pair[0] <= fp) {
			*flags |= FXS_SF_STOP_BAD_FP;
			return n;
		}
		fp = pair[0];
	}
	if (fp != 0)
		*flags |= FXS_SF_TRUNCATED;
	return n;
}

#endif /* FXS_BPF_WALK_BPF_H */
