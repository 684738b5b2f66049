// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: capset() must not let the inheritable set gain a capability
 * that is in neither the old inheritable set nor the bounding set, even
 * with CAP_SETPCAP (capset(2): "EPERM ... the caller attempted to add a
 * capability into the inheritable set that is not in its bounding set").
 * It uses CAP_NET_RAW (with CAP_CHOWN, runsc 0.0~20240729 answers EPERM
 * as Linux does).  Run it as root holding CAP_NET_RAW and CAP_SETPCAP:
 *
 *   gcc -static -o repro-capset repro-capset.c
 *   runsc --network=none --net-raw do ./repro-capset
 *
 * Each line shows what a call returned beside what Linux returns.  On
 * Linux it exits 0; it exits 1 if any call differs, 2 if it cannot start.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	const unsigned int raw = 1U << CAP_NET_RAW;
	long ret;
	int err;

	if (syscall(SYS_capget, &hdr, data) ||
	    !(data[0].effective & raw) ||
	    !(data[0].effective & (1U << CAP_SETPCAP))) {
		printf("run me as root holding CAP_NET_RAW and CAP_SETPCAP\n");
		return 2;
	}
	/* CAP_NET_RAW out of the bounding, permitted, effective and inheritable sets */
	if (prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0, 0, 0)) {
		printf("PR_CAPBSET_DROP: %s\n", strerror(errno));
		return 2;
	}
	data[0].effective &= ~raw;
	data[0].permitted &= ~raw;
	data[0].inheritable &= ~raw;
	if (syscall(SYS_capset, &hdr, data)) {
		printf("capset: %s\n", strerror(errno));
		return 2;
	}

	/* and back into the inheritable set */
	data[0].inheritable |= raw;
	ret = syscall(SYS_capset, &hdr, data);
	err = errno;
	printf("%-40s %ld (%s), expected -1 (%s)\n", "capset(pI + CAP_NET_RAW), not in pBnd", ret,
	       ret < 0 ? strerror(err) : "ok", strerror(EPERM));
	memset(data, 0, sizeof(data));
	syscall(SYS_capget, &hdr, data);
	printf("%-40s %d, expected 0\n", "CAP_NET_RAW in pI afterwards",
	       !!(data[0].inheritable & raw));
	return !(ret == -1 && err == EPERM && !(data[0].inheritable & raw));
}
