// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fxsampler status: fxsamplerd's answer, or what the host lock says. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli/client.h"
#include "cli/commands.h"
#include "capture/hostlock.h"

static const char status_usage[] =
	"usage: fxsampler status [--socket PATH]\n"
	"\n"
	"The host's sampler: fxsamplerd's state, who holds it and its counters, or,\n"
	"without a daemon, whether a local fxsampler record holds it.\n";

int cmd_status(int argc, char **argv)
{
	const char *socket = NULL;
	pid_t holder;
	char msg[512] = "";
	int err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(status_usage, stdout);
			return EXIT_SUCCESS;
		}
		if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			socket = argv[++i];
			continue;
		}
		cli_say("status: unexpected argument '%s'", argv[i]);
		fputs(status_usage, stderr);
		return EXIT_USAGE;
	}
	err = client_status(socket, stdout, msg, sizeof(msg));
	if (!err)
		return EXIT_SUCCESS;
	printf("fxsamplerd: not reachable (%s)\n", msg[0] ? msg : strerror(-err));
	/* only what the lock says: a holder is named only if the lock names one */
	err = hostlock_probe(HOSTLOCK_PATH, &holder);
	if (!err)
		puts("sampler: free");
	else if (err == -EBUSY && holder > 0)
		printf("sampler: busy, held by pid %d\n", (int)holder);
	else if (err == -EBUSY)
		puts("sampler: busy (the holder is not known)");
	else
		printf("sampler: unknown (cannot read '%s': %s)\n", HOSTLOCK_PATH, strerror(-err));
	return EXIT_SUCCESS;
}
