/*
 * report_ci.c - what the CI formats share (report_ci.h): the finding's one
 * line summary, the lookup of what clean did, and what GitHub Actions
 * reads: workflow commands (one line each), the step summary (Markdown)
 * and the step's outputs (name=value lines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leftover/blame.h"
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

	lo_buf_puts(&b, lo_verdict_sentence(f->verdict));
	if (r) {
		const char *what = r->symbol ? r->symbol : r->library ? r->library
				 : r->version ? r->version : r->detail;
		char *q = what ? lo_report_quote_path(what) : NULL;

		lo_buf_printf(&b, ": %s%s%s", lo_reason_kind_str(r->kind), q ? " " : "", q ? q : "");
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

char *lo_report_abs_path(const lo_scan_result *res, const lo_file *f)
{
	lo_buf b = LO_BUF_INIT;

	lo_buf_printf(&b, "%s%s%s", res->root, res->root[strlen(res->root) - 1] == '/' ? "" : "/",
		      f->path);
	return lo_buf_detach(&b);
}

char *lo_report_artifact_name(const lo_scan_result *res, const lo_file *f, const lo_blame *b)
{
	char *abs = lo_report_abs_path(res, f), *q;
	size_t n = b ? strlen(b->repo) : 0;

	q = lo_report_quote_path(n && !strncmp(abs, b->repo, n) ? abs + n : abs);
	free(abs);
	return q;
}

/* Gone from the tree (moved or deleted) by this clean? */
static int is_gone(const lo_clean_action *a)
{
	return a && (a->status == LO_CLEAN_MOVED || a->status == LO_CLEAN_REMOVED);
}

/* A finding (lo_verdict_is_finding) that no rule keeps: what the CI formats report. */
static int is_finding(const lo_file *f, const lo_clean_action *a)
{
	return lo_verdict_is_finding(f->verdict) && !(a && a->status == LO_CLEAN_KEPT_RULE);
}

int lo_report_write_github(FILE *out, const lo_scan_result *res, const lo_clean_result *clean)
{
	size_t i;

	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a = lo_report_action_of(clean, f);
		char *abs, *path, *msg;
		lo_blame *b;

		if (!is_finding(f, a))
			continue;
		abs = lo_report_abs_path(res, f);
		b = lo_blame_new(abs);
		path = lo_report_artifact_name(res, f, b);
		msg = lo_report_summary_of(f);
		/* what clean took away is history, not an error of this job */
		fputs(is_gone(a) ? "::warning " : "::error ", out);
		if (b) {
			fputs("file=", out);
			put_escaped(out, b->file, 1);
			fprintf(out, ",line=%u,", b->line);
		}
		fprintf(out, "title=leftover %s::", lo_verdict_str(f->verdict));
		put_escaped(out, path, 0);
		fputs(": ", out);
		put_escaped(out, msg, 0);
		if (is_gone(a))
			fputs(a->status == LO_CLEAN_MOVED ? " (moved to the quarantine)" : " (deleted)", out);
		fputc('\n', out);
		lo_blame_free(b);
		free(abs);
		free(path);
		free(msg);
	}
	return ferror(out) ? -1 : 0;
}

/*
 * Markdown text in a table cell: the marks that start inline constructs
 * or end the cell escaped, a newline a space.
 */
static void put_md(FILE *out, const char *raw)
{
	char *s = lo_report_quote_path(raw), *p;

	for (p = s; *p; p++) {
		if (*p == '\n')
			fputc(' ', out);
		else if (*p == '&')
			fputs("&amp;", out);
		else if (strchr("\\`*_[]<>|~", *p))
			fprintf(out, "\\%c", *p);
		else
			fputc(*p, out);
	}
	free(s);
}

/* A word for the shell: single-quoted, a ' as '\'' */
static void put_shell(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	fputc('\'', out);
}

/* What the summary and the outputs count. */
struct counts {
	size_t findings, moved, deleted, failed, left;
};

static struct counts count(const lo_scan_result *res, const lo_clean_result *clean)
{
	struct counts c = { 0, 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < res->file_count; i++) {
		const lo_clean_action *a = lo_report_action_of(clean, &res->files[i]);

		if (!is_finding(&res->files[i], a))
			continue;
		c.findings++;
		c.moved += a && a->status == LO_CLEAN_MOVED;
		c.deleted += a && a->status == LO_CLEAN_REMOVED;
		c.failed += a && a->status == LO_CLEAN_FAILED;
		c.left += !is_gone(a);
	}
	return c;
}

int lo_report_write_github_summary(FILE *out, const lo_scan_result *res,
				   const lo_clean_result *clean, const char *dir)
{
	const lo_scan_summary *sum = &res->summary;
	struct counts c = count(res, clean);
	size_t i;

	fputs("### leftover: ", out);
	put_md(out, dir);
	fprintf(out, "\n\n%zu files judged: %zu ok, %zu broken, %zu stale, %zu unreadable.\n\n",
		sum->files, sum->by_verdict[LO_VERDICT_OK], sum->by_verdict[LO_VERDICT_BROKEN],
		sum->by_verdict[LO_VERDICT_STALE], sum->by_verdict[LO_VERDICT_UNREADABLE]);
	if (!c.findings) {
		fputs("Nothing broken or stale.\n", out);
		return ferror(out) ? -1 : 0;
	}
	fputs("| verdict | file | why | done |\n| --- | --- | --- | --- |\n", out);
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a = lo_report_action_of(clean, f);
		char *why;

		if (!is_finding(f, a))
			continue;
		why = lo_report_summary_of(f);
		fprintf(out, "| %s | ", lo_verdict_str(f->verdict));
		put_md(out, f->path);
		fputs(" | ", out);
		put_md(out, why);
		fprintf(out, " | %s |\n",
			!a ? "left in place"
			: a->status == LO_CLEAN_MOVED ? "moved to the quarantine"
			: a->status == LO_CLEAN_REMOVED ? "deleted"
			: a->status == LO_CLEAN_FAILED ? "could not be moved"
			: a->status == LO_CLEAN_PLANNED ? "would be moved (dry run)"
							: "left in place");
		free(why);
	}
	if (c.moved) {
		fprintf(out, "\nMoved %zu file%s to ", c.moved, c.moved == 1 ? "" : "s");
		put_md(out, clean->quarantine);
		fputs(". To undo:\n\n```sh\nleftover restore ", out);
		put_shell(out, dir);
		fprintf(out, " %s\n```\n", clean->stamp);
	}
	if (c.deleted)
		fprintf(out, "\nDeleted %zu file%s (no undo).\n", c.deleted, c.deleted == 1 ? "" : "s");
	if (c.left)
		fprintf(out, "\n%zu left in the tree.\n", c.left);
	return ferror(out) ? -1 : 0;
}

int lo_report_write_github_outputs(FILE *out, const lo_scan_result *res,
				   const lo_clean_result *clean)
{
	const lo_scan_summary *sum = &res->summary;
	struct counts c = count(res, clean);

	fprintf(out, "judged=%zu\nok=%zu\nbroken=%zu\nstale=%zu\nunreadable=%zu\n", sum->files,
		sum->by_verdict[LO_VERDICT_OK], sum->by_verdict[LO_VERDICT_BROKEN],
		sum->by_verdict[LO_VERDICT_STALE], sum->by_verdict[LO_VERDICT_UNREADABLE]);
	fprintf(out, "findings=%zu\nmoved=%zu\ndeleted=%zu\nfailed=%zu\nleft=%zu\n", c.findings,
		c.moved, c.deleted, c.failed, c.left);
	/* a stamp is a UTC time: no newline to break the name=value format */
	if (c.moved && clean->stamp)
		fprintf(out, "stamp=%s\n", clean->stamp);
	return ferror(out) ? -1 : 0;
}
