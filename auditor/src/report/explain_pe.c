/*
 * explain_pe.c - Python's "DLL load failed while importing X: ..." explained
 * (explain.h): the module X found in the tree as CPython would import it
 * (X.pyd, or X.<tag>.pyd), and each such file's verdict from the scan,
 * told in Windows' loader's words.
 *
 * Python names the module, not the file, and the loader's sentence only
 * (error 126 "The specified module could not be found.", 127 "The
 * specified procedure could not be found.", 193 "%1 is not a valid Win32
 * application."): the scan's reasons name the DLL and the import.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "leftover/buf.h"
#include "leftover/explain.h"
#include "leftover/report.h"

static const char prefix[] = "DLL load failed while importing ";

char *lo_explain_message_pe_module(const char *message)
{
	const char *at = strstr(message, prefix), *end;

	if (!at)
		return NULL;
	at += strlen(prefix);
	end = at + strcspn(at, ": \t\n");
	return end == at ? NULL : lo_xstrndup(at, (size_t)(end - at));
}

/* Is the file at `path` module `module`: X.pyd or X.<tag>.pyd, compared as Windows does? */
static bool is_module(const char *path, const char *module)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(module), len = strlen(base);

	if (strncasecmp(base, module, n) || len < 4 || strcasecmp(base + len - 4, ".pyd"))
		return false;
	return base[n] == '.' && (n + 4 == len || !strchr(base + n + 1, '.') ||
				  strchr(base + n + 1, '.') == base + len - 4);
}

static void write_file(lo_buf *out, const lo_file *f)
{
	size_t i;

	lo_buf_printf(out, "%s: %s (%s)\n", f->path, lo_verdict_str(f->verdict),
		      lo_verdict_sentence(f->verdict));
	for (i = 0; i < f->reason_count; i++) {
		const lo_reason *r = &f->reasons[i];

		if (r->kind == LO_REASON_UNDEFINED_SYMBOL && r->library && r->symbol)
			lo_buf_printf(out, "  %s!%s: %s\n", r->library, r->symbol, r->detail);
		else
			lo_buf_printf(out, "  %s: %s\n", lo_reason_kind_str(r->kind),
				      r->detail ? r->detail : "");
		if (r->object)
			lo_buf_printf(out, "    (needed by %s)\n", r->object);
	}
}

size_t lo_explain_write_pe(lo_buf *out, const lo_scan_result *res, const char *module,
			   bool *findings)
{
	size_t i, n = 0;

	*findings = false;
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];

		if (!is_module(f->path, module))
			continue;
		if (n++)
			lo_buf_putc(out, '\n');
		write_file(out, f);
		*findings |= lo_verdict_is_finding(f->verdict);
	}
	return n;
}
