/*
 * report_junit.c - JUnit XML for CI test tabs (report_ci.h).
 *
 * The schema JUnit consumers agree on is small: <testsuites> with one
 * <testsuite>, one <testcase> per stale or broken file, a <failure> when
 * the file is still in the tree. Names go through lo_report_quote_path
 * first (valid UTF-8, no control bytes, which XML 1.0 cannot carry at all)
 * and then through XML escaping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int is_case(const lo_file *f)
{
	return f->verdict == LO_VERDICT_STALE || f->verdict == LO_VERDICT_BROKEN;
}

/* Moved away, or kept by a rule (which makes it no finding): a passing testcase. */
static int is_gone(const lo_clean_result *clean, const lo_file *f)
{
	const lo_clean_action *a = lo_report_action_of(clean, f);

	return a && (a->status == LO_CLEAN_MOVED || a->status == LO_CLEAN_REMOVED ||
		     a->status == LO_CLEAN_KEPT_RULE);
}

int lo_report_write_junit(FILE *out, const lo_scan_result *res, const lo_clean_result *clean)
{
	size_t i, j, tests = 0, failures = 0;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	for (i = 0; i < res->file_count; i++) {
		if (!is_case(&res->files[i]))
			continue;
		tests++;
		failures += !is_gone(clean, &res->files[i]);
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		     "<testsuites name=\"leftover\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		tests, failures);
	fputs("  <testsuite name=\"leftover ", out);
	put_xml(out, res->root);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\" "
		     "timestamp=\"%s\">\n", tests, failures, stamp);
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a = lo_report_action_of(clean, f);
		char *summary;

		if (!is_case(f))
			continue;
		fprintf(out, "    <testcase classname=\"leftover.%s\" name=\"", lo_verdict_str(f->verdict));
		put_xml(out, f->path);
		fputs("\" file=\"", out);
		put_xml(out, f->path);
		fputs("\" time=\"0\">\n", out);
		summary = lo_report_summary_of(f);
		if (is_gone(clean, f)) {
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
		} else {
			fprintf(out, "      <failure type=\"%s\" message=\"", lo_verdict_str(f->verdict));
			put_xml(out, summary);
			fputs("\">", out);
			for (j = 0; j < f->reason_count; j++) {
				const lo_reason *r = &f->reasons[j];

				put_xml(out, r->kind);
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
		free(summary);
		fputs("    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return ferror(out) ? -1 : 0;
}
