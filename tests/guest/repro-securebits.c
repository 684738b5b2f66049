// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: prctl(PR_GET_SECUREBITS) and prctl(PR_SET_SECUREBITS), which
 * Linux has had since 2.6.26 (capabilities(7), PR_SET_SECUREBITS(2const)).
 * Run it as root holding CAP_SETPCAP, with no securebit set, as any
 * container's root is:
 *
 *   gcc -static -o repro-securebits repro-securebits.c
 *   runsc --network=none do ./repro-securebits
 *
 * Each line shows what a call returned beside what Linux returns.  On
 * Linux it exits 0; it exits 1 if any call differs, 2 if it cannot start.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Reports a prctl() result; errno is the one that call left. */
static int check(const char *what, long got, long want, int want_errno)
{
	const int got_errno = errno;

	printf("%-40s %ld (%s), expected %ld (%s)\n", what, got,
	       got < 0 ? strerror(got_errno) : "ok", want,
	       want < 0 ? strerror(want_errno) : "ok");
	return got != want || (want < 0 && got_errno != want_errno);
}

int main(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	int bad = 0;

	if (syscall(SYS_capget, &hdr, data) ||
	    !(data[0].effective & (1U << CAP_SETPCAP))) {
		printf("run me as root holding CAP_SETPCAP\n");
		return 2;
	}
	if (prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) > 0) {
		printf("run me with no securebit set\n");
		return 2;
	}

	bad |= check("prctl(PR_GET_SECUREBITS)",
		     prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), 0, 0);
	bad |= check("prctl(PR_SET_SECUREBITS, KEEP_CAPS)",
		     prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS, 0, 0, 0), 0, 0);
	bad |= check("prctl(PR_GET_SECUREBITS)",
		     prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), SECBIT_KEEP_CAPS, 0);
	bad |= check("prctl(PR_SET_SECUREBITS, 1 << 30)",
		     prctl(PR_SET_SECUREBITS, 1UL << 30, 0, 0, 0), -1, EPERM);

	/* without CAP_SETPCAP in the effective set */
	data[0].effective &= ~(1U << CAP_SETPCAP);
	if (syscall(SYS_capset, &hdr, data)) {
		printf("capset: %s\n", strerror(errno));
		return 2;
	}
	bad |= check("prctl(PR_SET_SECUREBITS, 0), no SETPCAP",
		     prctl(PR_SET_SECUREBITS, 0, 0, 0, 0), -1, EPERM);
	return bad;
}
