// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsampler: the command line. main() picks the command: record, report, dump,
 * status, each in its own file (commands.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

static const char main_usage[] =
	"usage: fxsampler COMMAND [ARGS..]\n"
	"\n"
	"A sampling profiler: eBPF walks user frame pointers on every CPU and the\n"
	"samples are written as a Fuchsia Trace Format (.fxt) file.\n"
	"\n"
	"  record   capture a profile (fxsampler record --help)\n"
	"  report   symbolize a capture: top functions, folded stacks, pprof, SVG\n"
	"  dump     print every record of a .fxt\n"
	"  status   who holds the host's sampler\n"
	"\n"
	"  -h, --help     this text\n"
	"  -V, --version  the version\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error.\n";

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{"record", cmd_record},
		{"dump", cmd_dump},
		{"report", cmd_report},
		{"status", cmd_status},
	};

	if (argc < 2) {
		fputs(main_usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(main_usage, stdout);
		return EXIT_SUCCESS;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("fxsampler %s\n", FXS_VERSION);
		return EXIT_SUCCESS;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	cli_say("unknown command '%s'", argv[1]);
	fputs(main_usage, stderr);
	return EXIT_USAGE;
}
