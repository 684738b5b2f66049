/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of the capability state of one thread: the five
 * capability sets, the securebits, no_new_privs and the user and group
 * ids, and how capset(2), the capability prctl(2)s, setresuid(2) and
 * execve(2) change them. Pure functions on a struct, no system calls:
 * difftest.c runs the same operations on a kernel and compares.
 *
 * The rules are the Linux ABI since v4.3 (the ambient set), written down
 * from the documented semantics, one function per operation.
 *
 * Every operation returns what the system call returns (a value >= 0, or
 * -1 with cm_res.err set) and changes the state only when it succeeds.
 */
#ifndef CAPMODEL_H
#define CAPMODEL_H

#include <stdint.h>
#include <errno.h>

#define CM_LAST_CAP		40	/* CAP_CHECKPOINT_RESTORE */
#define CM_VALID		((1ULL << (CM_LAST_CAP + 1)) - 1)
#define CM_BIT(cap)		(1ULL << (cap))

#define CM_CAP_SETUID		7
#define CM_CAP_SETPCAP		8

/* securebits: each setting has a lock bit just above it */
#define CM_SB_NOROOT		(1U << 0)
#define CM_SB_NO_SETUID_FIXUP	(1U << 2)
#define CM_SB_KEEP_CAPS		(1U << 4)
#define CM_SB_KEEP_CAPS_LOCKED	(1U << 5)
#define CM_SB_NO_AMBIENT_RAISE	(1U << 6)
#define CM_SB_ALL_BITS		(CM_SB_NOROOT | CM_SB_NO_SETUID_FIXUP | \
				 CM_SB_KEEP_CAPS | CM_SB_NO_AMBIENT_RAISE)
#define CM_SB_ALL_LOCKS		(CM_SB_ALL_BITS << 1)

/* prctl(PR_CAP_AMBIENT, op, ...) */
#define CM_AMB_IS_SET		1
#define CM_AMB_RAISE		2
#define CM_AMB_LOWER		3
#define CM_AMB_CLEAR_ALL	4

/* capset(2) header versions */
#define CM_CAPV1		0x19980330U
#define CM_CAPV2		0x20071026U	/* deprecated, read as v3 */
#define CM_CAPV3		0x20080522U

#define CM_NOID			0xffffffffU	/* setresuid's "unchanged" */

struct cm_state {
	uint64_t pi, pp, pe, bnd, pa;	/* inheritable ... ambient */
	uint32_t securebits;
	uint32_t nnp;			/* no_new_privs */
	uint32_t uid[3];		/* real, effective, saved */
	uint32_t gid[3];
};

struct cm_res {
	long ret;
	int err;			/* errno when ret == -1 */
	int secure;			/* execve: AT_SECURE of the new image */
};

/* A program file for execve(): its set-id bits and file capabilities. */
struct cm_file {
	int setuid, setgid;
	uint32_t uid, gid;		/* owner */
	int has_fcap;			/* a security.capability xattr */
	int fe;				/* its effective flag */
	uint64_t fp, fi;
};

static inline struct cm_res cm_ok(long ret)
{
	struct cm_res r = { ret, 0, 0 };

	return r;
}

static inline struct cm_res cm_fail(int err)
{
	struct cm_res r = { -1, err, 0 };

	return r;
}

static inline int cm_has(uint64_t set, uint64_t cap)
{
	return cap <= CM_LAST_CAP && (set & CM_BIT(cap));
}

/* The invariant every state must keep: pA is a subset of pP & pI. */
static inline int cm_ambient_ok(const struct cm_state *s)
{
	return !(s->pa & ~(s->pp & s->pi));
}

static inline int cm_subset(uint64_t a, uint64_t b)
{
	return !(a & ~b);
}

/*
 * capset(pE, pP, pI). The header's version picks how many 32-bit words
 * are read (v1: one, the high words are zero; v2 and v3: two); an unknown
 * version is EINVAL, a pid other than the caller's EPERM. Bits above
 * CAP_LAST_CAP are ignored. Then:
 *  - new pI may only add bits of old pP, unless CAP_SETPCAP is in pE;
 *  - new pI may never add bits outside the bounding set;
 *  - new pP is a subset of old pP;
 *  - new pE is a subset of new pP.
 * On success pA loses every bit not in both new pP and new pI.
 */
static inline struct cm_res cm_capset(struct cm_state *s, uint32_t version,
				      int other_pid, uint64_t e, uint64_t p,
				      uint64_t i)
{
	if (version != CM_CAPV1 && version != CM_CAPV2 && version != CM_CAPV3)
		return cm_fail(EINVAL);
	if (other_pid)
		return cm_fail(EPERM);
	if (version == CM_CAPV1) {
		e &= 0xffffffffULL;
		p &= 0xffffffffULL;
		i &= 0xffffffffULL;
	}
	e &= CM_VALID;
	p &= CM_VALID;
	i &= CM_VALID;
	if (!cm_has(s->pe, CM_CAP_SETPCAP) && !cm_subset(i, s->pi | s->pp))
		return cm_fail(EPERM);
	if (!cm_subset(i, s->pi | s->bnd))
		return cm_fail(EPERM);
	if (!cm_subset(p, s->pp) || !cm_subset(e, p))
		return cm_fail(EPERM);
	s->pe = e;
	s->pp = p;
	s->pi = i;
	s->pa &= p & i;
	return cm_ok(0);
}

/*
 * prctl(PR_CAP_AMBIENT, op, cap, a4, a5).
 *  CLEAR_ALL: cap, a4 and a5 must be 0; empties pA.
 *  otherwise an invalid cap or a non-zero a4/a5 is EINVAL, and so is an
 *  unknown op;
 *  IS_SET returns 1 when cap is in pA, else 0;
 *  RAISE needs cap in pP and in pI, and SECBIT_NO_CAP_AMBIENT_RAISE clear
 *  (else EPERM);
 *  LOWER always succeeds.
 */
static inline struct cm_res cm_ambient(struct cm_state *s, uint64_t op,
				       uint64_t cap, uint64_t a4, uint64_t a5)
{
	if (op == CM_AMB_CLEAR_ALL) {
		if (cap | a4 | a5)
			return cm_fail(EINVAL);
		s->pa = 0;
		return cm_ok(0);
	}
	if (cap > CM_LAST_CAP || a4 || a5)
		return cm_fail(EINVAL);
	switch (op) {
	case CM_AMB_IS_SET:
		return cm_ok(cm_has(s->pa, cap));
	case CM_AMB_RAISE:
		if (!cm_has(s->pp, cap) || !cm_has(s->pi, cap) ||
		    (s->securebits & CM_SB_NO_AMBIENT_RAISE))
			return cm_fail(EPERM);
		s->pa |= CM_BIT(cap);
		return cm_ok(0);
	case CM_AMB_LOWER:
		s->pa &= ~CM_BIT(cap);
		return cm_ok(0);
	}
	return cm_fail(EINVAL);
}

/*
 * prctl(PR_SET_SECUREBITS, bits). EPERM when:
 *  - a bit whose lock is set would change;
 *  - a set lock would be cleared;
 *  - an unknown bit is set;
 *  - the caller lacks CAP_SETPCAP in pE.
 */
static inline struct cm_res cm_set_securebits(struct cm_state *s,
					      uint64_t bits)
{
	uint64_t locks = s->securebits & CM_SB_ALL_LOCKS;

	if (((locks >> 1) & (s->securebits ^ bits)) ||
	    (locks & ~bits) ||
	    (bits & ~(uint64_t)(CM_SB_ALL_LOCKS | CM_SB_ALL_BITS)) ||
	    !cm_has(s->pe, CM_CAP_SETPCAP))
		return cm_fail(EPERM);
	s->securebits = (uint32_t)bits;
	return cm_ok(0);
}

/* prctl(PR_SET_KEEPCAPS, 0|1): EINVAL above 1, EPERM when locked. */
static inline struct cm_res cm_set_keepcaps(struct cm_state *s, uint64_t on)
{
	if (on > 1)
		return cm_fail(EINVAL);
	if (s->securebits & CM_SB_KEEP_CAPS_LOCKED)
		return cm_fail(EPERM);
	if (on)
		s->securebits |= CM_SB_KEEP_CAPS;
	else
		s->securebits &= ~CM_SB_KEEP_CAPS;
	return cm_ok(0);
}

/* prctl(PR_CAPBSET_DROP, cap): CAP_SETPCAP in pE first, then a valid cap. */
static inline struct cm_res cm_bset_drop(struct cm_state *s, uint64_t cap)
{
	if (!cm_has(s->pe, CM_CAP_SETPCAP))
		return cm_fail(EPERM);
	if (cap > CM_LAST_CAP)
		return cm_fail(EINVAL);
	s->bnd &= ~CM_BIT(cap);
	return cm_ok(0);
}

/* prctl(PR_CAPBSET_READ, cap): 1 when cap is in the bounding set. */
static inline struct cm_res cm_bset_read(const struct cm_state *s,
					 uint64_t cap)
{
	if (cap > CM_LAST_CAP)
		return cm_fail(EINVAL);
	return cm_ok(cm_has(s->bnd, cap));
}

/* prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); anything else is EINVAL. */
static inline struct cm_res cm_set_nnp(struct cm_state *s, uint64_t a2,
				       uint64_t a3)
{
	if (a2 != 1 || a3)
		return cm_fail(EINVAL);
	s->nnp = 1;
	return cm_ok(0);
}

static inline int cm_any_root(const uint32_t *id)
{
	return !id[0] || !id[1] || !id[2];
}

/*
 * The capability fix-up of a uid change (unless SECBIT_NO_SETUID_FIXUP):
 *  - from at least one of ruid/euid/suid 0 to none of them 0: pA is
 *    cleared, and pP and pE too unless SECBIT_KEEP_CAPS;
 *  - euid 0 -> non-zero: pE is cleared;
 *  - euid non-zero -> 0: pE = pP.
 */
static inline void cm_setuid_fixup(struct cm_state *s, const uint32_t *old)
{
	if (cm_any_root(old) && !cm_any_root(s->uid)) {
		if (!(s->securebits & CM_SB_KEEP_CAPS)) {
			s->pp = 0;
			s->pe = 0;
		}
		s->pa = 0;
	}
	if (!old[1] && s->uid[1])
		s->pe = 0;
	if (old[1] && !s->uid[1])
		s->pe = s->pp;
}

/*
 * setresuid(r, e, s), CM_NOID for "unchanged". Without CAP_SETUID in pE
 * each new id must be one of the current three (else EPERM). A call that
 * changes nothing succeeds and changes nothing; otherwise the ids are set
 * and the capability fix-up follows.
 */
static inline struct cm_res cm_setresuid(struct cm_state *s,
					 const uint32_t *want)
{
	uint32_t old[3] = { s->uid[0], s->uid[1], s->uid[2] };
	int n, change = 0, foreign = 0;

	for (n = 0; n < 3; n++) {
		if (want[n] == CM_NOID)
			continue;
		if (want[n] != old[n])
			change = 1;
		if (want[n] != old[0] && want[n] != old[1] && want[n] != old[2])
			foreign = 1;
	}
	if (!change)
		return cm_ok(0);
	if (foreign && !cm_has(s->pe, CM_CAP_SETUID))
		return cm_fail(EPERM);
	for (n = 0; n < 3; n++)
		if (want[n] != CM_NOID)
			s->uid[n] = want[n];
	if (!(s->securebits & CM_SB_NO_SETUID_FIXUP))
		cm_setuid_fixup(s, old);
	return cm_ok(0);
}

/*
 * execve() of a program f that succeeds (or fails with EPERM, below).
 *
 *  1. Set-id bits: unless no_new_privs, a set-user-ID program sets euid
 *     to its owner and a set-group-ID one egid to its group.
 *  2. File capabilities: pP' = (fP & pBnd) | (fI & pI). With fE set, a
 *     bit of fP that pP' lacks fails the exec with EPERM.
 *  3. Root (unless SECBIT_NOROOT): when ruid or the new euid is 0, fP and
 *     fI count as full: pP' = pBnd | pI, and fE as set when the new euid
 *     is 0. Not so for a program with file capabilities that makes a
 *     non-root ruid's euid 0: it gets its file capabilities only.
 *  4. The ids change when the new euid differs from ruid or the new egid
 *     from rgid. Under no_new_privs, when they change or pP' gains a bit
 *     pP lacks, euid and egid fall back to ruid and rgid and pP' is
 *     capped to pP.
 *  5. pA' = (file capabilities || ids change) ? 0 : pA;
 *     pP' |= pA'; pE' = fE ? pP' : pA'; pI' = pI; pBnd' = pBnd;
 *     suid = euid, sgid = egid; SECBIT_KEEP_CAPS is cleared.
 *  6. The new image runs in secure mode (AT_SECURE) when the ids change,
 *     or when ruid is not 0 and fE is set or pP' holds more than pA'.
 */
static inline struct cm_res cm_execve(struct cm_state *s,
				      const struct cm_file *f)
{
	uint32_t euid = s->uid[1], egid = s->gid[1];
	uint64_t pp = 0;
	int eff = 0, setid;
	struct cm_res r = cm_ok(0);

	if (!s->nnp && f->setuid)
		euid = f->uid;
	if (!s->nnp && f->setgid)
		egid = f->gid;
	if (f->has_fcap) {
		pp = ((f->fp & s->bnd) | (f->fi & s->pi)) & CM_VALID;
		eff = f->fe;
		if (eff && (f->fp & CM_VALID & ~pp))
			return cm_fail(EPERM);
	}
	if (!(s->securebits & CM_SB_NOROOT) &&
	    !(f->has_fcap && s->uid[0] && !euid)) {
		if (!euid || !s->uid[0])
			pp = s->bnd | s->pi;
		if (!euid)
			eff = 1;
	}
	setid = euid != s->uid[0] || egid != s->gid[0];
	if (s->nnp && (setid || !cm_subset(pp, s->pp))) {
		euid = s->uid[0];
		egid = s->gid[0];
		pp &= s->pp;
	}
	if (f->has_fcap || setid)
		s->pa = 0;
	s->pp = pp | s->pa;
	s->pe = eff ? s->pp : s->pa;
	s->uid[1] = s->uid[2] = euid;
	s->gid[1] = s->gid[2] = egid;
	s->securebits &= ~CM_SB_KEEP_CAPS;
	r.secure = setid || (s->uid[0] && (eff || !cm_subset(s->pp, s->pa)));
	return r;
}

#endif /* CAPMODEL_H */
