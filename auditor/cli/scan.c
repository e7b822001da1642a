/*
 * scan.c - `leftover scan`: judge every candidate of one or more build trees.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "leftover/buf.h"
#include "leftover/error.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"
#include "leftover/rules.h"
#include "leftover/scan.h"

static const char usage_text[] =
	"usage: leftover scan [options] DIR...\n"
	"\n"
	"Find the artifacts under each DIR that would not load, without running them.\n"
	"\n"
	"  --format FORMAT        text (default), json, junit or sarif\n"
	"  --python PATH          interpreter that imports the Python extension modules\n"
	"                         (default: from CMakeCache.txt, else python3 on PATH)\n"
	"  --host PATH            program that loads the other shared objects\n"
	"                         (default: a plain C program)\n"
	"  --library-path DIRS    colon-separated directories standing for LD_LIBRARY_PATH\n"
	"                         (the tool's own environment is never used)\n"
	"  --rules FILE           read this rule file last (repeatable; see\n"
	"                         'leftover rules' for the layers before it)\n"
	"  -j, --jobs N           threads to walk and judge with (default: one per core)\n"
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
		{ "python", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "library-path", required_argument, NULL, 'L' },
		{ "rules", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "reconfigure", no_argument, NULL, 'R' },
		{ "all", no_argument, NULL, 'A' },
		{ "source", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	lo_scan_opts opts;
	lo_scan_result *res = NULL;
	lo_rules *rules = NULL;
	char **llp = NULL;
	const char **rule_files = NULL;
	size_t llp_count = 0, llp_cap = 0, rule_count = 0, rule_cap = 0, i;
	enum { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_SARIF } format = FMT_TEXT;
	bool verbose = false;
	int c, rc = LO_EXIT_ERROR;

	memset(&opts, 0, sizeof(opts));
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				format = FMT_JSON;
			else if (!strcmp(optarg, "junit"))
				format = FMT_JUNIT;
			else if (!strcmp(optarg, "sarif"))
				format = FMT_SARIF;
			else if (strcmp(optarg, "text")) {
				lo_cli_error("scan: unknown format '%s' (text, json, junit or sarif)",
					     optarg);
				goto out;
			}
			break;
		case 'p': opts.python = optarg; break;
		case 'H': opts.host = optarg; break;
		case 'L': lo_cli_split_path_list(&llp, &llp_count, &llp_cap, optarg); break;
		case 'r':
			lo_array_grow(&rule_files, &rule_cap, rule_count + 1, sizeof(char *));
			rule_files[rule_count++] = optarg;
			break;
		case 'j': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || n == 0 || n > 1024) {
				lo_cli_error("scan: --jobs takes a number from 1 to 1024, not '%s'", optarg);
				goto out;
			}
			opts.jobs = (unsigned)n;
			break;
		}
		case 'R': opts.reconfigure = true; break;
		case 'A': opts.all = true; break;
		case 'S': opts.source = optarg; break;
		case 'v': verbose = true; break;
		case 'h':
			fputs(usage_text, stdout);
			rc = LO_EXIT_CLEAN;
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
	if (lo_rules_load_tree(&rules, argv[optind], rule_files, rule_count) < 0) {
		lo_cli_error("%s", lo_error_last());
		goto out;
	}
	opts.rules = rules;
	opts.library_path = (const char *const *)llp;
	opts.library_path_count = llp_count;
	if (lo_scan_run(&res, (const char *const *)argv + optind, (size_t)(argc - optind), &opts) < 0) {
		lo_cli_error("%s", lo_error_last());
		goto out;
	}
	if (format == FMT_JSON)
		lo_report_write_json(stdout, res);
	else if (format == FMT_JUNIT)
		lo_report_write_junit(stdout, res, NULL);
	else if (format == FMT_SARIF)
		lo_report_write_sarif(stdout, res, NULL);
	else
		lo_report_write_text(stdout, res,
				     (lo_cli_use_color(stdout) ? LO_REPORT_COLOR : 0) |
					     (verbose ? LO_REPORT_VERBOSE : 0));
	/* [fail] on and `action = keep` rules decide which findings count. */
	rc = LO_EXIT_CLEAN;
	for (i = 0; i < res->file_count; i++)
		if (lo_rules_fails(rules, res->files[i].path, lo_file_rule_states(&res->files[i])))
			rc = LO_EXIT_FINDINGS;
out:
	lo_scan_result_free(res);
	lo_rules_free(rules);
	for (i = 0; i < llp_count; i++)
		free(llp[i]);
	free(llp);
	free(rule_files);
	return rc;
}
