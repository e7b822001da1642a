/*
 * restore.c - `leftover restore`: put a quarantine set back into its tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean_hooks.h"
#include "cli.h"
#include "leftover/clean.h"
#include "leftover/error.h"
#include "leftover/report.h"
#include "opts.h"

static const lo_cli_opt options[] = {
	{ "list", 0, 'l', NULL, NULL, "list the quarantine sets, oldest first" },
	{ "wait", 0, 'w', NULL, NULL, "wait for a clean of DIR that is running instead of failing" },
	{ "verbose", 'v', 'v', NULL, NULL, "list every file put back" },
	LO_CLI_OPT_HELP_ENTRY,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

const lo_cli_cmd lo_cli_restore_cmd = {
	"restore",
	"usage: leftover restore [options] DIR [STAMP]\n"
	"       leftover restore --list DIR\n"
	"\n"
	"Put the files 'leftover clean' moved into DIR/.leftover.d/quarantine/STAMP back\n"
	"where they were (STAMP: the newest set by default). A file that has reappeared\n"
	"in the tree is not overwritten; its copy stays in the quarantine.\n"
	"\n",
	options,
	"\n"
	"Exit status: 0 everything restored; 1 a file could not be put back; 2 usage\n"
	"or environment error (no such set, the lock is held, ...).\n",
};

static int list(const char *dir)
{
	char **sets;
	size_t n, i;

	if (lo_quarantine_list(&sets, &n, dir) < 0) {
		lo_cli_error("%s", lo_error_last());
		return LO_EXIT_ERROR;
	}
	for (i = 0; i < n; i++) {
		puts(sets[i]);
		free(sets[i]);
	}
	free(sets);
	return LO_EXIT_CLEAN;
}

int lo_cmd_restore(int argc, char **argv)
{
	lo_cli_opts o;
	lo_restore_result *res = NULL;
	lo_clean_opts opts;
	bool verbose = false, do_list = false;
	size_t i;
	int c;

	memset(&opts, 0, sizeof(opts));
	lo_cli_opts_init(&o, &lo_cli_restore_cmd);
	while ((c = lo_cli_opts_next(&o, argc, argv)) != LO_CLI_OPTS_END) {
		switch (c) {
		case 'l': do_list = true; break;
		case 'w': opts.wait = true; break;
		case 'v': verbose = true; break;
		default: c = o.status; lo_cli_opts_dispose(&o); return c;
		}
	}
	c = lo_cli_opts_operands(&o, argc, argv, 1, do_list ? 1 : 2, 1);
	lo_cli_opts_dispose(&o);
	if (c < 0)
		return LO_EXIT_ERROR;
	if (do_list)
		return list(argv[optind]);
	lo_cli_clean_hooks(&opts);
	if (lo_restore_run(&res, argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL, &opts) < 0) {
		lo_cli_error("%s", lo_error_last());
		return LO_EXIT_ERROR;
	}
	for (i = 0; i < res->entry_count; i++) {
		const lo_restore_entry *e = &res->entries[i];

		if (e->error) {
			lo_cli_error("%s", e->error);
		} else if (verbose) {
			char *q = lo_report_quote_path(e->path);

			printf("%s %s\n", e->in_place ? "already in place:" : "restored", q);
			free(q);
		}
	}
	printf("restored %zu file%s from %s", res->restored, res->restored == 1 ? "" : "s",
	       res->stamp);
	if (res->in_place)
		printf(" (%zu already in place)", res->in_place);
	putchar('\n');
	if (res->interrupted)
		printf("interrupted: run 'leftover restore %s %s' again for the rest\n", argv[optind],
		       res->stamp);
	if (res->refused || res->failed)
		printf("%zu file%s left in %s (see above)\n", res->refused + res->failed,
		       res->refused + res->failed == 1 ? "" : "s", res->quarantine);
	c = res->refused || res->failed || res->interrupted ? LO_EXIT_FINDINGS : LO_EXIT_CLEAN;
	lo_restore_result_free(res);
	return c;
}
