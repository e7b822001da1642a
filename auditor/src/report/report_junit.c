/*
 * report_junit.c - JUnit XML for CI test tabs (report_ci.h).
 *
 * The schema JUnit consumers agree on is small: <testsuites> with one
 * <testsuite> per scanned root, one <testcase> per judged file: passing
 * when it would load and is built (or clean took it away), a <failure>
 * while a stale, broken or unreadable file is still in the tree, <skipped>
 * for a candidate with nothing to load. A clean tree is thus N passing
 * tests, not tests="0", which reporters read as "no results". Names go through lo_report_quote_path
 * first (valid UTF-8, no control bytes, which XML 1.0 cannot carry at all)
 * and then through XML escaping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "leftover/buf.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"

static void put_xml(FILE *out, const char *raw)
{
	char *s = lo_report_quote_path(raw), *p;

	for (p = s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(*p, out);
		}
	}
	free(s);
}

/* A file that fails (lo_verdict_is_finding). */
static int is_finding(const lo_file *f)
{
	return lo_verdict_is_finding(f->verdict);
}

/* Moved away, or kept by a rule (which makes it no finding): a passing testcase. */
static int is_gone(const lo_clean_result *clean, const lo_file *f)
{
	const lo_clean_action *a = lo_report_action_of(clean, f);

	return a && (a->status == LO_CLEAN_MOVED || a->status == LO_CLEAN_REMOVED ||
		     a->status == LO_CLEAN_KEPT_RULE);
}

/*
 * Where in f->path its path below scanned root `root` (absolute, under
 * res->root) starts, or -1 when `f` is not below it.
 */
static ssize_t below(const lo_scan_result *res, const lo_file *f, const char *root)
{
	const char *prefix = root + strlen(res->root); /* "", or "/sub" ("sub" when root is "/") */
	size_t n;

	prefix += *prefix == '/';
	n = strlen(prefix);
	if (!n)
		return 0;
	return !strncmp(f->path, prefix, n) && f->path[n] == '/' ? (ssize_t)n + 1 : -1;
}

/* below() for the testsuite of root k: -1 also when an earlier root holds `f`. */
static ssize_t case_name(const lo_scan_result *res, const lo_file *f, size_t k)
{
	size_t j;

	for (j = 0; j < k; j++)
		if (below(res, f, res->roots[j]) >= 0)
			return -1;
	return below(res, f, res->roots[k]);
}

static void write_failure(FILE *out, const lo_file *f, const lo_clean_action *a, const char *summary)
{
	size_t j;

	fprintf(out, "      <failure type=\"%s\" message=\"", lo_verdict_str(f->verdict));
	put_xml(out, summary);
	fputs("\">", out);
	for (j = 0; j < f->reason_count; j++) {
		const lo_reason *r = &f->reasons[j];

		put_xml(out, lo_reason_kind_str(r->kind));
		if (r->symbol) { fputs(" symbol=", out); put_xml(out, r->symbol); }
		if (r->version) { fputs(" version=", out); put_xml(out, r->version); }
		if (r->library) { fputs(" library=", out); put_xml(out, r->library); }
		if (r->object) { fputs(" object=", out); put_xml(out, r->object); }
		if (r->detail) { fputs(" detail=", out); put_xml(out, r->detail); }
		fputc('\n', out);
	}
	if (a && a->error) {
		put_xml(out, a->error);
		fputc('\n', out);
	}
	fputs("</failure>\n", out);
}

/* One testcase: passing, failing while a finding is still in the tree, or skipped. */
static void write_case(FILE *out, const lo_file *f, const char *name,
		       const lo_clean_result *clean)
{
	const lo_clean_action *a = lo_report_action_of(clean, f);
	char *summary = lo_report_summary_of(f);

	fprintf(out, "    <testcase classname=\"leftover.%s\" name=\"", lo_verdict_str(f->verdict));
	put_xml(out, name);
	fputs("\" file=\"", out);
	put_xml(out, f->path);
	fputs("\" time=\"0\">\n", out);
	if (f->verdict == LO_VERDICT_SKIPPED) {
		fputs("      <skipped message=\"", out);
		put_xml(out, summary);
		fputs("\"/>\n", out);
	} else if (is_finding(f) && !is_gone(clean, f)) {
		write_failure(out, f, a, summary);
	} else if (is_finding(f)) {
		fputs("      <system-out>", out);
		put_xml(out, summary);
		if (a->status == LO_CLEAN_MOVED && clean->quarantine) {
			fputs("; moved to ", out);
			put_xml(out, clean->quarantine);
		} else if (a->status == LO_CLEAN_KEPT_RULE) {
			fputs("; kept: a rule says keep", out);
		} else {
			fputs("; deleted", out);
		}
		fputs("</system-out>\n", out);
	}
	free(summary);
	fputs("    </testcase>\n", out);
}

int lo_report_write_junit(FILE *out, const lo_scan_result *res, const lo_clean_result *clean)
{
	size_t i, k, tests = 0, failures = 0, *n = lo_xcalloc(res->root_count * 3 + 1, sizeof(size_t));
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	/* per root: tests, failures, skipped */
	for (k = 0; k < res->root_count; k++)
		for (i = 0; i < res->file_count; i++) {
			const lo_file *f = &res->files[i];

			if (case_name(res, f, k) < 0)
				continue;
			n[3 * k]++;
			n[3 * k + 1] += is_finding(f) && !is_gone(clean, f);
			n[3 * k + 2] += f->verdict == LO_VERDICT_SKIPPED;
		}
	for (k = 0; k < res->root_count; k++) {
		tests += n[3 * k];
		failures += n[3 * k + 1];
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<testsuites name=\"leftover\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		tests, failures);
	for (k = 0; k < res->root_count; k++) {
		fputs("  <testsuite name=\"leftover ", out);
		put_xml(out, res->roots[k]);
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\" "
			     "timestamp=\"%s\">\n", n[3 * k], n[3 * k + 1], n[3 * k + 2], stamp);
		for (i = 0; i < res->file_count; i++) {
			ssize_t name = case_name(res, &res->files[i], k);

			if (name >= 0)
				write_case(out, &res->files[i], res->files[i].path + name, clean);
		}
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
	free(n);
	return ferror(out) ? -1 : 0;
}
