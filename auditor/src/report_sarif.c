/*
 * report_sarif.c - SARIF 2.1.0 for code-scanning uploads (report_ci.h).
 *
 * One run, one rule per verdict (stale, broken, unreadable), one result per
 * finding located by a URI relative to the base id BUILDROOT, which
 * originalUriBaseIds maps to the scanned root. URIs are percent-encoded
 * byte by byte (RFC 3986 unreserved characters and '/' stay), so any file
 * name survives; messages go through lo_report_quote_path to be UTF-8.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "leftover/buf.h"
#include "leftover/report.h"
#include "leftover/report_ci.h"

#ifndef LEFTOVER_VERSION
#define LEFTOVER_VERSION "0"
#endif

static const struct rule {
	lo_verdict verdict;
	const char *name, *level, *text, *help;
} rules[] = {
	{ LO_VERDICT_BROKEN, "BrokenArtifact", "error",
	  "A shared object or Python extension in the build tree would not load.",
	  "The loader would reject this file (a missing symbol, version or library). Rebuild it, "
	  "or remove it with 'leftover clean --broken' when nothing should load it." },
	{ LO_VERDICT_STALE, "StaleArtifact", "warning",
	  "An artifact the current build no longer produces is still in the build tree.",
	  "Left over from an earlier build, it can shadow what the current build produces. "
	  "'leftover clean' moves it into a quarantine that 'leftover restore' undoes." },
	{ LO_VERDICT_UNREADABLE, "UnreadableArtifact", "warning",
	  "A candidate file could not be read or parsed.",
	  "Check its permissions and whether it is a truncated or corrupt ELF file." },
};

static json_t *text(const char *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "text", json_string(s));
	return o;
}

static char *uri_encode(const char *raw)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	lo_buf b = LO_BUF_INIT;

	lo_buf_puts(&b, "");
	for (p = (const unsigned char *)raw; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p)) {
			lo_buf_putc(&b, (char)*p);
		} else {
			lo_buf_putc(&b, '%');
			lo_buf_putc(&b, hex[*p >> 4]);
			lo_buf_putc(&b, hex[*p & 15]);
		}
	}
	return lo_buf_detach(&b);
}

static json_t *rule_list(void)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		json_t *r = json_object(), *cfg = json_object();

		json_object_set_new(r, "id", json_string(lo_verdict_str(rules[i].verdict)));
		json_object_set_new(r, "name", json_string(rules[i].name));
		json_object_set_new(r, "shortDescription", text(rules[i].text));
		json_object_set_new(r, "fullDescription", text(rules[i].help));
		json_object_set_new(r, "help", text(rules[i].help));
		json_object_set_new(cfg, "level", json_string(rules[i].level));
		json_object_set_new(r, "defaultConfiguration", cfg);
		json_array_append_new(list, r);
	}
	return list;
}

static json_t *result_of(const lo_file *f, const lo_clean_action *a, size_t rule)
{
	json_t *r = json_object(), *loc = json_object(), *phys = json_object(),
	       *art = json_object(), *props = json_object(), *reasons = json_array();
	char *uri = uri_encode(f->path), *summary = lo_report_summary_of(f), *path;
	lo_buf msg = LO_BUF_INIT;
	size_t i;

	path = lo_report_quote_path(f->path);
	lo_buf_printf(&msg, "%s: %s", path, summary);
	if (a && a->status == LO_CLEAN_MOVED)
		lo_buf_puts(&msg, " (moved to the quarantine)");
	else if (a && a->status == LO_CLEAN_REMOVED)
		lo_buf_puts(&msg, " (deleted)");
	json_object_set_new(r, "ruleId", json_string(lo_verdict_str(f->verdict)));
	json_object_set_new(r, "ruleIndex", json_integer((json_int_t)rule));
	json_object_set_new(r, "level", json_string(rules[rule].level));
	json_object_set_new(r, "message", text(msg.ptr));
	json_object_set_new(art, "uri", json_string(uri));
	json_object_set_new(art, "uriBaseId", json_string("BUILDROOT"));
	json_object_set_new(phys, "artifactLocation", art);
	json_object_set_new(loc, "physicalLocation", phys);
	json_object_set_new(r, "locations", json_pack("[o]", loc));
	for (i = 0; i < f->reason_count; i++) {
		char *q = lo_report_quote_path(f->reasons[i].kind);

		json_array_append_new(reasons, json_string(q));
		free(q);
	}
	json_object_set_new(props, "kind", json_string(lo_kind_str(f->kind)));
	json_object_set_new(props, "reasons", reasons);
	if (a)
		json_object_set_new(props, "action", json_string(lo_clean_status_str(a->status)));
	json_object_set_new(r, "properties", props);
	lo_buf_dispose(&msg);
	free(uri);
	free(summary);
	free(path);
	return r;
}

int lo_report_write_sarif(FILE *out, const lo_scan_result *res, const lo_clean_result *clean)
{
	json_t *doc = json_object(), *run = json_object(), *tool = json_object(),
	       *driver = json_object(), *results = json_array(), *base = json_object();
	char *root_uri = uri_encode(res->root);
	lo_buf uri = LO_BUF_INIT;
	size_t i, k;
	int rc;

	json_object_set_new(doc, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(doc, "version", json_string("2.1.0"));
	json_object_set_new(driver, "name", json_string("leftover"));
	json_object_set_new(driver, "version", json_string(LEFTOVER_VERSION));
	json_object_set_new(driver, "semanticVersion", json_string(LEFTOVER_VERSION));
	json_object_set_new(driver, "rules", rule_list());
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	/* a directory URI ends in '/', or relative URIs would resolve against its parent */
	lo_buf_printf(&uri, "file://%s%s", root_uri, root_uri[strlen(root_uri) - 1] == '/' ? "" : "/");
	json_object_set_new(base, "BUILDROOT", json_pack("{s:s}", "uri", uri.ptr));
	json_object_set_new(run, "originalUriBaseIds", base);
	for (i = 0; i < res->file_count; i++) {
		const lo_file *f = &res->files[i];
		const lo_clean_action *a;

		for (k = 0; k < sizeof(rules) / sizeof(rules[0]); k++)
			if (rules[k].verdict == f->verdict)
				break;
		a = lo_report_action_of(clean, f);
		/* a file a rule keeps is, by that rule, no finding */
		if (k < sizeof(rules) / sizeof(rules[0]) && !(a && a->status == LO_CLEAN_KEPT_RULE))
			json_array_append_new(results, result_of(f, a, k));
	}
	json_object_set_new(run, "results", results);
	json_object_set_new(run, "columnKind", json_string("unicodeCodePoints"));
	json_object_set_new(doc, "runs", json_pack("[o]", run));
	rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	fputc('\n', out);
	json_decref(doc);
	lo_buf_dispose(&uri);
	free(root_uri);
	return rc < 0 || ferror(out) ? -1 : 0;
}
