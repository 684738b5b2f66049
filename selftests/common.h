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
#include <sys/resource.h>
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
#define ROOT_GID ((gid_t)0)
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

/*
 * The highest capability the running kernel knows about: from
 * /proc/sys/kernel/cap_last_cap, else the highest one that PR_CAPBSET_READ
 * accepts (it fails with EINVAL past the last).
 */
static inline int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int last = -1;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = -1;
		fclose(f);
	}
	if (last < 0) {
		while (last < 63 &&
		       prctl(PR_CAPBSET_READ, last + 1, 0UL, 0UL, 0UL) >= 0)
			last++;
	}
	return last < 0 ? CAP_LAST_CAP : last;
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
 * Reads an ambient set as the kernel reports it in the status file @path.
 * Returns -1 if there is no such file or line.
 */
static inline int status_amb_of(const char *path, __u64 *amb)
{
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen(path, "r");
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

/* Reads the ambient set of the calling thread from its status file. */
static inline int status_amb(__u64 *amb)
{
	return status_amb_of("/proc/thread-self/status", amb);
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

/* Writes @text to the file @path, which exists; returns false on failure. */
static inline bool write_text(const char *path, const char *text)
{
	const ssize_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, len) == len;
	return !close(fd) && ok;
}

/*
 * Whether @id is mapped by the user or group ID map @path of this process.
 * Without user namespaces there is no map, and every ID exists.
 */
static inline bool id_is_mapped(const char *path, unsigned long id)
{
	unsigned long first, lower, count;
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return true;
	while (fscanf(f, "%lu %lu %lu", &first, &lower, &count) == 3)
		if (id >= first && id - first < count)
			found = true;
	fclose(f);
	return found;
}

/*
 * Whether this process can take on the IDs of the test users and groups:
 * not in a user namespace of setup_root(), where only root exists.
 */
static inline bool can_switch_ids(void)
{
	return id_is_mapped("/proc/self/uid_map", NOBODY_UID) &&
	       id_is_mapped("/proc/self/uid_map", OTHER_UID) &&
	       id_is_mapped("/proc/self/gid_map", NOBODY_GID) &&
	       id_is_mapped("/proc/self/gid_map", OTHER_GID);
}

#define NEED_IDS_REASON \
	"needs user IDs other than the caller's: run as root in the initial user namespace"

/*
 * Moves the caller into a new user namespace where @uid and @gid, the only
 * IDs there, stand for its effective IDs.  There it holds every capability
 * in pP and pE, none in pI or pA, and setgroups(2) is denied where the
 * kernel has /proc/PID/setgroups: an unprivileged caller may map its own
 * group only so.  Returns false if the namespace cannot be created or its
 * maps cannot be written.
 */
static inline bool enter_userns(uid_t uid, gid_t gid)
{
	const uid_t outer_uid = geteuid();
	const gid_t outer_gid = getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER))
		return false;
	snprintf(map, sizeof(map), "%u %u 1", uid, outer_uid);
	if (!write_text("/proc/self/uid_map", map))
		return false;
	/*
	 * A kernel without this file (Linux before 3.19, or another
	 * implementation of the ABI) needs no such denial.
	 */
	if (!write_text("/proc/self/setgroups", "deny") && errno != ENOENT)
		return false;
	snprintf(map, sizeof(map), "%u %u 1", gid, outer_gid);
	return write_text("/proc/self/gid_map", map);
}

/*
 * Whether @err says that the kernel does not implement what was asked: the
 * errno of an unknown system call, or EOPNOTSUPP.  Other implementations
 * of the ABI answer so for the facilities they lack; Linux never does for
 * the calls the tests make.
 */
static inline bool not_implemented(int err)
{
	const int saved = errno;
	int unknown;

	syscall(-1L);
	unknown = errno;
	errno = saved;
	return err == unknown || err == EOPNOTSUPP;
}

static inline int set_securebits(unsigned long bits)
{
	return prctl(PR_SET_SECUREBITS, bits, 0UL, 0UL, 0UL);
}

/*
 * Makes the caller root with every capability: root of the initial user
 * namespace if it is, else root of a new user namespace of its own (see
 * can_switch_ids()).  Returns NULL, or why it cannot.
 */
static inline const char *become_full_root(void)
{
	if (!is_full_root() &&
	    (!enter_userns(ROOT_UID, ROOT_GID) || !is_full_root()))
		return "needs root with all capabilities, or a user namespace";
	return NULL;
}

/*
 * Prepares a test that runs as root with every capability (see
 * become_full_root()).  Then undoes what the parent may have set
 * (securebits, RLIMIT_RTPRIO), sets pI = pP and empties pA, which fails
 * without PR_CAP_AMBIENT.  Returns NULL, or why the test cannot run.
 */
static inline const char *setup_root(struct __test_metadata *const _metadata)
{
	const struct rlimit no_rt = {};
	struct rlimit rt;
	const char *why;
	int bits;

	why = become_full_root();
	if (why)
		return why;
	/*
	 * Every securebit can be cleared but the locks (the odd bits): a
	 * locked bit that is set stays set, and the tests cannot run.
	 */
	bits = prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL);
	/*
	 * A kernel without the securebits has none to clear: the tests that
	 * set one fail there, the others still judge their rules.
	 */
	if (bits > 0 && set_securebits((unsigned long)bits & 0xaaaaaaaaUL))
		return "the securebits are locked and cannot be cleared";
	/*
	 * Real-time priority allowed without CAP_SYS_NICE: undone where set
	 * (gVisor refuses even to set an RLIMIT_RTPRIO of 0 again).
	 */
	ASSERT_EQ(0, getrlimit(RLIMIT_RTPRIO, &rt));
	if (rt.rlim_cur || rt.rlim_max)
		ASSERT_EQ(0, setrlimit(RLIMIT_RTPRIO, &no_rt));
	fill_inheritable(_metadata);
	ASSERT_EQ(0, amb_clear_all())
	{
		TH_LOG("PR_CAP_AMBIENT_CLEAR_ALL failed: %s", strerror(errno));
	}
	ASSERT_EQ(EMPTY_SET, get_amb(_metadata));
	return NULL;
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

#endif /* _SELFTESTS_CAPABILITIES_COMMON_H */
