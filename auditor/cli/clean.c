/*
 * clean.c - `leftover clean`: scan one build tree, then quarantine (or
 * delete) what is stale, and say how to undo it.
 *
 * The exit status follows --fail-on, so that CI can choose what fails the
 * job, always judged on what is left in the tree afterwards (a dry run
 * leaves everything): `never`; `broken` (the default: something that
 * would not load or could not be read is still there); `stale` (also a
 * stale file is still there: tracked in git, or no clean was asked for).
 * A file that could not be moved fails the run whatever --fail-on says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "clean_hooks.h"
#include "cli.h"
#include "leftover/clean.h"
#include "leftover/error.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"
#include "leftover/rules.h"
#include "leftover/scan.h"
#include "opts.h"

static const lo_cli_opt options[] = {
	{ "broken", 0, 'b', NULL, NULL, "also act on files that are still built but would not load" },
	{ "suspected", 0, 'u', NULL, NULL,
	  "also act on files only suspected stale (\"possibly stale\":\n"
	  "no build record, inferred from the tree and git)" },
	{ "delete", 0, 'D', NULL, NULL, "unlink instead of quarantining (no undo)" },
	{ "dry-run", 'n', 'n', NULL, NULL, "say what would be done, change nothing" },
	{ "wait", 0, 'w', NULL, NULL, "wait for another clean of DIR instead of failing" },
	{ "fail-on", 0, 'F', "WHAT", "never broken stale",
	  "what left in the tree makes the exit status 1: never,\n"
	  "broken (a file that would not load), or stale (that, or\n"
	  "a stale file); default: the rules' [fail] on (stale)" },
	{ "format", 0, 'f', "FMT", LO_CLI_FORMAT_VALUES,
	  "text (default) | json | junit | sarif, on standard output" },
	{ "junit", 0, 'J', "FILE", NULL, "also write a JUnit XML report to FILE" },
	{ "sarif", 0, 'S', "FILE", NULL, "also write a SARIF 2.1.0 log to FILE" },
	LO_CLI_OPTS_LOAD,
	LO_CLI_OPTS_TREE,
	{ "purge-quarantine", 0, 'P', NULL, NULL,
	  "remove quarantine sets instead (all, or --older-than DAYS)" },
	{ "older-than", 0, 'O', "DAYS", NULL, "with --purge-quarantine: only the sets older than that" },
	{ "verbose", 'v', 'v', NULL, NULL, "list every file acted on" },
	{ "quiet", 'q', 'q', NULL, NULL, "print nothing when there is nothing to clean" },
	LO_CLI_OPT_HELP_ENTRY,
	{ NULL, 0, 0, NULL, NULL, NULL },
};

const lo_cli_cmd lo_cli_clean_cmd = {
	"clean",
	"usage: leftover clean [options] DIR\n"
	"       leftover clean --purge-quarantine [--older-than DAYS] DIR\n"
	"\n"
	"Move the artifacts under DIR that the current build no longer produces into\n"
	"DIR/.leftover.d/quarantine/<UTC time>/, after writing a manifest there;\n"
	"'leftover restore DIR' puts them back. The symlinks there that lead to a file\n"
	"moved (libX.so.1 -> libX.so.1.0) go with it. Files tracked in git are never\n"
	"touched.\n"
	"\n",
	options,
	"\n"
	"Ctrl-C (or SIGTERM) stops between two files, or gives up --wait; what moved\n"
	"can be restored.\n"
	"With GITHUB_ACTIONS=true, findings are also printed as ::error/::warning lines.\n"
	"Exit status: 0 nothing to fail on; 1 findings left (see --fail-on) or a file\n"
	"that could not be moved; 2 usage or environment error (the lock is held, ...).\n",
};

/* --fail-on, in the order of its values; FAIL_RULES when not given */
enum fail_on { FAIL_NEVER, FAIL_BROKEN, FAIL_STALE, FAIL_RULES };

static void human_size(char *out, size_t n, uint64_t bytes)
{
	if (bytes >= 1024 * 1024)
		snprintf(out, n, "%.1f MiB", bytes / 1048576.0);
	else if (bytes >= 1024)
		snprintf(out, n, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(out, n, "%llu bytes", (unsigned long long)bytes);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* What became of a file acted on, and of its links, as a verb. */
static const char *done_word(const lo_clean_action *a, const lo_clean_opts *opts)
{
	return opts->dry_run ? (a->remove ? "would delete" : "would move")
	       : a->status == LO_CLEAN_REMOVED ? "deleted"
	       : a->status == LO_CLEAN_MOVED ? "moved" : "left in place";
}

/* One line per file acted on (all of them with --verbose or --dry-run), then the summary. */
static void write_text(FILE *out, const lo_scan_result *res, const lo_clean_result *cr,
		       const lo_clean_opts *opts, const char *dir, bool verbose, bool quiet)
{
	size_t i, j, left = 0, moved = 0, removed = 0, planned = 0, once;
	uint64_t moved_bytes = 0, removed_bytes = 0, planned_bytes = 0;
	const lo_file *unjudged = NULL;
	char size[32];
	size_t suspected = 0; /* possibly stale, left: said, never silently */

	for (i = 0; i < cr->action_count; i++) {
		const lo_clean_action *a = &cr->actions[i];
		char *path = lo_report_quote_path(a->file->path), *why;

		switch (a->status) {
		case LO_CLEAN_FAILED:
			lo_cli_error("%s", a->error);
			break;
		case LO_CLEAN_KEPT_TRACKED:
			fprintf(out, "kept %s: tracked in git\n", path);
			break;
		case LO_CLEAN_KEPT_RULE:
			if (verbose || opts->dry_run)
				fprintf(out, "kept %s: a rule says keep\n", path);
			break;
		case LO_CLEAN_PLANNED:
		case LO_CLEAN_MOVED:
		case LO_CLEAN_REMOVED:
			/* a file's other names are that file: counted once */
			once = a->another_name ? 0 : 1;
			moved += a->status == LO_CLEAN_MOVED ? once : 0;
			moved_bytes += a->status == LO_CLEAN_MOVED ? once * a->size : 0;
			removed += a->status == LO_CLEAN_REMOVED ? once : 0;
			removed_bytes += a->status == LO_CLEAN_REMOVED ? once * a->size : 0;
			planned += a->status == LO_CLEAN_PLANNED ? once : 0;
			planned_bytes += a->status == LO_CLEAN_PLANNED ? once * a->size : 0;
			if (a->error) /* a link that could not go with the file */
				lo_cli_error("%s", a->error);
			if (!verbose && !opts->dry_run)
				break;
			why = lo_report_summary_of(a->file);
			fprintf(out, "%s %s: %s\n", done_word(a, opts), path, why);
			free(why);
			for (j = 0; j < a->link_count; j++) {
				char *link = lo_report_quote_path(a->links[j]);

				fprintf(out, "%s %s: a link to %s\n", done_word(a, opts), link, path);
				free(link);
			}
			break;
		}
		free(path);
	}
	if (opts->dry_run && (planned || !quiet)) {
		human_size(size, sizeof(size), planned_bytes);
		fprintf(out, "dry run: would clean %zu file%s (%s); nothing changed\n", planned,
			plural(planned), size);
	}
	if (moved) {
		human_size(size, sizeof(size), moved_bytes);
		fprintf(out, "moved %zu file%s (%s) to %s\nundo with: leftover restore %s %s\n", moved,
			plural(moved), size, cr->quarantine, dir, cr->stamp);
	}
	if (removed) {
		human_size(size, sizeof(size), removed_bytes);
		fprintf(out, "deleted %zu file%s (%s)\n", removed, plural(removed), size);
	}
	if (!opts->dry_run && !cr->done && !cr->failed && !cr->interrupted && !quiet)
		fputs("nothing to clean\n", out);
	if (cr->failed)
		fprintf(out, "%zu file%s could not be cleaned (see above)\n", cr->failed,
			plural(cr->failed));
	if (cr->interrupted)
		fprintf(out, "interrupted: %zu file%s left in place\n", planned, plural(planned));
	for (i = 0; i < res->file_count; i++) {
		if (lo_report_action_of(cr, &res->files[i]))
			continue;
		left += res->files[i].verdict == LO_VERDICT_BROKEN;
		suspected += res->files[i].suspected;
	}
	if (left)
		fprintf(out, "%zu broken file%s left in place: still built, removing would not fix "
			     "them (--broken does); see 'leftover scan %s'\n",
			left, plural(left), dir);
	/* inference is not acted on unasked, but not left unsaid */
	if (suspected)
		fprintf(out, "%zu possibly stale file%s left in place: no build record says so "
			     "(--suspected moves them); see 'leftover scan %s'\n",
			suspected, plural(suspected), dir);
	/* never acted on, and a failure unless [fail] on = never: say why, once */
	for (i = left = 0; i < res->file_count; i++)
		if (res->files[i].verdict == LO_VERDICT_UNJUDGED && !left++)
			unjudged = &res->files[i];
	if (left)
		fprintf(out, "%zu unjudged file%s left in place, their host not usable: %s\n", left,
			plural(left), unjudged->reason_count && unjudged->reasons[0].detail
					      ? unjudged->reasons[0].detail : "see 'leftover scan'");
}

/* A JSON string, or null; a name that is not UTF-8 is shown as text output shows it. */
static void put_json(FILE *out, const char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	char *q = NULL;

	if (!j) {
		q = lo_report_quote_path(s);
		j = json_string(q);
	}
	json_dumpf(j, out, JSON_ENCODE_ANY);
	json_decref(j);
	free(q);
}

static void write_json(FILE *out, const lo_clean_result *cr, const lo_clean_opts *opts)
{
	size_t i, j;

	fputs("{\"leftover\": 1, \"root\": ", out);
	put_json(out, cr->root);
	fputs(", \"stamp\": ", out);
	put_json(out, cr->stamp);
	fputs(", \"quarantine\": ", out);
	put_json(out, cr->quarantine);
	fprintf(out, ", \"dry_run\": %s, \"actions\": [", opts->dry_run ? "true" : "false");
	for (i = 0; i < cr->action_count; i++) {
		const lo_clean_action *a = &cr->actions[i];

		fputs(i ? ", {\"path\": " : "{\"path\": ", out);
		put_json(out, a->file->path);
		fprintf(out, ", \"verdict\": \"%s\", \"status\": \"%s\", \"size\": %llu, \"error\": ",
			lo_verdict_str(a->file->verdict), lo_clean_status_str(a->status),
			(unsigned long long)a->size);
		put_json(out, a->error);
		fputs(", \"links\": [", out);
		for (j = 0; j < a->link_count; j++) {
			fputs(j ? ", " : "", out);
			put_json(out, a->links[j]);
		}
		fputs("]}", out);
	}
	fprintf(out, "], \"summary\": {\"done\": %zu, \"failed\": %zu, \"tracked\": %zu, "
		     "\"bytes\": %llu}}\n",
		cr->done, cr->failed, cr->tracked, (unsigned long long)cr->bytes);
}

static int write_file(const char *path, const char *what, const lo_scan_result *res,
		      const lo_clean_result *cr,
		      int (*fn)(FILE *, const lo_scan_result *, const lo_clean_result *))
{
	FILE *f = fopen(path, "w");

	if (!f || fn(f, res, cr) < 0 || fclose(f) != 0) {
		lo_cli_error("cannot write %s report '%s'", what, path);
		return -1;
	}
	return 0;
}

/*
 * Under GitHub Actions (GITHUB_ACTIONS=true): the annotations on `out`, and
 * the step summary and outputs appended to the files the runner names.
 */
static int write_github(FILE *out, const lo_scan_result *res, const lo_clean_result *cr,
			const char *dir)
{
	const char *gha = getenv("GITHUB_ACTIONS"), *path;
	FILE *f;
	int i, err;

	if (!gha || strcmp(gha, "true"))
		return 0;
	lo_report_write_github(out, res, cr);
	for (i = 0; i < 2; i++) {
		path = getenv(i ? "GITHUB_OUTPUT" : "GITHUB_STEP_SUMMARY");
		if (!path || !*path)
			continue;
		if (!(f = fopen(path, "a"))) {
			lo_cli_error("cannot write the GitHub step %s '%s': %m", i ? "outputs" : "summary", path);
			return -1;
		}
		err = i ? lo_report_write_github_outputs(f, res, cr)
			: lo_report_write_github_summary(f, res, cr, dir);
		if (fclose(f) != 0 || err < 0) {
			lo_cli_error("cannot write the GitHub step %s '%s'", i ? "outputs" : "summary", path);
			return -1;
		}
	}
	return 0;
}

/*
 * 1 when what is left in the tree fails the run: by --fail-on when given,
 * else by the rules' [fail] on; a file a rule keeps never counts.
 */
static int exit_status(const lo_scan_result *res, const lo_clean_result *cr, enum fail_on fo,
		       const lo_rules *rules)
{
	size_t i;

	if (cr->failed || cr->interrupted)
		return LO_EXIT_FINDINGS;
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a = lo_report_action_of(cr, f);
		bool broken = f->verdict == LO_VERDICT_BROKEN || f->verdict == LO_VERDICT_UNREADABLE ||
			      f->verdict == LO_VERDICT_UNJUDGED;
		bool stale = f->verdict == LO_VERDICT_STALE;

		if (a && (a->status == LO_CLEAN_MOVED || a->status == LO_CLEAN_REMOVED ||
			  a->status == LO_CLEAN_KEPT_RULE))
			continue;
		if (fo == FAIL_RULES) {
			unsigned on = lo_verdict_rule_states(f->verdict, f->orphan);
			char *path = on ? lo_scan_rules_path(res, f->path) : NULL;
			bool fails = on && lo_rules_fails(rules, path, on);

			free(path);
			if (fails)
				return LO_EXIT_FINDINGS;
		} else if ((fo != FAIL_NEVER && broken) || (fo == FAIL_STALE && stale)) {
			return LO_EXIT_FINDINGS;
		}
	}
	return LO_EXIT_CLEAN;
}

static int purge(const char *dir, double days, bool wait)
{
	size_t removed;

	if (lo_quarantine_purge(dir, days, wait, &removed) < 0) {
		lo_cli_error("%s", lo_error_last());
		return LO_EXIT_ERROR;
	}
	printf("removed %zu quarantine set%s of %s\n", removed, removed == 1 ? "" : "s", dir);
	return LO_EXIT_CLEAN;
}

/*
 * Scan `dir`, saying so on the terminal while it runs when `progress`;
 * -1 after printing why not.
 */
static int scan_showing(lo_scan_result **res, const char *dir, const lo_scan_opts *opts,
			bool progress)
{
	int err;

	if (progress)
		fprintf(stderr, "leftover: scanning %s ...", dir);
	err = lo_scan_run(res, &dir, 1, opts);
	if (progress)
		fputs("\r\033[K", stderr);
	if (err < 0) {
		lo_cli_error("%s", lo_error_last());
		return -1;
	}
	return 0;
}

/*
 * scan_showing, for clean: a kept result (the verdict cache), whole or in
 * part, that leaves nothing to do is the audit of an unchanged tree, done;
 * one that names a file to act on is never acted on: every file is judged
 * afresh.
 */
static int scan_to_clean(lo_scan_result **res, const char *dir, lo_scan_opts *sopts,
			 lo_clean_opts *copts, bool progress)
{
	for (;;) {
		lo_clean_mark_scan(&copts->scan_began);
		if (scan_showing(res, dir, sopts, progress) < 0)
			return -1;
		/* kept in part: some verdicts are kept ones too */
		if (!((*res)->cache.used || (*res)->cache.kept) || !lo_clean_has_work(*res, copts))
			return 0;
		lo_scan_result_free(*res);
		*res = NULL;
		sopts->no_cache = true;
	}
}

int lo_cmd_clean(int argc, char **argv)
{
	lo_cli_opts o;
	lo_clean_opts copts;
	lo_scan_result *res = NULL;
	lo_clean_result *cr = NULL;
	lo_tree_lock *lock = NULL;
	char *end;
	const char *junit = NULL, *sarif = NULL;
	size_t i;
	bool verbose = false, quiet = false, do_purge = false;
	lo_cli_format fmt = LO_CLI_FORMAT_TEXT;
	enum fail_on fail_on = FAIL_RULES;
	double days = 0;
	int c, rc = LO_EXIT_ERROR;

	memset(&copts, 0, sizeof(copts));
	lo_cli_opts_init(&o, &lo_cli_clean_cmd);
	while ((c = lo_cli_opts_next(&o, argc, argv)) != LO_CLI_OPTS_END) {
		switch (c) {
		case 'b': copts.broken = true; break;
		case 'u': copts.suspected = true; break;
		case 'D': copts.remove = true; break;
		case 'n': copts.dry_run = true; break;
		case 'w': copts.wait = true; break;
		case 'F': fail_on = (enum fail_on)o.value; break;
		case 'f': fmt = (lo_cli_format)o.value; break;
		case 'J': junit = optarg; break;
		case 'S': sarif = optarg; break;
		case 'P': do_purge = true; break;
		case 'O':
			days = strtod(optarg, &end);
			if (*end || end == optarg || days < 0) {
				lo_cli_error("clean: --older-than takes a number of days, not '%s'", optarg);
				goto out;
			}
			break;
		case 'v': verbose = true; break;
		case 'q': quiet = true; break;
		default: rc = o.status; goto out;
		}
	}
	if (lo_cli_opts_operands(&o, argc, argv, 1, 1, 1) < 0)
		goto out;
	if (do_purge) {
		rc = purge(argv[optind], days, copts.wait);
		goto out;
	}
	/* every layer, the build tree's own .leftover/rules included, as `leftover rules DIR` shows */
	if (lo_cli_opts_load_rules(&o, argv[optind]) < 0)
		goto out;
	copts.rules = o.rules;
	/*
	 * The lock before the scan: a second clean that waits (--wait) then
	 * scans the tree as the first one left it. Ctrl-C gives up the wait.
	 */
	lo_cli_clean_hooks(&copts);
	if (!copts.dry_run && lo_tree_lock_new(&lock, argv[optind], copts.wait, copts.stop) < 0) {
		lo_cli_error("%s", lo_error_last());
		goto out;
	}
	copts.lock = lock;
	lo_cli_catch_stop(false);
	if (scan_to_clean(&res, argv[optind], &o.scan, &copts,
			  isatty(STDERR_FILENO) && fmt == LO_CLI_FORMAT_TEXT && !quiet) < 0)
		goto out;
	lo_cli_catch_stop(true);
	if (lo_clean_run(&cr, res, &copts) < 0) {
		lo_cli_error("%s", lo_error_last());
		goto out;
	}
	switch (fmt) {
	case LO_CLI_FORMAT_TEXT: write_text(stdout, res, cr, &copts, argv[optind], verbose, quiet);
		break;
	case LO_CLI_FORMAT_JSON: write_json(stdout, cr, &copts); break;
	case LO_CLI_FORMAT_JUNIT: lo_report_write_junit(stdout, res, cr); break;
	case LO_CLI_FORMAT_SARIF: lo_report_write_sarif(stdout, res, cr); break;
	}
	if (fmt != LO_CLI_FORMAT_TEXT)
		for (i = 0; i < cr->action_count; i++)
			if (cr->actions[i].error)
				lo_cli_error("%s", cr->actions[i].error);
	rc = exit_status(res, cr, fail_on, o.rules);
	if (write_github(fmt == LO_CLI_FORMAT_TEXT ? stdout : stderr, res, cr, argv[optind]) < 0 ||
	    (junit && write_file(junit, "JUnit", res, cr, lo_report_write_junit) < 0) ||
	    (sarif && write_file(sarif, "SARIF", res, cr, lo_report_write_sarif) < 0))
		rc = LO_EXIT_ERROR;
out:
	lo_clean_result_free(cr);
	lo_cli_leave_to_exit(res);
	lo_tree_lock_free(lock);
	lo_cli_opts_dispose(&o);
	return rc;
}
