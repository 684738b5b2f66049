// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: prctl(PR_CAP_AMBIENT) and the CapAmb line of
 * /proc/self/status (Linux 4.3 and later, capabilities(7)).  Run as root
 * holding CAP_NET_RAW.  On Linux it prints the "expected" values and exits
 * 0; it exits 1 if any differs.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_RAISE 2
#endif

static int check(const char *what, long got, long want)
{
	printf("%-36s %ld (%s), expected %ld\n", what, got,
	       got < 0 ? strerror(errno) : "ok", want);
	return got != want;
}

int main(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	char line[256], capamb[256] = "";
	int bad = 0;
	FILE *f;

	/* CAP_NET_RAW into the inheritable set: RAISE needs it in pP and pI */
	if (syscall(SYS_capget, &hdr, data) ||
	    !(data[0].permitted & (1U << CAP_NET_RAW))) {
		printf("run me as root holding CAP_NET_RAW\n");
		return 2;
	}
	data[0].inheritable |= 1U << CAP_NET_RAW;
	if (syscall(SYS_capset, &hdr, data)) {
		printf("capset: %s\n", strerror(errno));
		return 2;
	}

	bad |= check("prctl(PR_CAP_AMBIENT_RAISE, NET_RAW)",
		     prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0), 0);
	bad |= check("prctl(PR_CAP_AMBIENT_IS_SET, NET_RAW)",
		     prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0), 1);

	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapAmb:", 7))
			snprintf(capamb, sizeof(capamb), "%s", line + 7);
	printf("%-36s %s", "CapAmb line of /proc/self/status",
	       capamb[0] ? capamb : "(none)\n");
	printf("%-36s \t0000000000002000\n", "  expected");
	return bad || strcmp(capamb, "\t0000000000002000\n");
}
