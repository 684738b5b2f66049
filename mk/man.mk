# SPDX-License-Identifier: GPL-2.0
# Man-page patches for capabilities(7) and PR_CAP_AMBIENT_RAISE(2const);
# included by the top-level Makefile.
#
#   man-tree    build/man-pages: Debian's pages at tag base, man-pages/*.patch on top
#   man         render the pages the patches change into build/man-pages/out/
#   man-check   patches apply, no new lint warnings, the example runs in a guest
#               as shown (needs build/obj/stock), README tests exist and pass
#   man-series  write the commits in build/man-pages back to man-pages/*.patch

MAN_TOP := $(if $(TOP),$(TOP),.)

.PHONY: man-tree man man-check man-series

man-tree:
	$(MAN_TOP)/scripts/man-tree.sh

man: man-tree
	$(MAN_TOP)/scripts/man-render.sh

man-check: man-tree
	$(MAN_TOP)/scripts/man-check.sh

man-series: man-tree
	$(MAN_TOP)/scripts/man-tree.sh series
