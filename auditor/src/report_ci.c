/*
 * report_ci.c - what the CI formats share (report_ci.h): the finding's one
 * line summary, the lookup of what clean did, and GitHub's workflow
 * commands, which are one line each and need no file of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/buf.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"

const lo_clean_action *lo_report_action_of(const lo_clean_result *clean, const lo_file *f)
{
	size_t i;

	for (i = 0; clean && i < clean->action_count; i++)
		if (clean->actions[i].file == f)
			return &clean->actions[i];
	return NULL;
}

char *lo_report_summary_of(const lo_file *f)
{
	lo_buf b = LO_BUF_INIT;
	const lo_reason *r = f->reason_count ? &f->reasons[0] : NULL;

	lo_buf_puts(&b, f->verdict == LO_VERDICT_STALE ? "no longer built by the current build"
			: f->verdict == LO_VERDICT_BROKEN ? "would not load"
							  : lo_verdict_str(f->verdict));
	if (r) {
		const char *what = r->symbol ? r->symbol : r->library ? r->library
				 : r->version ? r->version : r->detail;
		char *q = what ? lo_report_quote_path(what) : NULL;

		lo_buf_printf(&b, ": %s%s%s", r->kind, q ? " " : "", q ? q : "");
		free(q);
		if (f->reason_count > 1)
			lo_buf_printf(&b, " (and %zu more)", f->reason_count - 1);
	}
	return lo_buf_detach(&b);
}

/* GitHub ends a workflow command at a newline and splits properties at ',' and ':'. */
static void put_escaped(FILE *out, const char *s, int property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", out);
		else if (*s == '\r')
			fputs("%0D", out);
		else if (*s == '\n')
			fputs("%0A", out);
		else if (property && *s == ':')
			fputs("%3A", out);
		else if (property && *s == ',')
			fputs("%2C", out);
		else
			fputc(*s, out);
	}
}

int lo_report_write_github(FILE *out, const lo_scan_result *res, const lo_clean_result *clean,
			   const char *prefix)
{
	size_t i;

	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a = lo_report_action_of(clean, f);
		int gone = a && (a->status == LO_CLEAN_MOVED || a->status == LO_CLEAN_REMOVED);
		char *path, *msg;
		lo_buf file = LO_BUF_INIT;

		if ((f->verdict != LO_VERDICT_STALE && f->verdict != LO_VERDICT_BROKEN &&
		     f->verdict != LO_VERDICT_UNREADABLE) || (a && a->status == LO_CLEAN_KEPT_RULE))
			continue;
		path = lo_report_quote_path(f->path);
		msg = lo_report_summary_of(f);
		if (prefix && *prefix)
			lo_buf_printf(&file, "%s/", prefix);
		lo_buf_puts(&file, path);
		/* what clean took away is history, not an error of this job */
		fputs(gone ? "::warning file=" : "::error file=", out);
		put_escaped(out, file.ptr, 1);
		fputs(",title=leftover ", out);
		fputs(lo_verdict_str(f->verdict), out);
		fputs("::", out);
		put_escaped(out, path, 0);
		fputs(": ", out);
		put_escaped(out, msg, 0);
		if (gone)
			fputs(a->status == LO_CLEAN_MOVED ? " (moved to the quarantine)" : " (deleted)", out);
		fputc('\n', out);
		free(path);
		free(msg);
		lo_buf_dispose(&file);
	}
	return ferror(out) ? -1 : 0;
}
