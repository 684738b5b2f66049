// SPDX-License-Identifier: GPL-2.0
/*
 * Ambient capability set across execve(2): which programs get it, which
 * lose it, and the use case it exists for, an unprivileged user started by
 * setpriv(1) or capsh(1) with a capability that its children keep using;
 * and how audit records of capability changes report it.
 *
 * Each test mounts its own tmpfs in a private mount namespace and copies the
 * dumper there, so that it can set file capabilities and set-ID bits on it.
 * The tests need root of the initial user namespace: they switch to other
 * user IDs, and the dumper's CAP_NET_RAW and CAP_SYS_NICE act only there.
 */

#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common.h"

#define DUMP_PATH WORK_DIR "/" DUMP_NAME
#define FCAP_PATH WORK_DIR "/fcap_dump"
#define SETID_PATH WORK_DIR "/setid_dump"
#define SCRIPT_PATH WORK_DIR "/script"
#define NOSUID_DIR WORK_DIR "/nosuid"
#define NOSUID_PATH NOSUID_DIR "/setid_dump"

/* What the unprivileged user holds in pE, pP and pI before the exec... */
#define HELD_CAPS \
	(BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_SYS_NICE) | BIT_CAP(CAP_CHOWN))
/* ... and what it raises in pA. */
#define AMB_CAPS (BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_SYS_NICE))

/*
 * Gets the path of a program installed next to the running test, and
 * returns whether it can be executed.
 */
static bool helper_path(struct __test_metadata *const _metadata,
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
 * where file capabilities and set-user-ID bits are honoured.  Returns
 * NULL, or why it cannot: a kernel without mount namespaces.
 */
static const char *mount_workdir(struct __test_metadata *const _metadata)
{
	int ret = unshare(CLONE_NEWNS);

	if (ret && (errno == EINVAL || not_implemented(errno)))
		return "no mount namespaces here (unshare(CLONE_NEWNS) fails)";
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	if (mkdir(WORK_DIR, 01777))
		ASSERT_EQ(EEXIST, errno);
	ASSERT_EQ(0, mount("tmpfs", WORK_DIR, "tmpfs", 0, "mode=0755"))
	{
		TH_LOG("Failed to mount tmpfs: %s", strerror(errno));
	}
	return NULL;
}

/*
 * Mounts a fresh tmpfs with MS_NOSUID on @dir, a new directory below
 * WORK_DIR: set-user-ID and set-group-ID bits on its files have no effect.
 */
static void mount_nosuid_dir(struct __test_metadata *const _metadata,
			     const char *dir)
{
	ASSERT_EQ(0, mkdir(dir, 0755));
	ASSERT_EQ(0, mount("tmpfs", dir, "tmpfs", MS_NOSUID, "mode=0755"))
	{
		TH_LOG("Failed to mount nosuid tmpfs: %s", strerror(errno));
	}
}

/* Copies what @in reads to @dst, then sets its owner and mode. */
static void copy_fd(struct __test_metadata *const _metadata, int in,
		    const char *dst, uid_t uid, gid_t gid, mode_t mode)
{
	char buf[4096];
	ssize_t len;
	int out;

	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	ASSERT_LE(0, out);
	while ((len = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(len, write(out, buf, len));
	ASSERT_EQ(0, len);
	ASSERT_EQ(0, fchown(out, uid, gid));
	/* Changing the owner clears the set-ID bits: set the mode last. */
	ASSERT_EQ(0, fchmod(out, mode));
	ASSERT_EQ(0, close(out));
}

/* Copies @src to @dst, a new file of @uid and @gid with @mode. */
static void copy_file(struct __test_metadata *const _metadata,
		      const char *src, const char *dst,
		      uid_t uid, gid_t gid, mode_t mode)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, in);
	copy_fd(_metadata, in, dst, uid, gid, mode);
	ASSERT_EQ(0, close(in));
}

/*
 * Mounts the work directory and copies the dumper at @dump into it.  The
 * dumper is opened first: the suite may be installed under WORK_DIR, which
 * the new tmpfs hides.  Returns NULL, or why the test cannot run.
 */
static const char *setup_workdir(struct __test_metadata *const _metadata,
				 const char *dump)
{
	int in = open(dump, O_RDONLY | O_CLOEXEC);
	const char *why;

	ASSERT_LE(0, in);
	why = mount_workdir(_metadata);
	if (!why)
		copy_fd(_metadata, in, DUMP_PATH, 0, 0, 0755);
	ASSERT_EQ(0, close(in));
	return why;
}

/* Writes a file holding @text. */
static void write_file(struct __test_metadata *const _metadata,
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

#define NO_FCAPS_REASON \
	"no file capabilities: setxattr(security.capability) is not supported here"

/*
 * Gives @path the version 2 file capabilities @prm, @inh and @effective.
 * Returns false, for the test to SKIP, where the file system does not
 * support that attribute (EOPNOTSUPP); every other failure is a FAIL.
 */
static bool set_file_caps(struct __test_metadata *const _metadata,
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
	int ret;

	ret = setxattr(path, XATTR_NAME_CAPS, &data, sizeof(data), 0);
	if (ret && errno == EOPNOTSUPP)
		return false;
	ASSERT_EQ(0, ret)
	{
		TH_LOG("Failed to set file capabilities: %s", strerror(errno));
	}
	return true;
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
static void expect_exec_sets(struct __test_metadata *_metadata,
			     const struct dump *d,
			     __u64 amb, __u64 prm, __u64 eff)
{
	EXPECT_EQ(amb, d->caps.amb);
	EXPECT_EQ(prm, d->caps.prm);
	EXPECT_EQ(eff, d->caps.eff);
}

static void parse_dump(char *out, struct dump *d)
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
static void collect_dump(struct __test_metadata *const _metadata,
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
 * Starts @argv with its standard output in a pipe and returns the child's
 * PID; the read end of the pipe is put in *@fd.  With @traced, the child
 * first asks to be traced (PTRACE_TRACEME) and exits with 125 if it cannot.
 */
static pid_t spawn_dump(struct __test_metadata *const _metadata,
			const char *const argv[], bool traced, int *fd)
{
	int pipefd[2];
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(126);
		if (traced && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(125);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ASSERT_EQ(0, close(pipefd[1]));
	*fd = pipefd[0];
	return pid;
}

/*
 * Runs @argv with its standard output in a pipe, and collects what the
 * dumper, started directly or by @argv, printed there.
 */
static void run_dump(struct __test_metadata *const _metadata,
		     const char *const argv[], struct dump *d)
{
	int fd;
	pid_t pid = spawn_dump(_metadata, argv, false, &fd);

	collect_dump(_metadata, pid, fd, argv[0], d);
}

/*
 * Whether the kernel has SCHED_FIFO at all (another implementation of the
 * ABI may not): where it has not, what CAP_SYS_NICE allows is not checked.
 */
static bool fifo_exists = true;

/*
 * Whether the capabilities the dumper tries, CAP_NET_RAW for a raw socket
 * and CAP_SYS_NICE for SCHED_FIFO, act here for root: not so in a user
 * namespace other than the initial one, or without real-time runtime.
 * Sets fifo_exists.  Returns NULL, or why not.
 */
static const char *probe_caps_act(void)
{
	struct sched_param param = {
		.sched_priority = 1,
	};
	int fd;

	fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd < 0)
		return errno == EPERM ?
			"root cannot open a raw socket here: needs the initial user namespace" :
			"no raw sockets here (socket(AF_INET, SOCK_RAW) fails)";
	close(fd);
	fifo_exists = true;
	if (sched_setscheduler(0, SCHED_FIFO, &param)) {
		if (errno == EPERM)
			return "root cannot use SCHED_FIFO here: needs the initial user namespace";
		fifo_exists = false;
		return NULL;
	}
	param.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &param);
	return NULL;
}

/*
 * Prepares an exec test: root as setup_root() leaves it, able to take on
 * other IDs and to use the capabilities the dumper tries, with the dumper
 * in a fresh work directory.  Returns NULL, or why the test cannot run.
 */
static const char *setup_exec(struct __test_metadata *const _metadata)
{
	char dump[PATH_MAX];
	const char *why;

	why = setup_root(_metadata);
	if (why)
		return why;
	if (!can_switch_ids())
		return NEED_IDS_REASON;
	why = probe_caps_act();
	if (why)
		return why;
	if (!helper_path(_metadata, DUMP_NAME, dump, sizeof(dump)))
		return DUMP_NAME " not found";
	return setup_workdir(_metadata, dump);
}

/*
 * Becomes an unprivileged user holding HELD_CAPS in pE, pP and pI, and
 * AMB_CAPS in pA.
 */
static void become_user_with_ambient(struct __test_metadata *const _metadata)
{
	become_user(_metadata, NOBODY_UID, NOBODY_GID, HELD_CAPS);
	ASSERT_EQ(EMPTY_SET, get_amb(_metadata));
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
}

static void run_prog(struct __test_metadata *const _metadata,
		     const char *path, struct dump *d)
{
	const char *const argv[] = { path, "--raw", "--fifo", NULL };

	run_dump(_metadata, argv, d);
}

/*
 * The dumped program could use CAP_NET_RAW (a raw socket) and CAP_SYS_NICE
 * (SCHED_FIFO) exactly when they are in @eff.
 */
static void expect_usable(struct __test_metadata *const _metadata,
			  const struct dump *d, __u64 eff)
{
	EXPECT_EQ(eff & BIT_CAP(CAP_NET_RAW) ? 0 : EPERM, d->raw);
	if (fifo_exists)
		EXPECT_EQ(eff & BIT_CAP(CAP_SYS_NICE) ? 0 : EPERM, d->fifo);
}

/*
 * Sets @bits in the securebits, keeping those already set.  Returns false
 * if the parent locked one of them clear.
 */
static bool add_securebits(struct __test_metadata *const _metadata, int bits)
{
	const int old = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	ASSERT_LE(0, old);
	/* A lock bit is the one above the bit it locks. */
	if (old & ((bits & ~old) << 1))
		return false;
	ASSERT_EQ(0, prctl(PR_SET_SECUREBITS, old | bits, 0, 0, 0));
	return true;
}

#define LOCKED_REASON "a securebit the test sets is locked clear by the parent"

/*
 * A set that stands for every capability of the running kernel in the
 * tables below: their sets are masked with all_caps().
 */
#define ALL_CAPS (~0ULL)

/*
 * The exec matrix of an unprivileged user who holds HELD_CAPS in pP, pE and
 * pI, and AMB_CAPS in pA: which file it runs, how, and what the program
 * gets.  A row names the rule it pins.
 */
FIXTURE(exec_as_user) {};

FIXTURE_VARIANT(exec_as_user) {
	/* With a mode, a copy of the dumper of this owner, group and mode. */
	uid_t file_uid;
	gid_t file_gid;
	mode_t file_mode;
	/* The copy is on a nosuid mount. */
	bool nosuid;
	/* The copy has file capabilities fP, fI and fE. */
	bool fcaps;
	__u64 fp;
	__u64 fi;
	bool fe;
	/* Before the exec: securebits set as root, then pA changes. */
	int secbits;
	__u64 lower;
	bool clear_all;
	bool no_new_privs;
	/* What the program gets: pA', pP' = pE', its IDs and AT_SECURE. */
	__u64 amb;
	__u64 prm;
	uid_t euid;
	gid_t egid;
	long secure;
};

/* A plain file gets pP' = pE' = pA, pI' = pI, and the exec is not secure. */
FIXTURE_VARIANT_ADD(exec_as_user, plain_file_gets_ambient_caps) {
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/* A lowered capability is not passed, although still in pP and pI. */
FIXTURE_VARIANT_ADD(exec_as_user, lowered_cap_is_not_passed) {
	.lower = BIT_CAP(CAP_SYS_NICE),
	.amb = BIT_CAP(CAP_NET_RAW),
	.prm = BIT_CAP(CAP_NET_RAW),
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/* An empty pA gives an unprivileged user no capability at all. */
FIXTURE_VARIANT_ADD(exec_as_user, empty_ambient_gives_no_caps) {
	.clear_all = true,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/* File capabilities clear pA: pP' = (pI & fI) | fP, and the exec is secure. */
FIXTURE_VARIANT_ADD(exec_as_user, file_caps_clear_ambient) {
	.file_mode = 0755,
	.fcaps = true,
	.fp = BIT_CAP(CAP_DAC_OVERRIDE),
	.fi = BIT_CAP(CAP_NET_RAW),
	.fe = true,
	.prm = BIT_CAP(CAP_DAC_OVERRIDE) | BIT_CAP(CAP_NET_RAW),
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
	.secure = 1,
};

/* An exec that gains file capabilities is secure, even without fI. */
FIXTURE_VARIANT_ADD(exec_as_user, file_caps_exec_is_secure) {
	.file_mode = 0755,
	.fcaps = true,
	.fp = BIT_CAP(CAP_DAC_OVERRIDE),
	.fe = true,
	.prm = BIT_CAP(CAP_DAC_OVERRIDE),
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
	.secure = 1,
};

/* Even file capabilities that grant nothing clear pA. */
FIXTURE_VARIANT_ADD(exec_as_user, empty_file_caps_clear_ambient) {
	.file_mode = 0755,
	.fcaps = true,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/* A set-user-ID file clears pA. */
FIXTURE_VARIANT_ADD(exec_as_user, setuid_file_clears_ambient) {
	.file_uid = OTHER_UID,
	.file_mode = 04755,
	.euid = OTHER_UID,
	.egid = NOBODY_GID,
	.secure = 1,
};

/* A set-group-ID file clears pA. */
FIXTURE_VARIANT_ADD(exec_as_user, setgid_file_clears_ambient) {
	.file_gid = OTHER_GID,
	.file_mode = 02755,
	.euid = NOBODY_UID,
	.egid = OTHER_GID,
	.secure = 1,
};

/*
 * A set-user-ID-root file gives the caller root's capabilities,
 * pP' = pE' = pBnd | pI, and clears pA.
 */
FIXTURE_VARIANT_ADD(exec_as_user, setuid_root_file_gives_root_caps) {
	.file_mode = 04755,
	.prm = ALL_CAPS,
	.euid = ROOT_UID,
	.egid = NOBODY_GID,
	.secure = 1,
};

/*
 * Under SECBIT_NOROOT a set-user-ID-root file gives no capability, and the
 * set-user-ID exec still clears pA.
 */
FIXTURE_VARIANT_ADD(exec_as_user, setuid_root_file_under_noroot_gives_nothing) {
	.file_mode = 04755,
	.secbits = SECBIT_NOROOT,
	.euid = ROOT_UID,
	.egid = NOBODY_GID,
	.secure = 1,
};

/*
 * A set-user-ID and set-group-ID file on a nosuid mount keeps pA: the bits
 * have no effect, so the exec changes no ID.
 */
FIXTURE_VARIANT_ADD(exec_as_user, nosuid_mount_setid_file_keeps_ambient) {
	.file_uid = OTHER_UID,
	.file_gid = OTHER_GID,
	.file_mode = 06755,
	.nosuid = true,
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/*
 * File capabilities on a nosuid mount are ignored: the exec is that of a
 * plain file, which keeps pA and gains nothing from the file.
 */
FIXTURE_VARIANT_ADD(exec_as_user, nosuid_mount_file_caps_keep_ambient) {
	.file_mode = 0755,
	.nosuid = true,
	.fcaps = true,
	.fp = BIT_CAP(CAP_DAC_OVERRIDE),
	.fe = true,
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/*
 * A set-user-ID file owned by the caller keeps pA: the effective user ID
 * after the exec is the caller's, both its real and its effective one.
 */
FIXTURE_VARIANT_ADD(exec_as_user, setuid_file_of_own_uid_keeps_ambient) {
	.file_uid = NOBODY_UID,
	.file_mode = 04755,
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/*
 * A set-group-ID file of the caller's group keeps pA: the effective group
 * ID after the exec is the caller's, both its real and its effective one.
 */
FIXTURE_VARIANT_ADD(exec_as_user, setgid_file_of_own_gid_keeps_ambient) {
	.file_gid = NOBODY_GID,
	.file_mode = 02755,
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/* PR_SET_NO_NEW_PRIVS does not stop pA: it grants nothing new. */
FIXTURE_VARIANT_ADD(exec_as_user, no_new_privs_keeps_ambient) {
	.no_new_privs = true,
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/*
 * Under PR_SET_NO_NEW_PRIVS set-user-ID and set-group-ID bits keep pA: the
 * exec changes no ID.
 */
FIXTURE_VARIANT_ADD(exec_as_user, no_new_privs_setid_file_keeps_ambient) {
	.file_uid = OTHER_UID,
	.file_gid = OTHER_GID,
	.file_mode = 06755,
	.no_new_privs = true,
	.amb = AMB_CAPS,
	.prm = AMB_CAPS,
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
};

/*
 * Under PR_SET_NO_NEW_PRIVS file capabilities still clear pA: here pP' is
 * pI & fI alone, without CAP_SYS_NICE from pA.
 */
FIXTURE_VARIANT_ADD(exec_as_user, no_new_privs_file_caps_clear_ambient) {
	.file_mode = 0755,
	.fcaps = true,
	.fi = BIT_CAP(CAP_NET_RAW),
	.fe = true,
	.no_new_privs = true,
	.prm = BIT_CAP(CAP_NET_RAW),
	.euid = NOBODY_UID,
	.egid = NOBODY_GID,
	.secure = 1,
};

FIXTURE_SETUP(exec_as_user)
{
	const char *why = setup_exec(_metadata);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(exec_as_user)
{
}

TEST_F(exec_as_user, execve)
{
	const __u64 prm = variant->prm & all_caps();
	const char *path;
	struct dump d;
	int cap;

	/* Run the dumper itself, or a copy as the row describes. */
	path = variant->nosuid ? NOSUID_PATH : SETID_PATH;
	if (!variant->file_mode)
		path = DUMP_PATH;
	else if (variant->nosuid)
		mount_nosuid_dir(_metadata, NOSUID_DIR);
	if (variant->file_mode)
		copy_file(_metadata, DUMP_PATH, path, variant->file_uid,
			  variant->file_gid, variant->file_mode);
	if (variant->fcaps &&
	    !set_file_caps(_metadata, path, variant->fp, variant->fi,
			   variant->fe))
		SKIP(return, NO_FCAPS_REASON);
	if (!add_securebits(_metadata, variant->secbits))
		SKIP(return, LOCKED_REASON);
	become_user_with_ambient(_metadata);
	for (cap = 0; cap < 64; cap++)
		if (variant->lower & BIT_CAP(cap))
			ASSERT_EQ(0, amb_lower(cap));
	if (variant->clear_all)
		ASSERT_EQ(0, amb_clear_all());
	if (variant->no_new_privs)
		ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));

	run_prog(_metadata, path, &d);
	EXPECT_EQ(variant->euid, d.uid[1]);
	EXPECT_EQ(variant->egid, d.gid[1]);
	EXPECT_EQ(NOBODY_UID, d.uid[0]);
	EXPECT_EQ(NOBODY_GID, d.gid[0]);
	expect_exec_sets(_metadata, &d, variant->amb, prm, prm);
	EXPECT_EQ(HELD_CAPS, d.caps.inh);
	EXPECT_EQ(variant->secure, d.secure);
	expect_usable(_metadata, &d, prm);
}

/*
 * The exec matrix of root, which holds every capability in pP, pE and pI,
 * and CAP_NET_RAW in pA: with SECBIT_NOROOT or not, and with part of its
 * bounding or inheritable set dropped.
 */
FIXTURE(exec_as_root) {};

FIXTURE_VARIANT(exec_as_root) {
	/* Before the exec: securebits, drops from pBnd and pI, raises in pA. */
	int secbits;
	__u64 bnd_drop;
	__u64 inh_drop;
	__u64 raise;
	/* What the program gets: pA' and pP' = pE'. */
	__u64 amb;
	__u64 prm;
};

/* pA survives an exec by root, which gets all capabilities anyway. */
FIXTURE_VARIANT_ADD(exec_as_root, root_exec_keeps_ambient) {
	.raise = BIT_CAP(CAP_NET_RAW),
	.amb = BIT_CAP(CAP_NET_RAW),
	.prm = ALL_CAPS,
};

/*
 * With SECBIT_NOROOT, root's exec of a plain file is not privileged: like
 * any other user's, it gets pP' = pE' = pA.
 */
FIXTURE_VARIANT_ADD(exec_as_root, noroot_securebit_root_exec_gets_only_ambient) {
	.secbits = SECBIT_NOROOT,
	.raise = BIT_CAP(CAP_NET_RAW),
	.amb = BIT_CAP(CAP_NET_RAW),
	.prm = BIT_CAP(CAP_NET_RAW),
};

/*
 * Root's exec gets pP' = pBnd | pI: a capability dropped from the bounding
 * set and absent from pI (and so from pA) is gone after the exec.
 */
FIXTURE_VARIANT_ADD(exec_as_root, root_exec_permitted_limited_by_bounding_set) {
	.bnd_drop = BIT_CAP(CAP_NET_RAW),
	.inh_drop = BIT_CAP(CAP_NET_RAW),
	.prm = ~BIT_CAP(CAP_NET_RAW),
};

/*
 * Root's exec gets pP' = pBnd | pI: a capability dropped from the bounding
 * set but still in pI stays permitted and effective after the exec, though
 * pA is empty.
 */
FIXTURE_VARIANT_ADD(exec_as_root, root_exec_permits_inheritable_beyond_bounding_set) {
	.bnd_drop = BIT_CAP(CAP_NET_RAW),
	.prm = ALL_CAPS,
};

FIXTURE_SETUP(exec_as_root)
{
	const char *why = setup_exec(_metadata);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(exec_as_root)
{
}

TEST_F(exec_as_root, execve)
{
	const __u64 prm = variant->prm & all_caps();
	__u64 eff, old_prm, inh;
	struct dump d;
	int cap;

	if (!add_securebits(_metadata, variant->secbits))
		SKIP(return, LOCKED_REASON);
	for (cap = 0; cap < 64; cap++)
		if (variant->bnd_drop & BIT_CAP(cap))
			ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, cap, 0, 0, 0));
	ASSERT_EQ(0, raw_capget(&eff, &old_prm, &inh));
	set_caps(_metadata, eff, old_prm, inh & ~variant->inh_drop);
	for (cap = 0; cap < 64; cap++)
		if (variant->raise & BIT_CAP(cap))
			raise_amb(_metadata, cap);

	run_prog(_metadata, DUMP_PATH, &d);
	EXPECT_EQ(ROOT_UID, d.uid[1]);
	EXPECT_EQ(EMPTY_SET, d.caps.bnd & variant->bnd_drop);
	expect_exec_sets(_metadata, &d, variant->amb, prm, prm);
	EXPECT_EQ(0, d.secure);
	expect_usable(_metadata, &d, prm);
}

/*
 * The rules of the exec that a table row cannot hold: a failing exec, a
 * traced one, the set-ID rule that changed in 6.17, and a script.
 */
FIXTURE(exec) {};

FIXTURE_SETUP(exec)
{
	const char *why = setup_exec(_metadata);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(exec)
{
}

/*
 * Runs @path like run_prog(), traced by this process: the child asks for it
 * with PTRACE_TRACEME, the exec stops it with SIGTRAP, and the tracer lets
 * it go on untraced.  Returns false if the child could not be traced.
 */
static bool run_traced(struct __test_metadata *const _metadata,
		       const char *path, struct dump *d)
{
	const char *const argv[] = { path, "--raw", NULL };
	int fd, status;
	pid_t pid = spawn_dump(_metadata, argv, true, &fd);

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 125) {
		ASSERT_EQ(0, close(fd));
		return false;
	}
	ASSERT_TRUE(WIFSTOPPED(status))
	{
		TH_LOG("%s did not stop at its exec: status %#x", path, status);
	}
	ASSERT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, NULL, NULL));
	collect_dump(_metadata, pid, fd, path, d);
	return true;
}

/*
 * A program whose file effective bit is set must get the whole of fP: when
 * the bounding set withholds part of it, execve() fails with EPERM.
 */
TEST_F(exec, file_caps_effective_exec_fails_without_all_of_fp)
{
	int status;
	pid_t pid;

	copy_file(_metadata, DUMP_PATH, FCAP_PATH, 0, 0, 0755);
	if (!set_file_caps(_metadata, FCAP_PATH, BIT_CAP(CAP_DAC_OVERRIDE), 0,
			   true))
		SKIP(return, NO_FCAPS_REASON);
	ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0));
	become_user_with_ambient(_metadata);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
		execl(FCAP_PATH, FCAP_PATH, (char *)NULL);
		_exit(errno);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
}

/*
 * A traced set-user-ID exec clears pA although it is downgraded to change
 * no ID: the kernel decides that the exec is set-ID before it downgrades
 * it.  The tracer lacks CAP_SYS_PTRACE, and so does the child, whose
 * credentials PTRACE_TRACEME records as the tracer's.
 */
TEST_F(exec, traced_setuid_exec_still_clears_ambient)
{
	struct dump d;

	copy_file(_metadata, DUMP_PATH, SETID_PATH, OTHER_UID, 0, 04755);
	become_user_with_ambient(_metadata);
	if (!run_traced(_metadata, SETID_PATH, &d))
		SKIP(return, "PTRACE_TRACEME failed");
	ASSERT_EQ(NOBODY_UID, d.uid[1])
	{
		TH_LOG("The traced set-user-ID exec was not downgraded");
	}
	expect_exec_sets(_metadata, &d, EMPTY_SET, EMPTY_SET, EMPTY_SET);
	EXPECT_EQ(EPERM, d.raw);
}

/*
 * Which exec is "set-ID", and so clears pA, changed in Linux 6.17 with
 * commit 337490f0007f ("exec: Correct the permission check for unsafe exec"):
 * before, the new effective IDs were compared with the caller's real IDs;
 * since, the new effective user ID with the old effective one, and the new
 * effective group ID with the caller's file-system and supplementary groups.
 * The tests below tell the two rules apart: each kernel must follow its own,
 * so that the suite passes on stable kernels and on mainline alike.
 */
static bool setid_compares_effective_ids(void)
{
	return ksft_min_kernel_version(6, 17);
}

/*
 * The exec just made is set-ID under the rule before 6.17 only: pA is kept
 * since, cleared before.  It is secure (AT_SECURE) under both rules, as the
 * new effective user or group ID differs from the caller's real one.
 */
static void expect_setid_rule(struct __test_metadata *const _metadata,
			      const struct dump *d)
{
	EXPECT_EQ(1, d->secure);
	if (setid_compares_effective_ids()) {
		expect_exec_sets(_metadata, d, AMB_CAPS, AMB_CAPS, AMB_CAPS);
		EXPECT_EQ(0, d->raw);
	} else {
		expect_exec_sets(_metadata, d, EMPTY_SET, EMPTY_SET, EMPTY_SET);
		EXPECT_EQ(EPERM, d->raw);
	}
}

/* A plain file run with an effective user ID other than the real one. */
TEST_F(exec, setid_rule_euid_not_ruid_plain_file)
{
	struct dump d;

	become_user(_metadata, NOBODY_UID, NOBODY_GID,
		    HELD_CAPS | BIT_CAP(CAP_SETUID));
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(0, syscall(SYS_setresuid, (uid_t)-1, OTHER_UID, (uid_t)-1));
	ASSERT_EQ(AMB_CAPS, get_amb(_metadata));
	run_prog(_metadata, DUMP_PATH, &d);
	EXPECT_EQ(NOBODY_UID, d.uid[0]);
	EXPECT_EQ(OTHER_UID, d.uid[1]);
	expect_setid_rule(_metadata, &d);
}

/*
 * A plain file run with an effective group ID other than the real one; the
 * file-system group ID follows the effective one, so in_group_p() holds.
 */
TEST_F(exec, setid_rule_egid_not_rgid_plain_file)
{
	struct dump d;

	become_user(_metadata, NOBODY_UID, NOBODY_GID,
		    HELD_CAPS | BIT_CAP(CAP_SETGID));
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(0, syscall(SYS_setresgid, (gid_t)-1, OTHER_GID, (gid_t)-1));
	ASSERT_EQ(AMB_CAPS, get_amb(_metadata));
	run_prog(_metadata, DUMP_PATH, &d);
	EXPECT_EQ(NOBODY_GID, d.gid[0]);
	EXPECT_EQ(OTHER_GID, d.gid[1]);
	EXPECT_EQ(NOBODY_UID, d.uid[1]);
	expect_setid_rule(_metadata, &d);
}

/*
 * A set-group-ID file whose group is one of the caller's supplementary
 * groups, but not its real, effective or file-system group.
 */
TEST_F(exec, setid_rule_setgid_file_of_supplementary_group)
{
	const gid_t groups[] = { OTHER_GID };
	struct dump d;

	copy_file(_metadata, DUMP_PATH, SETID_PATH, 0, OTHER_GID, 02755);
	become_user(_metadata, NOBODY_UID, NOBODY_GID,
		    HELD_CAPS | BIT_CAP(CAP_SETGID));
	ASSERT_EQ(0, syscall(SYS_setgroups, 1, groups));
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(AMB_CAPS, get_amb(_metadata));
	run_prog(_metadata, SETID_PATH, &d);
	EXPECT_EQ(NOBODY_GID, d.gid[0]);
	EXPECT_EQ(OTHER_GID, d.gid[1]);
	EXPECT_EQ(NOBODY_UID, d.uid[1]);
	expect_setid_rule(_metadata, &d);
}

/* The interpreter of a "#!" script gets pA like a plain file. */
TEST_F(exec, script_interpreter_gets_ambient_caps)
{
	struct dump d;

	write_file(_metadata, SCRIPT_PATH, "#!" DUMP_PATH " --raw\n", 0755);
	become_user_with_ambient(_metadata);
	run_prog(_metadata, SCRIPT_PATH, &d);
	EXPECT_STREQ(SCRIPT_PATH, d.arg);
	expect_exec_sets(_metadata, &d, AMB_CAPS, AMB_CAPS, AMB_CAPS);
	EXPECT_EQ(0, d.secure);
	EXPECT_EQ(0, d.raw);
}

/*
 * The use case: a program started as an unprivileged user by setpriv(1) or
 * capsh(1) with a capability in pA runs a shell script, and a child of that
 * shell can use the capability.  Without pA the child gets EPERM.
 */
#define SETPRIV_PATH "/usr/bin/setpriv"
#define SHELL_PATH "/bin/sh"

static const char *const capsh_paths[] = {
	"/sbin/capsh",
	"/usr/sbin/capsh",
	"/usr/bin/capsh",
	NULL,
};

FIXTURE(client) {
	const char *tool;
};

FIXTURE_VARIANT(client) {
	bool capsh;
	int cap;
	const char *cap_name;
	/* Ask the dumper to use CAP_SYS_NICE instead of CAP_NET_RAW. */
	bool fifo;
	bool ambient;
};

FIXTURE_VARIANT_ADD(client, setpriv_net_raw) {
	.cap = CAP_NET_RAW,
	.cap_name = "cap_net_raw",
	.ambient = true,
};

FIXTURE_VARIANT_ADD(client, setpriv_net_raw_not_ambient) {
	.cap = CAP_NET_RAW,
	.cap_name = "cap_net_raw",
};

FIXTURE_VARIANT_ADD(client, setpriv_sys_nice) {
	.cap = CAP_SYS_NICE,
	.cap_name = "cap_sys_nice",
	.fifo = true,
	.ambient = true,
};

FIXTURE_VARIANT_ADD(client, setpriv_sys_nice_not_ambient) {
	.cap = CAP_SYS_NICE,
	.cap_name = "cap_sys_nice",
	.fifo = true,
};

FIXTURE_VARIANT_ADD(client, capsh_net_raw) {
	.capsh = true,
	.cap = CAP_NET_RAW,
	.cap_name = "cap_net_raw",
	.ambient = true,
};

FIXTURE_VARIANT_ADD(client, capsh_net_raw_not_ambient) {
	.capsh = true,
	.cap = CAP_NET_RAW,
	.cap_name = "cap_net_raw",
};

FIXTURE_VARIANT_ADD(client, capsh_sys_nice) {
	.capsh = true,
	.cap = CAP_SYS_NICE,
	.cap_name = "cap_sys_nice",
	.fifo = true,
	.ambient = true,
};

FIXTURE_VARIANT_ADD(client, capsh_sys_nice_not_ambient) {
	.capsh = true,
	.cap = CAP_SYS_NICE,
	.cap_name = "cap_sys_nice",
	.fifo = true,
};

/* Whether @path is a program of its own, not a busybox applet. */
static bool is_real_program(const char *path)
{
	char target[PATH_MAX];

	if (access(path, X_OK))
		return false;
	if (!realpath(path, target))
		return false;
	return strcmp(basename(target), "busybox");
}

FIXTURE_SETUP(client)
{
	const char *why;
	char dump[PATH_MAX], script[PATH_MAX + 64];
	int i;

	/* A kernel without PR_CAP_AMBIENT fails here. */
	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	if (!can_switch_ids())
		SKIP(return, NEED_IDS_REASON);
	why = probe_caps_act();
	if (why)
		SKIP(return, "%s", why);
	if (variant->fifo && !fifo_exists)
		SKIP(return, "no SCHED_FIFO here (sched_setscheduler() fails)");

	if (variant->capsh) {
		for (i = 0; capsh_paths[i]; i++) {
			if (is_real_program(capsh_paths[i])) {
				self->tool = capsh_paths[i];
				break;
			}
		}
		if (!self->tool)
			SKIP(return, "capsh not found");
	} else {
		if (!is_real_program(SETPRIV_PATH))
			SKIP(return, "%s not found", SETPRIV_PATH);
		self->tool = SETPRIV_PATH;
	}
	if (access(SHELL_PATH, X_OK))
		SKIP(return, "%s not found", SHELL_PATH);
	if (!helper_path(_metadata, DUMP_NAME, dump, sizeof(dump)))
		SKIP(return, DUMP_NAME " not found");

	why = setup_workdir(_metadata, dump);
	if (why)
		SKIP(return, "%s", why);
	/* The shell starts the dumper as a child, not with exec. */
	snprintf(script, sizeof(script), "#!" SHELL_PATH "\n%s %s\n",
		 DUMP_PATH, variant->fifo ? "--fifo" : "--raw");
	write_file(_metadata, SCRIPT_PATH, script, 0755);
}

FIXTURE_TEARDOWN(client)
{
}

TEST_F(client, shell_script_child_cap_follows_ambient)
{
	char arg1[64], arg2[64], arg3[64], arg4[64], arg5[64];
	const char *argv[16];
	struct dump d;
	int i = 0, result;

	argv[i++] = self->tool;
	if (variant->capsh) {
		snprintf(arg1, sizeof(arg1),
			 "--caps=%s,cap_setpcap,cap_setuid,cap_setgid+eip",
			 variant->cap_name);
		snprintf(arg2, sizeof(arg2), "--addamb=%s", variant->cap_name);
		/* Numeric IDs: --user=nobody needs a passwd entry. */
		snprintf(arg3, sizeof(arg3), "--gid=%u", NOBODY_GID);
		snprintf(arg4, sizeof(arg4), "--groups=%u", NOBODY_GID);
		snprintf(arg5, sizeof(arg5), "--uid=%u", NOBODY_UID);
		argv[i++] = arg1;
		argv[i++] = "--keep=1";
		argv[i++] = arg3;
		argv[i++] = arg4;
		argv[i++] = arg5;
		if (variant->ambient)
			argv[i++] = arg2;
		argv[i++] = "--shell=" SHELL_PATH;
		argv[i++] = "--";
	} else {
		/* setpriv names capabilities without the "cap_" prefix. */
		snprintf(arg1, sizeof(arg1), "--inh-caps=+%s",
			 variant->cap_name + strlen("cap_"));
		snprintf(arg2, sizeof(arg2), "--ambient-caps=+%s",
			 variant->cap_name + strlen("cap_"));
		snprintf(arg3, sizeof(arg3), "--reuid=%u", NOBODY_UID);
		snprintf(arg4, sizeof(arg4), "--regid=%u", NOBODY_GID);
		argv[i++] = arg3;
		argv[i++] = arg4;
		argv[i++] = "--clear-groups";
		argv[i++] = arg1;
		if (variant->ambient)
			argv[i++] = arg2;
		argv[i++] = SHELL_PATH;
	}
	argv[i++] = SCRIPT_PATH;
	argv[i] = NULL;

	run_dump(_metadata, argv, &d);
	EXPECT_EQ(NOBODY_UID, d.uid[0]);
	EXPECT_EQ(NOBODY_UID, d.uid[1]);
	EXPECT_EQ(NOBODY_UID, d.uid[2]);
	result = variant->fifo ? d.fifo : d.raw;
	if (variant->ambient) {
		expect_exec_sets(_metadata, &d, BIT_CAP(variant->cap),
				 BIT_CAP(variant->cap), BIT_CAP(variant->cap));
		EXPECT_EQ(0, result);
	} else {
		EXPECT_EQ(EMPTY_SET, d.caps.amb);
		EXPECT_EQ(EMPTY_SET, d.caps.prm);
		EXPECT_EQ(EPERM, result);
	}
}

/*
 * The audit records of capability changes show the ambient set: BPRM_FCAPS
 * as old_pa= and pa=, CAPSET as cap_pa=.  The test process registers itself
 * as the audit daemon through NETLINK_AUDIT, audits execve(2) and capset(2)
 * of the unprivileged user with an "exit,always" rule, and reads the records
 * of a child.  The teardown removes the rule and restores the audit status.
 */
#define AUDIT_WAIT_SEC 5
/* The longest record, MAX_AUDIT_MESSAGE_LENGTH of libaudit. */
#define AUDIT_TEXT_MAX 8970
/* The value of "enabled" in the audit status once it is locked. */
#define AUDIT_STATUS_LOCKED 2

#if defined(__x86_64__)
#define AUDIT_ARCH_SELF AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define AUDIT_ARCH_SELF AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define AUDIT_ARCH_SELF AUDIT_ARCH_AARCH64
#endif

struct audit_message {
	struct nlmsghdr header;
	union {
		struct audit_status status;
		struct audit_rule_data rule;
		struct nlmsgerr err;
		char data[AUDIT_TEXT_MAX];
	};
};

/* The records of one audited system call of the child. */
struct audit_event {
	/* The BPRM_FCAPS and CAPSET records, empty if there is none. */
	char fcaps[AUDIT_TEXT_MAX];
	char capset[AUDIT_TEXT_MAX];
};

/*
 * Receives one message from the kernel: with the length quirk of the audit
 * records, each comes in a datagram of its own.  Returns 0, or a negative
 * errno value, -EAGAIN when none came within the receive timeout.
 */
static int audit_recv(int fd, struct audit_message *msg)
{
	struct sockaddr_nl addr;
	socklen_t addrlen = sizeof(addr);
	ssize_t len;

	memset(msg, 0, sizeof(*msg));
	/* The last byte stays 0 and ends the text of a record. */
	len = recvfrom(fd, msg, sizeof(*msg) - 1, 0, (struct sockaddr *)&addr,
		       &addrlen);
	if (len < 0)
		return -errno;
	if (len < (ssize_t)NLMSG_HDRLEN || addr.nl_pid != 0)
		return -EPROTO;
	return 0;
}

/*
 * Sends @req and waits for the kernel's answer: the reply of the same type
 * into @reply if not NULL, else the acknowledgment.  Returns 0 or the
 * negative errno value of the kernel or of the socket.
 */
static int audit_request(int fd, struct audit_message *req,
			 struct audit_message *reply)
{
	static __u32 seq;
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
	};
	struct audit_message msg;
	int err;

	req->header.nlmsg_flags = NLM_F_REQUEST | (reply ? 0 : NLM_F_ACK);
	req->header.nlmsg_seq = ++seq;
	if (sendto(fd, req, req->header.nlmsg_len, 0, (struct sockaddr *)&addr,
		   sizeof(addr)) < 0)
		return -errno;
	/* Records have a sequence number of 0: they are skipped. */
	for (;;) {
		err = audit_recv(fd, &msg);
		if (err)
			return err;
		if (msg.header.nlmsg_seq != seq)
			continue;
		if (msg.header.nlmsg_type == NLMSG_ERROR) {
			if (msg.err.error || !reply)
				return msg.err.error;
		} else if (reply &&
			   msg.header.nlmsg_type == req->header.nlmsg_type) {
			*reply = msg;
			return 0;
		}
	}
}

static int audit_get_status(int fd, struct audit_status *status)
{
	struct audit_message req = {
		.header = {
			.nlmsg_len = NLMSG_LENGTH(0),
			.nlmsg_type = AUDIT_GET,
		},
	};
	struct audit_message reply;
	int err;

	err = audit_request(fd, &req, &reply);
	if (!err)
		*status = reply.status;
	return err;
}

/* Sets the audit status field that @mask names to @enabled or @pid. */
static int audit_set_status(int fd, __u32 mask, __u32 enabled, __u32 pid)
{
	struct audit_message req = {
		.header = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(req.status)),
			.nlmsg_type = AUDIT_SET,
		},
		.status = {
			.mask = mask,
			.enabled = enabled,
			.pid = pid,
		},
	};

	return audit_request(fd, &req, NULL);
}

/*
 * Adds or deletes (@type) the rule "exit,always" for execve(2) and capset(2)
 * of the unprivileged user, on the architecture of this program.
 */
static int audit_change_rule(int fd, __u16 type)
{
	struct audit_message req = {
		.header = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(req.rule)),
			.nlmsg_type = type,
		},
		.rule = {
			.flags = AUDIT_FILTER_EXIT,
			.action = AUDIT_ALWAYS,
		},
	};
	struct audit_rule_data *rule = &req.rule;

	rule->mask[AUDIT_WORD(SYS_execve)] |= AUDIT_BIT(SYS_execve);
	rule->mask[AUDIT_WORD(SYS_capset)] |= AUDIT_BIT(SYS_capset);
	rule->fields[rule->field_count] = AUDIT_UID;
	rule->fieldflags[rule->field_count] = AUDIT_EQUAL;
	rule->values[rule->field_count++] = NOBODY_UID;
#ifdef AUDIT_ARCH_SELF
	rule->fields[rule->field_count] = AUDIT_ARCH;
	rule->fieldflags[rule->field_count] = AUDIT_EQUAL;
	rule->values[rule->field_count++] = AUDIT_ARCH_SELF;
#endif
	return audit_request(fd, &req, NULL);
}

/*
 * Reads records until a CONFIG_CHANGE one of audit_enabled has come: all
 * that were queued before it have come too, and none is left to be printed
 * to the console once the test is no longer the audit daemon.
 */
static void audit_drain(int fd)
{
	struct audit_message msg;

	while (!audit_recv(fd, &msg)) {
		if (msg.header.nlmsg_type == AUDIT_CONFIG_CHANGE &&
		    strstr(msg.data, " audit_enabled="))
			break;
	}
}

/* The audit socket, the status to restore and what is to undo. */
struct audit_setup {
	int fd;
	struct audit_status old;
	bool registered;
	bool rule_added;
	bool enabled;
};

/* Undoes what audit_start() did, in reverse order. */
static void audit_stop(struct audit_setup *a)
{
	if (a->fd < 0)
		return;
	if (a->enabled &&
	    !audit_set_status(a->fd, AUDIT_STATUS_ENABLED,
			      a->old.enabled, 0))
		audit_drain(a->fd);
	if (a->rule_added)
		audit_change_rule(a->fd, AUDIT_DEL_RULE);
	if (a->registered)
		audit_set_status(a->fd, AUDIT_STATUS_PID, 0, 0);
	close(a->fd);
}

/*
 * Registers the test process as the audit daemon, adds the rule and enables
 * audit, in this order: nothing is logged while audit is disabled, and what
 * is logged afterwards goes to this process.  Returns 0 or a negative errno
 * value, after undoing what was done.
 */
static int audit_start(struct audit_setup *a)
{
	int err;

	err = audit_set_status(a->fd, AUDIT_STATUS_PID, 0, getpid());
	a->registered = !err;
	if (!err)
		err = audit_change_rule(a->fd, AUDIT_ADD_RULE);
	a->rule_added = !err;
	if (!err)
		err = audit_set_status(a->fd, AUDIT_STATUS_ENABLED, 1, 0);
	a->enabled = !err;
	if (err)
		audit_stop(a);
	return err;
}

FIXTURE(audit) {
	struct audit_setup audit;
};

FIXTURE_SETUP(audit)
{
	const char *why;
	const struct timeval timeout = {
		.tv_sec = AUDIT_WAIT_SEC,
	};
	struct audit_setup *a = &self->audit;
	char dump[PATH_MAX];
	int err;

	/* The teardown runs after a SKIP too: nothing to undo yet. */
	a->fd = -1;
	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	if (!helper_path(_metadata, DUMP_NAME, dump, sizeof(dump)))
		SKIP(return, DUMP_NAME " not found");
	why = setup_workdir(_metadata, dump);
	if (why)
		SKIP(return, "%s", why);

	a->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (a->fd < 0 && (errno == EPROTONOSUPPORT || errno == EAFNOSUPPORT))
		SKIP(return, "no audit support (CONFIG_AUDIT, NETLINK_AUDIT)");
	ASSERT_LE(0, a->fd);
	ASSERT_EQ(0, setsockopt(a->fd, SOL_SOCKET, SO_RCVTIMEO, &timeout,
				sizeof(timeout)));
	err = audit_get_status(a->fd, &a->old);
	if (err == -ECONNREFUSED)
		SKIP(return, "audit needs the initial user namespace");
	if (err == -EPERM)
		SKIP(return, "audit control needs the initial PID namespace");
	ASSERT_EQ(0, err)
	{
		TH_LOG("AUDIT_GET failed: %s", strerror(-err));
	}
	if (a->old.pid)
		SKIP(return, "an audit daemon is registered (PID %u)",
		     a->old.pid);
	if (a->old.enabled == AUDIT_STATUS_LOCKED)
		SKIP(return, "the audit configuration is locked");
	err = audit_start(a);
	ASSERT_EQ(0, err)
	{
		TH_LOG("Failed to set up audit: %s", strerror(-err));
	}
}

FIXTURE_TEARDOWN(audit)
{
	audit_stop(&self->audit);
}

/*
 * Becomes the unprivileged user of become_user_with_ambient(), in a child:
 * the assertions of the harness may only fail in the test process, which
 * stays root to undo the audit set-up.  Returns false on failure.
 */
static bool child_become_user_with_ambient(void)
{
	return !prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) &&
	       !syscall(SYS_setgroups, 0, NULL) &&
	       !syscall(SYS_setresgid, NOBODY_GID, NOBODY_GID, NOBODY_GID) &&
	       !syscall(SYS_setresuid, NOBODY_UID, NOBODY_UID, NOBODY_UID) &&
	       !raw_capset(HELD_CAPS, HELD_CAPS, HELD_CAPS) &&
	       !prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) &&
	       !amb_raise(CAP_NET_RAW) && !amb_raise(CAP_SYS_NICE);
}

/*
 * Forks a child that becomes the unprivileged user with AMB_CAPS in pA and
 * executes @path, or, without @path, lowers CAP_SYS_NICE in pI with capset(2).
 * Returns the PID of the child, which exited with 0.
 */
static pid_t run_audited(struct __test_metadata *const _metadata,
			 const char *path)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(1);
		if (!child_become_user_with_ambient())
			_exit(2);
		if (path) {
			execl(path, path, (char *)NULL);
			_exit(3);
		}
		if (raw_capset(HELD_CAPS, HELD_CAPS,
			       HELD_CAPS & ~BIT_CAP(CAP_SYS_NICE)))
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status))
	{
		TH_LOG("The audited child failed at step %d",
		       WEXITSTATUS(status));
	}
	return pid;
}

/*
 * Reads the records of the system call @nr of @pid until @count calls are
 * complete, each ended by an EOE record, and fills @events with them.
 * Returns how many calls are complete when no record comes for a while.
 */
static int read_events(int fd, pid_t pid, long nr,
		       struct audit_event *events, int count)
{
	static struct audit_message msg;
	unsigned long serial, wanted = 0;
	char *text = msg.data;
	int done = 0;

	while (done < count && !audit_recv(fd, &msg)) {
		const char *p;

		if (sscanf(text, "audit(%*u.%*u:%lu)", &serial) != 1)
			continue;
		if (msg.header.nlmsg_type == AUDIT_SYSCALL) {
			p = strstr(text, " syscall=");
			if (!p || strtol(p + 9, NULL, 10) != nr)
				continue;
			p = strstr(text, " pid=");
			if (!p || strtol(p + 5, NULL, 10) != pid)
				continue;
			wanted = serial;
			memset(&events[done], 0, sizeof(events[done]));
		} else if (serial != wanted) {
			continue;
		} else if (msg.header.nlmsg_type == AUDIT_BPRM_FCAPS) {
			snprintf(events[done].fcaps, AUDIT_TEXT_MAX, "%s",
				 text);
		} else if (msg.header.nlmsg_type == AUDIT_CAPSET) {
			snprintf(events[done].capset, AUDIT_TEXT_MAX, "%s",
				 text);
		} else if (msg.header.nlmsg_type == AUDIT_EOE) {
			wanted = 0;
			done++;
		}
	}
	return done;
}

/* The capability set field @name of the record @text is @expected. */
static void expect_record_caps(struct __test_metadata *const _metadata,
			       const char *text, const char *name,
			       __u64 expected)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(text, key);
	ASSERT_NE(NULL, p)
	{
		TH_LOG("No %s= in the record: %s", name, text);
	}
	EXPECT_EQ(expected, strtoull(p + strlen(key), NULL, 16))
	{
		TH_LOG("Record: %s", text);
	}
}

/*
 * Executing a file with capabilities, which add to pP, writes a BPRM_FCAPS
 * record: old_pa= is pA before the exec, and pa= is 0, as the exec clears it.
 */
TEST_F(audit, file_caps_exec_record_shows_ambient_before_and_after)
{
	static struct audit_event ev;
	pid_t pid;

	copy_file(_metadata, DUMP_PATH, FCAP_PATH, 0, 0, 0755);
	if (!set_file_caps(_metadata, FCAP_PATH, BIT_CAP(CAP_DAC_OVERRIDE),
			   BIT_CAP(CAP_NET_RAW), true))
		SKIP(return, NO_FCAPS_REASON);
	pid = run_audited(_metadata, FCAP_PATH);
	ASSERT_EQ(1, read_events(self->audit.fd, pid, SYS_execve, &ev, 1))
	{
		TH_LOG("No audit record of the execve() of the child");
	}
	ASSERT_STRNE("", ev.fcaps)
	{
		TH_LOG("No BPRM_FCAPS record");
	}
	expect_record_caps(_metadata, ev.fcaps, "old_pp", HELD_CAPS);
	expect_record_caps(_metadata, ev.fcaps, "old_pa", AMB_CAPS);
	expect_record_caps(_metadata, ev.fcaps, "pp",
			   BIT_CAP(CAP_DAC_OVERRIDE) | BIT_CAP(CAP_NET_RAW));
	expect_record_caps(_metadata, ev.fcaps, "pa", EMPTY_SET);
}

/*
 * capset(2) writes a CAPSET record whose cap_pa= is pA after the call:
 * lowering CAP_SYS_NICE in pI lowers it in pA, and cap_pa= shows the rest.
 */
TEST_F(audit, capset_record_shows_ambient_after_call)
{
	static struct audit_event ev[2];
	pid_t pid;

	pid = run_audited(_metadata, NULL);
	/* The first capset() is that of child_become_user_with_ambient(). */
	ASSERT_EQ(2, read_events(self->audit.fd, pid, SYS_capset, ev, 2))
	{
		TH_LOG("No audit record of the capset() of the child");
	}
	ASSERT_STRNE("", ev[1].capset)
	{
		TH_LOG("No CAPSET record");
	}
	expect_record_caps(_metadata, ev[1].capset, "cap_pi",
			   HELD_CAPS & ~BIT_CAP(CAP_SYS_NICE));
	expect_record_caps(_metadata, ev[1].capset, "cap_pa",
			   BIT_CAP(CAP_NET_RAW));
}

/*
 * An exec whose capabilities all come from pA gains nothing that the caller
 * did not hold: it writes no BPRM_FCAPS record.
 */
TEST_F(audit, ambient_only_exec_writes_no_fcaps_record)
{
	static struct audit_event ev;
	pid_t pid;

	pid = run_audited(_metadata, DUMP_PATH);
	ASSERT_EQ(1, read_events(self->audit.fd, pid, SYS_execve, &ev, 1))
	{
		TH_LOG("No audit record of the execve() of the child");
	}
	EXPECT_STREQ("", ev.fcaps);
}

TEST_HARNESS_MAIN
