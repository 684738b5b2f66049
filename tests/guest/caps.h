/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the package's guest programs share: the ambient prctl constants,
 * for building against headers older than the set, and the three sets of
 * capget(2) and capset(2) as 64-bit masks.
 */
#ifndef GUEST_CAPS_H
#define GUEST_CAPS_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_IS_SET		1
#define PR_CAP_AMBIENT_RAISE		2
#define PR_CAP_AMBIENT_LOWER		3
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

struct caps {
	uint64_t permitted, effective, inheritable;
};

/* The calling thread's pP, pE and pI; -1 with errno set on failure. */
static inline int caps_get(struct caps *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	c->permitted = data[0].permitted | (uint64_t)data[1].permitted << 32;
	c->effective = data[0].effective | (uint64_t)data[1].effective << 32;
	c->inheritable = data[0].inheritable |
			 (uint64_t)data[1].inheritable << 32;
	return 0;
}

/* Set the calling thread's pP, pE and pI; capset(2)'s result. */
static inline int caps_set(const struct caps *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i;

	for (i = 0; i < 2; i++) {
		data[i].permitted = c->permitted >> (32 * i);
		data[i].effective = c->effective >> (32 * i);
		data[i].inheritable = c->inheritable >> (32 * i);
	}
	return syscall(SYS_capset, &hdr, data);
}

/* Every capability the running kernel knows (cap_last_cap, else 40). */
static inline uint64_t caps_all(void)
{
	unsigned int last = 40;
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");

	if (f) {
		if (fscanf(f, "%u", &last) != 1)
			last = 40;
		fclose(f);
	}
	return last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
}

#endif /* GUEST_CAPS_H */
