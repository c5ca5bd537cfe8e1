// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fxsampler dump: one line per record of a .fxt. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "fxt/fxt_dump.h"
#include "fxt/fxt_reader.h"

static const char dump_usage[] =
	"usage: fxsampler dump FILE\n"
	"\n"
	"Print one line per record of a .fxt (plain or gzip-compressed).\n"
	"A malformed file is rejected with the byte offset and the reason\n"
	"(exit status 1), after the records before it.\n";

int cmd_dump(int argc, char **argv)
{
	struct fxt_record rec;
	struct fxt_reader *r;
	/* a backtrace of FXT_MAX_FRAMES frames: " 0x" and 16 digits each */
	static char line[FXT_MAX_FRAMES * 19 + 4096];
	int n;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(dump_usage, stdout);
		return EXIT_SUCCESS;
	}
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("fxsampler %s\n", FXS_VERSION);
		return EXIT_SUCCESS;
	}
	if (argc != 2 || argv[1][0] == '-') {
		cli_say(argc < 2 ? "dump needs a FILE" : "dump takes one FILE");
		fputs(dump_usage, stderr);
		return EXIT_USAGE;
	}
	r = fxt_reader__open(argv[1]);
	if (!r) {
		cli_say("cannot read '%s': %s", argv[1], strerror(errno));
		return EXIT_FAILURE;
	}
	while ((n = fxt_reader_next(r, &rec)) > 0) {
		fxt_record_format(&rec, line, sizeof(line));
		puts(line);
	}
	/*
	 * A malformed record's error names its offset; a failed read says how far
	 * it got. A file cut short has had every whole record printed.
	 */
	if (n == -EBADMSG && fxt_reader_truncated(r))
		cli_say("warning: %s is cut short (%s): every whole record before byte %" PRIu64
			" is above",
			argv[1], fxt_reader_error(r), fxt_reader_offset(r));
	else if (n == -EBADMSG)
		cli_say("%s: %s", argv[1], fxt_reader_error(r));
	else if (n < 0)
		cli_say("%s: cannot read past byte %" PRIu64 ": %s", argv[1], fxt_reader_offset(r),
			strerror(-n));
	fxt_reader__free(r);
	if (fflush(stdout) && n >= 0) {
		cli_say("cannot write the dump: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return n < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
