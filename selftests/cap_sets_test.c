// SPDX-License-Identifier: GPL-2.0
/*
 * Rules of the other capability sets that the ambient set builds on: who
 * may set the securebits and drop from the bounding set, and how pE
 * follows the effective user ID.  None of these tests touches pA, so they
 * also judge a kernel that lacks the ambient set.
 *
 * Every test starts as root holding all capabilities with no securebits
 * set, and runs in its own process.  Run by an unprivileged user, a test
 * starts as root of a user namespace of its own instead; the tests that
 * need other user IDs then SKIP.
 */

#define _GNU_SOURCE
#include "common.h"

/* A securebit that no kernel defines. */
#define UNKNOWN_SECUREBIT issecure_mask(30)

/*
 * Makes the caller root with every capability and clears the securebits.
 * A kernel without PR_GET_SECUREBITS has none to clear; the securebits
 * tests then fail on their own.  Returns NULL, or why the test cannot run.
 */
static const char *setup_caps(void)
{
	const char *why = become_full_root();
	int bits;

	if (why)
		return why;
	bits = prctl(PR_GET_SECUREBITS, 0UL, 0UL, 0UL, 0UL);
	if (bits > 0 && set_securebits(0))
		return "the securebits are locked and cannot be cleared";
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
	const char *why = setup_caps();

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

/* Changing a securebit needs CAP_SETPCAP in pE. */
FIXTURE(securebits_without_setpcap) {};

FIXTURE_VARIANT(securebits_without_setpcap) {
	unsigned long bit;
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
	const char *why = setup_caps();

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
	const char *why = setup_caps();

	if (why)
		SKIP(return, "%s", why);
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
 * again sets pE to pP, whether SECBIT_KEEP_CAPS is set or not.  Under
 * SECBIT_NO_SETUID_FIXUP neither change touches pE.
 */
FIXTURE(euid_change) {};

FIXTURE_VARIANT(euid_change) {
	unsigned long securebits;
	/* whether pE is emptied when the euid leaves 0 */
	bool leaving_empties;
	/* whether pE becomes pP when the euid becomes 0 */
	bool returning_fills;
};

FIXTURE_VARIANT_ADD(euid_change, no_securebits) {
	.leaving_empties = true,
	.returning_fills = true,
};

FIXTURE_VARIANT_ADD(euid_change, keep_caps) {
	.securebits = SECBIT_KEEP_CAPS,
	.leaving_empties = true,
	.returning_fills = true,
};

FIXTURE_VARIANT_ADD(euid_change, no_setuid_fixup) {
	.securebits = SECBIT_NO_SETUID_FIXUP,
	.leaving_empties = false,
	.returning_fills = false,
};

FIXTURE_SETUP(euid_change)
{
	const char *why = setup_caps();

	if (why)
		SKIP(return, "%s", why);
	if (!can_switch_ids())
		SKIP(return, NEED_IDS_REASON);
}

FIXTURE_TEARDOWN(euid_change)
{
}

TEST_F(euid_change, effective_follows_euid)
{
	const __u64 all = all_caps();
	__u64 eff, prm, inh;

	if (variant->securebits) {
		ASSERT_EQ(0, set_securebits(variant->securebits))
		{
			TH_LOG("PR_SET_SECUREBITS failed: %s", strerror(errno));
		}
	}

	ASSERT_EQ(0, syscall(SYS_setresuid, -1, NOBODY_UID, -1));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(all, prm & all);
	EXPECT_EQ(variant->leaving_empties ? EMPTY_SET : all, eff & all);

	/* Empty pE, so that only a fixup can fill it again. */
	set_caps(_metadata, EMPTY_SET, prm, inh);
	ASSERT_EQ(0, syscall(SYS_setresuid, -1, ROOT_UID, -1));
	ASSERT_EQ(0, raw_capget(&eff, &prm, &inh));
	EXPECT_EQ(all, prm & all);
	EXPECT_EQ(variant->returning_fills ? all : EMPTY_SET, eff & all);
}

TEST_HARNESS_MAIN
