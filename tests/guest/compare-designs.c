// SPDX-License-Identifier: GPL-2.0
/*
 * One scenario, run on a kernel with the ambient set and on one with the
 * kernel.cap_inheritable sysctl, to compare what each design passes on.
 *
 *   compare-designs            run the scenario (as root)
 *   compare-designs report K   print row K for the calling process
 *   compare-designs helper     the helper H below (internal)
 *
 * The scenario: an unprivileged program P (uid 65534) holds CAP_NET_RAW
 * only to start a helper H, a plain program. Under the ambient design P
 * raises CAP_NET_RAW into pA; under the sysctl design root has written 13
 * to /proc/sys/kernel/cap_inheritable. H then runs (a) a plain program,
 * (b) a set-user-ID-root program and (c) a program with the file
 * capability CAP_CHOWN, permitted and effective. Separately, (d) an
 * unrelated process Q of uid 1000, which holds CAP_NET_RAW in pP and pE for
 * its own use and never asked for anything to be passed on, runs a plain
 * program.
 *
 * Every process reports itself on one line, tab-separated:
 *
 *   @@ cd-design ambient|sysctl|none
 *   @@ cd-row KEY uid=R/E pP=CAPS pE=CAPS pA=CAPS|n/a pI=CAPS raw=yes|no
 *   @@ cd-exit N
 *
 * CAPS is "all", "none" or a comma-separated list of names without the
 * "cap_" prefix; pA is "n/a" on a kernel without the ambient set; raw says
 * whether socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "caps.h"

#define SYSCTL_PATH	"/proc/sys/kernel/cap_inheritable"
#define DIR_PATH	"/tmp/compare-designs"
#define NOBODY		65534
#define OTHER_USER	1000
#define BIT_OF(cap)	(1ULL << (cap))

static const char *const cap_names[] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid",
	"kill", "setgid", "setuid", "setpcap", "linux_immutable",
	"net_bind_service", "net_broadcast", "net_admin", "net_raw",
	"ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot",
	"sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
	"sys_resource", "sys_time", "sys_tty_config", "mknod", "lease",
	"audit_write", "audit_control", "setfcap", "mac_override",
	"mac_admin", "syslog", "wake_alarm", "block_suspend", "audit_read",
	"perfmon", "bpf", "checkpoint_restore",
};

static int errors;

static void fail(const char *what)
{
	printf("@@ cd-error %s: %s\n", what, strerror(errno));
	fflush(stdout);
	errors++;
}

static void format_caps(uint64_t caps, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int cap;

	if (!caps) {
		snprintf(buf, size, "none");
		return;
	}
	if (caps == caps_all()) {
		snprintf(buf, size, "all");
		return;
	}
	buf[0] = '\0';
	for (cap = 0; cap < 64 && len < size; cap++) {
		if (!(caps & BIT_OF(cap)))
			continue;
		if (cap < sizeof(cap_names) / sizeof(cap_names[0]))
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "," : "", cap_names[cap]);
		else
			len += snprintf(buf + len, size - len, "%s%u",
					len ? "," : "", cap);
	}
}

/* CapAmb of /proc/self/status; 0 with the line, -1 without. */
static int get_ambient(uint64_t *amb)
{
	unsigned long long v;
	char line[256];
	int found = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapAmb: %llx", &v) == 1) {
			*amb = v;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* Print the row KEY for the calling process. */
static int report(const char *key)
{
	char p[512], e[512], a[512], i[512];
	struct caps c;
	uint64_t amb;
	int fd;

	if (caps_get(&c)) {
		fail("capget");
		return 2;
	}
	format_caps(c.permitted, p, sizeof(p));
	format_caps(c.effective, e, sizeof(e));
	format_caps(c.inheritable, i, sizeof(i));
	if (get_ambient(&amb))
		snprintf(a, sizeof(a), "n/a");
	else
		format_caps(amb, a, sizeof(a));
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	printf("@@ cd-row\t%s\tuid=%u/%u\tpP=%s\tpE=%s\tpA=%s\tpI=%s\traw=%s\n",
	       key, getuid(), geteuid(), p, e, a, i, fd >= 0 ? "yes" : "no");
	fflush(stdout);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Run "DIR_PATH/NAME report KEY" and wait for it. */
static void run_report(const char *name, const char *key)
{
	char path[128];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", DIR_PATH, name);
	pid = fork();
	if (pid < 0) {
		fail("fork");
		return;
	}
	if (pid == 0) {
		execl(path, name, "report", key, (char *)NULL);
		fail(path);
		_exit(2);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		errno = ECHILD;
		fail(path);
	}
}

/* H: report itself, then run (a), (b) and (c). */
static int helper(void)
{
	report("H");
	run_report("plain", "a");
	run_report("suid-root", "b");
	run_report("fcap-chown", "c");
	return errors ? 2 : 0;
}

/* Become uid and gid id with caps; 0 or -1. */
static int become(uid_t id, const struct caps *c)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(id, id, id) || setresuid(id, id, id) || caps_set(c))
		return -1;
	return 0;
}

static int wait_child(pid_t pid, const char *what)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = ECHILD;
		fail(what);
		return -1;
	}
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Copies of this program: plain, set-user-ID root, file capability chown. */
static int install_programs(void)
{
	static const struct {
		const char *name;
		mode_t mode;
		int fcap;
	} progs[] = {
		{ "plain", 0755, 0 },
		{ "suid-root", 04755, 0 },
		{ "fcap-chown", 0755, 1 },
	};
	struct vfs_cap_data d = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1U << CAP_CHOWN } },
	};
	char path[128], buf[65536];
	ssize_t n;
	size_t k;
	int in, out;

	if (mkdir(DIR_PATH, 0755) && errno != EEXIST)
		return -1;
	for (k = 0; k < sizeof(progs) / sizeof(progs[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", DIR_PATH, progs[k].name);
		in = open("/proc/self/exe", O_RDONLY);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
		if (in < 0 || out < 0)
			return -1;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, n) != n)
				return -1;
		close(in);
		if (close(out) || n < 0 || chown(path, 0, 0) ||
		    chmod(path, progs[k].mode))
			return -1;
		if (progs[k].fcap &&
		    setxattr(path, "security.capability", &d,
			     XATTR_CAPS_SZ_2, 0))
			return -1;
	}
	return 0;
}

static int scenario(void)
{
	const char *design = "none";
	struct caps c;
	pid_t pid;

	if (access(SYSCTL_PATH, F_OK) == 0)
		design = "sysctl";
	else if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW,
		       0, 0) >= 0)
		design = "ambient";
	printf("@@ cd-design %s\n", design);
	fflush(stdout);
	if (install_programs()) {
		fail("installing the programs under " DIR_PATH);
		return 2;
	}
	if (!strcmp(design, "sysctl") && write_file(SYSCTL_PATH, "13\n")) {
		fail("writing 13 to " SYSCTL_PATH);
		return 2;
	}

	/* P: uid 65534, CAP_NET_RAW only to start H */
	pid = fork();
	if (pid == 0) {
		c.permitted = c.effective = c.inheritable = BIT_OF(CAP_NET_RAW);
		if (become(NOBODY, &c)) {
			fail("P: becoming uid 65534 with CAP_NET_RAW");
			_exit(2);
		}
		if (!strcmp(design, "ambient") &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW,
			  0, 0)) {
			fail("P: PR_CAP_AMBIENT_RAISE");
			_exit(2);
		}
		report("P");
		execl(DIR_PATH "/plain", "plain", "helper", (char *)NULL);
		fail("P: exec the helper");
		_exit(2);
	}
	wait_child(pid, "P and H");

	/* Q: uid 1000, CAP_NET_RAW in pP and pE for itself, nothing else */
	pid = fork();
	if (pid == 0) {
		c.permitted = c.effective = BIT_OF(CAP_NET_RAW);
		c.inheritable = 0;
		if (become(OTHER_USER, &c)) {
			fail("Q: becoming uid 1000 with CAP_NET_RAW");
			_exit(2);
		}
		report("Q");
		run_report("plain", "d");
		_exit(errors ? 2 : 0);
	}
	wait_child(pid, "Q");

	if (!strcmp(design, "sysctl") && write_file(SYSCTL_PATH, "\n"))
		fail("clearing " SYSCTL_PATH);
	return errors ? 2 : 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 3 && !strcmp(argv[1], "report"))
		return report(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "helper"))
		return helper();
	if (argc != 1) {
		fprintf(stderr, "usage: compare-designs [report KEY | helper]\n");
		return 2;
	}
	rc = scenario();
	printf("@@ cd-exit %d\n", rc);
	return rc;
}
