// SPDX-License-Identifier: GPL-2.0
/*
 * Reproducer: prctl(PR_CAP_AMBIENT) and the CapAmb line of
 * /proc/self/status, which Linux has had since 4.3 (capabilities(7),
 * PR_CAP_AMBIENT(2const)).  Run it as root holding CAP_CHOWN, as any
 * container's root does:
 *
 *   gcc -static -o repro-ambient repro-ambient.c
 *   runsc --network=none do ./repro-ambient
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

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_RAISE 2
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Reports a prctl() result; errno is the one that call left. */
static int check(const char *what, long got, long want)
{
	const int got_errno = errno;

	printf("%-37s %ld (%s), expected %ld\n", what, got,
	       got < 0 ? strerror(got_errno) : "ok", want);
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

	/* CAP_CHOWN into the inheritable set: RAISE needs it in pP and pI */
	if (syscall(SYS_capget, &hdr, data) ||
	    !(data[0].permitted & (1U << CAP_CHOWN))) {
		printf("run me as root holding CAP_CHOWN\n");
		return 2;
	}
	data[0].inheritable |= 1U << CAP_CHOWN;
	if (syscall(SYS_capset, &hdr, data)) {
		printf("capset: %s\n", strerror(errno));
		return 2;
	}

	bad |= check("prctl(PR_CAP_AMBIENT_CLEAR_ALL)",
		     prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), 0);
	bad |= check("prctl(PR_CAP_AMBIENT_RAISE, CHOWN)",
		     prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0), 0);
	bad |= check("prctl(PR_CAP_AMBIENT_IS_SET, CHOWN)",
		     prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0), 1);

	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapAmb:", 7))
			snprintf(capamb, sizeof(capamb), "%s", line + 7);
	printf("%-37s %s", "CapAmb line of /proc/self/status",
	       capamb[0] ? capamb : "(none)\n");
	printf("%-37s \t0000000000000001\n", "  expected");
	return bad || strcmp(capamb, "\t0000000000000001\n");
}
