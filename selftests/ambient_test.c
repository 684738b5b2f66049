// SPDX-License-Identifier: GPL-2.0
/*
 * Ambient capability set: the prctl(PR_CAP_AMBIENT) interface, its
 * invariants, inheritance and interaction with user IDs and user namespaces.
 *
 * Every test starts as root holding all capabilities, with pI = pP and an
 * empty ambient set, and runs in its own process: credential changes do not
 * leak from one test to the next.  Run by an unprivileged user, a test
 * starts as root of a user namespace of its own instead; the tests that
 * need other user IDs then SKIP.
 */

#define _GNU_SOURCE
#include <linux/keyctl.h>
#include <pthread.h>
#include <signal.h>

#include "common.h"

/* Reads the bounding set with PR_CAPBSET_READ. */
static __u64 bounding_set(void)
{
	const int last = last_cap();
	__u64 bnd = 0;
	int cap;

	for (cap = 0; cap <= last; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			bnd |= BIT_CAP(cap);
	return bnd;
}

static void get_capsets(struct __test_metadata *const _metadata,
			struct capsets *c)
{
	ASSERT_EQ(0, raw_capget(&c->eff, &c->prm, &c->inh));
	c->bnd = bounding_set();
	c->amb = get_amb(_metadata);
}

/*
 * Creates a user namespace in a child, which holds it until it is opened,
 * and returns a file descriptor for it, or -1 if the child could not create
 * it.  The namespace lives on as long as the descriptor is open.
 */
static int open_child_userns(struct __test_metadata *const _metadata)
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

/* Drops @cap from the sets selected by @from_prm, @from_inh and @from_eff. */
static void drop_cap(struct __test_metadata *const _metadata, int cap,
		     bool from_prm, bool from_inh, bool from_eff)
{
	__u64 eff, prm, inh;

	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	if (from_prm) {
		prm &= ~BIT_CAP(cap);
		eff &= ~BIT_CAP(cap);
	}
	if (from_inh)
		inh &= ~BIT_CAP(cap);
	if (from_eff)
		eff &= ~BIT_CAP(cap);
	set_caps(_metadata, eff, prm, inh);
}

FIXTURE(prctl) {};

FIXTURE_SETUP(prctl)
{
	const char *why;

	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(prctl)
{
}

/* RAISE adds exactly the given capability, which IS_SET then reports. */
TEST_F(prctl, raise_adds_one_cap)
{
	raise_amb(_metadata, CAP_NET_RAW);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* IS_SET returns 1 for a raised capability and 0 for every other one. */
TEST_F(prctl, is_set_returns_one_or_zero)
{
	const int last = last_cap();
	int cap;

	raise_amb(_metadata, CAP_SYS_NICE);
	for (cap = 0; cap <= last; cap++)
		EXPECT_EQ(cap == CAP_SYS_NICE, amb_is_set(cap));
}

/* LOWER removes only the given capability. */
TEST_F(prctl, lower_removes_one_cap)
{
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(0, amb_lower(CAP_NET_RAW));
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(1, amb_is_set(CAP_SYS_NICE));
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
}

/* CLEAR_ALL empties the whole set, whatever it holds. */
TEST_F(prctl, clear_all_empties_set)
{
	const int last = last_cap();
	int cap;

	for (cap = 0; cap <= last; cap++)
		raise_amb(_metadata, cap);
	ASSERT_EQ(all_caps(), get_amb(_metadata));
	ASSERT_EQ(0, amb_clear_all());
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
	for (cap = 0; cap <= last; cap++)
		EXPECT_EQ(0, amb_is_set(cap));
}

/* Raising an already raised capability succeeds and changes nothing. */
TEST_F(prctl, raise_twice_is_harmless)
{
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_NET_RAW);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* RAISE needs the capability in the permitted set. */
TEST_F(prctl, raise_needs_permitted)
{
	raise_amb(_metadata, CAP_SYS_NICE);
	drop_cap(_metadata, CAP_NET_RAW, true, false, false);
	ASSERT_EQ(-1, amb_raise(CAP_NET_RAW));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
}

/* RAISE needs the capability in the inheritable set. */
TEST_F(prctl, raise_needs_inheritable)
{
	raise_amb(_metadata, CAP_SYS_NICE);
	drop_cap(_metadata, CAP_NET_RAW, false, true, false);
	ASSERT_EQ(-1, amb_raise(CAP_NET_RAW));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
}

/* RAISE does not need the capability in the effective set. */
TEST_F(prctl, raise_needs_no_effective)
{
	drop_cap(_metadata, CAP_NET_RAW, false, false, true);
	raise_amb(_metadata, CAP_NET_RAW);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* SECBIT_NO_CAP_AMBIENT_RAISE forbids RAISE but keeps what is raised. */
TEST_F(prctl, no_raise_securebit_forbids_raise)
{
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(0, set_securebits(SECBIT_NO_CAP_AMBIENT_RAISE))
	{
		TH_LOG("Failed to set SECBIT_NO_CAP_AMBIENT_RAISE: %s",
		       strerror(errno));
	}
	ASSERT_EQ(-1, amb_raise(CAP_NET_RAW));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
}

/* Once the (unlocked) securebit is cleared again, RAISE works again. */
TEST_F(prctl, no_raise_securebit_cleared_allows_raise)
{
	ASSERT_EQ(0, set_securebits(SECBIT_NO_CAP_AMBIENT_RAISE))
	{
		TH_LOG("Failed to set SECBIT_NO_CAP_AMBIENT_RAISE: %s",
		       strerror(errno));
	}
	ASSERT_EQ(0, set_securebits(0));
	raise_amb(_metadata, CAP_NET_RAW);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* LOWER and CLEAR_ALL still work under SECBIT_NO_CAP_AMBIENT_RAISE. */
TEST_F(prctl, no_raise_securebit_allows_lower)
{
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(0, set_securebits(SECBIT_NO_CAP_AMBIENT_RAISE))
	{
		TH_LOG("Failed to set SECBIT_NO_CAP_AMBIENT_RAISE: %s",
		       strerror(errno));
	}
	ASSERT_EQ(0, amb_lower(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
	ASSERT_EQ(0, amb_clear_all());
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/* Once locked, SECBIT_NO_CAP_AMBIENT_RAISE and its lock stay set. */
TEST_F(prctl, no_raise_securebit_lock_holds)
{
	const unsigned long bits = SECBIT_NO_CAP_AMBIENT_RAISE |
				   SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	ASSERT_EQ(0, set_securebits(bits))
	{
		TH_LOG("Failed to lock SECBIT_NO_CAP_AMBIENT_RAISE: %s",
		       strerror(errno));
	}
	ASSERT_EQ(-1, set_securebits(0));
	EXPECT_EQ(EPERM, errno);
	ASSERT_EQ(-1, set_securebits(SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED));
	EXPECT_EQ(EPERM, errno);
	ASSERT_EQ(-1, set_securebits(SECBIT_NO_CAP_AMBIENT_RAISE));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(bits, prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
	ASSERT_EQ(-1, amb_raise(CAP_NET_RAW));
	EXPECT_EQ(EPERM, errno);
}

/* LOWER of a capability in neither pP nor pI, nor raised, succeeds. */
TEST_F(prctl, lower_needs_no_capability)
{
	raise_amb(_metadata, CAP_NET_RAW);
	set_caps(_metadata, 0, 0, 0);
	ASSERT_EQ(0, amb_lower(CAP_NET_RAW));
	ASSERT_EQ(0, amb_lower(CAP_SYS_NICE));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/* LOWER works under a locked SECBIT_NO_CAP_AMBIENT_RAISE. */
TEST_F(prctl, lower_works_under_locked_securebit)
{
	raise_amb(_metadata, CAP_NET_RAW);
	ASSERT_EQ(0, set_securebits(SECBIT_NO_CAP_AMBIENT_RAISE |
				    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED));
	ASSERT_EQ(0, amb_lower(CAP_NET_RAW));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/*
 * Malformed requests fail with EINVAL and leave all five sets untouched.
 * Before each request pA holds CAP_NET_RAW and CAP_SYS_NICE, CAP_KILL can be
 * raised, and pE and the bounding set differ from pP.
 */
FIXTURE(bad_input) {
	struct capsets before;
};

FIXTURE_VARIANT(bad_input) {
	long op;
	long arg3;
	/* arg3 is meant as an invalid capability number. */
	bool bad_cap;
	/* Use cap_last_cap + 1 as arg3. */
	bool past_last_cap;
	long arg4;
	long arg5;
	/*
	 * SECBIT_NO_CAP_AMBIENT_RAISE is set: a well-formed RAISE would fail
	 * with EPERM, and a malformed one must still fail with EINVAL.
	 */
	bool raise_forbidden;
};

/* Invalid capability numbers, for IS_SET, RAISE and LOWER. */
FIXTURE_VARIANT_ADD(bad_input, is_set_cap_minus_1) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.arg3 = -1,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_cap_minus_1) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = -1,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, lower_cap_minus_1) {
	.op = PR_CAP_AMBIENT_LOWER,
	.arg3 = -1,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, is_set_cap_63) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.arg3 = 63,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_cap_63) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = 63,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, lower_cap_63) {
	.op = PR_CAP_AMBIENT_LOWER,
	.arg3 = 63,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, is_set_cap_64) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.arg3 = 64,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_cap_64) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = 64,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, lower_cap_64) {
	.op = PR_CAP_AMBIENT_LOWER,
	.arg3 = 64,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, is_set_cap_long_max) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.arg3 = LONG_MAX,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_cap_long_max) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = LONG_MAX,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, lower_cap_long_max) {
	.op = PR_CAP_AMBIENT_LOWER,
	.arg3 = LONG_MAX,
	.bad_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, op_0) {
	.op = 0,
	.arg3 = CAP_NET_RAW,
};

FIXTURE_VARIANT_ADD(bad_input, op_5) {
	.op = 5,
	.arg3 = CAP_NET_RAW,
};

FIXTURE_VARIANT_ADD(bad_input, op_ulong_max) {
	.op = -1,
	.arg3 = CAP_NET_RAW,
};

FIXTURE_VARIANT_ADD(bad_input, clear_all_arg3) {
	.op = PR_CAP_AMBIENT_CLEAR_ALL,
	.arg3 = CAP_NET_RAW,
};

FIXTURE_VARIANT_ADD(bad_input, clear_all_arg3_minus_1) {
	.op = PR_CAP_AMBIENT_CLEAR_ALL,
	.arg3 = -1,
};

FIXTURE_VARIANT_ADD(bad_input, is_set_cap_past_last) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.bad_cap = true,
	.past_last_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_cap_past_last) {
	.op = PR_CAP_AMBIENT_RAISE,
	.bad_cap = true,
	.past_last_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, lower_cap_past_last) {
	.op = PR_CAP_AMBIENT_LOWER,
	.bad_cap = true,
	.past_last_cap = true,
};

FIXTURE_VARIANT_ADD(bad_input, is_set_arg4) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.arg3 = CAP_NET_RAW,
	.arg4 = 1,
};

FIXTURE_VARIANT_ADD(bad_input, raise_arg4) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = CAP_KILL,
	.arg4 = 1,
};

FIXTURE_VARIANT_ADD(bad_input, lower_arg4) {
	.op = PR_CAP_AMBIENT_LOWER,
	.arg3 = CAP_NET_RAW,
	.arg4 = 1,
};

FIXTURE_VARIANT_ADD(bad_input, clear_all_arg4) {
	.op = PR_CAP_AMBIENT_CLEAR_ALL,
	.arg4 = 1,
};

FIXTURE_VARIANT_ADD(bad_input, is_set_arg5) {
	.op = PR_CAP_AMBIENT_IS_SET,
	.arg3 = CAP_NET_RAW,
	.arg5 = 1,
};

FIXTURE_VARIANT_ADD(bad_input, raise_arg5) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = CAP_KILL,
	.arg5 = -1,
};

FIXTURE_VARIANT_ADD(bad_input, lower_arg5) {
	.op = PR_CAP_AMBIENT_LOWER,
	.arg3 = CAP_NET_RAW,
	.arg5 = -1,
};

FIXTURE_VARIANT_ADD(bad_input, clear_all_arg5) {
	.op = PR_CAP_AMBIENT_CLEAR_ALL,
	.arg5 = 1,
};

/* EINVAL takes precedence over EPERM. */
FIXTURE_VARIANT_ADD(bad_input, raise_forbidden_cap_64) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = 64,
	.bad_cap = true,
	.raise_forbidden = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_forbidden_cap_past_last) {
	.op = PR_CAP_AMBIENT_RAISE,
	.bad_cap = true,
	.past_last_cap = true,
	.raise_forbidden = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_forbidden_arg4) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = CAP_KILL,
	.arg4 = 1,
	.raise_forbidden = true,
};

FIXTURE_VARIANT_ADD(bad_input, raise_forbidden_arg5) {
	.op = PR_CAP_AMBIENT_RAISE,
	.arg3 = CAP_KILL,
	.arg5 = 1,
	.raise_forbidden = true,
};

FIXTURE_SETUP(bad_input)
{
	const char *why;
	__u64 eff, prm, inh;

	if (variant->bad_cap && !variant->past_last_cap &&
	    variant->arg3 >= 0 && variant->arg3 <= last_cap())
		SKIP(return, "capability %ld is valid on this kernel",
		     variant->arg3);
	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	set_caps(_metadata, eff & ~BIT_CAP(CAP_CHOWN), prm, inh);
	ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, CAP_MKNOD, 0, 0, 0));
	if (variant->raise_forbidden)
		ASSERT_EQ(0, prctl(PR_SET_SECUREBITS,
				   SECBIT_NO_CAP_AMBIENT_RAISE, 0, 0, 0));
	get_capsets(_metadata, &self->before);
}

FIXTURE_TEARDOWN(bad_input)
{
}

TEST_F(bad_input, einval_and_sets_unchanged)
{
	const unsigned long arg3 = variant->past_last_cap ?
		(unsigned long)last_cap() + 1 : (unsigned long)variant->arg3;
	struct capsets after;

	ASSERT_EQ(-1, prctl(PR_CAP_AMBIENT, variant->op, arg3, variant->arg4,
			    variant->arg5));
	EXPECT_EQ(EINVAL, errno);
	get_capsets(_metadata, &after);
	EXPECT_EQ(self->before.inh, after.inh);
	EXPECT_EQ(self->before.prm, after.prm);
	EXPECT_EQ(self->before.eff, after.eff);
	EXPECT_EQ(self->before.bnd, after.bnd);
	EXPECT_EQ(self->before.amb, after.amb);
}

FIXTURE(invariant) {};

FIXTURE_SETUP(invariant)
{
	const char *why;

	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(invariant)
{
}

/* Dropping a capability from the bounding set leaves it in pA. */
TEST_F(invariant, bounding_set_drop_keeps_ambient)
{
	raise_amb(_metadata, CAP_NET_RAW);
	ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0));
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* pA is a subset of pP: lowering pP with capset drops the pA bit. */
TEST_F(invariant, capset_lowering_permitted_drops_ambient)
{
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	drop_cap(_metadata, CAP_NET_RAW, true, false, false);
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
}

/* pA is a subset of pI: lowering pI with capset drops the pA bit. */
TEST_F(invariant, capset_lowering_inheritable_drops_ambient)
{
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
	drop_cap(_metadata, CAP_NET_RAW, false, true, false);
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_SYS_NICE), get_amb(_metadata));
}

/* pE plays no part: lowering only pE keeps pA. */
TEST_F(invariant, capset_lowering_effective_keeps_ambient)
{
	raise_amb(_metadata, CAP_NET_RAW);
	drop_cap(_metadata, CAP_NET_RAW, false, false, true);
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* CapAmb in the status file agrees with IS_SET for every capability. */
TEST_F(invariant, status_agrees_with_is_set)
{
	const int last = last_cap();
	__u64 want = 0, amb;
	int cap;

	for (cap = 0; cap <= last; cap += 3) {
		raise_amb(_metadata, cap);
		want |= BIT_CAP(cap);
	}
	amb = get_amb(_metadata);
	EXPECT_EQ(want, amb);
	for (cap = 0; cap <= last; cap++)
		EXPECT_EQ(!!(amb & BIT_CAP(cap)), amb_is_set(cap));
}

struct thread_data {
	int pipe_fd;
	int ready_fd;
	pid_t tid;
	int raise_ret;
	int is_set_ret;
	int status_ret;
	__u64 amb;
};

/* Raises CAP_NET_RAW in this thread only, and reports what it sees. */
static void *raise_in_thread(void *arg)
{
	struct thread_data *data = arg;

	data->raise_ret = amb_raise(CAP_NET_RAW);
	data->is_set_ret = amb_is_set(CAP_NET_RAW);
	data->status_ret = status_amb(&data->amb);
	return NULL;
}

/* Waits for the main thread, then reports what this thread sees. */
static void *wait_in_thread(void *arg)
{
	struct thread_data *data = arg;
	char c;

	if (read(data->pipe_fd, &c, 1) != 1)
		return NULL;
	data->is_set_ret = amb_is_set(CAP_NET_RAW);
	data->status_ret = status_amb(&data->amb);
	return NULL;
}

/*
 * Raises CAP_NET_RAW in this thread only, says so, and waits until the main
 * thread has looked.
 */
static void *raise_and_wait_in_thread(void *arg)
{
	struct thread_data *data = arg;
	char c;

	data->tid = syscall(SYS_gettid);
	data->raise_ret = amb_raise(CAP_NET_RAW);
	if (write(data->ready_fd, "x", 1) != 1 ||
	    read(data->pipe_fd, &c, 1) != 1)
		data->raise_ret = -2;
	return NULL;
}

/* pA belongs to a thread: a raise in another thread is not seen here. */
TEST_F(invariant, raise_in_thread_is_per_thread)
{
	struct thread_data data = {};
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, raise_in_thread, &data));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, data.raise_ret);
	EXPECT_EQ(1, data.is_set_ret);
	ASSERT_EQ(0, data.status_ret);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), data.amb);

	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/* pA belongs to a thread: a raise here is not seen by a running thread. */
TEST_F(invariant, raise_is_not_seen_by_running_thread)
{
	struct thread_data data = {
		.is_set_ret = -2,
		.status_ret = -2,
	};
	pthread_t thread;
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	data.pipe_fd = fds[0];
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_in_thread, &data));
	raise_amb(_metadata, CAP_NET_RAW);
	ASSERT_EQ(1, write(fds[1], "x", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, data.is_set_ret);
	ASSERT_EQ(0, data.status_ret);
	EXPECT_EQ(EMPTY_SET, data.amb);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
	close(fds[0]);
	close(fds[1]);
}

/*
 * /proc/PID/task/TID/status shows the ambient set of thread TID, whoever
 * reads it, and /proc/PID/status that of the thread group leader.
 */
TEST_F(invariant, status_of_other_thread_shows_its_set)
{
	struct thread_data data = {};
	int ready[2], wait[2];
	__u64 amb = ~0ULL;
	char path[64], c;
	pthread_t thread;

	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(wait, O_CLOEXEC));
	data.ready_fd = ready[1];
	data.pipe_fd = wait[0];
	ASSERT_EQ(0, pthread_create(&thread, NULL, raise_and_wait_in_thread,
				    &data));
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(0, data.raise_ret);

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", getpid(),
		 data.tid);
	ASSERT_EQ(0, status_amb_of(path, &amb));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), amb);
	snprintf(path, sizeof(path), "/proc/%d/status", getpid());
	ASSERT_EQ(0, status_amb_of(path, &amb));
	EXPECT_EQ(EMPTY_SET, amb);

	ASSERT_EQ(1, write(wait[1], "x", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, data.raise_ret);
	EXPECT_EQ(0, close(ready[0]));
	EXPECT_EQ(0, close(ready[1]));
	EXPECT_EQ(0, close(wait[0]));
	EXPECT_EQ(0, close(wait[1]));
}

FIXTURE(inherit) {};

FIXTURE_SETUP(inherit)
{
	const char *why;

	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
}

FIXTURE_TEARDOWN(inherit)
{
}

#define INHERITED_AMB (BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_SYS_NICE))

/*
 * What a child process or thread saw of its own capability sets, and the
 * result of the one step a test asks of it.  A child process sends it to
 * its parent over a pipe with send_report(), which collect_report() reads;
 * a thread fills it in memory.  Both sides check every field.
 */
struct self_report {
	int capget_ret;
	int status_ret;
	int is_set_net_raw;
	int is_set_sys_nice;
	__u64 inh;
	__u64 prm;
	__u64 amb;
	/* The test's own step: a return value, or -errno. */
	long step;
};

/* Fills @r with what the calling thread sees of its own sets. */
static void fill_report(struct self_report *r)
{
	__u64 eff;

	r->capget_ret = raw_capget(&eff, &r->prm, &r->inh);
	r->status_ret = status_amb(&r->amb);
	r->is_set_net_raw = amb_is_set(CAP_NET_RAW);
	r->is_set_sys_nice = amb_is_set(CAP_SYS_NICE);
}

/*
 * In a child process: fills @r and writes it to @fd.  Returns the child's
 * exit code, 0 if the whole report was written.
 */
static int send_report(int fd, struct self_report *r)
{
	fill_report(r);
	return write(fd, r, sizeof(*r)) == sizeof(*r) ? 0 : 1;
}

/*
 * In the parent: reads the report of child @pid from @fd, closes @fd and
 * waits for the child, which must have exited with 0.
 */
static void collect_report(struct __test_metadata *const _metadata,
			   pid_t pid, int fd, struct self_report *r)
{
	int status;

	ASSERT_EQ((ssize_t)sizeof(*r), read(fd, r, sizeof(*r)));
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, r->capget_ret);
	ASSERT_EQ(0, r->status_ret);
}

/* The child or thread of @r had INHERITED_AMB in pA. */
static void expect_inherited(struct __test_metadata *const _metadata,
			     const struct self_report *r)
{
	EXPECT_EQ(0, r->capget_ret);
	EXPECT_EQ(0, r->status_ret);
	EXPECT_EQ(1, r->is_set_net_raw);
	EXPECT_EQ(1, r->is_set_sys_nice);
	EXPECT_EQ(INHERITED_AMB, r->amb);
}

/* Reports on the pipe whose write end is *@arg: a clone(2) entry point. */
static int report_child(void *arg)
{
	struct self_report r = {};

	return send_report(*(int *)arg, &r);
}

/*
 * Starts report_child() with clone(2) and @flags, and collects its report.
 * Returns 0, or the errno of clone(2).
 */
static int clone_report(struct __test_metadata *const _metadata,
			unsigned long flags, struct self_report *r)
{
	const size_t stack_size = 1024 * 1024;
	char *stack;
	int fds[2];
	pid_t pid;

	stack = malloc(stack_size);
	ASSERT_NE(NULL, stack);
	ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
	pid = clone(report_child, stack + stack_size, flags | SIGCHLD, &fds[1]);
	if (pid < 0) {
		const int err = errno;

		close(fds[0]);
		close(fds[1]);
		free(stack);
		return err;
	}
	ASSERT_EQ(0, close(fds[1]));
	collect_report(_metadata, pid, fds[0], r);
	free(stack);
	return 0;
}

/*
 * Whether @err, from clone(2) or unshare(2) with CLONE_NEWUSER, means that
 * this system does not let the caller create a user namespace.
 */
static bool userns_refused(int err)
{
	return err == EPERM || err == ENOSPC || err == EUSERS || err == EINVAL;
}

static void *thread_child(void *arg)
{
	fill_report(arg);
	return NULL;
}

/* A child created by fork(2) has the ambient set of its parent. */
TEST_F(inherit, fork_keeps_ambient)
{
	struct self_report r = {};
	int fds[2];
	pid_t pid;

	ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(send_report(fds[1], &r));
	ASSERT_EQ(0, close(fds[1]));
	collect_report(_metadata, pid, fds[0], &r);
	expect_inherited(_metadata, &r);
}

/*
 * KEYCTL_SESSION_TO_PARENT gives the parent new credentials, a copy of its
 * own with the child's session keyring: the copy keeps the parent's pA.
 */
TEST_F(inherit, session_keyring_to_parent_keeps_ambient)
{
	struct self_report r = {};
	int fds[2];
	long ring;
	pid_t pid;

	if (syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING,
		    0) < 0)
		SKIP(return, "keyctl() failed: %s (CONFIG_KEYS=n?)",
		     strerror(errno));
	ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The step: the ID of the new keyring given to the parent. */
		r.step = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
		if (r.step < 0 ||
		    syscall(SYS_keyctl, KEYCTL_SESSION_TO_PARENT))
			r.step = -errno;
		_exit(send_report(fds[1], &r));
	}
	ASSERT_EQ(0, close(fds[1]));
	/* The new credentials are installed on the way back to user space. */
	collect_report(_metadata, pid, fds[0], &r);
	if (r.step < 0 && not_implemented(-r.step))
		SKIP(return, "no KEYCTL_SESSION_TO_PARENT here: %s",
		     strerror(-r.step));
	ASSERT_LT(0, r.step)
	{
		TH_LOG("The child could not give its keyring: %s",
		       strerror(-r.step));
	}
	ring = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID,
		       KEY_SPEC_SESSION_KEYRING, 0);
	ASSERT_EQ(r.step, ring)
	{
		TH_LOG("The parent did not get the child's session keyring");
	}
	EXPECT_EQ(INHERITED_AMB, get_amb(_metadata));
}

/* A child created by clone(2) has the ambient set of its parent. */
TEST_F(inherit, clone_keeps_ambient)
{
	struct self_report r = {};

	ASSERT_EQ(0, clone_report(_metadata, 0, &r));
	expect_inherited(_metadata, &r);
}

/* A new thread has the ambient set of the thread that created it. */
TEST_F(inherit, thread_keeps_ambient)
{
	struct self_report r = { .capget_ret = -1, .status_ret = -1 };
	pthread_t thread;

	ASSERT_EQ(0, pthread_create(&thread, NULL, thread_child, &r));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	expect_inherited(_metadata, &r);
}

FIXTURE(uid_change) {};

FIXTURE_SETUP(uid_change)
{
	const char *why;

	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	if (!can_switch_ids())
		SKIP(return, NEED_IDS_REASON);
	raise_amb(_metadata, CAP_NET_RAW);
}

FIXTURE_TEARDOWN(uid_change)
{
}

/* Leaving root for good clears pA, even with SECBIT_KEEP_CAPS set. */
TEST_F(uid_change, root_to_nonroot_clears_ambient_despite_keep_caps)
{
	__u64 eff, prm, inh;

	ASSERT_EQ(0, set_securebits(SECBIT_KEEP_CAPS));
	ASSERT_EQ(0, syscall(SYS_setresuid, NOBODY_UID, NOBODY_UID,
			     NOBODY_UID));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	/* SECBIT_KEEP_CAPS did keep pP... */
	ASSERT_EQ(BIT_CAP(CAP_NET_RAW), prm & BIT_CAP(CAP_NET_RAW));
	/* ... but not pA. */
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/*
 * SECBIT_NO_SETUID_FIXUP turns off the capability changes of a change of
 * user ID: leaving root for good then keeps pA.
 */
TEST_F(uid_change, no_setuid_fixup_keeps_ambient)
{
	ASSERT_EQ(0, set_securebits(SECBIT_NO_SETUID_FIXUP));
	ASSERT_EQ(0, syscall(SYS_setresuid, NOBODY_UID, NOBODY_UID,
			     NOBODY_UID));
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* A change of the file-system user ID alone leaves pA alone. */
TEST_F(uid_change, fsuid_change_keeps_ambient)
{
	/* CAP_CHOWN is one of the capabilities that follow the fsuid in pE. */
	raise_amb(_metadata, CAP_CHOWN);
	/* setfsuid() returns the file-system user ID it found, never -1 */
	if (syscall(SYS_setfsuid, NOBODY_UID) < 0)
		SKIP(return, "no setfsuid() here: %s", strerror(errno));
	ASSERT_EQ((long)NOBODY_UID, syscall(SYS_setfsuid, (uid_t)-1));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_CHOWN),
		  get_amb(_metadata));
}

/*
 * setuid(2) leaving root for good clears pA as setresuid(2) does, even
 * with PR_SET_KEEPCAPS.
 */
TEST_F(uid_change, setuid_with_keepcaps_clears_ambient)
{
	ASSERT_EQ(0, prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	ASSERT_EQ(0, syscall(SYS_setuid, NOBODY_UID));
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/* Leaving root for good without SECBIT_KEEP_CAPS clears pA too. */
TEST_F(uid_change, root_to_nonroot_clears_ambient)
{
	ASSERT_EQ(0, syscall(SYS_setresuid, NOBODY_UID, NOBODY_UID,
			     NOBODY_UID));
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/* Keeping root as the saved user ID keeps pA. */
TEST_F(uid_change, saved_root_uid_keeps_ambient)
{
	ASSERT_EQ(0, syscall(SYS_setresuid, NOBODY_UID, NOBODY_UID, 0));
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* Changing group IDs keeps pA. */
TEST_F(uid_change, gid_change_keeps_ambient)
{
	ASSERT_EQ(0, syscall(SYS_setresgid, NOBODY_GID, NOBODY_GID,
			     NOBODY_GID));
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

/* Going from a non-root user to another non-root user keeps pA. */
TEST_F(uid_change, nonroot_to_nonroot_keeps_ambient)
{
	become_user(_metadata, NOBODY_UID, NOBODY_GID,
		    BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_SETUID));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
	raise_amb(_metadata, CAP_NET_RAW);
	ASSERT_EQ(0, syscall(SYS_setresuid, OTHER_UID, OTHER_UID, OTHER_UID));
	EXPECT_EQ(OTHER_UID, geteuid());
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW), get_amb(_metadata));
}

FIXTURE(userns) {};

FIXTURE_SETUP(userns)
{
	const char *why;

	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	raise_amb(_metadata, CAP_NET_RAW);
	if (unshare(CLONE_NEWUSER))
		SKIP(return, "cannot create a user namespace: %s",
		     strerror(errno));
}

FIXTURE_TEARDOWN(userns)
{
}

static void write_proc(struct __test_metadata *const _metadata,
		       const char *path, const char *text)
{
	ASSERT_TRUE(write_text(path, text))
	{
		TH_LOG("Failed to write %s: %s", path, strerror(errno));
	}
}

/*
 * Maps root in the new user namespace to root outside.  A kernel without
 * /proc/PID/setgroups (before 3.19, or another implementation of the ABI)
 * needs no denial.
 */
static void map_root(struct __test_metadata *const _metadata)
{
	if (!write_text("/proc/self/setgroups", "deny"))
		ASSERT_EQ(ENOENT, errno);
	write_proc(_metadata, "/proc/self/uid_map", "0 0 1");
	write_proc(_metadata, "/proc/self/gid_map", "0 0 1");
}

/* Entering a new user namespace empties pA. */
TEST_F(userns, unshare_clears_ambient)
{
	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/* In the namespace, RAISE works for capabilities held there. */
TEST_F(userns, raise_works_for_caps_held_in_namespace)
{
	map_root(_metadata);
	fill_inheritable(_metadata);
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_ADMIN);
	EXPECT_EQ(BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_SYS_ADMIN),
		  get_amb(_metadata));
}

/* In the namespace, pI starts empty, so RAISE fails until pI is filled. */
TEST_F(userns, raise_needs_inheritable_in_namespace)
{
	__u64 eff, prm, inh;

	map_root(_metadata);
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	ASSERT_EQ(EMPTY_SET, inh);
	ASSERT_EQ(-1, amb_raise(CAP_NET_RAW));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
}

/*
 * Entering a user namespace other than with unshare(2) empties pA as well.
 * Before that pA holds CAP_NET_RAW and CAP_SYS_NICE.
 */
FIXTURE(enter_userns) {};

FIXTURE_SETUP(enter_userns)
{
	const char *why;

	why = setup_root(_metadata);
	if (why)
		SKIP(return, "%s", why);
	raise_amb(_metadata, CAP_NET_RAW);
	raise_amb(_metadata, CAP_SYS_NICE);
}

FIXTURE_TEARDOWN(enter_userns)
{
}

/* A child created by clone(2) with CLONE_NEWUSER starts with an empty pA. */
TEST_F(enter_userns, clone_newuser_clears_ambient)
{
	struct self_report report = {};
	int err;

	err = clone_report(_metadata, CLONE_NEWUSER, &report);
	if (userns_refused(err))
		SKIP(return, "clone(CLONE_NEWUSER): %s", strerror(err));
	ASSERT_EQ(0, err);
	EXPECT_EQ(0, report.is_set_net_raw);
	EXPECT_EQ(0, report.is_set_sys_nice);
	EXPECT_EQ(EMPTY_SET, report.amb);
	EXPECT_EQ(EMPTY_SET, report.inh);
	/* pP is full in the new namespace: only pA and pI are emptied. */
	EXPECT_EQ(all_caps(), report.prm & all_caps());
}

/*
 * clone(2) with CLONE_NEWUSER gives the child new credentials: the caller
 * keeps its own, pA and pI included.
 */
TEST_F(enter_userns, clone_newuser_caller_keeps_ambient)
{
	struct self_report report = {};
	struct capsets before, after;
	int err;

	get_capsets(_metadata, &before);
	ASSERT_EQ(BIT_CAP(CAP_NET_RAW) | BIT_CAP(CAP_SYS_NICE), before.amb);
	err = clone_report(_metadata, CLONE_NEWUSER, &report);
	if (userns_refused(err))
		SKIP(return, "clone(CLONE_NEWUSER): %s", strerror(err));
	ASSERT_EQ(0, err);
	get_capsets(_metadata, &after);
	EXPECT_EQ(before.amb, after.amb);
	EXPECT_EQ(before.inh, after.inh);
	EXPECT_EQ(before.prm, after.prm);
	EXPECT_EQ(before.eff, after.eff);
	EXPECT_EQ(before.bnd, after.bnd);
	EXPECT_EQ(1, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(1, amb_is_set(CAP_SYS_NICE));
}

/*
 * Joining an existing user namespace with setns(2) empties pA, although the
 * caller holds CAP_SYS_ADMIN over it and keeps a full pP there.
 */
TEST_F(enter_userns, setns_clears_ambient)
{
	__u64 eff, prm, inh;
	int fd;

	fd = open_child_userns(_metadata);
	if (fd < 0)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, setns(fd, CLONE_NEWUSER))
	{
		TH_LOG("setns failed: %s", strerror(errno));
	}
	ASSERT_EQ(0, close(fd));

	EXPECT_EQ(0, amb_is_set(CAP_NET_RAW));
	EXPECT_EQ(0, amb_is_set(CAP_SYS_NICE));
	EXPECT_EQ(EMPTY_SET, get_amb(_metadata));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(EMPTY_SET, inh);
	EXPECT_EQ(all_caps(), prm & all_caps());
}

TEST_HARNESS_MAIN
