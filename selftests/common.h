/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ambient capability tests - common helpers
 *
 * Only raw system calls and libc are used, so that the tests do not depend
 * on a capability library that could hide or emulate kernel behaviour.
 */

#ifndef _SELFTESTS_CAPABILITIES_COMMON_H
#define _SELFTESTS_CAPABILITIES_COMMON_H

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <linux/types.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_IS_SET
#define PR_CAP_AMBIENT_IS_SET 1
#endif
#ifndef PR_CAP_AMBIENT_RAISE
#define PR_CAP_AMBIENT_RAISE 2
#endif
#ifndef PR_CAP_AMBIENT_LOWER
#define PR_CAP_AMBIENT_LOWER 3
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#ifndef SECBIT_KEEP_CAPS
#define SECBIT_KEEP_CAPS 0x10
#endif
#ifndef SECBIT_NO_CAP_AMBIENT_RAISE
#define SECBIT_NO_CAP_AMBIENT_RAISE 0x40
#endif
#ifndef SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED
#define SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED 0x80
#endif

#ifndef XATTR_NAME_CAPS
#define XATTR_NAME_CAPS "security.capability"
#endif

/* The helper program that reports the credentials it was started with. */
#define DUMP_NAME "cap_dump"

/* An unprivileged user and group, and another one, as found in most systems. */
#define ROOT_UID ((uid_t)0)
#define NOBODY_UID ((uid_t)65534)
#define NOBODY_GID ((gid_t)65534)
#define OTHER_UID ((uid_t)1234)
#define OTHER_GID ((gid_t)1234)

/* A private tmpfs is mounted here, in a private mount namespace. */
#define WORK_DIR "/tmp"

#define BIT_CAP(cap) (1ULL << (cap))
#define EMPTY_SET 0ULL

struct capsets {
	__u64 inh;
	__u64 prm;
	__u64 eff;
	__u64 bnd;
	__u64 amb;
};

static inline int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

/* Every capability the running kernel knows about. */
static inline __u64 all_caps(void)
{
	const int last = last_cap();

	if (last >= 63)
		return ~0ULL;
	return BIT_CAP(last + 1) - 1;
}

static inline int raw_capget(__u64 *eff, __u64 *prm, __u64 *inh)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	*eff = data[0].effective | (__u64)data[1].effective << 32;
	*prm = data[0].permitted | (__u64)data[1].permitted << 32;
	*inh = data[0].inheritable | (__u64)data[1].inheritable << 32;
	return 0;
}

static inline int raw_capset(__u64 eff, __u64 prm, __u64 inh)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{
			.effective = (__u32)eff,
			.permitted = (__u32)prm,
			.inheritable = (__u32)inh,
		},
		{
			.effective = (__u32)(eff >> 32),
			.permitted = (__u32)(prm >> 32),
			.inheritable = (__u32)(inh >> 32),
		},
	};

	return syscall(SYS_capset, &hdr, data);
}

/*
 * Reads the ambient set of the calling thread as the kernel reports it in
 * its status file.  Returns -1 if there is no such line.
 */
static inline int status_amb(__u64 *amb)
{
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen("/proc/thread-self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapAmb:", 7)) {
			*amb = strtoull(line + 7, NULL, 16);
			found = true;
			break;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/* Reads the bounding set with PR_CAPBSET_READ. */
static inline __u64 bounding_set(void)
{
	const int last = last_cap();
	__u64 bnd = 0;
	int cap;

	for (cap = 0; cap <= last; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			bnd |= BIT_CAP(cap);
	return bnd;
}

static inline int amb_is_set(int cap)
{
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
}

static inline int amb_raise(int cap)
{
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
}

static inline int amb_lower(int cap)
{
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0);
}

static inline int amb_clear_all(void)
{
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

/* Returns the ambient set from the status file, failing if it is absent. */
static inline __u64 get_amb(struct __test_metadata *const _metadata)
{
	__u64 amb = 0;

	ASSERT_EQ(0, status_amb(&amb))
	{
		TH_LOG("No CapAmb line in /proc/thread-self/status");
	}
	return amb;
}

static inline void get_capsets(struct __test_metadata *const _metadata,
			       struct capsets *c)
{
	ASSERT_EQ(0, raw_capget(&c->eff, &c->prm, &c->inh));
	c->bnd = bounding_set();
	c->amb = get_amb(_metadata);
}

static inline void set_caps(struct __test_metadata *const _metadata,
			    __u64 eff, __u64 prm, __u64 inh)
{
	ASSERT_EQ(0, raw_capset(eff, prm, inh))
	{
		TH_LOG("capset failed: %s", strerror(errno));
	}
}

/* Raises @cap in the ambient set, which must succeed. */
static inline void raise_amb(struct __test_metadata *const _metadata, int cap)
{
	ASSERT_EQ(0, amb_raise(cap))
	{
		TH_LOG("PR_CAP_AMBIENT_RAISE of %d failed: %s", cap,
		       strerror(errno));
	}
	ASSERT_EQ(1, amb_is_set(cap));
}

/* Whether the caller is root and holds all capabilities. */
static inline bool is_full_root(void)
{
	__u64 eff, prm, inh;

	if (geteuid() != 0 || raw_capget(&eff, &prm, &inh))
		return false;
	return (prm & all_caps()) == all_caps();
}

/* Makes the inheritable set equal to the permitted set. */
static inline void fill_inheritable(struct __test_metadata *const _metadata)
{
	__u64 eff, prm, inh;

	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	set_caps(_metadata, eff, prm, prm);
}

/* Sets pI = pP and empties pA; fails without PR_CAP_AMBIENT. */
static inline void setup_root(struct __test_metadata *const _metadata)
{
	fill_inheritable(_metadata);
	ASSERT_EQ(0, amb_clear_all())
	{
		TH_LOG("PR_CAP_AMBIENT_CLEAR_ALL failed: %s", strerror(errno));
	}
	ASSERT_EQ(EMPTY_SET, get_amb(_metadata));
}

/*
 * Turns root into @uid/@gid without supplementary groups, holding exactly
 * @caps in its effective, permitted and inheritable sets.  The ambient set
 * is empty afterwards.  Raw system calls change the IDs of this thread only.
 */
static inline void become_user(struct __test_metadata *const _metadata,
			       uid_t uid, gid_t gid, __u64 caps)
{
	fill_inheritable(_metadata);
	ASSERT_EQ(0, prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	ASSERT_EQ(0, syscall(SYS_setgroups, 0, NULL));
	ASSERT_EQ(0, syscall(SYS_setresgid, gid, gid, gid));
	ASSERT_EQ(0, syscall(SYS_setresuid, uid, uid, uid));
	set_caps(_metadata, caps, caps, caps);
	ASSERT_EQ(0, prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0));
}

/*
 * Gets the path of a program installed next to the running test, and
 * returns whether it can be executed.
 */
static inline bool helper_path(struct __test_metadata *const _metadata,
			       const char *name, char *buf, size_t size)
{
	char exe[PATH_MAX] = {};
	ssize_t len;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	ASSERT_GT(size, (size_t)snprintf(buf, size, "%s/%s", dirname(exe),
					 name));
	return !access(buf, X_OK);
}

/*
 * Enters a private mount namespace and mounts a fresh tmpfs on WORK_DIR,
 * where file capabilities and set-user-ID bits are honoured.
 */
static inline void mount_workdir(struct __test_metadata *const _metadata)
{
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	if (mkdir(WORK_DIR, 01777))
		ASSERT_EQ(EEXIST, errno);
	ASSERT_EQ(0, mount("tmpfs", WORK_DIR, "tmpfs", 0, "mode=0755"))
	{
		TH_LOG("Failed to mount tmpfs: %s", strerror(errno));
	}
}

/*
 * Mounts a fresh tmpfs with MS_NOSUID on @dir, a new directory below
 * WORK_DIR: set-user-ID and set-group-ID bits on its files have no effect.
 */
static inline void mount_nosuid_dir(struct __test_metadata *const _metadata,
				    const char *dir)
{
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, mount("tmpfs", dir, "tmpfs", MS_NOSUID, "mode=0755"))
	{
		TH_LOG("Failed to mount nosuid tmpfs: %s", strerror(errno));
	}
}

/* Copies @src to @dst, then sets its owner and mode. */
static inline void copy_file(struct __test_metadata *const _metadata,
			     const char *src, const char *dst,
			     uid_t uid, gid_t gid, mode_t mode)
{
	char buf[4096];
	ssize_t len;
	int in, out;

	in = open(src, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, in);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	ASSERT_LE(0, out);
	while ((len = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(len, write(out, buf, len));
	ASSERT_EQ(0, len);
	ASSERT_EQ(0, fchown(out, uid, gid));
	/* Changing the owner clears the set-ID bits: set the mode last. */
	ASSERT_EQ(0, fchmod(out, mode));
	ASSERT_EQ(0, close(out));
	ASSERT_EQ(0, close(in));
}

/* Writes a file holding @text. */
static inline void write_file(struct __test_metadata *const _metadata,
			      const char *path, const char *text, mode_t mode)
{
	const ssize_t len = strlen(text);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ASSERT_LE(0, fd);
	ASSERT_EQ(len, write(fd, text, len));
	ASSERT_EQ(0, fchmod(fd, mode));
	ASSERT_EQ(0, close(fd));
}

/* Gives @path the version 2 file capabilities @prm, @inh and @effective. */
static inline void set_file_caps(struct __test_metadata *const _metadata,
				 const char *path, __u64 prm, __u64 inh,
				 bool effective)
{
	struct vfs_cap_data data = {
		.magic_etc = htole32(VFS_CAP_REVISION_2 |
				     (effective ? VFS_CAP_FLAGS_EFFECTIVE : 0)),
		.data = {
			{
				.permitted = htole32((__u32)prm),
				.inheritable = htole32((__u32)inh),
			},
			{
				.permitted = htole32((__u32)(prm >> 32)),
				.inheritable = htole32((__u32)(inh >> 32)),
			},
		},
	};

	ASSERT_EQ(0, setxattr(path, XATTR_NAME_CAPS, &data, sizeof(data), 0))
	{
		TH_LOG("Failed to set file capabilities: %s", strerror(errno));
	}
}

/*
 * Creates a user namespace in a child, which holds it until it is opened,
 * and returns a file descriptor for it, or -1 if the child could not create
 * it.  The namespace lives on as long as the descriptor is open.
 */
static inline int open_child_userns(struct __test_metadata *const _metadata)
{
	char path[64], c = 0;
	int ready[2], done[2];
	int fd = -1, status;
	pid_t pid;

	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(done, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(2);
		/* Holds the namespace until the parent closes its end. */
		if (read(done[0], &c, 1) != 0)
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(0, close(ready[1]));
	ASSERT_EQ(0, close(done[0]));
	if (read(ready[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd)
		{
			TH_LOG("Failed to open %s: %s", path, strerror(errno));
		}
	}
	ASSERT_EQ(0, close(done[1]));
	ASSERT_EQ(0, close(ready[0]));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/* The child exits with 1 if unshare(2) failed, else with 0. */
	ASSERT_EQ(fd < 0, WEXITSTATUS(status));
	return fd;
}

/* What the dumper reported about the credentials it was started with. */
struct dump {
	/* Wait status of the started program. */
	int status;
	struct capsets caps;
	/* Whether the dumper found a CapAmb line in its status file. */
	bool has_amb;
	/* Value of getauxval(AT_SECURE), or -1 if not reported. */
	long secure;
	uid_t uid[3];
	gid_t gid[3];
	/* Result of the requested operation: 0 or an errno, -1 if not tried. */
	int raw;
	int fifo;
	/* First non-option argument, e.g. the script when an interpreter. */
	char arg[PATH_MAX];
};

/* The dumped program ran with these ambient, permitted and effective sets. */
static inline void expect_exec_sets(struct __test_metadata *_metadata,
				    const struct dump *d,
				    __u64 amb, __u64 prm, __u64 eff)
{
	EXPECT_EQ(amb, d->caps.amb);
	EXPECT_EQ(prm, d->caps.prm);
	EXPECT_EQ(eff, d->caps.eff);
}

static inline void parse_dump(char *out, struct dump *d)
{
	char *line, *save = NULL;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, '=');

		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "inh")) {
			d->caps.inh = strtoull(val, NULL, 16);
		} else if (!strcmp(line, "prm")) {
			d->caps.prm = strtoull(val, NULL, 16);
		} else if (!strcmp(line, "eff")) {
			d->caps.eff = strtoull(val, NULL, 16);
		} else if (!strcmp(line, "bnd")) {
			d->caps.bnd = strtoull(val, NULL, 16);
		} else if (!strcmp(line, "amb")) {
			d->has_amb = strcmp(val, "none");
			d->caps.amb = strtoull(val, NULL, 16);
		} else if (!strcmp(line, "secure")) {
			d->secure = strtol(val, NULL, 10);
		} else if (!strcmp(line, "uid")) {
			if (sscanf(val, "%u,%u,%u", &d->uid[0], &d->uid[1],
				   &d->uid[2]) != 3)
				memset(d->uid, 0xff, sizeof(d->uid));
		} else if (!strcmp(line, "gid")) {
			if (sscanf(val, "%u,%u,%u", &d->gid[0], &d->gid[1],
				   &d->gid[2]) != 3)
				memset(d->gid, 0xff, sizeof(d->gid));
		} else if (!strcmp(line, "raw")) {
			d->raw = strtol(val, NULL, 10);
		} else if (!strcmp(line, "fifo")) {
			d->fifo = strtol(val, NULL, 10);
		} else if (!strcmp(line, "arg")) {
			snprintf(d->arg, sizeof(d->arg), "%s", val);
		}
	}
}

/*
 * Collects what the dumper started as @pid, possibly by @name, printed to
 * @fd, and waits for it to exit.
 */
static inline void collect_dump(struct __test_metadata *const _metadata,
				pid_t pid, int fd, const char *name,
				struct dump *d)
{
	char out[4096] = {};
	size_t len = 0;
	ssize_t ret;

	memset(d, 0, sizeof(*d));
	d->secure = -1;
	d->raw = -1;
	d->fifo = -1;
	memset(d->uid, 0xff, sizeof(d->uid));
	memset(d->gid, 0xff, sizeof(d->gid));

	while ((ret = read(fd, out + len, sizeof(out) - 1 - len)) > 0)
		len += ret;
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(pid, waitpid(pid, &d->status, 0));
	parse_dump(out, d);

	ASSERT_TRUE(WIFEXITED(d->status));
	ASSERT_EQ(0, WEXITSTATUS(d->status))
	{
		TH_LOG("%s exited with %d", name, WEXITSTATUS(d->status));
	}
	ASSERT_TRUE(d->has_amb)
	{
		TH_LOG("%s did not report an ambient set", name);
	}
}

/*
 * Runs @argv with its standard output in a pipe, and collects what the
 * dumper, started directly or by @argv, printed there.
 */
static inline void run_dump(struct __test_metadata *const _metadata,
			    const char *const argv[], struct dump *d)
{
	int pipefd[2];
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ASSERT_EQ(0, close(pipefd[1]));
	collect_dump(_metadata, pid, pipefd[0], argv[0], d);
}

#endif /* _SELFTESTS_CAPABILITIES_COMMON_H */
