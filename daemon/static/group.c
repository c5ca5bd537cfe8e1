// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * getgrnam for the statically linked fxsamplerd, from /etc/group alone.
 * glibc's own would load the NSS modules nsswitch.conf names (libnss_systemd
 * on a systemd host) into a static program, where they crash: a static
 * glibc cannot host the shared one they link. The daemon looks up one group
 * by name; /etc/group is where a package's sysusers entry puts it. Linked
 * ahead of libc.a (from the archive make cross links), so it replaces
 * glibc's getgrnam in the static binaries only.
 */
#include <grp.h>
#include <stdio.h>
#include <string.h>

/* The unit test points it at its fixture. */
static const char *group_file = "/etc/group";

struct group *getgrnam(const char *name)
{
	FILE *f = fopen(group_file, "re");
	struct group *g;

	if (!f)
		return NULL;
	/* fgetgrent parses the file itself, no NSS; its entry is static storage. */
	while ((g = fgetgrent(f)) && strcmp(g->gr_name, name))
		;
	fclose(f);
	return g;
}
