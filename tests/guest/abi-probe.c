// SPDX-License-Identifier: GPL-2.0
/*
 * Report, as key=value lines, whether the running kernel has the ambient
 * capability ABI: prctl(PR_CAP_AMBIENT) and the CapAmb line of
 * /proc/self/status. The host compares the lines with what each kernel
 * flavour must show.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"

int main(void)
{
	char line[256];
	int capamb = 0;
	FILE *f;
	int ret;

	ret = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0);
	if (ret < 0)
		printf("abi: prctl_cap_ambient=%s\n",
		       errno == EINVAL ? "EINVAL" : strerror(errno));
	else
		printf("abi: prctl_cap_ambient=ok\n");

	f = fopen("/proc/self/status", "r");
	if (!f) {
		printf("abi: capamb_line=unreadable\n");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapAmb:", 7))
			capamb = 1;
	fclose(f);
	printf("abi: capamb_line=%s\n", capamb ? "present" : "absent");
	return 0;
}
