/*
 * scan.c - `leftover scan`: judge every candidate of one or more build trees.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "leftover/error.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"
#include "leftover/rules.h"
#include "leftover/scan.h"
#include "scan_opts.h"

static const char usage_text[] =
	"usage: leftover scan [options] DIR...\n"
	"\n"
	"Find the artifacts under each DIR that would not load, without running them.\n"
	"\n"
	"  --format FORMAT        text (default), json, junit or sarif\n"
	LO_CLI_LOAD_OPTS_HELP
	LO_CLI_TREE_OPTS_HELP
	"  --reconfigure          run `cmake DIR` when its File API reply is missing or old\n"
	"  --all                  also list orphaned object and bookkeeping files\n"
	"  --source DIR           the source tree (default: CMAKE_HOME_DIRECTORY)\n"
	"  -v, --verbose          also list files that are fine, and every path tried\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 nothing broken, stale or unreadable; 1 findings; 2 usage or\n"
	"environment error. Rules can change what counts ([fail] on, action = keep).\n";

int lo_cmd_scan(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "reconfigure", no_argument, NULL, 'R' },
		{ "all", no_argument, NULL, 'A' },
		{ "source", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lo_cli_scan_opts so;
	lo_scan_result *res = NULL;
	size_t i;
	lo_cli_format format = LO_CLI_FORMAT_TEXT;
	bool verbose = false;
	int c, rc = LO_EXIT_ERROR;

	lo_cli_scan_opts_init(&so, "scan", LO_CLI_LOAD_OPTS | LO_CLI_TREE_OPTS, "vh", longopts);
	while ((c = lo_cli_scan_opts_getopt(&so, argc, argv)) != -1) {
		switch (c) {
		case 'f':
			if (lo_cli_format_parse(&format, "scan", optarg) < 0)
				goto out;
			break;
		case 'R': so.scan.reconfigure = true; break;
		case 'A': so.scan.all = true; break;
		case 'S': so.scan.source = optarg; break;
		case 'v': verbose = true; break;
		case 'h':
			fputs(usage_text, stdout);
			rc = LO_EXIT_CLEAN;
			goto out;
		case LO_CLI_OPT_BAD:
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		goto out;
	}
	/* Every layer of the first tree; bad rules stop the scan before it starts. */
	if (lo_cli_scan_opts_load_rules(&so, argv[optind]) < 0)
		goto out;
	if (lo_scan_run(&res, (const char *const *)argv + optind, (size_t)(argc - optind), &so.scan) < 0) {
		lo_cli_error("%s", lo_error_last());
		goto out;
	}
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
	for (i = 0; i < res->file_count; i++)
		if (lo_rules_fails(so.rules, res->files[i].path, lo_file_rule_states(&res->files[i])))
			rc = LO_EXIT_FINDINGS;
out:
	lo_scan_result_free(res);
	lo_cli_scan_opts_dispose(&so);
	return rc;
}
