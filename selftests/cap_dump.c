// SPDX-License-Identifier: GPL-2.0
/*
 * Reports the credentials this program was started with, one "key=value"
 * line each, for the ambient capability tests:
 *
 *   inh, prm, eff: the sets read with capget(2), in hexadecimal
 *   bnd: the bounding set read with PR_CAPBSET_READ, in hexadecimal
 *   amb: CapAmb from /proc/self/status, or "none" if there is no such line
 *   secure: getauxval(AT_SECURE)
 *   uid, gid: real, effective and saved IDs
 *   arg: the first argument that is not an option (a script, if any)
 *
 * With --raw it also tries to open a raw ICMP socket, and with --fifo to
 * switch to SCHED_FIFO, and reports the result as "raw=" or "fifo=": 0 on
 * success, an errno value otherwise.
 *
 * It may run with file capabilities or set-ID bits: it only reads its
 * credentials and exits.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void print_amb(void)
{
	char line[256];
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "CapAmb:", 7)) {
				printf("amb=%llx\n",
				       strtoull(line + 7, NULL, 16));
				fclose(f);
				return;
			}
		}
		fclose(f);
	}
	printf("amb=none\n");
}

static int try_raw(void)
{
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int try_fifo(void)
{
	const struct sched_param param = {
		.sched_priority = 1,
	};

	if (sched_setscheduler(0, SCHED_FIFO, &param))
		return errno;
	return 0;
}

int main(int argc, char *argv[])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	bool raw = false, fifo = false;
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	const char *arg = "";
	__u64 bnd = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw"))
			raw = true;
		else if (!strcmp(argv[i], "--fifo"))
			fifo = true;
		else if (!arg[0])
			arg = argv[i];
	}

	if (syscall(SYS_capget, &hdr, data)) {
		perror("capget");
		return 2;
	}
	if (getresuid(&ruid, &euid, &suid) || getresgid(&rgid, &egid, &sgid)) {
		perror("getresuid");
		return 2;
	}
	/* PR_CAPBSET_READ fails with EINVAL past the kernel's last capability. */
	for (i = 0; i < 64; i++) {
		int r = prctl(PR_CAPBSET_READ, i, 0, 0, 0);

		if (r < 0)
			break;
		if (r == 1)
			bnd |= 1ULL << i;
	}

	printf("inh=%llx\n", data[0].inheritable |
	       (unsigned long long)data[1].inheritable << 32);
	printf("prm=%llx\n", data[0].permitted |
	       (unsigned long long)data[1].permitted << 32);
	printf("eff=%llx\n", data[0].effective |
	       (unsigned long long)data[1].effective << 32);
	printf("bnd=%llx\n", (unsigned long long)bnd);
	print_amb();
	printf("secure=%lu\n", getauxval(AT_SECURE));
	printf("uid=%u,%u,%u\n", ruid, euid, suid);
	printf("gid=%u,%u,%u\n", rgid, egid, sgid);
	printf("arg=%s\n", arg);
	if (raw)
		printf("raw=%d\n", try_raw());
	if (fifo)
		printf("fifo=%d\n", try_fifo());
	return fflush(stdout) ? 2 : 0;
}
