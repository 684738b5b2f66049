// SPDX-License-Identifier: GPL-2.0
/*
 * Rules of the other capability sets that the ambient set builds on: who
 * may set the securebits and drop from the bounding set, the bounds that
 * capset() keeps, and how pP and pE follow the user IDs.  None of these
 * tests touches pA, so they also judge a kernel that lacks the ambient set.
 *
 * Every test starts as root holding all capabilities in pP and pE with no
 * securebits set, and runs in its own process.  Run by an unprivileged
 * user, a test starts as root of a user namespace of its own instead; the
 * tests that need other user IDs then SKIP.
 */

#define _GNU_SOURCE
#include "common.h"

/* A securebit that no kernel defines yet. */
#define UNKNOWN_SECUREBIT issecure_mask(30)

/*
 * Makes the caller root with every capability in pP and pE, and no
 * securebit set: where a locked bit cannot be cleared, as root of a new
 * user namespace, which starts with none.  A kernel without
 * PR_GET_SECUREBITS has none to clear; the securebits tests then fail on
 * their own.  Returns NULL, or why the test cannot run.
 */
static const char *setup_caps(struct __test_metadata *const _metadata)
{
	const char *why = become_full_root();
	__u64 eff, prm, inh;
	int bits;

	if (why)
		return why;
	bits = prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL);
	if (bits > 0 && set_securebits(0) &&
	    (!enter_userns(ROOT_UID, ROOT_GID) ||
	     prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL) != 0))
		return "the securebits are locked and cannot be cleared";
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	set_caps(_metadata, prm, prm, inh);
	return NULL;
}

/* setup_caps(), for a test that also takes on the test users' IDs. */
static const char *setup_ids(struct __test_metadata *const _metadata)
{
	const char *why = setup_caps(_metadata);

	if (why)
		return why;
	return can_switch_ids() ? NULL : NEED_IDS_REASON;
}

/*
 * Sets @bits (if any), which a test needs in order to run.  Returns NULL,
 * or why the test cannot run: a kernel without the securebits (the
 * securebits tests fail there).
 */
static const char *need_securebits(struct __test_metadata *const _metadata,
				   unsigned long bits)
{
	if (!bits)
		return NULL;
	if (prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL) < 0)
		return "no securebits: PR_GET_SECUREBITS fails";
	ASSERT_EQ(0, set_securebits(bits))
	{
		TH_LOG("PR_SET_SECUREBITS failed: %s", strerror(errno));
	}
	return NULL;
}

/* Removes @cap from pE, leaving pP and pI as they are. */
static void drop_effective(struct __test_metadata *const _metadata, int cap)
{
	__u64 eff, prm, inh;

	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	set_caps(_metadata, eff & ~BIT_CAP(cap), prm, inh);
}

FIXTURE(securebits) {};

FIXTURE_SETUP(securebits)
{
	const char *why = setup_caps(_metadata);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(securebits)
{
}

/* A bit that the kernel does not define is refused, even with CAP_SETPCAP. */
TEST_F(securebits, unknown_bit_is_eperm)
{
	errno = 0;
	EXPECT_EQ(-1, set_securebits(UNKNOWN_SECUREBIT));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL));
}

/*
 * Root of a new user namespace holds CAP_SETPCAP there, and may set the
 * securebits of its credentials.
 */
TEST_F(securebits, set_in_new_user_namespace)
{
	const unsigned long bits = SECBIT_KEEP_CAPS | SECBIT_NO_SETUID_FIXUP;
	__u64 eff, prm, inh;

	if (!enter_userns(ROOT_UID, ROOT_GID))
		SKIP(return, "cannot create a user namespace: %s",
		     strerror(errno));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(all_caps(), prm & all_caps());
	EXPECT_EQ(all_caps(), eff & all_caps());
	ASSERT_EQ(0, set_securebits(bits))
	{
		TH_LOG("PR_SET_SECUREBITS failed: %s", strerror(errno));
	}
	EXPECT_EQ((int)bits, prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL));
}

/*
 * Changing SECBIT_KEEP_CAPS, SECBIT_NO_SETUID_FIXUP or SECBIT_NOROOT needs
 * CAP_SETPCAP in pE (since 6.14 the SECBIT_EXEC_* bits do not), and so
 * does writing the securebits unchanged.
 */
FIXTURE(securebits_without_setpcap) {};

FIXTURE_VARIANT(securebits_without_setpcap) {
	/* the bit to set, 0 to write the securebits unchanged */
	unsigned long bit;
};

FIXTURE_VARIANT_ADD(securebits_without_setpcap, unchanged) {
	.bit = 0,
};

FIXTURE_VARIANT_ADD(securebits_without_setpcap, keep_caps) {
	.bit = SECBIT_KEEP_CAPS,
};

FIXTURE_VARIANT_ADD(securebits_without_setpcap, no_setuid_fixup) {
	.bit = SECBIT_NO_SETUID_FIXUP,
};

FIXTURE_VARIANT_ADD(securebits_without_setpcap, noroot) {
	.bit = SECBIT_NOROOT,
};

FIXTURE_SETUP(securebits_without_setpcap)
{
	const char *why = setup_caps(_metadata);

	if (why)
		SKIP(return, "%s", why);
	drop_effective(_metadata, CAP_SETPCAP);
}

FIXTURE_TEARDOWN(securebits_without_setpcap)
{
}

TEST_F(securebits_without_setpcap, set_is_eperm)
{
	errno = 0;
	EXPECT_EQ(-1, set_securebits(variant->bit));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL));
}

FIXTURE(bounding_set) {};

FIXTURE_SETUP(bounding_set)
{
	const char *why = setup_caps(_metadata);

	if (why)
		SKIP(return, "%s", why);
	if (prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0UL, 0UL, 0UL) != 1)
		SKIP(return, "CAP_NET_RAW is not in the bounding set");
}

FIXTURE_TEARDOWN(bounding_set)
{
}

/* Dropping a capability from pBnd needs CAP_SETPCAP in pE. */
TEST_F(bounding_set, drop_needs_setpcap)
{
	drop_effective(_metadata, CAP_SETPCAP);
	errno = 0;
	EXPECT_EQ(-1, prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0UL, 0UL, 0UL));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(1, prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0UL, 0UL, 0UL));
}

/* With CAP_SETPCAP, the drop takes the capability out of pBnd. */
TEST_F(bounding_set, drop_removes_cap)
{
	ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0UL, 0UL, 0UL))
	{
		TH_LOG("PR_CAPBSET_DROP failed: %s", strerror(errno));
	}
	EXPECT_EQ(0, prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0UL, 0UL, 0UL));
}

/*
 * pE follows the effective user ID, with root kept as the real and saved
 * user ID (so pP stays): the euid leaving 0 empties pE, and becoming 0
 * again sets pE to pP.  SECBIT_KEEP_CAPS, which keeps pP when no uid 0 is
 * left, changes nothing here; under SECBIT_NO_SETUID_FIXUP neither change
 * touches pE.
 */
FIXTURE(euid_change) {};

FIXTURE_VARIANT(euid_change) {
	unsigned long securebits;
	/* whether the euid's changes fix pE up */
	bool fixup;
};

FIXTURE_VARIANT_ADD(euid_change, no_securebits) {
	.fixup = true,
};

FIXTURE_VARIANT_ADD(euid_change, keep_caps) {
	.securebits = SECBIT_KEEP_CAPS,
	.fixup = true,
};

FIXTURE_VARIANT_ADD(euid_change, no_setuid_fixup) {
	.securebits = SECBIT_NO_SETUID_FIXUP,
	.fixup = false,
};

FIXTURE_SETUP(euid_change)
{
	const char *why = setup_ids(_metadata);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(euid_change)
{
}

TEST_F(euid_change, effective_follows_euid)
{
	const __u64 all = all_caps();
	__u64 eff, prm, inh;
	const char *why;

	why = need_securebits(_metadata, variant->securebits);
	if (why)
		SKIP(return, "%s", why);

	ASSERT_EQ(0, syscall(SYS_setresuid, -1, NOBODY_UID, -1));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(all, prm & all);
	EXPECT_EQ(variant->fixup ? EMPTY_SET : all, eff & all);

	/* Empty pE, so that only a fixup can fill it again. */
	set_caps(_metadata, EMPTY_SET, prm, inh);
	ASSERT_EQ(0, syscall(SYS_setresuid, -1, ROOT_UID, -1));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(all, prm & all);
	EXPECT_EQ(variant->fixup ? all : EMPTY_SET, eff & all);
}

/*
 * Leaving root for good (no uid 0 left among real, effective and saved)
 * empties pP and pE; SECBIT_KEEP_CAPS keeps pP (pE still follows the
 * euid), and SECBIT_NO_SETUID_FIXUP keeps both.
 */
FIXTURE(root_leaving) {};

FIXTURE_VARIANT(root_leaving) {
	unsigned long securebits;
	/* PR_SET_KEEPCAPS, the prctl() form of SECBIT_KEEP_CAPS */
	bool keepcaps_prctl;
	/* setuid(2) instead of setresuid(2) */
	bool by_setuid;
	bool keeps_permitted;
	bool keeps_effective;
};

FIXTURE_VARIANT_ADD(root_leaving, no_securebits) {
	.keeps_permitted = false,
	.keeps_effective = false,
};

FIXTURE_VARIANT_ADD(root_leaving, setuid) {
	.by_setuid = true,
	.keeps_permitted = false,
	.keeps_effective = false,
};

FIXTURE_VARIANT_ADD(root_leaving, setuid_keepcaps_prctl) {
	.keepcaps_prctl = true,
	.by_setuid = true,
	.keeps_permitted = true,
	.keeps_effective = false,
};

FIXTURE_VARIANT_ADD(root_leaving, keep_caps) {
	.securebits = SECBIT_KEEP_CAPS,
	.keeps_permitted = true,
	.keeps_effective = false,
};

FIXTURE_VARIANT_ADD(root_leaving, no_setuid_fixup) {
	.securebits = SECBIT_NO_SETUID_FIXUP,
	.keeps_permitted = true,
	.keeps_effective = true,
};

FIXTURE_SETUP(root_leaving)
{
	const char *why = setup_ids(_metadata);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(root_leaving)
{
}

TEST_F(root_leaving, permitted_and_effective)
{
	const __u64 all = all_caps();
	__u64 eff, prm, inh;
	const char *why;

	why = need_securebits(_metadata, variant->securebits);
	if (why)
		SKIP(return, "%s", why);

	if (variant->keepcaps_prctl)
		ASSERT_EQ(0, prctl(PR_SET_KEEPCAPS, 1UL, 0UL, 0UL, 0UL));

	if (variant->by_setuid) {
		ASSERT_EQ(0, syscall(SYS_setuid, NOBODY_UID));
	} else {
		ASSERT_EQ(0, syscall(SYS_setresuid, NOBODY_UID, NOBODY_UID,
				     NOBODY_UID));
	}
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(variant->keeps_permitted ? all : EMPTY_SET, prm & all);
	EXPECT_EQ(variant->keeps_effective ? all : EMPTY_SET, eff & all);
}

/*
 * capset() refuses to let pP grow, pE leave pP, or pI grow beyond pI | pP
 * without CAP_SETPCAP in pE or beyond pI | pBnd with it; within those
 * bounds pI may grow.  Each variant first takes CAP_NET_RAW out of pE, pP
 * and pI (and, if it says so, out of pBnd or CAP_SETPCAP out of pE), then
 * asks to add CAP_NET_RAW back to the sets it names.
 */
FIXTURE(capset_change) {};

FIXTURE_VARIANT(capset_change) {
	bool drop_from_bounding_set;
	bool drop_setpcap;
	bool to_effective;
	bool to_permitted;
	bool to_inheritable;
	/* 0, or the errno of the refusal */
	int error;
};

FIXTURE_VARIANT_ADD(capset_change, permitted_cannot_grow) {
	.to_permitted = true,
	.error = EPERM,
};

FIXTURE_VARIANT_ADD(capset_change, effective_not_beyond_permitted) {
	.to_effective = true,
	.error = EPERM,
};

FIXTURE_VARIANT_ADD(capset_change, inheritable_beyond_permitted_needs_setpcap) {
	.drop_setpcap = true,
	.to_inheritable = true,
	.error = EPERM,
};

FIXTURE_VARIANT_ADD(capset_change, inheritable_within_bounding_set_with_setpcap) {
	.to_inheritable = true,
	.error = 0,
};

FIXTURE_VARIANT_ADD(capset_change, inheritable_not_beyond_bounding_set) {
	.drop_from_bounding_set = true,
	.to_inheritable = true,
	.error = EPERM,
};

FIXTURE_SETUP(capset_change)
{
	const char *why = setup_caps(_metadata);

	if (why)
		SKIP(return, "%s", why);
	if (prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0UL, 0UL, 0UL) != 1)
		SKIP(return, "CAP_NET_RAW is not in the bounding set");
}

FIXTURE_TEARDOWN(capset_change)
{
}

TEST_F(capset_change, result)
{
	const __u64 raw = BIT_CAP(CAP_NET_RAW);
	__u64 eff, prm, inh, eff2, prm2, inh2;
	int ret;

	if (variant->drop_from_bounding_set)
		ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0UL, 0UL, 0UL));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	eff &= ~raw;
	prm &= ~raw;
	inh &= ~raw;
	if (variant->drop_setpcap)
		eff &= ~BIT_CAP(CAP_SETPCAP);
	set_caps(_metadata, eff, prm, inh);

	errno = 0;
	ret = raw_capset(eff | (variant->to_effective ? raw : 0),
			 prm | (variant->to_permitted ? raw : 0),
			 inh | (variant->to_inheritable ? raw : 0));
	ASSERT_EQ(0, raw_capget(&eff2, &prm2, &inh2));
	if (variant->error) {
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(variant->error, errno);
		/* nothing changed */
		EXPECT_EQ(eff, eff2);
		EXPECT_EQ(prm, prm2);
		EXPECT_EQ(inh, inh2);
	} else {
		EXPECT_EQ(0, ret);
		EXPECT_EQ(inh | raw, inh2);
	}
}

TEST_HARNESS_MAIN
