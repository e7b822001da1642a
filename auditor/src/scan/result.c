/*
 * result.c - the scan's result as plain data (scan.h): the words of its
 * kinds, its reasons, and freeing it. Nothing here judges: scan.c gathers
 * the facts, verdict.c decides, report*.c and clean*.c read the result.
 */
#include <stdlib.h>

#include "leftover/buf.h"
#include "leftover/scan.h"
#include "scan/scan_int.h"

const char *lo_kind_str(lo_kind k)
{
	switch (k) {
	case LO_KIND_PYTHON_EXTENSION: return "python-extension";
	case LO_KIND_SHARED_LIBRARY: return "shared-library";
	case LO_KIND_OTHER: return "other";
	}
	return "other";
}

static char *dup_or_null(const char *s)
{
	return s ? lo_xstrdup(s) : NULL;
}

lo_reason *lo_file_add_reason(lo_file *f, lo_reason_kind kind, const char *symbol,
			      const char *version, const char *library, const char *object,
			      const char *detail)
{
	lo_reason *r;

	lo_array_grow(&f->reasons, &f->reason_cap, f->reason_count + 1, sizeof(*r));
	r = &f->reasons[f->reason_count++];
	r->kind = kind;
	r->symbol = dup_or_null(symbol);
	r->version = dup_or_null(version);
	r->library = dup_or_null(library);
	r->object = dup_or_null(object);
	r->detail = dup_or_null(detail);
	r->evidence = NULL;
	return r;
}

void lo_reason_dispose(lo_reason *r)
{
	free(r->symbol);
	free(r->version);
	free(r->library);
	free(r->object);
	free(r->detail);
	free(r->evidence);
}

void lo_file_dispose(lo_file *f)
{
	size_t j;

	for (j = 0; j < f->reason_count; j++)
		lo_reason_dispose(&f->reasons[j]);
	free(f->reasons);
	free(f->path);
	free(f->target);
	free(f->host);
	free(f->host_rule);
	free(f->host_inferred);
}

void lo_scan_result_free(lo_scan_result *res)
{
	size_t i;

	if (!res)
		return;
	lo_scan_free(res->scan);
	for (i = 0; i < res->file_count; i++)
		lo_file_dispose(&res->files[i]);
	free(res->files);
	for (i = 0; i < res->link_count; i++)
		lo_file_dispose(&res->links[i]);
	free(res->links);
	for (i = 0; i < res->note_count; i++)
		free(res->notes[i]);
	free(res->notes);
	lo_strv_free(res->details, res->detail_count);
	for (i = 0; i < res->root_count; i++)
		free(res->roots[i]);
	free(res->roots);
	for (i = 0; i < res->origin_count; i++) {
		lo_scan_origin *o = &res->origins[i];

		free(o->build);
		free(o->source);
		free(o->commit);
		free(o->branch);
		free(o->last_commit);
		free(o->last_branch);
		free(o->last_time);
	}
	free(res->origins);
	for (i = 0; i < res->tree_count; i++) {
		free(res->trees[i].dir);
		free(res->trees[i].system);
		free(res->trees[i].records);
	}
	free(res->trees);
	free(res->cache.why);
	free(res->cache.complaint);
	free(res->root);
	free(res);
}
