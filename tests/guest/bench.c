// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks of the paths the ambient capability set touches:
 * fork+execve+wait of this static program, and of set-user-ID-root and
 * file-capability copies of it (which must clear the ambient set), each
 * with an empty and with a five-capability ambient set; prctl(PR_CAP_AMBIENT)
 * IS_SET, LOWER+RAISE and CLEAR_ALL; capget+capset; setresuid round trips.
 *
 *   bench [BATCHES [BATCH_MS]]		(run as root; default 11 batches of <= 60 ms)
 *   bench --exit [PE PA]		(what the exec benchmarks run)
 *
 * Each benchmark runs in its own child with the credentials it needs. It
 * is calibrated so that one batch takes half to all of BATCH_MS, warmed
 * up with one discarded batch, then timed over BATCHES batches. Output,
 * one set of lines per benchmark, values in ns of the guest's
 * CLOCK_MONOTONIC per operation (under QEMU -icount shift=0, instructions):
 *
 *   @@ bench result name=NAME pa=N iters=I batches=B median=V p25=V p75=V min=V max=V
 *   @@ bench batches name=NAME ns=V,V,...
 *   @@ bench skip name=NAME reason=WHY
 *
 * framed by "@@ bench start ... clocksource=NAME" and
 * "@@ bench end status=ok|failed"; the exit status is 0 only when every
 * benchmark that ran succeeded. On a
 * kernel without prctl(PR_CAP_AMBIENT) (EINVAL) the benchmarks that need
 * an ambient set are skipped; the others run with an empty one (pa=0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/securebits.h>

#include "caps.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_BATCHES	1000
#define UID_A		1000
#define UID_B		1001

/* The five capabilities raised in the ambient set. */
static const int amb_caps[] = {
	CAP_CHOWN, CAP_KILL, CAP_NET_BIND_SERVICE, CAP_NET_RAW, CAP_SYS_NICE,
};
#define N_AMB_CAPS	((int)ARRAY_SIZE(amb_caps))

static char self[4096];		/* this program, for the exec benchmarks */
static char *exe;		/* what an exec benchmark runs */
/* Copies of this program: set-user-ID root; with file capabilities. */
#define SETUID_COPY	"/tmp/bench-setuid"
#define FCAPS_COPY	"/tmp/bench-fcaps"
static char pe_arg[32], pa_arg[32];	/* pE and pA the exec child expects */
static int have_ambient;
static int raised;		/* caps in pA of this benchmark's process */

static unsigned long long amb_mask(void)
{
	unsigned long long m = 0;
	int i;

	for (i = 0; i < N_AMB_CAPS; i++)
		m |= 1ULL << amb_caps[i];
	return m;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The clocksource behind CLOCK_MONOTONIC: jiffies would quantise batches. */
static const char *clock_name(void)
{
	static char name[64];
	FILE *f;

	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  "r");
	if (!f || fscanf(f, "%63s", name) != 1)
		snprintf(name, sizeof(name), "unknown");
	if (f)
		fclose(f);
	return name;
}

static int fail(const char *what)
{
	printf("@@ bench error %s: %s\n", what, strerror(errno));
	return -1;
}

/* pA as a mask of the five capabilities (empty without PR_CAP_AMBIENT). */
static unsigned long long amb_now(void)
{
	unsigned long long m = 0;
	int i;

	for (i = 0; i < N_AMB_CAPS; i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, amb_caps[i], 0, 0) == 1)
			m |= 1ULL << amb_caps[i];
	return m;
}

/* "bench --exit [PE PA]": exit at once, or check pE and pA (hex) first. */
static int exit_child(int argc, char **argv)
{
	struct caps c;

	if (argc < 4)
		return 0;
	if (caps_get(&c))
		return 2;
	if (c.effective != strtoull(argv[2], NULL, 16))
		return 3;
	return amb_now() == strtoull(argv[3], NULL, 16) ? 0 : 4;
}

/*
 * Credentials of a benchmark: uids (r, e, s) kept with SECBIT_KEEP_CAPS,
 * the five capabilities in pI (and, for a non-root euid, pP), and in pA
 * when want_ambient and the kernel has it.
 */
static int setup_creds(uid_t r, uid_t e, uid_t s, int want_ambient)
{
	unsigned long long m = amb_mask();
	struct caps c;
	int i;

	if (prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS, 0, 0, 0))
		return fail("PR_SET_SECUREBITS");
	if (setresuid(r, e, s))
		return fail("setresuid");
	if (caps_get(&c))
		return fail("capget");
	c.inheritable = m;
	if (e != 0) {
		c.permitted = m;
		c.effective = 0;
	}
	if (caps_set(&c))
		return fail("capset");

	raised = 0;
	if (!want_ambient || !have_ambient)
		return 0;
	for (i = 0; i < N_AMB_CAPS; i++)
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, amb_caps[i], 0, 0))
			return fail("PR_CAP_AMBIENT_RAISE");
	raised = N_AMB_CAPS;
	return 0;
}

static int setup_user_pa0(void)
{
	return setup_creds(UID_A, UID_A, UID_A, 0);
}

static int setup_user_pa5(void)
{
	return setup_creds(UID_A, UID_A, UID_A, 1);
}

static int setup_user_pair(void)
{
	return setup_creds(UID_A, UID_A, UID_B, 0);
}

static int setup_root(void)
{
	return setup_creds(0, 0, 0, 0);
}

/* The bounding set: what a set-user-ID-root exec makes effective. */
static unsigned long long bset_mask(void)
{
	unsigned long long m = 0;
	int c;

	for (c = 0; c < 64 && prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1; c++)
		m |= 1ULL << c;
	return m;
}

/* Copy this program to PATH, owned by root, with MODE. */
static int copy_self(const char *path, mode_t mode)
{
	char buf[65536];
	int in, out = -1, ret = -1;
	ssize_t n;

	in = open(self, O_RDONLY);
	if (in >= 0)
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (in < 0 || out < 0)
		goto done;
	errno = EIO;	/* for a short write */
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto done;
	if (n == 0 && !fchown(out, 0, 0) && !fchmod(out, mode))
		ret = 0;
done:
	if (ret)
		fail(path);
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) && !ret)
		ret = fail(path);
	return ret;
}

/*
 * The exec targets in /tmp (a tmpfs, which keeps security.* xattrs):
 * set-user-ID root, and fP = CAP_NET_RAW with the effective bit (the
 * xattr's fields are little-endian: x86 only, as the guests are).
 */
static int make_targets(void)
{
	struct vfs_cap_data fcaps = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data = { { .permitted = 1U << CAP_NET_RAW } },
	};

	if (copy_self(SETUID_COPY, 04755) || copy_self(FCAPS_COPY, 0755))
		return -1;
	if (setxattr(FCAPS_COPY, "security.capability", &fcaps, sizeof(fcaps), 0))
		return fail("setxattr security.capability");
	return 0;
}

static int op_exec(void)
{
	char *argv[] = { exe, "--exit", pe_arg[0] ? pe_arg : NULL, pa_arg, NULL };
	char *envp[] = { NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		execve(exe, argv, envp);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("@@ bench error exec child status 0x%x\n", status);
		return -1;
	}
	return 0;
}

/*
 * Exec once with the pE' and pA' the child must see, so the path is known
 * to be taken; the timed execs do not check. A non-root exec without file
 * capabilities keeps pA' = pA and gets pE' = pA'. A set-user-ID-root exec
 * gets pE' = the bounding set, a file-capability one pE' = fP (its fI is
 * empty); both clear pA'.
 */
static int op_exec_checked(void)
{
	unsigned long long pe = raised ? amb_mask() : 0ULL, pa = pe;

	if (!strcmp(exe, SETUID_COPY)) {
		pe = bset_mask();
		pa = 0;
	} else if (!strcmp(exe, FCAPS_COPY)) {
		pe = 1ULL << CAP_NET_RAW;
		pa = 0;
	}
	snprintf(pe_arg, sizeof(pe_arg), "%llx", pe);
	snprintf(pa_arg, sizeof(pa_arg), "%llx", pa);
	if (op_exec())
		return -1;
	pe_arg[0] = '\0';
	return 0;
}

static int op_is_set(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0) != 1)
		return fail("PR_CAP_AMBIENT_IS_SET");
	return 0;
}

/* Two commits of new credentials; pA is the same after as before. */
static int op_lower_raise(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_NET_RAW, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0))
		return fail("PR_CAP_AMBIENT_LOWER/RAISE");
	return 0;
}

/* Empties pA the first time; then commits an unchanged empty set. */
static int op_clear_all(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return fail("PR_CAP_AMBIENT_CLEAR_ALL");
	return 0;
}

static int op_capget_capset(void)
{
	struct caps c;

	if (caps_get(&c))
		return fail("capget");
	if (caps_set(&c))
		return fail("capset");
	return 0;
}

/* Non-root euid swap, UID_A <-> UID_B (the saved uid). */
static int op_setresuid_user(void)
{
	if (setresuid(-1, UID_B, -1) || setresuid(-1, UID_A, -1))
		return fail("setresuid");
	return 0;
}

/* euid 0 -> UID_A -> 0 with ruid and suid 0: pE dropped and restored. */
static int op_setresuid_root(void)
{
	if (setresuid(-1, UID_A, -1) || setresuid(-1, 0, -1))
		return fail("setresuid");
	return 0;
}

struct bench {
	const char *name;
	int (*setup)(void);
	int (*check)(void);	/* run once before timing, may be NULL */
	int (*op)(void);
	int needs_ambient;
	const char *exe;	/* what an exec benchmark runs; NULL: this program */
};

static const struct bench benches[] = {
	{ "exec-pa0", setup_user_pa0, op_exec_checked, op_exec, 0, NULL },
	{ "exec-pa5", setup_user_pa5, op_exec_checked, op_exec, 1, NULL },
	{ "exec-setuid", setup_user_pa0, op_exec_checked, op_exec, 0, SETUID_COPY },
	{ "exec-setuid-pa5", setup_user_pa5, op_exec_checked, op_exec, 1, SETUID_COPY },
	{ "exec-fcaps", setup_user_pa0, op_exec_checked, op_exec, 0, FCAPS_COPY },
	{ "exec-fcaps-pa5", setup_user_pa5, op_exec_checked, op_exec, 1, FCAPS_COPY },
	{ "prctl-is-set", setup_user_pa5, NULL, op_is_set, 1, NULL },
	{ "prctl-lower-raise", setup_user_pa5, NULL, op_lower_raise, 1, NULL },
	{ "prctl-clear-all", setup_user_pa5, NULL, op_clear_all, 1, NULL },
	{ "capget-capset", setup_user_pa0, NULL, op_capget_capset, 0, NULL },
	{ "setresuid-user", setup_user_pair, NULL, op_setresuid_user, 0, NULL },
	{ "setresuid-root", setup_root, NULL, op_setresuid_root, 0, NULL },
};

/*
 * Wait for the next timer interrupt: spin on the clock until two readings
 * lie more than TICK_GAP_NS apart (an interrupt ran between them), at most
 * MAX_ALIGN_NS. Work the kernel defers to the tick (freeing credentials
 * after an RCU grace period, above all) then falls at the same points of
 * every batch, and a batch of the credential system calls costs the same
 * each time instead of one tick's work more or less.
 */
#define TICK_GAP_NS	1000
#define MAX_ALIGN_NS	50000000LL
static void align_to_tick(void)
{
	long long start = now_ns(), prev = start, t;

	for (;;) {
		t = now_ns();
		if (t - prev > TICK_GAP_NS || t - start > MAX_ALIGN_NS)
			return;
		prev = t;
	}
}

static int run_batch(int (*op)(void), long iters, long long *ns)
{
	long long t0;
	long i;

	align_to_tick();
	t0 = now_ns();

	for (i = 0; i < iters; i++)
		if (op())
			return -1;
	*ns = now_ns() - t0;
	if (*ns <= 0)
		*ns = 1;
	return 0;
}

/* Iterations for one batch of at most batch_ns; doubles as warm-up. */
static long calibrate(int (*op)(void), long long batch_ns)
{
	long long ns, n = 1;

	for (;;) {
		if (run_batch(op, n, &ns))
			return -1;
		if (ns >= batch_ns / 8 || n >= 1LL << 30)
			break;
		n *= 2;
	}
	n = n * batch_ns / ns;
	/*
	 * Down to a power of two (a batch of half to all of batch_ns): the
	 * calibration's small noise then leaves the count, and with it what
	 * the batches allocate and free, the same in every boot.
	 */
	while (n & (n - 1))
		n &= n - 1;
	return n > 0 ? n : 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Linear interpolation between the closest ranks of sorted v[0..n-1]. */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static int measure(const struct bench *b, int batches, long long batch_ns)
{
	double per_op[MAX_BATCHES], sorted[MAX_BATCHES];
	long long ns;
	long iters;
	int i;

	if (b->exe)
		exe = (char *)b->exe;
	if (b->setup())
		return -1;
	if (b->check && b->check())
		return -1;
	iters = calibrate(b->op, batch_ns);
	if (iters < 0 || run_batch(b->op, iters, &ns))	/* warm-up */
		return -1;
	for (i = 0; i < batches; i++) {
		if (run_batch(b->op, iters, &ns))
			return -1;
		per_op[i] = (double)ns / iters;
	}

	memcpy(sorted, per_op, sizeof(double) * batches);
	qsort(sorted, batches, sizeof(double), cmp_double);
	printf("@@ bench result name=%s pa=%d iters=%ld batches=%d median=%.1f p25=%.1f p75=%.1f min=%.1f max=%.1f\n",
	       b->name, raised, iters, batches, quantile(sorted, batches, 0.5),
	       quantile(sorted, batches, 0.25), quantile(sorted, batches, 0.75),
	       sorted[0], sorted[batches - 1]);
	printf("@@ bench batches name=%s ns=", b->name);
	for (i = 0; i < batches; i++)
		printf("%s%.1f", i ? "," : "", per_op[i]);
	printf("\n");
	return 0;
}

/* Run one benchmark in a child, so its credentials do not leak. */
static int run_one(const struct bench *b, int batches, long long batch_ns)
{
	int status;
	pid_t pid;

	if (b->needs_ambient && !have_ambient) {
		printf("@@ bench skip name=%s reason=prctl(PR_CAP_AMBIENT)=EINVAL\n",
		       b->name);
		return 0;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		int ret = measure(b, batches, batch_ns);

		fflush(stdout);
		_exit(ret ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("@@ bench error name=%s failed (status 0x%x)\n",
		       b->name, status);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int batches = 11, batch_ms = 60, failed = 0;
	struct utsname u;
	ssize_t len;
	size_t i;

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return exit_child(argc, argv);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		batches = atoi(argv[1]);
	if (argc > 2)
		batch_ms = atoi(argv[2]);
	if (batches < 1 || batches > MAX_BATCHES || batch_ms < 1) {
		printf("@@ bench error usage: bench [BATCHES (1-%d) [BATCH_MS]]\n",
		       MAX_BATCHES);
		return 2;
	}
	if (geteuid() != 0) {
		printf("@@ bench error must run as root\n");
		return 2;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return fail("readlink /proc/self/exe"), 1;
	self[len] = '\0';
	exe = self;
	if (make_targets())
		return 1;

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0) >= 0)
		have_ambient = 1;
	else if (errno != EINVAL)
		return fail("PR_CAP_AMBIENT_IS_SET"), 1;

	uname(&u);
	printf("@@ bench start release=%s ambient=%s batches=%d batch_ms=%d clocksource=%s\n",
	       u.release, have_ambient ? "yes" : "no", batches, batch_ms,
	       clock_name());
	for (i = 0; i < ARRAY_SIZE(benches); i++)
		if (run_one(&benches[i], batches, batch_ms * 1000000LL))
			failed = 1;
	printf("@@ bench end status=%s\n", failed ? "failed" : "ok");
	return failed;
}
