// SPDX-License-Identifier: GPL-2.0
/*
 * Randomized differential test of the capability sets: run seeded random
 * sequences of capset(2), prctl(2) (PR_CAP_AMBIENT, PR_SET_SECUREBITS,
 * PR_SET_KEEPCAPS, PR_CAPBSET_DROP/READ, PR_SET_NO_NEW_PRIVS), setresuid(2)
 * and execve(2) on the running kernel and on the reference model of
 * ../model/capmodel.h, and compare after every operation: the return
 * value and errno, capget(2), CapBnd and CapAmb of /proc/self/status,
 * PR_GET_SECUREBITS, PR_GET_NO_NEW_PRIVS, the uids and gids, AT_SECURE
 * after an execve, and pA being a subset of pP & pI.
 *
 *   difftest [SEED [OPS [ignore-capamb]]]
 *	run sequences until OPS operations ran (run as root; defaults 1
 *	and 100000); ignore-capamb tolerates a missing CapAmb line (a
 *	kernel without the ambient set then fails on what its calls do,
 *	not on the missing line)
 *
 * Each sequence runs in its own child, so that no state leaks from one to
 * the next. An execve runs one of several copies of this program, set-id
 * or with file capabilities, on a tmpfs mounted in a private mount
 * namespace; the copy continues the sequence ("--cont", internal) with
 * the sequence and the model's state passed in argv.
 *
 * On the first mismatch the sequence is re-run with shorter prefixes to
 * find the shortest one that fails, then operations that do not matter
 * are dropped, and the smallest failing sequence is printed with a trace.
 * Output is marked for the host:
 *
 *   @@ difftest-start seed=S ops=N
 *   @@ difftest-mismatch seed=S seq=Q op=K prefix=L reduced=M
 *   @@ difftest ops=N seqs=N execs=N mismatches=N errors=N seconds=T
 *
 * Exit status: 0 with no mismatch, 1 on a mismatch, 2 on an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/capability.h>

#include "caps.h"
#include "../model/capmodel.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT		47
#endif

#define __noreturn	__attribute__((noreturn))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_OPS		96		/* operations in one sequence */
#define OP_FIELDS	9
#define HELPER_DIR	"/tmp/difftest"
#define USER_ID		1000		/* the non-root uid and gid used */
#define OTHER_ID	2000
#define CAPS_XATTR	"security.capability"

static void die(const char *what)
{
	printf("difftest: error: %s: %s\n", what, strerror(errno));
	printf("@@ difftest error %s\n", what);
	fflush(stdout);
	_exit(2);
}

/* Pseudo-random numbers: splitmix64, one state per sequence. */
static uint64_t rng_next(uint64_t *r)
{
	uint64_t z = (*r += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(uint64_t *r, unsigned int n)
{
	return rng_next(r) % n;
}

static int chance(uint64_t *r, unsigned int percent)
{
	return rnd(r, 100) < percent;
}

/*
 * The programs execve() runs: copies of this one. The last one gets new
 * random file capabilities for every sequence.
 */
struct helper {
	const char *name;
	mode_t mode;
	struct cm_file f;
};

static struct helper helpers[] = {
	{ "plain", 0755, { .uid = 0 } },
	{ "suid-root", 04755, { .setuid = 1, .uid = 0 } },
	{ "suid-user", 04755, { .setuid = 1, .uid = USER_ID } },
	{ "sgid", 02755, { .setgid = 1, .gid = USER_ID } },
	{ "fcap-e", 0755, { .has_fcap = 1, .fe = 1,
		.fp = CM_BIT(8) | CM_BIT(13) | CM_BIT(21) } },
	{ "fcap-i", 0755, { .has_fcap = 1, .fi = CM_VALID } },
	{ "fcap-p", 0755, { .has_fcap = 1, .fp = CM_BIT(7) | CM_BIT(32) } },
	{ "fcap-pie", 0755, { .has_fcap = 1, .fe = 1,
		.fp = CM_BIT(0) | CM_BIT(40), .fi = CM_BIT(7) | CM_BIT(13) } },
	{ "fcap-empty", 0755, { .has_fcap = 1 } },
	{ "fcap-suid", 04755, { .setuid = 1, .uid = 0, .has_fcap = 1,
		.fe = 1, .fp = CM_BIT(13) } },
	{ "fcap-rand", 0755, { .has_fcap = 0 } },
};

#define HELPER_RAND	(ARRAY_SIZE(helpers) - 1)

/* The capabilities most operations pick from: the interesting ones. */
static const unsigned int pool[] = { 0, 7, 8, 13, 21, 31, 32, 40 };

/*
 * One operation. Generated operations may be relative to the state they
 * meet (keep these bits of pP, raise the n-th capability of pP & pI);
 * resolve() turns them into concrete ones against the model's state.
 */
enum op_kind {
	OP_CAPSET, OP_AMBIENT, OP_SECBITS, OP_KEEPCAPS, OP_BSET_DROP,
	OP_BSET_READ, OP_NNP, OP_SETRESUID, OP_EXEC, OP_KINDS
};

static const char *const op_names[OP_KINDS] = {
	"capset", "ambient", "securebits", "keepcaps", "bset-drop",
	"bset-read", "no-new-privs", "setresuid", "execve",
};

/* How often each kind is generated, per 1000; execve is the slow one. */
static const unsigned int op_weights[OP_KINDS] = {
	170, 330, 80, 40, 25, 15, 8, 150, 80,
};

struct op {
	uint32_t kind;
	/*
	 * CAPSET:  version, pid (0: 0, 1: own, 2: 1), relative?, then
	 *          e, p, i, or keep-p, keep-i, keep-e, add-p, add-i, add-e
	 * AMBIENT: op, cap, a4, a5, cap is (0: itself, 1: the n-th of
	 *          pP & pI, 2: the n-th of pA)
	 * SECBITS: how (0: =, 1: ^=, 2: |=, 3: &= ~), value
	 * KEEPCAPS, BSET_DROP, BSET_READ: the argument; NNP: arg2, arg3
	 * SETRESUID: ruid, euid, suid
	 * EXEC:    helper, fP, fI, fcap?, fE?
	 */
	uint64_t f[OP_FIELDS];
};

struct seq {
	uint64_t seed;
	uint32_t no;
	int nops;
	struct cm_file rand;		/* the file capabilities of fcap-rand */
	struct op ops[MAX_OPS];
};

/* ---- generation ---- */

static uint64_t pool_bit(uint64_t *r)
{
	return CM_BIT(pool[rnd(r, ARRAY_SIZE(pool))]);
}

static uint64_t gen_cap(uint64_t *r)
{
	static const uint64_t bad[] = { 41, 63, 64, 1000, 0x100000007ULL, ~0ULL };
	unsigned int n = rnd(r, 100);

	if (n < 75)
		return pool[rnd(r, ARRAY_SIZE(pool))];
	if (n < 95)
		return rnd(r, CM_LAST_CAP + 1);
	return bad[rnd(r, ARRAY_SIZE(bad))];
}

static uint64_t gen_set(uint64_t *r)
{
	uint64_t set = 0;
	unsigned int n;

	switch (rnd(r, 10)) {
	case 0:
		return 0;
	case 1:
		return CM_VALID;
	case 2:
		return rng_next(r);	/* bits above the last cap as well */
	case 3:
		return pool_bit(r);
	}
	for (n = 0; n < ARRAY_SIZE(pool); n++)
		if (chance(r, 50))
			set |= CM_BIT(pool[n]);
	return set;
}

static uint64_t gen_keep(uint64_t *r)
{
	unsigned int n = rnd(r, 100);

	if (n < 60)
		return ~0ULL;
	if (n < 90)
		return ~pool_bit(r);
	return gen_set(r);
}

static uint64_t subset_of_pool(uint64_t *r, unsigned int percent)
{
	uint64_t set = 0;
	unsigned int n;

	for (n = 0; n < ARRAY_SIZE(pool); n++)
		if (chance(r, percent))
			set |= CM_BIT(pool[n]);
	return set;
}

static uint64_t gen_add(uint64_t *r)
{
	return chance(r, 25) ? pool_bit(r) : 0;
}

static void gen_capset(uint64_t *r, struct op *op)
{
	static const uint64_t versions[] = { CM_CAPV1, CM_CAPV2, 0x12345678 };
	int n;

	op->f[0] = chance(r, 90) ? CM_CAPV3 : versions[rnd(r, 3)];
	op->f[1] = chance(r, 92) ? 0 : 1 + rnd(r, 2);
	op->f[2] = chance(r, 70);
	if (!op->f[2]) {
		for (n = 3; n < 6; n++)
			op->f[n] = gen_set(r);
		return;
	}
	for (n = 3; n < 6; n++)
		op->f[n] = gen_keep(r);
	for (n = 6; n < 9; n++)
		op->f[n] = gen_add(r);
	/* pI is empty at first: fill it often, or little can be ambient */
	if (chance(r, 30))
		op->f[7] = subset_of_pool(r, 50);
}

/* Mostly well-formed calls, and every kind of malformed one. */
static void gen_ambient(uint64_t *r, struct op *op)
{
	static const uint64_t bad_ops[] = { 0, 5, 99, ~0ULL };
	unsigned int n = rnd(r, 100);

	op->f[1] = gen_cap(r);
	if (n < 40) {
		op->f[0] = CM_AMB_RAISE;
		op->f[4] = chance(r, 70);
	} else if (n < 75) {
		op->f[0] = n < 60 ? CM_AMB_IS_SET : CM_AMB_LOWER;
		op->f[4] = chance(r, 50) ? 2 : 0;
	} else if (n < 83) {
		op->f[0] = CM_AMB_CLEAR_ALL;
		op->f[1] = 0;
	} else if (n < 87) {
		op->f[0] = bad_ops[rnd(r, ARRAY_SIZE(bad_ops))];
	} else if (n < 93) {
		op->f[0] = 1 + rnd(r, 3);
		op->f[2 + rnd(r, 2)] = chance(r, 50) ? 1 : ~0ULL;
	} else {
		op->f[0] = CM_AMB_CLEAR_ALL;
		op->f[1 + rnd(r, 3)] = 1 + rnd(r, 40);
	}
	if (op->f[4])
		op->f[1] = rnd(r, 64);
}

static void gen_secbits(uint64_t *r, struct op *op)
{
	static const uint64_t bad[] = { 1 << 8, 1U << 31, 1ULL << 40 };
	unsigned int n = rnd(r, 100);

	if (n < 75) {
		op->f[0] = n < 50 ? 1 : n < 65 ? 2 : 3;
		op->f[1] = 1 << rnd(r, 8);
	} else if (n < 95) {
		op->f[1] = n < 90 ? rnd(r, 256) : 0;
	} else {
		op->f[1] = bad[rnd(r, ARRAY_SIZE(bad))] | rnd(r, 256);
	}
}

static uint64_t gen_uid(uint64_t *r)
{
	unsigned int n = rnd(r, 100);

	if (n < 35)
		return CM_NOID;
	if (n < 65)
		return 0;
	return n < 90 ? USER_ID : OTHER_ID;
}

/* The plain program (the one that keeps pA) a third of the time. */
static void gen_exec(uint64_t *r, const struct seq *sq, struct op *op)
{
	unsigned int h = chance(r, 30) ? 0 : rnd(r, ARRAY_SIZE(helpers));
	const struct cm_file *f = h == HELPER_RAND ? &sq->rand : &helpers[h].f;

	op->f[0] = h;
	op->f[1] = f->fp;
	op->f[2] = f->fi;
	op->f[3] = f->has_fcap;
	op->f[4] = f->fe;
}

static void gen_op(uint64_t *r, const struct seq *sq, struct op *op)
{
	unsigned int n, total = 0, k;

	memset(op, 0, sizeof(*op));
	for (k = 0; k < OP_KINDS; k++)
		total += op_weights[k];
	n = rnd(r, total);
	for (k = 0; n >= op_weights[k]; k++)
		n -= op_weights[k];
	op->kind = k;
	switch (k) {
	case OP_CAPSET:
		gen_capset(r, op);
		break;
	case OP_AMBIENT:
		gen_ambient(r, op);
		break;
	case OP_SECBITS:
		gen_secbits(r, op);
		break;
	case OP_KEEPCAPS:
		op->f[0] = chance(r, 90) ? rnd(r, 2) : 2 + rnd(r, 100);
		break;
	case OP_BSET_DROP:
	case OP_BSET_READ:
		op->f[0] = gen_cap(r);
		break;
	case OP_NNP:
		op->f[0] = chance(r, 85) ? 1 : rnd(r, 3);
		op->f[1] = chance(r, 90) ? 0 : 1;
		break;
	case OP_SETRESUID:
		for (n = 0; n < 3; n++)
			op->f[n] = gen_uid(r);
		break;
	case OP_EXEC:
		gen_exec(r, sq, op);
		break;
	}
}

/*
 * Often start with what a program that uses the ambient set does: fill
 * pI, raise a few capabilities in pA. They are ordinary operations,
 * dropped like any other when a failing sequence is reduced.
 */
static int gen_prelude(uint64_t *r, struct op *ops)
{
	int n, raises = 1 + rnd(r, 3);

	memset(ops, 0, (1 + raises) * sizeof(*ops));
	ops[0].kind = OP_CAPSET;
	ops[0].f[0] = CM_CAPV3;
	ops[0].f[2] = 1;
	for (n = 3; n < 6; n++)
		ops[0].f[n] = ~0ULL;	/* keep pP, pI and pE */
	ops[0].f[7] = subset_of_pool(r, 60);
	for (n = 1; n <= raises; n++) {
		ops[n].kind = OP_AMBIENT;
		ops[n].f[0] = CM_AMB_RAISE;
		ops[n].f[1] = rnd(r, 64);
		ops[n].f[4] = 1;
	}
	return 1 + raises;
}

static void gen_seq(struct seq *sq, uint64_t seed, uint32_t no)
{
	uint64_t r = seed ^ (0x5851f42d4c957f2dULL * (no + 1));
	int n = 0;

	rng_next(&r);
	sq->seed = seed;
	sq->no = no;
	sq->nops = 8 + rnd(&r, 73);
	memset(&sq->rand, 0, sizeof(sq->rand));
	sq->rand.has_fcap = chance(&r, 85);
	if (sq->rand.has_fcap) {
		sq->rand.fp = chance(&r, 70) ? subset_of_pool(&r, 30) : 0;
		sq->rand.fi = chance(&r, 70) ? subset_of_pool(&r, 60) : 0;
		sq->rand.fe = chance(&r, 50);
	}
	if (chance(&r, 40))
		n = gen_prelude(&r, sq->ops);
	for (; n < sq->nops; n++)
		gen_op(&r, sq, &sq->ops[n]);
}

/* ---- resolving, the model, describing ---- */

/* The n-th (modulo their number) capability of set, or n itself. */
static uint64_t nth_cap(uint64_t set, uint64_t n)
{
	int count = __builtin_popcountll(set), cap;

	if (!count)
		return n % (CM_LAST_CAP + 1);
	n %= count;
	for (cap = 0; ; cap++)
		if ((set & CM_BIT(cap)) && !n--)
			return cap;
}

static uint64_t secbits_value(const struct op *op, uint32_t cur)
{
	switch (op->f[0]) {
	case 1:
		return cur ^ op->f[1];
	case 2:
		return cur | op->f[1];
	case 3:
		return cur & ~op->f[1];
	}
	return op->f[1];
}

static struct op resolve(const struct op *op, const struct cm_state *s)
{
	struct op c = *op;

	switch (op->kind) {
	case OP_CAPSET:
		if (!op->f[2])
			break;
		c.f[2] = 0;
		c.f[4] = (s->pp & op->f[3]) | op->f[6];
		c.f[5] = (s->pi & op->f[4]) | op->f[7];
		c.f[3] = (c.f[4] & op->f[5]) | op->f[8];
		memset(&c.f[6], 0, 3 * sizeof(c.f[0]));
		break;
	case OP_AMBIENT:
		if (op->f[4] == 1)
			c.f[1] = nth_cap(s->pp & s->pi, op->f[1]);
		else if (op->f[4] == 2)
			c.f[1] = nth_cap(s->pa, op->f[1]);
		c.f[4] = 0;
		break;
	case OP_SECBITS:
		c.f[1] = secbits_value(op, s->securebits);
		c.f[0] = 0;
		break;
	}
	return c;
}

static struct cm_file exec_file(const struct op *op)
{
	struct cm_file f = helpers[op->f[0]].f;

	f.fp = op->f[1];
	f.fi = op->f[2];
	f.has_fcap = op->f[3];
	f.fe = op->f[4];
	return f;
}

/* Apply a concrete operation to the model. */
static struct cm_res model_apply(struct cm_state *s, const struct op *op)
{
	uint32_t ids[3];
	struct cm_file f;
	int n;

	switch (op->kind) {
	case OP_CAPSET:
		return cm_capset(s, op->f[0], op->f[1] == 2,
				 op->f[3], op->f[4], op->f[5]);
	case OP_AMBIENT:
		return cm_ambient(s, op->f[0], op->f[1], op->f[2], op->f[3]);
	case OP_SECBITS:
		return cm_set_securebits(s, op->f[1]);
	case OP_KEEPCAPS:
		return cm_set_keepcaps(s, op->f[0]);
	case OP_BSET_DROP:
		return cm_bset_drop(s, op->f[0]);
	case OP_BSET_READ:
		return cm_bset_read(s, op->f[0]);
	case OP_NNP:
		return cm_set_nnp(s, op->f[0], op->f[1]);
	case OP_SETRESUID:
		for (n = 0; n < 3; n++)
			ids[n] = op->f[n];
		return cm_setresuid(s, ids);
	}
	f = exec_file(op);
	return cm_execve(s, &f);
}

static const char *amb_op_name(uint64_t op)
{
	static const char *const names[] = {
		"?", "IS_SET", "RAISE", "LOWER", "CLEAR_ALL",
	};

	return op < ARRAY_SIZE(names) ? names[op] : "?";
}

static void describe(const struct op *op, char *buf, size_t len)
{
	const uint64_t *f = op->f;

	switch (op->kind) {
	case OP_CAPSET:
		snprintf(buf, len, "capset(v=%#llx pid=%s e=%#llx p=%#llx i=%#llx)",
			 (unsigned long long)f[0],
			 f[1] == 0 ? "0" : f[1] == 1 ? "self" : "1",
			 (unsigned long long)f[3], (unsigned long long)f[4],
			 (unsigned long long)f[5]);
		break;
	case OP_AMBIENT:
		snprintf(buf, len, "prctl(PR_CAP_AMBIENT, %llu %s, %#llx, %#llx, %#llx)",
			 (unsigned long long)f[0], amb_op_name(f[0]),
			 (unsigned long long)f[1], (unsigned long long)f[2],
			 (unsigned long long)f[3]);
		break;
	case OP_SECBITS:
		snprintf(buf, len, "prctl(PR_SET_SECUREBITS, %#llx)",
			 (unsigned long long)f[1]);
		break;
	case OP_KEEPCAPS:
	case OP_BSET_DROP:
	case OP_BSET_READ:
		snprintf(buf, len, "prctl(PR_%s, %#llx)",
			 op->kind == OP_KEEPCAPS ? "SET_KEEPCAPS" :
			 op->kind == OP_BSET_DROP ? "CAPBSET_DROP" : "CAPBSET_READ",
			 (unsigned long long)f[0]);
		break;
	case OP_NNP:
		snprintf(buf, len, "prctl(PR_SET_NO_NEW_PRIVS, %llu, %llu)",
			 (unsigned long long)f[0], (unsigned long long)f[1]);
		break;
	case OP_SETRESUID:
		snprintf(buf, len, "setresuid(%d, %d, %d)",
			 (int)f[0], (int)f[1], (int)f[2]);
		break;
	case OP_EXEC:
		snprintf(buf, len, "execve(%s%s%s: fcap=%d fP=%#llx fI=%#llx fE=%d)",
			 helpers[f[0]].name,
			 helpers[f[0]].f.setuid ? " set-uid" : "",
			 helpers[f[0]].f.setgid ? " set-gid" : "",
			 (int)f[3], (unsigned long long)f[1],
			 (unsigned long long)f[2], (int)f[4]);
		break;
	}
}

static void print_state(const char *tag, const struct cm_state *s)
{
	printf("difftest:   %-8s pI=%#llx pP=%#llx pE=%#llx pBnd=%#llx pA=%#llx "
	       "securebits=%#x nnp=%u uid=%d/%d/%d gid=%d/%d/%d\n", tag,
	       (unsigned long long)s->pi, (unsigned long long)s->pp,
	       (unsigned long long)s->pe, (unsigned long long)s->bnd,
	       (unsigned long long)s->pa, s->securebits, s->nnp,
	       (int)s->uid[0], (int)s->uid[1], (int)s->uid[2],
	       (int)s->gid[0], (int)s->gid[1], (int)s->gid[2]);
}

static void print_res(const char *tag, const struct cm_res *r)
{
	if (r->ret == -1)
		printf("difftest:   %-8s -1 %s\n", tag, strerrorname_np(r->err) ?: "?");
	else
		printf("difftest:   %-8s %ld\n", tag, r->ret);
}

/* ---- the kernel side ---- */

static struct cm_res sys_res(long ret)
{
	return ret < 0 ? cm_fail(errno) : cm_ok(ret);
}

static struct cm_res do_capset(const struct op *op)
{
	struct __user_cap_header_struct h = { .version = op->f[0] };
	struct __user_cap_data_struct d[2];
	int n;

	h.pid = op->f[1] == 0 ? 0 : op->f[1] == 1 ? getpid() : 1;
	for (n = 0; n < 2; n++) {
		d[n].effective = op->f[3] >> (32 * n);
		d[n].permitted = op->f[4] >> (32 * n);
		d[n].inheritable = op->f[5] >> (32 * n);
	}
	return sys_res(syscall(SYS_capset, &h, d));
}

static long do_prctl(long option, uint64_t a2, uint64_t a3, uint64_t a4,
		     uint64_t a5)
{
	return syscall(SYS_prctl, option, a2, a3, a4, a5);
}

/* Everything but execve(): the system call, its result. */
static struct cm_res do_op(const struct op *op)
{
	const uint64_t *f = op->f;

	switch (op->kind) {
	case OP_CAPSET:
		return do_capset(op);
	case OP_AMBIENT:
		return sys_res(do_prctl(PR_CAP_AMBIENT, f[0], f[1], f[2], f[3]));
	case OP_SECBITS:
		return sys_res(do_prctl(PR_SET_SECUREBITS, f[1], 0, 0, 0));
	case OP_KEEPCAPS:
		return sys_res(do_prctl(PR_SET_KEEPCAPS, f[0], 0, 0, 0));
	case OP_BSET_DROP:
		return sys_res(do_prctl(PR_CAPBSET_DROP, f[0], 0, 0, 0));
	case OP_BSET_READ:
		return sys_res(do_prctl(PR_CAPBSET_READ, f[0], 0, 0, 0));
	case OP_NNP:
		return sys_res(do_prctl(PR_SET_NO_NEW_PRIVS, f[0], f[1], 0, 0));
	case OP_SETRESUID:
		/* the raw call: only this thread changes */
		return sys_res(syscall(SYS_setresuid, (uid_t)f[0], (uid_t)f[1],
				       (uid_t)f[2]));
	}
	return cm_fail(EINVAL);
}

/* What the kernel says the state is. */
struct obs {
	struct cm_state s;
	int no_capamb, no_capbnd;
};

/* /proc/self/status, kept open; re-read from offset 0 every time. */
static int status_fd = -1;
static pid_t status_pid;

static int status_field(const char *buf, const char *key, uint64_t *val)
{
	const char *p = strstr(buf, key);

	if (!p)
		return -1;
	*val = strtoull(p + strlen(key), NULL, 16);
	return 0;
}

static void read_status(struct obs *o)
{
	char buf[4096];
	ssize_t n;

	if (status_fd < 0 || status_pid != getpid()) {
		if (status_fd >= 0)
			close(status_fd);
		status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
		if (status_fd < 0)
			die("open /proc/self/status");
		status_pid = getpid();
	}
	n = pread(status_fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		die("read /proc/self/status");
	buf[n] = 0;
	o->no_capbnd = status_field(buf, "\nCapBnd:\t", &o->s.bnd);
	o->no_capamb = status_field(buf, "\nCapAmb:\t", &o->s.pa);
}

static void observe(struct obs *o)
{
	struct caps c;
	uid_t u[3];
	gid_t g[3];
	int n;

	memset(o, 0, sizeof(*o));
	if (caps_get(&c))
		die("capget");
	o->s.pe = c.effective;
	o->s.pp = c.permitted;
	o->s.pi = c.inheritable;
	read_status(o);
	o->s.securebits = do_prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	o->s.nnp = do_prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (getresuid(&u[0], &u[1], &u[2]) || getresgid(&g[0], &g[1], &g[2]))
		die("getresuid");
	for (n = 0; n < 3; n++) {
		o->s.uid[n] = u[n];
		o->s.gid[n] = g[n];
	}
}

/* ---- comparing ---- */

static int ignore_capamb;	/* a missing CapAmb line is no mismatch */

/* Print (when asked) and count the differences between model and kernel. */
static int diff_field(const char *name, uint64_t want, uint64_t got, int print)
{
	if (want == got)
		return 0;
	if (print)
		printf("difftest:   %s: expected %#llx, got %#llx\n", name,
		       (unsigned long long)want, (unsigned long long)got);
	return 1;
}

static int diff_state(const struct cm_state *w, const struct obs *o, int print)
{
	const struct cm_state *g = &o->s;
	int n, bad = 0;

	bad += diff_field("pI", w->pi, g->pi, print);
	bad += diff_field("pP", w->pp, g->pp, print);
	bad += diff_field("pE", w->pe, g->pe, print);
	if (o->no_capbnd || (o->no_capamb && !ignore_capamb)) {
		bad++;
		if (print)
			printf("difftest:   /proc/self/status has no %s line\n",
			       o->no_capbnd ? "CapBnd" : "CapAmb");
	} else {
		bad += diff_field("pBnd (CapBnd)", w->bnd, g->bnd, print);
		if (!o->no_capamb)
			bad += diff_field("pA (CapAmb)", w->pa, g->pa, print);
	}
	bad += diff_field("securebits", w->securebits, g->securebits, print);
	bad += diff_field("no_new_privs", w->nnp, g->nnp, print);
	for (n = 0; n < 3; n++) {
		bad += diff_field("uid", w->uid[n], g->uid[n], print);
		bad += diff_field("gid", w->gid[n], g->gid[n], print);
	}
	if (!o->no_capamb && (g->pa & ~(g->pp & g->pi))) {
		bad++;
		if (print)
			printf("difftest:   pA is not a subset of pP & pI\n");
	}
	return bad;
}

static int diff_res(const struct cm_res *w, const struct cm_res *g)
{
	return w->ret != g->ret || (w->ret == -1 && w->err != g->err);
}

/* ---- running a sequence (in a child, and after every execve) ---- */

struct ctx {
	struct seq sq;
	struct cm_state model;
	int fd;			/* the report goes there */
	int verbose;		/* 1: the mismatch, 2: every operation */
};

/* The outcome of a sequence, written once to the parent's pipe. */
enum { SEQ_OK, SEQ_MISMATCH, SEQ_ERROR };

static void __noreturn finish(struct ctx *c, int status, int index)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "%d %d\n", status, index);

	fflush(stdout);
	if (write(c->fd, line, len) != len)
		_exit(SEQ_ERROR);
	_exit(status);
}

static void mismatch(struct ctx *c, int i, const struct op *op,
		     const struct cm_res *want, const struct cm_res *got,
		     const struct cm_state *exp, const struct obs *o)
{
	char desc[256];

	if (c->verbose) {
		printf("difftest: MISMATCH seed=%llu seq=%u op=%d\n",
		       (unsigned long long)c->sq.seed, c->sq.no, i);
		if (op) {
			describe(op, desc, sizeof(desc));
			printf("difftest:   operation: %s\n", desc);
			print_res("expected", want);
			print_res("got", got);
			if (op->kind == OP_EXEC && !got->ret)
				diff_field("AT_SECURE", want->secure,
					   got->secure, 1);
		} else {
			printf("difftest:   the state before any operation\n");
		}
		diff_state(exp, o, 1);
		print_state("expected", exp);
		print_state("got", &o->s);
	}
	finish(c, SEQ_MISMATCH, i);
}

/* Compare the kernel with the model after operation i (-1: none yet). */
static void verify(struct ctx *c, int i, const struct op *op,
		   const struct cm_res *want, const struct cm_res *got,
		   const struct cm_state *exp)
{
	char desc[256];
	struct obs o;
	int bad = 0;

	observe(&o);
	if (op) {
		bad = diff_res(want, got);
		if (op->kind == OP_EXEC && !got->ret)
			bad |= want->secure != got->secure;
	}
	if (bad || diff_state(exp, &o, 0))
		mismatch(c, i, op, want, got, exp, &o);
	if (c->verbose > 1 && op) {
		describe(op, desc, sizeof(desc));
		printf("difftest: #%d %s\n", i, desc);
		print_res("=", got);
		print_state("state", &o.s);
	}
}

static int encode(struct ctx *c, int index, char **argv, char *buf,
		  size_t len);

static struct cm_res do_exec(struct ctx *c, int i, const struct op *op)
{
	static char buf[MAX_OPS * (OP_FIELDS + 1) * 18 + 1024];
	char path[64], *argv[8];

	snprintf(path, sizeof(path), "%s/%s", HELPER_DIR,
		 helpers[op->f[0]].name);
	argv[0] = path;
	if (encode(c, i, argv + 1, buf, sizeof(buf)))
		finish(c, SEQ_ERROR, i);
	fflush(stdout);
	execve(path, argv, environ);
	return cm_fail(errno);
}

/* Run the operations from index start on, then report. */
static void __noreturn run_from(struct ctx *c, int start)
{
	struct cm_res want, got;
	struct cm_state exp;
	struct op op;
	int i;

	for (i = start; i < c->sq.nops; i++) {
		op = resolve(&c->sq.ops[i], &c->model);
		exp = c->model;
		want = model_apply(&exp, &op);
		if (op.kind == OP_EXEC)
			got = do_exec(c, i, &op);	/* returns on failure */
		else
			got = do_op(&op);
		verify(c, i, &op, &want, &got, &exp);
		c->model = exp;
	}
	finish(c, SEQ_OK, c->sq.nops - 1);
}

/*
 * argv of the program an execve runs: "--cont", then "fd:verbose:seed:
 * seq:index:nops", the model's state before the execve, the random file
 * capabilities and the operations, all in hex.
 */
static int put(char **p, char *end, const char *fmt, unsigned long long v)
{
	int n = snprintf(*p, end - *p, fmt, v);

	if (n < 0 || n >= end - *p)
		return -1;
	*p += n;
	return 0;
}

static int encode(struct ctx *c, int index, char **argv, char *buf,
		  size_t len)
{
	const struct cm_state *s = &c->model;
	const struct cm_file *rf = &c->sq.rand;
	uint64_t state[] = {
		s->pi, s->pp, s->pe, s->bnd, s->pa, s->securebits, s->nnp,
		s->uid[0], s->uid[1], s->uid[2], s->gid[0], s->gid[1], s->gid[2],
	};
	uint64_t ctl[] = {
		c->fd, c->verbose, c->sq.seed, c->sq.no, index, c->sq.nops,
		rf->has_fcap, rf->fe, rf->fp, rf->fi, ignore_capamb,
	};
	char *p = buf, *end = buf + len;
	unsigned int n;
	int i;

	argv[0] = "--cont";
	argv[1] = p;
	for (n = 0; n < ARRAY_SIZE(ctl); n++)
		if (put(&p, end, n ? ":%llx" : "%llx", ctl[n]))
			return -1;
	p++;
	argv[2] = p;
	for (n = 0; n < ARRAY_SIZE(state); n++)
		if (put(&p, end, n ? ":%llx" : "%llx", state[n]))
			return -1;
	p++;
	argv[3] = p;
	for (i = 0; i < c->sq.nops; i++) {
		if (put(&p, end, i ? ",%x" : "%x", c->sq.ops[i].kind))
			return -1;
		for (n = 0; n < OP_FIELDS; n++)
			if (put(&p, end, ":%llx", c->sq.ops[i].f[n]))
				return -1;
	}
	argv[4] = NULL;
	return 0;
}

/* Parse up to max hex numbers separated by ':'; returns how many. */
static int parse_hex(const char *s, uint64_t *v, int max, const char **rest)
{
	char *end;
	int n = 0;

	while (n < max) {
		v[n++] = strtoull(s, &end, 16);
		s = end;
		if (*s != ':')
			break;
		s++;
	}
	if (rest)
		*rest = s;
	return n;
}

/* The new image after an execve: check it, then run on. */
static int resume(int argc, char **argv)
{
	static struct ctx c;
	struct cm_res want, got;
	uint64_t ctl[11], st[13], f[OP_FIELDS + 1];
	const char *s;
	struct op op;
	int i, index;

	if (argc < 5 || parse_hex(argv[2], ctl, 11, NULL) != 11 ||
	    parse_hex(argv[3], st, 13, NULL) != 13)
		return SEQ_ERROR;
	c.fd = ctl[0];
	c.verbose = ctl[1];
	c.sq.seed = ctl[2];
	c.sq.no = ctl[3];
	index = ctl[4];
	c.sq.nops = ctl[5];
	c.sq.rand.has_fcap = ctl[6];
	c.sq.rand.fe = ctl[7];
	c.sq.rand.fp = ctl[8];
	c.sq.rand.fi = ctl[9];
	ignore_capamb = ctl[10];
	c.model = (struct cm_state){ st[0], st[1], st[2], st[3], st[4], st[5],
		st[6], { st[7], st[8], st[9] }, { st[10], st[11], st[12] } };
	if (c.sq.nops > MAX_OPS || index >= c.sq.nops)
		finish(&c, SEQ_ERROR, index);
	for (i = 0, s = argv[4]; i < c.sq.nops; i++) {
		if (parse_hex(s, f, OP_FIELDS + 1, &s) != OP_FIELDS + 1 ||
		    f[0] >= OP_KINDS)
			finish(&c, SEQ_ERROR, index);
		c.sq.ops[i].kind = f[0];
		memcpy(c.sq.ops[i].f, f + 1, sizeof(c.sq.ops[i].f));
		if (*s == ',')
			s++;
	}
	op = resolve(&c.sq.ops[index], &c.model);
	want = model_apply(&c.model, &op);
	got = cm_ok(0);
	got.secure = getauxval(AT_SECURE);
	verify(&c, index, &op, &want, &got, &c.model);
	run_from(&c, index + 1);
}

/* ---- the parent: helpers, sequences, minimizing ---- */

static struct cm_state init_state;

/* Write the v2 security.capability xattr of f, or remove it. */
static void set_fcaps(const char *path, const struct cm_file *f)
{
	struct vfs_cap_data d;
	int n;

	if (!f->has_fcap) {
		if (removexattr(path, CAPS_XATTR) && errno != ENODATA)
			die("removexattr security.capability");
		return;
	}
	d.magic_etc = VFS_CAP_REVISION_2 | (f->fe ? VFS_CAP_FLAGS_EFFECTIVE : 0);
	for (n = 0; n < 2; n++) {
		d.data[n].permitted = f->fp >> (32 * n);
		d.data[n].inheritable = f->fi >> (32 * n);
	}
	if (setxattr(path, CAPS_XATTR, &d, XATTR_CAPS_SZ_2, 0))
		die("setxattr security.capability");
}

static char *read_self(size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die("open /proc/self/exe");
	buf = malloc(st.st_size);
	if (!buf || read(fd, buf, st.st_size) != st.st_size)
		die("read /proc/self/exe");
	close(fd);
	*len = st.st_size;
	return buf;
}

/* The copies of this program, on a tmpfs of a private mount namespace. */
static void setup_helpers(void)
{
	char path[64];
	size_t len, n;
	char *self = read_self(&len);
	int fd;

	if (unshare(CLONE_NEWNS))
		die("unshare(CLONE_NEWNS)");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("mount --make-rprivate /");
	if (mkdir(HELPER_DIR, 0755) && errno != EEXIST)
		die("mkdir " HELPER_DIR);
	if (mount("difftest", HELPER_DIR, "tmpfs", 0, "mode=0755"))
		die("mount tmpfs");
	for (n = 0; n < ARRAY_SIZE(helpers); n++) {
		const struct helper *h = &helpers[n];

		snprintf(path, sizeof(path), "%s/%s", HELPER_DIR, h->name);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
		if (fd < 0 || write(fd, self, len) != (ssize_t)len || close(fd))
			die("write a helper");
		/* chown first: it clears the set-id bits and file caps */
		if (chown(path, h->f.uid, h->f.gid) || chmod(path, h->mode))
			die("chown/chmod a helper");
		if (h->f.has_fcap)
			set_fcaps(path, &h->f);
	}
	free(self);
}

/* Run the first nops operations of sq in a child; SEQ_* and its index. */
static int run_seq(const struct seq *sq, int nops, int verbose, int *index)
{
	static struct ctx c;
	char buf[64], path[64];
	int p[2], status, st = SEQ_ERROR;
	ssize_t n, got = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", HELPER_DIR,
		 helpers[HELPER_RAND].name);
	set_fcaps(path, &sq->rand);
	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		struct cm_res none = cm_ok(0);

		close(p[0]);
		c.sq = *sq;
		c.sq.nops = nops;
		c.model = init_state;
		c.fd = p[1];
		c.verbose = verbose;
		verify(&c, -1, NULL, &none, &none, &c.model);
		run_from(&c, 0);
	}
	close(p[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	*index = nops;
	if (got && sscanf(buf, "%d %d", &st, index) != 2)
		st = SEQ_ERROR;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != st) {
		printf("difftest: seq %u: child ended with status %#x\n",
		       sq->no, status);
		st = SEQ_ERROR;
	}
	return st;
}

/* Does the sequence (its first nops operations) fail at its last one? */
static int fails_at_end(const struct seq *sq, int nops)
{
	int index;

	return run_seq(sq, nops, 0, &index) == SEQ_MISMATCH &&
	       index == nops - 1;
}

/*
 * A mismatch at operation k: find the shortest failing prefix (the
 * sequence is deterministic, so prefixes of k operations or fewer must
 * pass; bisecting checks that), then drop every operation before the
 * last whose removal keeps the failure at the last one.
 */
static void minimize(const struct seq *orig, int k)
{
	static struct seq sq;
	int lo = 0, hi = k + 1, mid, index, n, prefix;

	printf("difftest: MISMATCH in seq %u at op %d; details:\n", orig->no, k);
	run_seq(orig, k + 1, 1, &index);
	if (k < 0) {		/* before any operation: nothing to reduce */
		printf("@@ difftest-mismatch seed=%llu seq=%u op=-1 prefix=0 reduced=0\n",
		       (unsigned long long)orig->seed, orig->no);
		return;
	}
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (run_seq(orig, mid, 0, &index) == SEQ_MISMATCH)
			hi = mid;
		else
			lo = mid;
	}
	prefix = hi;
	printf("difftest: shortest failing prefix: %d operations of seed=%llu seq=%u%s\n",
	       prefix, (unsigned long long)orig->seed, orig->no,
	       prefix == k + 1 ? "" : " (not the first mismatch: not deterministic?)");
	sq = *orig;
	sq.nops = prefix;
	for (n = prefix - 2; n >= 0; n--) {
		struct seq trial = sq;

		memmove(&trial.ops[n], &trial.ops[n + 1],
			(trial.nops - n - 1) * sizeof(trial.ops[0]));
		trial.nops--;
		if (fails_at_end(&trial, trial.nops))
			sq = trial;
	}
	printf("difftest: reduced to %d operations (the last one fails); trace:\n",
	       sq.nops);
	print_state("initial", &init_state);
	run_seq(&sq, sq.nops, 2, &index);
	printf("@@ difftest-mismatch seed=%llu seq=%u op=%d prefix=%d reduced=%d\n",
	       (unsigned long long)orig->seed, orig->no, k, prefix, sq.nops);
}

/*
 * What a sequence that passed covered: the kernel agreed with the model
 * on every step, so replaying the model tells which calls succeeded.
 */
struct tally {
	unsigned long long ok[OP_KINDS], failed[OP_KINDS];
	unsigned long long exec_kept_pa, setuid_cleared_pa, raised;
};

static void tally_seq(struct tally *t, const struct seq *sq, int nops)
{
	struct cm_state s = init_state;
	struct cm_res res;
	uint64_t pa;
	struct op op;
	int n;

	for (n = 0; n < nops; n++) {
		op = resolve(&sq->ops[n], &s);
		pa = s.pa;
		res = model_apply(&s, &op);
		if (res.ret < 0) {
			t->failed[op.kind]++;
			continue;
		}
		t->ok[op.kind]++;
		if (op.kind == OP_EXEC && s.pa)
			t->exec_kept_pa++;
		if (op.kind == OP_SETRESUID && pa && !s.pa)
			t->setuid_cleared_pa++;
		if (op.kind == OP_AMBIENT && op.f[0] == CM_AMB_RAISE)
			t->raised++;
	}
}

static void print_tally(const struct tally *t)
{
	unsigned int k;

	printf("difftest: calls that succeeded/failed:");
	for (k = 0; k < OP_KINDS; k++)
		printf(" %s=%llu/%llu", op_names[k], t->ok[k], t->failed[k]);
	printf("\ndifftest: ambient raises %llu, execve keeping a non-empty pA %llu, "
	       "setresuid clearing pA %llu\n", t->raised, t->exec_kept_pa,
	       t->setuid_cleared_pa);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct seq sq;
	static struct tally tally;
	unsigned long long seed = 1, target = 100000, ops = 0;
	unsigned int seqs = 0;
	int mismatches = 0, errors = 0, st, index;
	double start = now();
	struct obs o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--cont"))
		return resume(argc, argv);
	if (argc > 1)
		seed = strtoull(argv[1], NULL, 0);
	if (argc > 2)
		target = strtoull(argv[2], NULL, 0);
	ignore_capamb = argc > 3 && !strcmp(argv[3], "ignore-capamb");
	printf("@@ difftest-start seed=%llu ops=%llu%s\n", seed, target,
	       ignore_capamb ? " ignore-capamb" : "");
	if (geteuid())
		die("must run as root");
	setup_helpers();
	observe(&o);
	init_state = o.s;
	if (o.no_capamb)
		init_state.pa = 0;
	while (ops < target && !mismatches && errors < 3) {
		gen_seq(&sq, seed, seqs++);
		st = run_seq(&sq, sq.nops, 0, &index);
		ops += index + 1;
		if (st == SEQ_OK) {
			tally_seq(&tally, &sq, sq.nops);
		} else if (st == SEQ_MISMATCH) {
			mismatches++;
			minimize(&sq, index);
		} else if (st == SEQ_ERROR) {
			errors++;
			printf("difftest: seq %u: error at op %d\n", sq.no, index);
		}
	}
	print_tally(&tally);
	printf("@@ difftest ops=%llu seqs=%u execs=%llu mismatches=%d errors=%d seconds=%.1f\n",
	       ops, seqs, tally.ok[OP_EXEC] + tally.failed[OP_EXEC],
	       mismatches, errors, now() - start);
	return mismatches ? 1 : errors ? 2 : 0;
}
