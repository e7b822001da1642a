/*
 * scan.c - `leftover scan`: judge every candidate of one or more build trees.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "leftover/error.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"
#include "leftover/rules.h"
#include "leftover/scan.h"
#include "opts.h"

static const lo_cli_opt options[] = {
	{ "format", 0, 'f', "FORMAT", LO_CLI_FORMAT_VALUES,
	  "text (default), json, junit or sarif" },
	LO_CLI_OPTS_LOAD,
	LO_CLI_OPTS_TREE,
	{ "reconfigure", 0, 'R', NULL, NULL, "run `cmake DIR` when its File API reply is missing or old" },
	{ "all", 0, 'A', NULL, NULL, "also list orphaned object and bookkeeping files" },
	{ "source", 0, 'S', "DIR", NULL, "the source tree (default: CMAKE_HOME_DIRECTORY)" },
	{ "verbose", 'v', 'v', NULL, NULL, "also list files that are fine, and every path tried" },
	{ "no-cache", 0, 'N', NULL, NULL, "judge every file afresh: neither use nor keep the\n"
	  "verdict cache" },
	{ "clear-cache", 0, 'C', NULL, NULL, "drop the verdict cache of these DIRs, then scan\n"
	  "as --no-cache" },
	LO_CLI_OPT_HELP_ENTRY,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

const lo_cli_cmd lo_cli_scan_cmd = {
	"scan",
	"usage: leftover scan [options] DIR...\n"
	"\n"
	"Find the artifacts under each DIR that would not load, without running them.\n"
	"\n",
	options,
	"\n"
	"Exit status: 0 nothing broken, stale or unreadable; 1 findings; 2 usage or\n"
	"environment error. Rules can change what counts ([fail] on, action = keep).\n",
};

/*
 * The verdict cache on stderr, never in a report (a warm scan's is the
 * cold one's, byte for byte): a cache that could not be read or kept
 * always, whether it was used with --verbose.
 */
static void say_cache(const lo_scan_result *res, bool verbose)
{
	if (res->cache.complaint)
		fprintf(stderr, "leftover: note: verdict cache ignored: %s\n", res->cache.complaint);
	if (!verbose)
		return;
	if (res->cache.used)
		fprintf(stderr, "leftover: verdict cache used: %zu verdicts, %zu dependencies "
			"unchanged\n", res->file_count, res->cache.checked);
	else if (res->cache.partial)
		fprintf(stderr, "leftover: verdict cache used in part (%s): judged %zu, kept %zu; "
			"%zu dependencies kept; %zu directories not read again\n",
			res->cache.why ? res->cache.why : "", res->cache.judged, res->cache.kept,
			res->cache.checked, res->cache.listed_kept);
	else if (res->cache.why)
		fprintf(stderr, "leftover: verdict cache not used (%s): judged %zu files, "
			"%zu dependencies kept\n", res->cache.why, res->file_count, res->cache.checked);
}

int lo_cmd_scan(int argc, char **argv)
{
	lo_cli_opts o;
	lo_scan_result *res = NULL;
	size_t i;
	lo_cli_format format = LO_CLI_FORMAT_TEXT;
	bool verbose = false, clear = false;
	int c, rc = LO_EXIT_ERROR;

	lo_cli_opts_init(&o, &lo_cli_scan_cmd);
	while ((c = lo_cli_opts_next(&o, argc, argv)) != LO_CLI_OPTS_END) {
		switch (c) {
		case 'f': format = (lo_cli_format)o.value; break;
		case 'R': o.scan.reconfigure = true; break;
		case 'A': o.scan.all = true; break;
		case 'S': o.scan.source = optarg; break;
		case 'v': verbose = true; break;
		case 'N': o.scan.no_cache = true; break;
		case 'C': clear = o.scan.no_cache = true; break;
		default: rc = o.status; goto out;
		}
	}
	if (lo_cli_opts_operands(&o, argc, argv, 1, INT_MAX, INT_MAX) < 0)
		goto out;
	/* Every layer of the first tree; bad rules stop the scan before it starts. */
	if (lo_cli_opts_load_rules(&o, argv[optind]) < 0)
		goto out;
	if (clear && lo_cli_cache_clear(argv + optind, (size_t)(argc - optind)) < 0)
		goto out;
	if (lo_scan_run(&res, (const char *const *)argv + optind, (size_t)(argc - optind), &o.scan) < 0) {
		lo_cli_error("%s", lo_error_last());
		goto out;
	}
	say_cache(res, verbose);
	if (format == LO_CLI_FORMAT_JSON)
		lo_report_write_json(stdout, res);
	else if (format == LO_CLI_FORMAT_JUNIT)
		lo_report_write_junit(stdout, res, NULL);
	else if (format == LO_CLI_FORMAT_SARIF)
		lo_report_write_sarif(stdout, res, NULL);
	else
		lo_report_write_text(stdout, res,
				     (lo_cli_use_color(stdout) ? LO_REPORT_COLOR : 0) |
					     (verbose ? LO_REPORT_VERBOSE : 0));
	/* [fail] on and `action = keep` rules decide which findings count. */
	rc = LO_EXIT_CLEAN;
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		unsigned on = lo_verdict_rule_states(f->verdict, f->orphan);
		char *path;

		if (!on) /* no rule fails a file in none of the states they weigh: no path made */
			continue;
		path = lo_scan_rules_path(res, f->path);
		if (lo_rules_fails(o.rules, path, on))
			rc = LO_EXIT_FINDINGS;
		free(path);
	}
out:
	lo_cli_leave_to_exit(res);
	lo_cli_opts_dispose(&o);
	return rc;
}
